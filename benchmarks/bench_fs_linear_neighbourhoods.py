"""Is ``bnb``'s gap on wide data the incumbent's or the bound's? Two measurements.

``neighbourhoods``: the incumbent of a short ``bnb`` run (2 workers) is compared with the
optimum of (2) restricted to its support plus K more features (``bnb`` on 1 worker): the K
top-ranked ones by the
root relaxation's d_j^2 (d = X'(alpha y) at the root's alpha, the ranking ``bnb`` uses), or
K drawn (seeded) from the top 4K. A restricted problem certified at the incumbent says
every better support uses a feature outside it; one that is not certified says how hard even
a narrow instance is for the bound.

``partition``: the tree could split the full problem into "support within the top K" (the
restricted problem above) and "at least one feature outside the top K". The second child's
bound, by the Lagrangian of the perspective bound (Lemma 4.3 of paper D), is

    max_alpha  1'alpha - 1/2 (max_{j outside} d_j^2 + sum_largest(d^2, B - 1)),
    0 <= alpha <= C, y'alpha = 0,

(the inner support holds one outside feature; the bound is valid because the inner sum is at
most that). Solved by Clarabel through CVXPY. The split helps only if this reaches the
incumbent. Not part of CI. Usage (repository root):

    PYTHONPATH=src python benchmarks/bench_fs_linear_neighbourhoods.py \
        [--sets colorectal dlbcl lymphoma] [--B 20] [--C 1] [--bnb-seconds 60]
        [--restricted-seconds 60]

Writes benchmarks/results/fs_linear_neighbourhoods.md / .json.
"""

from __future__ import annotations

import argparse
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import cvxpy as cp  # noqa: E402
import numpy as np  # noqa: E402
from bench_fs_linear_node_bounds import _clock, _since, problem  # noqa: E402
from results_io import write_results  # noqa: E402

from sparsekm.algorithms.fs_linear import solve_fs_linear  # noqa: E402
from sparsekm.models.fs_linear import FSLinearProblem  # noqa: E402
from sparsekm.relaxations.fs_linear.node import solve_node  # noqa: E402
from sparsekm.solvers import SolverPlan  # noqa: E402

SIZES = (40, 120)
SPLITS = (40, 140, 300, 600, 1000)


def neighbourhoods(p: FSLinearProblem, support: list[int], rank: np.ndarray,
                   seconds: float) -> list[dict]:
    """``bnb`` on (2) restricted to the support plus K top-ranked (or sampled) features:
    the best value found in ``seconds``, its bound and status."""
    rng, rows = np.random.default_rng(0), []
    for K in SIZES:
        pool = [int(j) for j in rank if j not in support]
        for how in ("top", "sampled"):
            extra = pool[:K] if how == "top" else list(rng.choice(pool[:4 * K], K, False))
            cand = np.array(sorted(set(support) | {int(j) for j in extra}))
            q = FSLinearProblem(p.X[:, cand], p.y, B=p.B, C=p.C)
            t = _clock()
            res = solve_fs_linear(q, "bnb", SolverPlan(time_limit=seconds), workers=1)
            wall, cpu = _since(t)
            rows.append({"K": K, "how": how, "features": int(cand.size),
                         "objective": res.objective, "bound": res.bound,
                         "status": res.status, "wall_s": wall, "cpu_s": cpu})
            print(rows[-1], flush=True)
    return rows


def partition_bounds(p: FSLinearProblem, rank: np.ndarray) -> list[dict]:
    """The bound of the child "at least one feature outside the top K", per K."""
    a = cp.Variable(p.m)
    sq = cp.square(p.X.T @ cp.multiply(a, p.y))
    base = [a >= 0, a <= p.C, p.y @ a == 0]
    rows = []
    for K in SPLITS:
        t = cp.Variable()
        pr = cp.Problem(cp.Maximize(cp.sum(a) - 0.5 * (t + cp.sum_largest(sq, p.B - 1))),
                        base + [sq[rank[K:]] <= t])
        pr.solve(solver="CLARABEL")
        rows.append({"K": K, "bound": float(pr.value)})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", nargs="+", default=["colorectal", "dlbcl", "lymphoma"])
    ap.add_argument("--B", type=int, default=20)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--bnb-seconds", type=float, default=60.0)
    ap.add_argument("--restricted-seconds", type=float, default=60.0)
    args = ap.parse_args()
    lines = ["<!-- bench_fs_linear_neighbourhoods.py: the incumbent's run on 2 workers, the "
             "restricted ones on 1 (not started from the incumbent); wall / CPU s on the "
             "shared 2-core machine -->", ""]
    data = []
    for name in args.sets:
        p = problem(name, args.B, args.C)
        root = solve_node(p, SolverPlan(), np.zeros(0, int), np.arange(p.n), p.B)
        rank = np.argsort(-root.s2, kind="stable")
        inc = solve_fs_linear(p, "bnb", SolverPlan(time_limit=args.bnb_seconds), workers=2)
        hoods = neighbourhoods(p, sorted(inc.selected), rank, args.restricted_seconds)
        parts = partition_bounds(p, rank)
        data.append({"data": name, "B": p.B, "C": p.C, "root_bound": root.bound,
                     "incumbent": inc.objective, "incumbent_bound": inc.bound,
                     "neighbourhoods": hoods, "partition": parts})
        lines += [f"## {name}, B = {p.B}, C = {p.C:g}", "",
                  f"Incumbent of a {args.bnb_seconds:g} s `bnb` run: {inc.objective:.6f} "
                  f"(bound {inc.bound:.6f}); root bound {root.bound:.6f}.", "",
                  "| K | features | best found (restricted) | its bound | status | wall s "
                  "| CPU s |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {h['K']} {h['how']} | {h['features']} | {h['objective']:.6f} | "
                  f"{h['bound']:.6f} | {h['status']} | {h['wall_s']} | {h['cpu_s']} |"
                  for h in hoods]
        lines += ["", "| K | bound of 'one feature outside the top K' |", "|---|---|"]
        lines += [f"| {r['K']} | {r['bound']:.6f} |" for r in parts] + [""]
    write_results("fs_linear_neighbourhoods", lines, data)


if __name__ == "__main__":
    main()
