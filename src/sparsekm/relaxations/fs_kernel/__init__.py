"""Paper A's relaxation: the MINLP (4) with beta in [0, 1] (an NLP, Ipopt's baseline)."""
