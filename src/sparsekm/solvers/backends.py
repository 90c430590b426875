"""Declarations of every backend: frameworks, problem classes, option maps, probes.

Adding a solver = one ``Backend(...)`` entry here. Each declares, per modelling framework, the
problem classes it handles and how the common options map onto its own parameter names.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import io
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from .cvxpy_adapter import CvxpyAdapter, interior_point_bound, no_certified_bound
from .ipopt_adapter import IpoptAdapter
from .pyomo_adapter import PyomoAdapter
from .qp import ClarabelMatrixAdapter, matrix_adapter
from .types import ProblemClass as PC
from .types import SolverOptions

LP, QP, MILP, MIQP = PC.LP, PC.QP, PC.MILP, PC.MIQP
SOCP, MISOCP, SDP, EXP, NLP, MINLP = PC.SOCP, PC.MISOCP, PC.SDP, PC.EXP, PC.NLP, PC.MINLP


@dataclass(frozen=True)
class Availability:
    """Result of probing a backend on this machine."""

    installed: bool
    licensed: bool
    version: str = ""
    note: str = ""

    @property
    def usable(self) -> bool:
        return self.installed and self.licensed


@dataclass
class Backend:
    """A solver and the framework adapters through which sparsekm can reach it."""

    name: str
    display: str
    module: str
    dist: str
    commercial: bool
    adapters: dict[str, Any]
    probe: Callable[[], tuple[bool, str]] | None = None  # -> (licensed, note)
    extra: str = ""  # pip extra that installs it
    engine_version: Callable[[], str] | None = None  # the solver's own version, if not dist's

    def __post_init__(self) -> None:
        if "matrix" not in self.adapters and (m := matrix_adapter(self.adapters)) is not None:
            self.adapters["matrix"] = m

    @property
    def classes(self) -> frozenset[PC]:
        out: set[PC] = set()
        for a in self.adapters.values():
            out |= a.classes
        return frozenset(out)

    def availability(self) -> Availability:
        return _availability(self.name)


# --- option maps (common option -> native parameter) ----------------------------------------
def _opts(**names: str) -> Callable[[SolverOptions], dict[str, Any]]:
    """Flat option map: ``_opts(time_limit="TimeLimit", ...)``."""

    def mapper(o: SolverOptions) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for common, native in names.items():
            val = getattr(o, common)
            if val is not None:
                out[native] = val
        return out

    return mapper


def _nested(key: str, **names: str) -> Callable[[SolverOptions], dict[str, Any]]:
    """Option map whose parameters go in one dict argument (e.g. ``scip_params``)."""
    flat = _opts(**names)
    return lambda o: {key: flat(o)} if flat(o) else {}


# --- engine versions (the wrapper package's version is not the solver's) ------------------
def _scip_version() -> str:
    import pyscipopt

    m = pyscipopt.Model()
    return f"{m.getMajorVersion()}.{m.getMinorVersion()}.{m.getTechVersion()}"


def _ipopt_version() -> str:
    import cyipopt

    return ".".join(str(v) for v in cyipopt.IPOPT_VERSION)


# --- licence probes --------------------------------------------------------------------------
def _probe_gurobi() -> tuple[bool, str]:
    import gurobipy as gp

    with contextlib.redirect_stdout(io.StringIO()) as out, gp.Env(empty=True) as env:
        env.setParam("OutputFlag", 0)
        env.start()
        with gp.Model(env=env) as m:
            x = m.addVars(201, ub=1.0)
            m.setObjective(gp.quicksum(x[i] * x[i] for i in range(201)))
            try:
                m.optimize()
                return True, ""
            except gp.GurobiError as exc:
                if "size-limited" in str(exc):
                    return True, ("size-limited licence (<=200 variables in all once a "
                                  "quadratic term is present)")
                raise
    del out


def _probe_cplex() -> tuple[bool, str]:
    import cplex

    c = cplex.Cplex()
    for stream in ("set_log_stream", "set_results_stream", "set_warning_stream",
                   "set_error_stream"):
        getattr(c, stream)(None)
    c.variables.add(obj=[1.0] * 1001, ub=[1.0] * 1001)
    try:
        c.solve()
        return True, ""
    except cplex.exceptions.CplexError as exc:
        if "1016" in str(exc):
            return True, "Community Edition (<=1000 variables and constraints)"
        raise


def _probe_xpress() -> tuple[bool, str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import xpress as xp

        p = xp.problem()
        p.addVariable()
        p.setControl("outputlog", 0)
        p.optimize() if hasattr(p, "optimize") else p.solve()
    community = any("Community" in str(w.message) for w in caught)
    return True, "community licence (rows+cols <=5000, <=200 with quadratic terms)" \
        if community else ""


def _probe_mosek() -> tuple[bool, str]:
    import mosek

    with mosek.Env() as env:
        try:
            env.checkoutlicense(mosek.feature.pts)
        except mosek.Error as exc:
            return False, (f"no MOSEK licence ({str(exc).strip().splitlines()[0][:100]}); put "
                           "mosek.lic in ~/mosek/ or set MOSEKLM_LICENSE_FILE")
    return True, ""


# --- the backends ----------------------------------------------------------------------------
_ALL_CONTINUOUS_CONIC = {LP, QP, SOCP, SDP, EXP}

BACKENDS: dict[str, Backend] = {b.name: b for b in [
    Backend("highs", "HiGHS", "highspy", "highspy", False, {
        "pyomo": PyomoAdapter("highs", {LP, QP, MILP},
                              _opts(time_limit="time_limit", mip_gap="mip_rel_gap",
                                    threads="threads")),
        "cvxpy": CvxpyAdapter("HIGHS", {LP, QP, MILP},
                              _opts(time_limit="time_limit", mip_gap="mip_rel_gap",
                                    threads="threads")),
    }),
    Backend("scip", "SCIP", "pyscipopt", "pyscipopt", False, {
        "pyomo": PyomoAdapter("scip_direct", {LP, QP, MILP, MIQP, SOCP, MISOCP, NLP, MINLP},
                              _opts(time_limit="limits/time", mip_gap="limits/gap",
                                    threads="parallel/maxnthreads")),
        "cvxpy": CvxpyAdapter("SCIP", {LP, QP, MILP, MIQP, SOCP, MISOCP},
                              _nested("scip_params", time_limit="limits/time",
                                      mip_gap="limits/gap")),
    }, engine_version=_scip_version),
    Backend("clarabel", "Clarabel", "clarabel", "clarabel", False, {
        "cvxpy": CvxpyAdapter("CLARABEL", _ALL_CONTINUOUS_CONIC, _opts(time_limit="time_limit"),
                              dual_bound=interior_point_bound()),
        "matrix": ClarabelMatrixAdapter(),
    }),
    Backend("scs", "SCS", "scs", "scs", False, {
        "cvxpy": CvxpyAdapter("SCS", _ALL_CONTINUOUS_CONIC,
                              _opts(time_limit="time_limit_secs"),
                              dual_bound=no_certified_bound),
    }),
    Backend("ipopt", "Ipopt", "cyipopt", "cyipopt-wheels", False, {
        "pyomo": IpoptAdapter("pyomo", {LP, QP, NLP}),
        "callbacks": IpoptAdapter("callbacks", {NLP}),
    }, engine_version=_ipopt_version),
    Backend("gurobi", "Gurobi", "gurobipy", "gurobipy", True, {
        "pyomo": PyomoAdapter("gurobi_direct_minlp",
                              {LP, QP, MILP, MIQP, SOCP, MISOCP, NLP, MINLP},
                              _opts(time_limit="TimeLimit", mip_gap="MIPGap",
                                    threads="Threads")),
        "cvxpy": CvxpyAdapter("GUROBI", {LP, QP, MILP, MIQP, SOCP, MISOCP},
                              _opts(time_limit="TimeLimit", mip_gap="MIPGap",
                                    threads="Threads")),
    }, probe=_probe_gurobi, extra="gurobi"),
    Backend("cplex", "CPLEX", "cplex", "cplex", True, {
        "pyomo": PyomoAdapter("cplex_direct", {LP, QP, MILP, MIQP, SOCP, MISOCP},
                              _opts(time_limit="timelimit", mip_gap="mip_tolerances_mipgap",
                                    threads="threads")),
        "cvxpy": CvxpyAdapter("CPLEX", {LP, QP, MILP, MIQP, SOCP, MISOCP},
                              _nested("cplex_params", time_limit="timelimit",
                                      mip_gap="mip.tolerances.mipgap", threads="threads")),
    }, probe=_probe_cplex, extra="cplex"),
    Backend("xpress", "Xpress", "xpress", "xpress", True, {
        "pyomo": PyomoAdapter("xpress_direct", {LP, QP, MILP, MIQP, SOCP, MISOCP},
                              _opts(time_limit="maxtime", mip_gap="miprelstop",
                                    threads="threads")),
        "cvxpy": CvxpyAdapter("XPRESS", {LP, QP, MILP, MIQP, SOCP, MISOCP},
                              _opts(time_limit="maxtime", mip_gap="miprelstop")),
    }, probe=_probe_xpress, extra="xpress"),
    Backend("mosek", "MOSEK", "mosek", "mosek", True, {
        "pyomo": PyomoAdapter("mosek_direct", {LP, QP, MILP, MIQP, SOCP, MISOCP},
                              _opts(time_limit="dparam.optimizer_max_time",
                                    mip_gap="dparam.mio_tol_rel_gap")),
        "cvxpy": CvxpyAdapter("MOSEK", {LP, QP, MILP, MIQP, SOCP, MISOCP, SDP, EXP},
                              _nested("mosek_params",
                                      time_limit="MSK_DPAR_OPTIMIZER_MAX_TIME",
                                      mip_gap="MSK_DPAR_MIO_TOL_REL_GAP")),
    }, probe=_probe_mosek, extra="mosek"),
]}

_ALIASES = {"gurobi_direct": "gurobi", "gurobi_direct_minlp": "gurobi", "scip_direct": "scip",
            "cplex_direct": "cplex", "xpress_direct": "xpress", "mosek_direct": "mosek",
            "appsi_highs": "highs", "cyipopt": "ipopt"}


def canonical_name(name: str) -> str:
    """Lower-case registry key for a user-typed solver name (``SCIP``, ``scip_direct``...)."""
    key = name.strip().lower()
    return _ALIASES.get(key, key)


@cache
def _availability(name: str) -> Availability:
    b = BACKENDS[name]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            importlib.import_module(b.module)
    except Exception as exc:  # noqa: BLE001 - any import failure means "not installed"
        hint = f"pip install sparsekm[{b.extra}]" if b.extra else f"pip install {b.dist}"
        return Availability(False, False, "", f"not installed ({type(exc).__name__}); {hint}")
    try:
        version = b.engine_version() if b.engine_version else importlib.metadata.version(b.dist)
    except Exception:  # noqa: BLE001 - a version we cannot read is not fatal
        version = ""
    if b.probe is None:
        return Availability(True, True, version, "")
    try:
        licensed, note = b.probe()
    except Exception as exc:  # noqa: BLE001 - a failed probe means no usable licence
        return Availability(True, False, version, f"licence check failed: {str(exc)[:160]}")
    return Availability(True, licensed, version, note)
