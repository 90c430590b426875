"""What ``sparsekm export`` can write: each problem's formulations and relaxations as models.

A :class:`Form` builds one registered formulation (a Pyomo model) or relaxation (a CVXPY
problem) from the problem and the export's options, and says which file formats can hold it
(:mod:`sparsekm.solvers.files`) and what its variables mean in the paper. The builders call
the models' and relaxations' own functions; nothing is written twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["FORMS", "Form", "forms", "paper_name"]

QUADRATIC = ("lp", "mps", "nl")     # a model of degree <= 2 (cones as quadratic rows)
CONIC_SOC = ("lp", "mps", "nl", "cbf")
CONIC_PSD = ("cbf",)
NONLINEAR = ("nl",)


@dataclass(frozen=True)
class Form:
    """One exportable model: registry ``kind``/``entry`` give its paper reference and class.

    build : (problem, options) -> Pyomo model or CVXPY problem; ``options`` are the export's
        declared options (``M``, ``K``, ``conic``, ...) and ``seed``.
    formats : the formats that can hold it (``formats_for`` narrows by options).
    integer : CVXPY variables written as integer columns (MISDP (13)'s z).
    variables : the model's variable names -> their meaning in the paper.
    """

    name: str
    kind: str
    entry: str
    build: Callable[[Any, dict[str, Any]], Any]
    formats: tuple[str, ...]
    variables: dict[str, str]
    integer: tuple[str, ...] = ()
    note: str = ""
    formats_for: Callable[[dict[str, Any]], tuple[str, ...]] | None = field(default=None,
                                                                          repr=False)

    def allowed(self, options: dict[str, Any]) -> tuple[str, ...]:
        return self.formats_for(options) if self.formats_for is not None else self.formats


# --- paper D: FS-SVM (2) -----------------------------------------------------------------------

FS_LINEAR_VARS = {
    "w": "w_j: weight of feature j (paper D (2))", "b": "b: intercept",
    "xi": "xi_i: slack of row i, Xi (3)",
    "v": "v_j = 1 iff feature j is selected (BigMP (6), SMP / BoxMP relaxed)",
    "u": "u_j = 1 iff w_j = 0 (CoP (7), SR-DLMP (21), DSCoP (13) relaxed)",
    "W": "W_jj: the lifted w_j^2 (perspective / Shor)", "s": "s_j = 1 - u_j (Lemma 4.3)",
    "Zw": "Z_w: Shor matrix of (1, w) (SMP (10))", "Zv": "Z_v: Shor matrix of (1, v) (SMP (10))",
    "Z": "Z: Shor matrix of (1, w, u) (SCoP (11), SCoMP (12))",
}


def _big_m(problem: Any, options: dict[str, Any]) -> float:
    from sparsekm.models.fs_linear import estimate_big_m

    M = options.get("M")
    return estimate_big_m(problem) if M is None else float(M)


def _bigm(problem: Any, options: dict[str, Any]) -> Any:
    from sparsekm.models.fs_linear import bigm_model

    options["M"] = _big_m(problem, options)
    return bigm_model(problem, options["M"])


def _cop(form: str) -> Callable[[Any, dict[str, Any]], Any]:
    def build(problem: Any, options: dict[str, Any]) -> Any:
        from sparsekm.models.fs_linear import cop_model

        return cop_model(problem, form, K=options.get("K"))
    return build


def _sr_dlmp(problem: Any, options: dict[str, Any]) -> Any:
    from sparsekm.models.fs_linear import sr_dlmp_model

    return sr_dlmp_model(problem, options.get("K") or [], M=options.get("M"))


def _relaxed(builder: str, big_m: bool, conic: bool) -> Callable[[Any, dict[str, Any]], Any]:
    """A paper D relaxation's CVXPY problem from its builder in relaxations.fs_linear."""
    def build(problem: Any, options: dict[str, Any]) -> Any:
        from sparsekm.relaxations.fs_linear import box, decomposed, shor

        fn = {"box": box.build_box, "dscop": decomposed.build_dscop,
              "dsmp": decomposed.build_dsmp, "smp": shor.build_smp,
              "scop": shor.build_scop}[builder]
        args: list[Any] = [problem]
        kwargs: dict[str, Any] = {}
        if big_m:
            options["M"] = _big_m(problem, options)
            kwargs["M"] = options["M"]
        if conic:
            kwargs["conic"] = options.get("conic", "soc")
        return fn(*args, **kwargs).problem
    return build


def _by_conic(options: dict[str, Any]) -> tuple[str, ...]:
    return CONIC_PSD if options.get("conic") == "sdp" else CONIC_SOC


FS_LINEAR = {
    "bigm": Form("bigm", "formulation", "bigm", _bigm, QUADRATIC, FS_LINEAR_VARS),
    "cop": Form("cop", "formulation", "cop", _cop("bilinear"), QUADRATIC, FS_LINEAR_VARS,
                note="u_j w_j = 0 as printed (a nonconvex MIQCQP)"),
    "cop-perspective": Form("cop-perspective", "formulation", "cop", _cop("perspective"),
                            QUADRATIC, FS_LINEAR_VARS,
                            note="w_j^2 <= W_j s_j, s_j = 1 - u_j (an MISOCP; same set)"),
    "sr-dlmp": Form("sr-dlmp", "formulation", "sr-dlmp", _sr_dlmp, QUADRATIC, FS_LINEAR_VARS,
                    note="binary u_j for j in --K (none: the SOCP DSCoP (13))"),
    "box": Form("box", "relaxation", "box", _relaxed("box", True, False), CONIC_SOC,
                FS_LINEAR_VARS),
    "dscop": Form("dscop", "relaxation", "dscop", _relaxed("dscop", False, True), CONIC_SOC,
                  FS_LINEAR_VARS, formats_for=_by_conic),
    "dscomp": Form("dscomp", "relaxation", "dscomp", _relaxed("dscop", True, True),
                   CONIC_SOC, FS_LINEAR_VARS, formats_for=_by_conic),
    "dsmp": Form("dsmp", "relaxation", "dsmp", _relaxed("dsmp", True, True), CONIC_SOC,
                 FS_LINEAR_VARS, formats_for=_by_conic),
    "shor-bigm": Form("shor-bigm", "relaxation", "shor-bigm", _relaxed("smp", True, False),
                      CONIC_PSD, FS_LINEAR_VARS),
    "shor-cop": Form("shor-cop", "relaxation", "shor-cop", _relaxed("scop", False, False),
                     CONIC_PSD, FS_LINEAR_VARS),
    "shor-cop-bigm": Form("shor-cop-bigm", "relaxation", "shor-cop-bigm",
                          _relaxed("scop", True, False), CONIC_PSD, FS_LINEAR_VARS),
}

# --- paper B: sparse MKL (4) -------------------------------------------------------------------

SMKL_VARS = {
    "eta": "eta: intercept", "theta": "theta: epigraph of 1/2 a'K(beta)a (13)",
    "sigma": "sigma_i: hinge slack of row i", "gamma": "gamma_i: (13)'s margin vector",
    "beta": "beta_k: weight of kernel k", "omega": "omega_k >= beta_k^2 / z_k",
    "z": "z_k = 1 iff kernel k is used", "tau": "tau_j: (15)'s eigen-blocks",
}


def _smkl(cone: str) -> Callable[[Any, dict[str, Any]], Any]:
    def build(problem: Any, options: dict[str, Any]) -> Any:
        from sparsekm.models.smkl.misdp import conic_model

        kwargs = {"n_vectors": options.get("n_vectors", 100), "seed": options.get("seed", 0)}
        return conic_model(problem, integer=False, cone=cone, **kwargs)[0]
    return build


SMKL = {
    "misdp": Form("misdp", "formulation", "misdp", _smkl("psd"), CONIC_PSD, SMKL_VARS,
                  integer=("z",), note="z integer in [0, 1]: the binaries of (13)"),
    "sdp-full": Form("sdp-full", "relaxation", "sdp-full", _smkl("psd"), CONIC_PSD, SMKL_VARS),
    "soc-diag": Form("soc-diag", "relaxation", "soc-diag", _smkl("diag"), CONIC_SOC,
                     SMKL_VARS),
    "soc-basis": Form("soc-basis", "relaxation", "soc-basis", _smkl("soc-basis"), CONIC_SOC,
                      SMKL_VARS),
    "soc-random": Form("soc-random", "relaxation", "soc-random", _smkl("soc-random"),
                       CONIC_SOC, SMKL_VARS),
    "sdp-3x3": Form("sdp-3x3", "relaxation", "sdp-3x3", _smkl("3x3"), CONIC_PSD, SMKL_VARS,
                    note="all m(m-1)/2 minors of (18) at once"),
}

# --- paper A: MINLP (4) ------------------------------------------------------------------------

FS_KERNEL_VARS = {"alpha": "alpha_i: SVM dual variable of row i",
                  "beta": "beta_j = 1 iff feature j is selected",
                  "s": "s_ih = sum_j g_j^ih beta_j (auxiliary, one per pair i <= h)"}


def _minlp(relax: bool) -> Callable[[Any, dict[str, Any]], Any]:
    def build(problem: Any, options: dict[str, Any]) -> Any:
        from sparsekm.models.fs_kernel.minlp import fs_kernel_minlp

        return fs_kernel_minlp(problem, relax=relax, aux=options.get("aux", True))
    return build


FS_KERNEL = {
    "minlp": Form("minlp", "formulation", "minlp", _minlp(False), NONLINEAR, FS_KERNEL_VARS),
    "minlp-relaxed": Form("minlp-relaxed", "formulation", "minlp", _minlp(True), NONLINEAR,
                          FS_KERNEL_VARS, note="beta in [0, 1] (the Ipopt baseline)"),
}

# --- paper E: min-max feature weighting (14) ---------------------------------------------------

MINMAX_VARS = {"gamma": "gamma_j: weight of feature j in the kernel (13)",
               "alpha": "alpha_i: lower-level SVM dual variable", "nu": "nu: multiplier of "
               "y'alpha = 0 (18)", "lambda0": "lambda0_i: multiplier of alpha_i >= 0 (18)",
               "lambdaC": "lambdaC_i: multiplier of alpha_i <= C (18)",
               "z": "z: epigraph variable of (19)"}


def _minmax(name: str) -> Callable[[Any, dict[str, Any]], Any]:
    def build(problem: Any, options: dict[str, Any]) -> Any:
        from sparsekm.models.minmax_fs import pyomo_models as pm

        if name == "minmax":
            return pm.minmax_model(problem)
        fn = pm.epigraph_model if name == "epigraph" else pm.single_level_model
        return fn(problem, box=options.get("box", True),
                  objective=options.get("objective", "printed"))
    return build


MINMAX_FS = {
    "single-level": Form("single-level", "formulation", "single-level", _minmax("single"),
                         NONLINEAR, MINMAX_VARS),
    "epigraph": Form("epigraph", "formulation", "epigraph", _minmax("epigraph"), NONLINEAR,
                     MINMAX_VARS),
    "minmax": Form("minmax", "formulation", "minmax", _minmax("minmax"), QUADRATIC,
                   MINMAX_VARS, note="(14) at gamma = 1/n (the start), a concave QP"),
}

FORMS: dict[str, dict[str, Form]] = {"fs-linear": FS_LINEAR, "smkl": SMKL,
                                     "fs-kernel": FS_KERNEL, "minmax-fs": MINMAX_FS}

AUX = {"cone_t": "auxiliary: t >= ||z|| of a second-order cone",
       "cone_z": "auxiliary: an entry z of a second-order cone",
       "ONE_VAR_CONSTANT": "the constant 1 (carries the objective's constant)"}


def forms(problem: str) -> dict[str, Form]:
    """The exportable forms of ``problem`` (empty when none)."""
    return FORMS.get(problem, {})


def paper_name(base: str, index: Any, variables: dict[str, str]) -> str:
    """The paper's name of model variable ``base[index]``: ``w_3``, ``xi_12``, ``b``; an
    auxiliary variable is named for what it is."""
    if base in AUX:
        return AUX[base] if index is None else f"{AUX[base]} [{index}]"
    if base not in variables:
        return f"auxiliary {base}" + ("" if index is None else f"[{index}]")
    if index is None:
        return base
    if isinstance(index, tuple):
        return f"{base}_{','.join(map(str, index))}"
    return f"{base}_{index}"
