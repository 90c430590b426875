"""Paper B (sparse MKL): the convex relaxations (14)-(18) of the MISDP (13), with certified
lower bounds on (4), and the cutting-plane solution of (14) in the space of beta."""
