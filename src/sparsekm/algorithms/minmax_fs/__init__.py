"""Paper E's methods (fast value-function route, Ipopt and SCIP on (20)) and Algorithm 1."""
