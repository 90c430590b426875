"""Benchmarks for paper D (linear FS-SVM): shapes of Tables 3-8 and the DSCoP/SCoP time ratio.

Not part of CI. Usage (from the repository root):

    PYTHONPATH=src python benchmarks/bench_fs_linear.py large  --B 10 20 30 --tl-miqp 60 ...
    PYTHONPATH=src python benchmarks/bench_fs_linear.py small          # Table 8
    PYTHONPATH=src python benchmarks/bench_fs_linear.py ratio          # DSCoP vs SCoP times

Each writes a Markdown table to benchmarks/results/fs_linear_<part>.md (and a .json). All runs
use C = 10, standard scaling fitted on the (training) rows, open-source solvers (SCIP for the
MIQPs/MISOCPs, Clarabel for the conic relaxations) and the time limits given on the command
line (much shorter than the paper's 600 s / 3600 s: the numbers are a shape, not a replica).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
from sparsekm.algorithms.fs_linear_exact import exact
from sparsekm.algorithms.fs_linear_heuristic import heuristic

from sparsekm.data import Scaler, load_dataset, train_test_split
from sparsekm.models.fs_linear import (
    bigm_model,
    cop_model,
    estimate_big_m,
    solve_fs_model,
    solve_svm,
)
from sparsekm.relaxations.fs_linear import solve_relaxation

OUT = Path(__file__).resolve().parent / "results"
LARGE = ["arrhythmia", "colorectal", "dlbcl", "lymphoma", "madelon", "mfeat"]
SMALL = ["breast_cancer_diagnostic", "breast_cancer_prognostic", "breast_cancer_wisconsin",
         "cleveland", "diabetes", "german", "ionosphere", "parkinsons", "wholesale"]

# Paper D numbers (B = 10, 20, 30): Table 3 (BigMP, CoP by Gurobi 1 h), Table 4 (H-LS, H-KS),
# Table 6 (DSCoP bound), Table 7 (Exact KS objective, time, gap).
PAPER = {
    "arrhythmia": {"bigm": [2398.06, 2047.67, 1733.28], "cop": [2151.56, 1712.64, 1441.63],
                   "hls": [2491.04, 1982.08, 1729.55], "hks": [2142.67, 1652.83, 1380.19],
                   "dscop": [754.46, 622.44, 538.86], "exact": [2003.98, 1632.32, 1362.75],
                   "exact_gap": [0.22, 0.27, 0.32]},
    "colorectal": {"bigm": [2.99, 0.64, 0.41], "cop": [2.12, 0.68, 0.43],
                   "hls": [2.13, 0.67, 0.411], "hks": [2.04, 0.65, 0.406],
                   "dscop": [1.07, 0.54, 0.38], "exact": [2.04, 0.65, 0.41],
                   "exact_gap": [0, 0, 0]},
    "dlbcl": {"bigm": [0.63, 0.18, 0.16], "cop": [0.56, 0.15, 0.09],
              "hls": [0.25, 0.104, 0.065], "hks": [0.23, 0.101, 0.063],
              "dscop": [0.16, 0.08, 0.06], "exact": [0.23, 0.10, 0.06], "exact_gap": [0, 0, 0]},
    "lymphoma": {"bigm": [18.07, 0.71, 0.34], "cop": [1.16, 0.29, 0.16],
                 "hls": [0.69, 0.24, 0.14], "hks": [0.69, 0.23, 0.13],
                 "dscop": [0.35, 0.18, 0.12], "exact": [0.69, 0.22, 0.13],
                 "exact_gap": [0, 0, 0]},
    "madelon": {"bigm": [16680.48, 16419.87, 16075.70], "cop": [16800.07, 18558.98, 18425.44],
                "hls": [16660.85, 16236.87, 15917.52], "hks": [16615.43, 16236.87, 15917.99],
                "dscop": [11243.14, 11209.44, 11197.73],
                "exact": [16499.38, 16142.54, 15765.83], "exact_gap": [0.17, 0.18, 0.21]},
    "mfeat": {"bigm": [0.92, 0.26, 0.18], "cop": [0.68, 0.26, 0.18],
              "hls": [0.70, 0.25, 0.17], "hks": [0.66, 0.25, 0.17],
              "dscop": [0.36, 0.20, 0.15], "exact": [0.64, 0.24, 0.17], "exact_gap": [0, 0, 0]},
}
PAPER_T8 = {  # FS-SVM train/test acc, EN-SVM train/test acc/#features (Table 8)
    "breast_cancer_diagnostic": (98.4, 93.7, 96.2, 93.0, 5),
    "breast_cancer_prognostic": (84.8, 77.6, 80.7, 79.6, 16),
    "breast_cancer_wisconsin": (97.1, 96.5, 95.5, 95.3, 6),
    "cleveland": (85.1, 78.7, 78.8, 70.7, 8), "diabetes": (77.6, 76.6, 76.9, 76.6, 4),
    "german": (75.3, 73.2, 74.4, 71.6, 12), "ionosphere": (89.0, 89.8, 88.2, 89.8, 7),
    "parkinsons": (89.0, 85.7, 86.3, 83.7, 5), "wholesale": (92.1, 90.0, 91.5, 89.1, 5),
}


def scaled(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    ds = load_dataset(name)
    return Scaler("standard").fit(ds.X).transform(ds.X), ds.y.astype(float), ds.feature_names


def f(x: float | None, nd: int = 4) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:.{nd}g}"


def run_large(args: argparse.Namespace) -> None:
    rows = []
    for name in args.datasets:
        X, y, _ = scaled(name)
        for bi, B in enumerate(args.B):
            C = 10.0
            r: dict = {"dataset": name, "B": B, "m": X.shape[0], "n": X.shape[1]}
            t = time.perf_counter()
            rel = solve_relaxation(X, y, B, C, "dscop")
            r.update(dscop=rel.bound, dscop_status=rel.status, dscop_t=time.perf_counter() - t)
            for key, strat in (("hls", "local-search"), ("hks", "kernel-search")):
                h = heuristic(X, y, B, C, strategy=strat, k=10, rho=10,
                              time_limit=args.tl_heur, subproblem_time_limit=args.tl_sub,
                              tighten_time_limit=args.tl_tighten, miqp_solver=args.solver)
                r.update({key: h.objective, f"{key}_t": h.time_s, f"{key}_status": h.status,
                          f"{key}_test9": h.info.get("test9")})
            if args.tl_miqp > 0:
                M = estimate_big_m(X, y, B, C, ub=r["hks"])
                for key in ("bigm", "cop"):
                    t = time.perf_counter()
                    mdl = bigm_model(X, y, B, C, M) if key == "bigm" else cop_model(X, y, B, C)
                    res, raw = solve_fs_model(mdl, X, y, solver=args.solver,
                                              time_limit=args.tl_miqp)
                    r.update({key: res.objective, f"{key}_t": time.perf_counter() - t,
                              f"{key}_gap": (None if res.objective is None or raw.bound is None
                                             else (res.objective - raw.bound) / res.objective),
                              f"{key}_status": raw.status.value})
            ex = exact(X, y, B, C, s=10, rho=10, time_limit=args.tl_exact,
                       subproblem_time_limit=args.tl_sub, miqp_solver=args.solver,
                       misocp_solver=args.solver)
            r.update(exact=ex.objective, exact_lb=ex.lower_bound, exact_gap=ex.gap,
                     exact_t=ex.time_s, exact_status=ex.status, exact_iters=len(ex.log) - 1)
            p = PAPER.get(name, {})
            r["paper"] = {k: v[bi] for k, v in p.items()} if B in (10, 20, 30) and bi < 3 \
                and args.B[:len(args.B)] == [10, 20, 30][:len(args.B)] else {}
            rows.append(r)
            print(json.dumps(r, default=str), flush=True)
            write_large(rows, args)


def write_large(rows: list[dict], args: argparse.Namespace) -> None:
    OUT.mkdir(exist_ok=True)
    (OUT / f"fs_linear_large{args.tag}.json").write_text(json.dumps(rows, indent=1, default=str))
    L = [f"# Paper D, Tables 3-7 shape (C = 10), run {time.strftime('%Y-%m-%d %H:%M UTC')}",
         "",
         f"Solver: {args.solver or 'SCIP'} (MIQP/MISOCP), Clarabel (DSCoP, SOC form). Time "
         f"limits: BigMP/CoP {args.tl_miqp} s, heuristics {args.tl_heur} s "
         f"(CoP subproblem {args.tl_sub} s, big-M tightening {args.tl_tighten} s), exact "
         f"{args.tl_exact} s. Paper: Gurobi/Mosek/Copt, 3600 s / 600 s / 3600 s.",
         "Values are objective 1/2||w||^2 + C sum xi; `paper` in brackets. gap = (UB-LB)/UB.",
         "",
         "| data | B | DSCoP bound [paper] (s) | BigMP obj (gap) [paper] | CoP obj (gap) [paper] "
         "| H-LS obj (s) [paper] | H-KS obj (s) [paper] | Exact obj, LB, gap (s) [paper gap] |",
         "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p = r.get("paper", {})
        L.append(
            f"| {r['dataset']} | {r['B']} | {f(r['dscop'])} [{f(p.get('dscop'))}] "
            f"({r['dscop_t']:.1f}) | {f(r.get('bigm'))} ({f(r.get('bigm_gap'), 2)}) "
            f"[{f(p.get('bigm'))}] | {f(r.get('cop'))} ({f(r.get('cop_gap'), 2)}) "
            f"[{f(p.get('cop'))}] | {f(r['hls'])} ({r['hls_t']:.0f}) [{f(p.get('hls'))}] | "
            f"{f(r['hks'])} ({r['hks_t']:.0f}) [{f(p.get('hks'))}] | {f(r['exact'])}, "
            f"{f(r['exact_lb'])}, {f(r['exact_gap'], 2)} ({r['exact_t']:.0f}, "
            f"{r['exact_status']}) [{f(p.get('exact_gap'), 2)}] |")
    (OUT / f"fs_linear_large{args.tag}.md").write_text("\n".join(L) + "\n")


def run_small(args: argparse.Namespace) -> None:
    rows = []
    for name in args.datasets or SMALL:
        ds = load_dataset(name)
        tr, te = train_test_split(ds, test_size=0.2, seed=0)
        sc = Scaler("standard").fit(tr.X)
        Xtr, Xte = sc.transform(tr.X), sc.transform(te.X)
        B, C = min(5, ds.n), 10.0
        ex = exact(Xtr, tr.y, B, C, s=10, rho=10, time_limit=args.tl_exact,
                   miqp_solver=args.solver, misocp_solver=args.solver)

        def acc(w: np.ndarray, b: float, X: np.ndarray, y: np.ndarray) -> float:
            return 100.0 * float(np.mean(np.where(X @ w + b >= 0, 1.0, -1.0) == y))

        en = []
        for i in range(11):
            w, b, _ = solve_svm(Xtr, tr.y, C, l1=2.0 ** i)
            nf = int(np.count_nonzero(np.abs(w) > 1e-6))
            en.append((i, nf, acc(w, b, Xtr, tr.y), acc(w, b, Xte, te.y)))
        ok = [e for e in en if 0 < e[1] <= B]   # rule of Section 5.4
        pick = max(ok, key=lambda e: (e[2], -e[0])) if ok else \
            min((e for e in en if e[1] > 0), key=lambda e: (e[1], -e[2]))
        r = {"dataset": name, "m": ds.m, "n": ds.n, "B": B, "fs_obj": ex.objective,
             "fs_gap": ex.gap, "fs_status": ex.status, "fs_t": ex.time_s,
             "fs_train": acc(ex.w, ex.b, Xtr, tr.y), "fs_test": acc(ex.w, ex.b, Xte, te.y),
             "fs_feat": len(ex.selected), "en_alpha": f"2^{pick[0]}", "en_feat": pick[1],
             "en_train": pick[2], "en_test": pick[3], "paper": PAPER_T8.get(name)}
        rows.append(r)
        print(json.dumps(r, default=str), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "fs_linear_table8.json").write_text(json.dumps(rows, indent=1, default=str))
    L = ["# Paper D, Table 8 shape: FS-SVM (B = 5) vs EN-SVM, C = 10, 80/20 split (seed 0)",
         "", f"FS-SVM solved by the exact procedure (Alg. 4, SCIP, limit {args.tl_exact} s); "
         "EN-SVM alpha in 2^0..2^10 chosen by the paper's rule. [paper] values in brackets.",
         "", "| data | FS train | FS test | FS feat | FS gap | EN alpha | EN train | EN test "
         "| EN feat |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p = r["paper"] or (None,) * 5
        L.append(f"| {r['dataset']} | {r['fs_train']:.1f} [{p[0]}] | {r['fs_test']:.1f} "
                 f"[{p[1]}] | {r['fs_feat']} | {f(r['fs_gap'], 2)} | {r['en_alpha']} | "
                 f"{r['en_train']:.1f} [{p[2]}] | {r['en_test']:.1f} [{p[3]}] | "
                 f"{r['en_feat']} [{p[4]}] |")
    (OUT / "fs_linear_table8.md").write_text("\n".join(L) + "\n")


def run_ratio(args: argparse.Namespace) -> None:
    """Time of SCoP (11) (one PSD block of order 2n+1) vs DSCoP (13) (n 3x3 blocks / SOC)."""
    rows = []
    cases = [(n, None) for n in (args.datasets or SMALL)] + \
        [(n, args.cols) for n in ("arrhythmia", "madelon")]
    for name, cols in cases:
        X, y, _ = scaled(name)
        if cols:
            X = X[:, :cols]
        B, C = min(5, X.shape[1]), 10.0
        r = {"dataset": name + (f"[:, :{cols}]" if cols else ""), "n": X.shape[1]}
        for key, rel, conic in (("scop", "shor-cop", "sdp"), ("dscop_sdp", "dscop", "sdp"),
                                ("dscop_soc", "dscop", "soc")):
            t = time.perf_counter()
            res = solve_relaxation(X, y, B, C, rel, conic=conic, time_limit=args.tl_exact)
            r[key], r[key + "_t"] = res.bound, time.perf_counter() - t
        rows.append(r)
        print(json.dumps(r), flush=True)
    OUT.mkdir(exist_ok=True)
    (OUT / "fs_linear_ratio.json").write_text(json.dumps(rows, indent=1))
    L = ["# Paper D: SCoP (11) vs DSCoP (13) solve time (Clarabel, B = 5, C = 10)", "",
         "Time includes CVXPY compilation. Bounds equal (Theorem 3.6).", "",
         "| data | n | SCoP bound | DSCoP bound | SCoP s | DSCoP-SDP s | DSCoP-SOC s | "
         "SCoP/DSCoP-SDP | SCoP/DSCoP-SOC |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        L.append(f"| {r['dataset']} | {r['n']} | {f(r['scop'], 8)} | {f(r['dscop_soc'], 8)} | "
                 f"{r['scop_t']:.2f} | {r['dscop_sdp_t']:.2f} | {r['dscop_soc_t']:.2f} | "
                 f"{r['scop_t'] / r['dscop_sdp_t']:.1f} | {r['scop_t'] / r['dscop_soc_t']:.1f} |")
    gm = math.exp(np.mean([math.log(r["scop_t"] / r["dscop_soc_t"]) for r in rows]))
    gm2 = math.exp(np.mean([math.log(r["scop_t"] / r["dscop_sdp_t"]) for r in rows]))
    L += ["", f"Geometric-mean time ratio SCoP/DSCoP: {gm2:.1f}x (SDP blocks), "
          f"{gm:.1f}x (SOC form)."]
    (OUT / "fs_linear_ratio.md").write_text("\n".join(L) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("part", choices=["large", "small", "ratio"])
    ap.add_argument("--datasets", nargs="*", default=None)
    ap.add_argument("--B", nargs="*", type=int, default=[10, 20, 30])
    ap.add_argument("--solver", default=None)
    ap.add_argument("--tl-miqp", type=float, default=60.0)
    ap.add_argument("--tl-heur", type=float, default=120.0)
    ap.add_argument("--tl-sub", type=float, default=20.0)
    ap.add_argument("--tl-tighten", type=float, default=20.0)
    ap.add_argument("--tl-exact", type=float, default=180.0)
    ap.add_argument("--cols", type=int, default=50)
    ap.add_argument("--tag", default="")
    args = ap.parse_args()
    if args.part == "large":
        args.datasets = args.datasets or LARGE
        run_large(args)
    elif args.part == "small":
        run_small(args)
    else:
        run_ratio(args)


if __name__ == "__main__":
    main()
