"""``--solver`` on every registered method (the loop is over the registry): a method either
uses it for a part of its work (the JSON's ``params`` records it and its ``solvers`` names it
for that part) or refuses it in one line that names ``--solver`` and says what it runs; a
solver that cannot take a part's models is refused with the ones that can. The JSON names the
solver of every part (``bnb``'s node bounds by their engine, never "default-socp")."""

from __future__ import annotations

import pytest
from cli_checks import refused, run_json

from sparsekm import registry
from sparsekm.run import command
from sparsekm.run.solver_parts import _able

DATA = {
    "fs-linear": ("--data", "wholesale", "--rows", "40", "--B", "2", "--C", "1"),
    "fs-kernel": ("--data", "haberman", "--train-rows", "20", "--B", "2"),
    "smkl": ("--data", "diabetes", "--rows", "40", "--kernels", "linear,rbf:0.5", "--k0", "1"),
    "sklr": ("--data", "sonar", "--test-size", "0.8", "--C", "1"),
    "minmax-fs": ("--data", "wine", "--test-size", "0.8"),
}
# methods that take only some values of a problem parameter
EXTRA = {("fs-kernel", m): ("--sense", "paper") for m in ("minlp", "decsub", "relax-round")}
METHODS = [(e.problem, e.name) for e in registry.entries(kind="method")]


def _users(entry) -> list:
    """The parts that --solver reaches with the method's default options (no other solver
    flag given)."""
    return [p for p in entry.parts.values() if p.runs(entry.options) and "solver" in p.flags]


def test_every_method_declares_what_solves_its_parts() -> None:
    for e in registry.entries(kind="method"):
        assert e.parts, f"{e.problem} {e.name} declares no parts (registry.uses_solvers)"
        for name, part in e.parts.items():
            assert part.what and (part.flags or part.default), (e.name, name)


@pytest.mark.parametrize(("problem", "method"), METHODS, ids=[f"{p}-{m}" for p, m in METHODS])
def test_solver_is_used_or_refused(problem: str, method: str) -> None:
    entry = registry.get(problem, "method", method)
    assert command("solve", problem).entry(method) is entry
    flags = (*DATA[problem], *EXTRA.get((problem, method), ()), "--method", method,
             "--time-limit", "20")
    users = _users(entry)
    if not users:
        line = refused("solve", problem, *flags, "--solver", "highs")
        assert line.startswith("error: --solver highs: method ") and "takes no --solver" in line
        for part in entry.parts.values():
            if part.runs(entry.options):
                assert part.what in line and (part.default or "") in line
        return
    able = _able(users[0], entry.options)
    assert able, (problem, method)
    solver = "scip" if "scip" in able else able[0]
    out = run_json("solve", problem, *flags, "--solver", solver)
    assert out["params"]["solver"] == solver
    assert out["status"] in ("optimal", "feasible", "locally_optimal", "bound_only")
    reached = [n for n, p in entry.parts.items() if p in users]
    assert all(out["solvers"][n] == solver for n in reached), out["solvers"]
    assert set(out["solvers"]) == {n for n, p in entry.parts.items() if p.runs(entry.options)}
    wrong = next((s for s in ("highs", "clarabel", "scs", "libsvm") if s not in able), None)
    if wrong is not None:
        line = refused("solve", problem, *flags, "--solver", wrong)
        assert line.startswith(f"error: --solver {wrong}: method {method} ")
        assert "solvers that can: " in line or "takes no --solver" in line


def test_bnb_uses_solver_only_for_its_root_miqps() -> None:
    """bnb's node bounds and SVMs take --relax-solver / --qp-solver; --solver reaches only
    the root MIQPs of root_search=local-search / kernel-search, and is then recorded."""
    flags = (*DATA["fs-linear"], "--method", "bnb")
    line = refused("solve", "fs-linear", *flags, "--solver", "scip")
    assert "takes no --solver with these options" in line and "--relax-solver" in line
    assert "root_search=local-search or kernel-search" in line
    out = run_json("solve", "fs-linear", *flags, "--solver", "scip", "-o",
                   "root_search=local-search", "-o", "cop_form=perspective")
    assert out["solvers"]["miqp"] == "scip" and out["params"]["solver"] == "scip"
    assert out["solvers"]["node_bound"] == out["solver"] == "sparsekm node-active-set"
    plain = run_json("solve", "fs-linear", *flags)
    assert "default" not in plain["solver"] and plain["solvers"]["node_bound"] == plain["solver"]
    assert plain["solvers"]["svm"] == "sparsekm linear-svm ipm"
    line = refused("solve", "fs-linear", *flags, "--solver", "cplex", "-o",
                   "root_search=local-search")
    assert "as MINLP models; solvers that can: " in line and "cplex" not in line.split(":")[-1]
