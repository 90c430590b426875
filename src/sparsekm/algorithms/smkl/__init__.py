"""Paper B (sparse MKL): Algorithm 1 (ABR), the exact branch-and-bound, the baselines."""
