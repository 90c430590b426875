"""``sparsekm demo``: a short, readable report on a bundled dataset.

Each problem's module of this package contributes ``demo_section(ds, quick) -> list[str]``;
the sections run in ``RANK`` order after the foundation's own (solvers, data, plain SVM).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import ModuleType


def _rule(title: str) -> str:
    return f"\n== {title} " + "=" * max(0, 66 - len(title))


def run_demo(data: str, quick: bool = False) -> Iterator[str]:
    """Yield the report's lines (printed as they come)."""
    from sparsekm.data import load_dataset
    from sparsekm.models.svm import SVMProblem
    from sparsekm.run.data import scale_fit_transform
    from sparsekm.run.svm import solve_svm
    from sparsekm.solvers import usable_solvers

    t0 = time.perf_counter()
    yield "sparsekm demo"
    yield _rule("Solvers usable on this machine")
    for cls in ("LP", "QP", "MIQP", "MISOCP", "SOCP", "SDP", "NLP", "MINLP"):
        yield f"  {cls:<7} {', '.join(usable_solvers(cls)) or '(none)'}"
    ds = load_dataset(data)
    yield _rule(f"Data: {ds.name}")
    yield f"  m = {ds.m} samples, n = {ds.n} features, +1 class = {(ds.y > 0).mean():.1%}"
    yield f"  source: {ds.citation[:100]}"
    ds = scale_fit_transform("standard", ds)
    yield _rule("Plain RBF SVM (C = 10): fast path vs declarative dual QP")
    rows = ds.m if not quick else min(ds.m, 150)
    sub = ds.head(rows)
    for solver in (None, "clarabel"):
        out = solve_svm(SVMProblem(sub.X, sub.y, kernel="rbf", C=10.0), solver, None, 1e-6)
        yield (f"  {out['method']:<12} {out['solver']:<9} primal = {out['objective']:.6f}  "
               f"lower bound = {out['bound']:.6f}  gap = {out['gap']:.1e}  "
               f"({out['time_s']:.2f} s, m = {rows})")
    for mod in _sections():
        yield from mod.demo_section(ds, quick=quick)
    yield f"\nDone in {time.perf_counter() - t0:.1f} s."


def _sections() -> list[ModuleType]:
    """The problems' demo modules of this package, in ``RANK`` order."""
    import importlib
    import pkgutil

    mods = [importlib.import_module(f"{__name__}.{info.name}")
            for info in pkgutil.iter_modules(__path__)]
    return sorted(mods, key=lambda m: (m.RANK, m.__name__))
