"""Command-line interface: ``sparsekm solvers | datasets | solve | relax | demo``."""

import warnings

# Third-party deprecation notices (e.g. Pyomo's Xpress plugin, emitted when the command modules
# import pyomo.environ) are not the CLI user's concern.
warnings.filterwarnings("ignore", category=DeprecationWarning)
