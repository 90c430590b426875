"""The cost / quality frontier of ``fast`` (paper D's FS-SVM (2)) against abess.

``variants`` -- on the folds of ``bench_fs_linear_peers.py`` (colorectal, lymphoma, dlbcl;
    stratified 5-fold, shuffled, seed 0; scaling fitted on each training part; B = 5, 10, 20;
    C = 1): ``fast`` with its defaults and with fewer restarts / other move rules /
    fewer candidates, each fit's objective of (2) against the defaults' and its process CPU
    seconds against abess's per-fit CPU on the same fit (``fs_linear_peers.fixed.json``).
``decisions`` -- where a swap search's time goes: at the local optimum of one swap search
    (colorectal B = 10 and the wide synthetic 120 x 1500 at B = 20, C = 1), every screened-in
    1-swap decided by the warm pair updates of the compiled engine, one at a time: how many
    are proofs that the move does not improve, and pair updates and microseconds per decision.

``sacrifices`` -- at the same local optima (and colorectal B = 20, dlbcl B = 10), with each
    dual point solved to 1e-10 by the interior point: how many of the screened-in 1-swaps
    (p out, j in) are refuted by the removal dual of S - p alone (the engine's second
    screen), and by the best point of the segment between it and the addition dual of S + j
    (the forward sacrifice as a certificate); and what those dual points cost.

Writes ``results/fs_linear_fast_frontier.{json,md}``. Usage (from the repository):

    PYTHONPATH=src .venv/bin/python benchmarks/bench_fs_linear_fast_frontier.py variants
    PYTHONPATH=src .venv/bin/python benchmarks/bench_fs_linear_fast_frontier.py decisions
    PYTHONPATH=src .venv/bin/python benchmarks/bench_fs_linear_fast_frontier.py sacrifices
    PYTHONPATH=src .venv/bin/python benchmarks/bench_fs_linear_fast_frontier.py report
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
OUT = HERE / "results" / "fs_linear_fast_frontier.json"

from bench_fs_linear_peers import dataset, fits, scale  # noqa: E402

# name: (move rule, restarts, candidates); "default" is fast's declared defaults
VARIANTS = {"default": ("dual", 20, 40), "dual R=0": ("dual", 0, 40),
            "dual R=10": ("dual", 10, 40), "both R=0": ("both", 0, 40),
            "both R=3": ("both", 3, 40), "both R=6, 20 cand.": ("both", 6, 20),
            "both R=8": ("both", 8, 40), "both R=10, 20 cand.": ("both", 10, 20),
            "both R=15, 20 cand.": ("both", 15, 20)}


def _load() -> dict:
    return json.loads(OUT.read_text()) if OUT.exists() else {}


def variants() -> None:
    from sparsekm.algorithms.fs_linear.iterated_swap import iterated_search, warm_up
    from sparsekm.algorithms.fs_linear.swap import SwapOptions
    from sparsekm.solvers import SolverPlan

    warm_up()
    out = _load()
    rows = out.setdefault("variants", {})
    for key, _, _, p in fits():
        row = {}
        for v, (moves, R, cand) in VARIANTS.items():
            t = time.process_time()
            r = iterated_search(p, SolverPlan(), restarts=R,
                                options=SwapOptions(moves=moves, candidates=cand))
            row[v] = dict(objective=r.objective, cpu=time.process_time() - t)
        rows[key] = row
        print(key, {v: round(x["objective"], 4) for v, x in row.items()}, flush=True)
    OUT.write_text(json.dumps(out, indent=1))


def decisions() -> None:
    from sparsekm.algorithms.fs_linear.iterated_swap import warm_up
    from sparsekm.algorithms.fs_linear.swap import _cutoff, swap_search
    from sparsekm.engines.linear_svm import AUTO_PAIRS_PER_ROW, feasible_dual, solve_linear_svm
    from sparsekm.engines.linear_svm.exchange import exchange_below, gram_state
    from sparsekm.engines.linear_svm.status import ABOVE
    from sparsekm.models.fs_linear import FSLinearProblem
    from sparsekm.solvers import SolverPlan

    warm_up()
    out = _load()
    res = out.setdefault("decisions", {})
    for name, B in (("colorectal", 10), ("synth120x1500", 20)):
        X, y = dataset(name)
        X = scale(X)[0]
        p = FSLinearProblem(X, y, B=B, C=1.0)
        S = np.asarray(swap_search(p, SolverPlan()).selected)
        fit = solve_linear_svm(X[:, S], y, 1.0, method="ipm", tol=1e-9)
        a0 = np.empty(p.m)
        feasible_dual(y, fit.alpha, 1.0, a0)
        Xt = np.ascontiguousarray(X.T)
        d = Xt @ (a0 * y)
        outside = np.setdiff1d(np.arange(p.n), S)
        top = outside[np.argsort(-np.abs(d[outside]), kind="stable")[:40]]
        lb = fit.dual + 0.5 * (d[S][:, None] ** 2 - d[top][None, :] ** 2)
        cut = _cutoff(fit)
        K, G0 = np.empty((p.m, p.m)), np.empty(p.m)
        gram_state(np.ascontiguousarray(X[:, S]), y, a0, K, G0)
        base = (K, G0, np.diag(K).copy(), Xt)
        pairs, secs, above = [], [], 0
        for i in range(S.size):
            for c in range(top.size):
                if lb[i, c] >= cut:
                    continue
                S2 = S.copy()
                S2[i] = top[c]
                XS, alpha, w = np.ascontiguousarray(X[:, S2]), a0.copy(), np.empty(S.size)
                t = time.perf_counter()
                st, _, _, _, it = exchange_below(
                    XS, base, (np.array([S[i]]), np.array([top[c]]), False), y, 1.0,
                    (alpha, w), cut, (1e-3, 1e-9, AUTO_PAIRS_PER_ROW * p.m))
                secs.append(time.perf_counter() - t)
                pairs.append(it)
                above += int(st == ABOVE)
        res[f"{name}/B={B}"] = dict(
            m=p.m, n=p.n, moves=int(lb.size), decided=len(pairs), not_improving=above,
            pairs_median=float(np.median(pairs)), pairs_p90=float(np.quantile(pairs, 0.9)),
            us_median=1e6 * float(np.median(secs)), us_p90=1e6 * float(np.quantile(secs, 0.9)))
        print(name, res[f"{name}/B={B}"], flush=True)
    OUT.write_text(json.dumps(out, indent=1))


def _exact_dual(X: np.ndarray, y: np.ndarray, S: np.ndarray) -> tuple:
    """(alpha, X'(alpha y), its dual value on S, the fit) of the SVM (1) on S, C = 1."""
    from sparsekm.engines.linear_svm import feasible_dual, solve_linear_svm

    fit = solve_linear_svm(np.ascontiguousarray(X[:, S]), y, 1.0, method="ipm", tol=1e-10)
    a = np.empty(y.size)
    feasible_dual(y, fit.alpha, 1.0, a)
    d = X.T @ (a * y)
    return a, d, a.sum() - 0.5 * np.sum(d[S] ** 2), fit


def _segment_max(c: np.ndarray, G: np.ndarray) -> float:
    """max over t in [0, 1] of the dual value at t a_0 + (1 - t) a_1: c the sums of alpha,
    G the Gram matrix of their correlations on the new support."""
    den = G[0, 0] - 2 * G[0, 1] + G[1, 1]
    t = np.clip((c[0] - c[1] - G[0, 1] + G[1, 1]) / den, 0, 1) if den > 0 else 1.0
    lam = np.array([t, 1 - t])
    return float(c @ lam - 0.5 * lam @ G @ lam)


def sacrifices() -> None:
    from sparsekm.algorithms.fs_linear.iterated_swap import warm_up
    from sparsekm.algorithms.fs_linear.swap import _cutoff, swap_search
    from sparsekm.models.fs_linear import FSLinearProblem
    from sparsekm.solvers import SolverPlan

    warm_up()
    out = _load()
    res = out.setdefault("sacrifices", {})
    for name, B in (("colorectal", 10), ("colorectal", 20), ("synth120x1500", 20),
                    ("dlbcl", 10)):
        X, y = dataset(name)
        X = scale(X)[0]
        S = np.asarray(swap_search(FSLinearProblem(X, y, B=B, C=1.0), SolverPlan()).selected)
        a0, d0, f0, fit = _exact_dual(X, y, S)
        cut = _cutoff(fit)
        outside = np.setdiff1d(np.arange(X.shape[1]), S)
        top = outside[np.argsort(-np.abs(d0[outside]), kind="stable")[:40]]
        t = time.perf_counter()
        rem = [_exact_dual(X, y, np.delete(S, i)) for i in range(S.size)]
        t_rem, t = time.perf_counter() - t, time.perf_counter()
        add = {j: _exact_dual(X, y, np.r_[S, j]) for j in top}
        t_add = time.perf_counter() - t
        screened = removal = segment = 0
        for i, p in enumerate(S):
            ap, dp, Dp, _ = rem[i]
            for j in top:
                if f0 + 0.5 * (d0[p] ** 2 - d0[j] ** 2) >= cut:
                    continue               # the first screen, at the incumbent's alpha
                screened += 1
                S2 = S.copy()
                S2[i] = j
                D = np.array([dp[S2], add[j][1][S2]])
                removal += Dp - 0.5 * dp[j] ** 2 >= cut
                segment += _segment_max(np.array([ap.sum(), add[j][0].sum()]), D @ D.T) >= cut
        res[f"{name}/B={B}"] = dict(
            m=int(y.size), n=int(X.shape[1]), moves=int(S.size * top.size), screened=screened,
            removal=int(removal), segment=int(segment), removal_ms=1e3 * t_rem,
            addition_ms=1e3 * t_add, candidates=int(top.size))
        print(name, B, res[f"{name}/B={B}"], flush=True)
    OUT.write_text(json.dumps(out, indent=1))


def report() -> None:
    out = _load()
    fixed = json.loads((HERE / "results" / "fs_linear_peers.fixed.json").read_text())
    rows = out["variants"]
    lines = ["# `fast`: cost against quality", "",
             "Produced by `benchmarks/bench_fs_linear_fast_frontier.py` from "
             "`benchmarks/results/fs_linear_fast_frontier.json`; abess's per-fit CPU from "
             "`benchmarks/results/fs_linear_peers.fixed.json` (same fits). "
             f"{len(rows)} fits: colorectal, lymphoma, dlbcl, 5 folds, B = 5, 10, 20, C = 1. "
             "Objective ratio: the variant's objective of (2) over the defaults' on the same "
             "fit (geometric mean; < 1 is better). CPU: process seconds per fit.", "",
             "| variant (moves, restarts, candidates) | fits worse / better than default | "
             "objective ratio, geometric mean | worst ratio | CPU s/fit median | "
             "CPU / abess median (fits with abess) |", "|---|---|---|---|---|---|"]
    for v in VARIANTS:
        rat = np.array([r[v]["objective"] / r["default"]["objective"] for r in rows.values()])
        cpu = np.array([r[v]["cpu"] for r in rows.values()])
        ab = [rows[k][v]["cpu"] / fixed[k]["abess"]["cpu"] for k in rows if k in fixed]
        lines.append(f"| {v} ({', '.join(map(str, VARIANTS[v]))}) | "
                     f"{int((rat > 1 + 1e-9).sum())} / {int((rat < 1 - 1e-9).sum())} | "
                     f"{np.exp(np.log(rat).mean()):.3f} | {rat.max():.3f} | "
                     f"{np.median(cpu):.3f} | "
                     f"{np.median(ab):.0f}x ({len(ab)}) |" if ab else "| |")
    if "decisions" in out:
        lines += ["", "## Where a swap search's time goes: the decisions at a local optimum",
                  "", "| instance | m x n | 1-swaps | decided (screened in) | proved not "
                  "improving | pair updates per decision median / p90 | µs per decision "
                  "median / p90 |", "|---|---|---|---|---|---|---|"]
        for key, r in out["decisions"].items():
            lines.append(f"| {key} | {r['m']} x {r['n']} | {r['moves']} | {r['decided']} | "
                         f"{r['not_improving']} | {r['pairs_median']:.0f} / "
                         f"{r['pairs_p90']:.0f} | {r['us_median']:.0f} / {r['us_p90']:.0f} |")
    if "sacrifices" in out:
        lines += ["", "## Refuting 1-swaps by dual points: removal and addition duals", "",
                  "| instance | screened-in 1-swaps | refuted by the removal dual of S - p | "
                  "by the segment to the addition dual of S + j | removal duals (B) ms | "
                  "addition duals (40) ms |", "|---|---|---|---|---|---|"]
        for key, r in out["sacrifices"].items():
            lines.append(f"| {key} | {r['screened']} | {r['removal']} | {r['segment']} | "
                         f"{r['removal_ms']:.1f} | {r['addition_ms']:.1f} |")
    md = OUT.with_suffix(".md")
    md.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    {"variants": variants, "decisions": decisions, "sacrifices": sacrifices,
     "report": report}[sys.argv[1]]()
