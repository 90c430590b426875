"""Do optimality (Benders) cuts raise the perspective bound of FS-SVM (2)?

For a dual point alpha^k of the SVM (1), weak duality gives, for every support S with
|S| <= B, f(S) >= sum(alpha^k) - 1/2 sum_{j in S} g_j(alpha^k), g_j(a) = (sum_i a_i y_i
x_ij)^2. A support that beats the incumbent UB therefore satisfies the knapsack cut
sum_j g_j(alpha^k) z_j >= c_k = 2 (sum(alpha^k) - UB). The perspective bound (dual of (13))
with these cuts added in z is, by minimax,

    max_{alpha, mu >= 0}  sum(alpha) + c'mu - sum_largest(g(alpha)/2 + G mu, B)

(G's columns g(alpha^k)); mu = 0 is the perspective bound. Cut points: the SVM duals of the
supports of ``fast`` from six seeds, of the incumbent of a short ``bnb`` run (its UB), then
eight rounds adding the SVM dual at the top-B support of the strengthened bound's alpha.
Each bound is solved by Clarabel through CVXPY. Not part of CI. Usage (repository root):

    python benchmarks/bench_fs_linear_optimality_cuts.py [--sets colorectal dlbcl lymphoma]
        [--B 20] [--C 1] [--rounds 8] [--bnb-seconds 30]

Writes benchmarks/results/fs_linear_optimality_cuts.md / .json.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from results_io import write_results

from sparsekm.algorithms.fs_linear.bnb import bnb
from sparsekm.algorithms.fs_linear.iterated_swap import iterated_search
from sparsekm.data import Scaler, load_dataset
from sparsekm.engines.linear_svm import solve_linear_svm
from sparsekm.models.fs_linear import FSLinearProblem
from sparsekm.solvers import SolverPlan


def strengthened_bound(Yx: np.ndarray, y: np.ndarray, B: int, C: float,
                       G: np.ndarray | None, c: np.ndarray | None) -> tuple[float, np.ndarray]:
    """max over (alpha, mu) of the bound above (the perspective bound when G is None)."""
    import cvxpy as cp

    alpha = cp.Variable(len(y))
    objective = cp.sum(alpha)
    v = 0.5 * cp.square(Yx.T @ alpha)
    if G is not None:
        mu = cp.Variable(G.shape[1], nonneg=True)
        v, objective = v + G @ mu, objective + c @ mu
    prob = cp.Problem(cp.Maximize(objective - cp.sum_largest(v, B)),
                      [alpha >= 0, alpha <= C, y @ alpha == 0])
    prob.solve(solver="CLARABEL")
    return float(prob.value), np.clip(np.asarray(alpha.value), 0.0, C)


def svm_dual(X: np.ndarray, y: np.ndarray, S: np.ndarray, C: float) -> tuple[float, np.ndarray]:
    """(f(S), alpha) of the SVM (1) on support S (the native solver)."""
    fit = solve_linear_svm(X[:, S], y, C)
    return float(fit.primal), np.asarray(fit.alpha)


def study(name: str, B: int, C: float, rounds: int, bnb_seconds: float) -> dict:
    ds = load_dataset(name)
    X, y = Scaler("standard").fit(ds.X).transform(ds.X), ds.y
    p = FSLinearProblem(X, y, B=B, C=C)
    Yx = X * y[:, None]

    def g(a: np.ndarray) -> np.ndarray:
        return (Yx.T @ a) ** 2

    points = [np.asarray(iterated_search(p, SolverPlan(), seed=s, restarts=10).selected)
              for s in range(6)]
    tree = bnb(p, SolverPlan(time_limit=bnb_seconds))
    points.append(np.asarray(tree.selected))
    duals = [svm_dual(X, y, S, C) for S in points]
    ub = min(f for f, _ in duals)
    t0 = time.perf_counter()
    base, alpha = strengthened_bound(Yx, y, B, C, None, None)
    t_base = time.perf_counter() - t0
    alphas = [a for _, a in duals]
    history = []
    for r in range(rounds + 1):
        G = np.column_stack([g(a) for a in alphas])
        c = np.array([2.0 * (a.sum() - ub) for a in alphas])
        t0 = time.perf_counter()
        value, alpha = strengthened_bound(Yx, y, B, C, G, c)
        history.append({"round": r, "cuts": len(alphas), "bound": value, "ub": ub,
                        "gap": (ub - value) / ub, "s": time.perf_counter() - t0})
        f, a = svm_dual(X, y, np.argsort(-g(alpha))[:B], C)
        ub = min(ub, f)
        alphas.append(a)
    return {"data": name, "B": B, "C": C, "ub": ub, "perspective": base,
            "perspective_gap": (ub - base) / ub, "perspective_s": t_base,
            "bnb_lower_bound": tree.bound, "bnb_s": bnb_seconds, "rounds": history}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sets", nargs="+", default=["colorectal", "dlbcl", "lymphoma"])
    ap.add_argument("--B", type=int, default=20)
    ap.add_argument("--C", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--bnb-seconds", type=float, default=30.0)
    a = ap.parse_args()
    rows = [study(s, a.B, a.C, a.rounds, a.bnb_seconds) for s in a.sets]
    lines = ["<!-- bench_fs_linear_optimality_cuts.py: the perspective bound (dual of (13)) "
             "with optimality knapsack cuts at the SVM duals of good supports. -->", "",
             "| data | B | C | UB | perspective | gap | with cuts (first / last round) | "
             "cuts | gap with cuts | bnb lower bound after "
             f"{a.bnb_seconds:g} s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        h0, h1 = r["rounds"][0], r["rounds"][-1]
        lines.append(f"| {r['data']} | {r['B']} | {r['C']:g} | {r['ub']:.5f} | "
                     f"{r['perspective']:.5f} | {100 * r['perspective_gap']:.2f} % | "
                     f"{h0['bound']:.5f} / {h1['bound']:.5f} | {h1['cuts']} | "
                     f"{100 * (r['ub'] - h1['bound']) / r['ub']:.2f} % | "
                     f"{r['bnb_lower_bound']:.5f} |")
    write_results("fs_linear_optimality_cuts", lines, rows)


if __name__ == "__main__":
    main()
