"""Command-line interface: ``sparsekm solvers | datasets | solve | relax | demo``."""
