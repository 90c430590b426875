"""Paper B benchmarks (not CI): Tables 2-7 in shape on the paper's ten datasets.

Protocol (paper B, Section 5.1): seeded stratified 80/20 split, features standardised on the
training rows, the ``paper10`` dictionary (symmetrized, +1e-6 I). Missing cells (heart,
mammographic) set to 0 as the paper's loader does; iris keeps its 4 features (the paper used 2).

Per dataset:
* ABR (Algorithm 1, random start) with (C, lam, k0) chosen by stratified k-fold CV on the
  training rows over C in {5, 10, 50, 100}, lam in {0.01, 1, 100}, k0 in {1, 2} (the goal is at
  most 2 kernels; the paper's grid is 4 x 5 x 5) -- accuracy, sparsity, fit time;
* ABR warm-started from (14) (cutting planes) and from (18) (minor generation) (Table 5);
* the exact branch-and-bound at the chosen parameters: objective, certified bound, gap;
* relaxation values and certified bounds: SOC (16), SOC random (17), 3x3 (18), full SDP (14)
  as a conic SDP (SCS, only m <= 250: at m = 280
  SCS hit the 300 s cap without meeting its tolerances) and by cutting planes (Table 6);
* baselines at the chosen C: AverageMKL, EasyMKL (lam_easy = 0.1), constrained CKA, and the
  single-kernel SVC with kernel and C chosen by k-fold CV.

Caps (2 shared cores): CV folds 10 for m_train <= 300, 5 up to 1100, spambase uses the
paper's own (C = 5, lam = 0.01) with k0 = 2 and no CV, and a 3-fold single-SVC CV over
C in {1, 10, 100};
exact method 300 s; each relaxation 300 s.

Usage: PYTHONPATH=src python benchmarks/bench_smkl.py [--datasets a,b] [--render]
Writes benchmarks/results/smkl_tables.md and smkl_tables.json (updated after each dataset).
"""

from __future__ import annotations

import argparse
import copy
import json
import time
import warnings
from pathlib import Path

import numpy as np

from sparsekm import registry
from sparsekm.data import Scaler, load_dataset, train_test_split
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.solvers import SolverPlan

RES = Path(__file__).parent / "results"
OUT = RES / "smkl_tables.json"
DATASETS = [("iris", "iris"), ("wine", "wine"), ("breastcancer", "breast_cancer_diagnostic"),
            ("ionosphere", "ionosphere"), ("banknote", "banknote"), ("heart", "heart"),
            ("haberman", "haberman"), ("mammographic", "mammographic"),
            ("parkinsons", "parkinsons"), ("spambase", "spambase")]
# Paper B: Table 2 (Alg. 1 random), Table 4 (Alg. 1 time, s), Table 6 (Alg. 1 random objective,
# full-SDP bound), Table 7 (best gap %)
PAPER = {
    "iris": (100.0, 0.022, 16.78, 14.69, 14.23), "wine": (100.0, 0.005, 7.71, 7.70, 0.0),
    "breastcancer": (98.3, 0.110, 70.86, None, None),
    "ionosphere": (93.0, 0.070, 169.77, 80.39, 51.55),
    "spambase": (90.9, 8.330, 759.10, None, None), "banknote": (100.0, 0.519, 42.13, None, None),
    "heart": (93.4, 0.188, 98.75, 69.95, 41.17), "haberman": (67.7, 0.025, 476.80, 431.97, 0.0),
    "mammographic": (84.5, 0.436, 1092.47, None, None),
    "parkinsons": (89.7, 0.245, 37.06, 25.69, 2.41)}
REF = {"single (lead, CV)": 91.7, "EasyMKL (MKLpy)": 85.3, "AverageMKL (MKLpy)": 86.4,
       "CKA (MKLpy)": 84.0, "Algorithm 1 (paper)": 91.8}
GRID = [(C, lam, k0) for C in (5.0, 10.0, 50.0, 100.0) for lam in (0.01, 1.0, 100.0)
        for k0 in (1, 2)]


def sub_problem(p: SMKLProblem, rows: np.ndarray, C: float, lam: float, k0: int
                ) -> SMKLProblem:
    """The problem on a subset of training rows, sharing the precomputed kernels."""
    D = copy.copy(p.dictionary)
    D.K = p.K[:, rows][:, :, rows]
    D.X = p.X[rows]
    D._buf = None
    return SMKLProblem(p.X[rows], p.y[rows], p.kernels, k0, C, lam, dictionary=D)


def accuracy(p: SMKLProblem, res, Kx: np.ndarray, y: np.ndarray) -> float:
    dec = p.dictionary.combine(res.beta, stack=Kx) @ (res.alpha * p.y) + res.b
    return float(np.mean(np.where(dec >= 0, 1.0, -1.0) == y))


def cv_abr(p: SMKLProblem, folds: int, seed: int = 0) -> tuple[tuple, float]:
    """(C, lam, k0) with the best mean validation accuracy of ABR."""
    from sklearn.model_selection import StratifiedKFold

    skf = StratifiedKFold(folds, shuffle=True, random_state=seed)
    splits = list(skf.split(np.zeros(p.m), p.y))
    abr = registry.get("smkl", "method", "abr")
    scores = {}
    for C, lam, k0 in GRID:
        acc = []
        for tr, va in splits:
            sp = sub_problem(p, tr, C, lam, k0)
            r = abr(sp, seed=seed)
            acc.append(accuracy(sp, r, p.K[:, va][:, :, tr], p.y[va]))
        scores[(C, lam, k0)] = float(np.mean(acc))
    best = max(scores, key=lambda k: (scores[k], -k[2]))
    return best, scores[best]


def run_dataset(key: str, name: str) -> dict:
    ds = load_dataset(name, missing="zero")
    train, test = train_test_split(ds, test_size=0.2, seed=0)
    sc = Scaler("standard").fit(train.X)
    Xtr, Xte = sc.transform(train.X), sc.transform(test.X)
    t = time.perf_counter()
    p0 = SMKLProblem(Xtr, train.y, "paper10", 2, 10.0, 1.0)
    t_kernels = time.perf_counter() - t
    Kx = p0.dictionary.cross(Xte)
    m = p0.m
    out: dict = {"dataset": key, "m_train": m, "m_test": test.m, "kernel_time_s": t_kernels}
    t = time.perf_counter()
    if key == "spambase":
        (C, lam, k0), cv_acc, folds = (5.0, 0.01, 2), None, 0
    else:
        folds = 10 if m <= 300 else 5
        (C, lam, k0), cv_acc = cv_abr(p0, folds)
    out.update(C=C, lam=lam, k0=k0, cv_folds=folds, cv_accuracy=cv_acc,
               cv_time_s=time.perf_counter() - t)
    p = SMKLProblem(Xtr, train.y, "paper10", k0, C, lam, dictionary=p0.dictionary)
    rows = {}

    def record(label: str, res, extra: dict | None = None) -> None:
        rows[label] = {"objective": res.objective, "bound": res.bound, "gap": res.gap,
                       "time_s": res.time_s, "nnz": int((np.asarray(res.beta) > 1e-3).sum()),
                       "beta": np.round(res.beta, 4).tolist(), "status": res.status.value,
                       "test_acc": accuracy(p, res, Kx, test.y), **(extra or {})}
        print(f"  {key} {label}: obj {res.objective:.4f} bound {res.bound} "
              f"acc {rows[label]['test_acc']:.3f} {res.time_s:.2f}s", flush=True)

    get = lambda kind, n: registry.get("smkl", kind, n)  # noqa: E731
    record("abr", get("method", "abr")(p, seed=0))
    record("abr-5starts", get("method", "abr")(p, starts=5, seed=0))
    cap = SolverPlan(time_limit=300)
    for init in ("sdp-full-cp", "sdp-3x3"):
        try:
            record(f"abr-warm-{init}", get("method", "abr")(p, cap, init=init))
        except Exception as exc:  # noqa: BLE001 - a relaxation too large is reported
            rows[f"abr-warm-{init}"] = {"error": str(exc)[:200]}
    ex = get("method", "exact")(p, cap)
    record("exact", ex, {k: ex.extra[k] for k in ("nodes", "leaves_solved", "svm_solves",
                                                 "open_nodes")})
    for base in ("average", "easymkl", "cka"):
        record(base, get("method", base)(p))
    if key == "spambase":  # 3 folds, 3 values of C (each fit on ~2450 rows takes seconds)
        record("single", get("method", "single")(p, folds=3, Cs=(1.0, 10.0, 100.0)))
    else:
        record("single", get("method", "single")(p, folds=10 if m <= 300 else 5))
    relax = {}
    for rname in ("soc-basis", "soc-random", "sdp-3x3", "sdp-full", "sdp-full-cp"):
        if rname == "sdp-full" and m > 250:
            relax[rname] = {"skipped": f"m = {m} > 250 (SCS time cap)"}
            continue
        try:
            r = get("relaxation", rname)(p, SolverPlan(time_limit=300, subproblem_time_limit=300))
            relax[rname] = {"value": r.objective, "bound": r.bound, "time_s": r.time_s,
                            **{k: v for k, v in r.extra.items()
                               if isinstance(v, int | float | str)}}
        except Exception as exc:  # noqa: BLE001
            relax[rname] = {"error": str(exc)[:200]}
        print(f"  {key} relax {rname}: {relax[rname]}", flush=True)
    out["methods"], out["relaxations"] = rows, relax
    return out


def retime(r: dict, name: str) -> float:
    """Median wall time of 3 ABR fits (one random start) at the dataset's chosen parameters."""
    ds = load_dataset(name, missing="zero")
    train, _ = train_test_split(ds, test_size=0.2, seed=0)
    X = Scaler("standard").fit(train.X).transform(train.X)
    p = SMKLProblem(X, train.y, "paper10", r["k0"], r["C"], r["lam"])
    abr = registry.get("smkl", "method", "abr")
    times = []
    for _ in range(3):
        t = time.perf_counter()
        abr(p, seed=0)
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def _f(x, fmt=".2f") -> str:
    return "–" if x is None else format(x, fmt)


def render(results: dict) -> str:
    keys = [k for k, _ in DATASETS if k in results]
    L = ["# Paper B (sparse MKL): Tables 2-7 in shape", "",
         "Generated by `benchmarks/bench_smkl.py` (protocol and caps in its docstring). "
         "Seeded stratified 80/20 split (seed 0), standardised on training rows, `paper10` "
         "dictionary. Paper figures are from paper B (its own splits and hyperparameters); "
         "reference means: " + ", ".join(f"{k} {v} %" for k, v in REF.items()) + ".", ""]
    meth = ["abr", "abr-5starts", "exact", "single", "average", "easymkl", "cka"]
    L += ["## Test accuracy (%) (Tables 2, 5)", "",
          "| dataset | m_tr | C, lam, k0 (CV) | " + " | ".join(meth)
          + " | ABR warm (14) | ABR warm (18) | paper Alg. 1 |",
          "|---|---|---|" + "---|" * (len(meth) + 3)]
    means = {k: [] for k in meth + ["abr-warm-sdp-full-cp", "abr-warm-sdp-3x3"]}
    for k in keys:
        r = results[k]
        cells = []
        for mm in meth + ["abr-warm-sdp-full-cp", "abr-warm-sdp-3x3"]:
            acc = r["methods"].get(mm, {}).get("test_acc")
            if acc is not None:
                means[mm].append(100 * acc)
            cells.append(_f(None if acc is None else 100 * acc, ".1f"))
        L.append(f"| {k} | {r['m_train']} | {r['C']:g}, {r['lam']:g}, {r['k0']} | "
                 + " | ".join(cells) + f" | {PAPER[k][0]:.1f} |")
    L.append("| **mean** | | | " + " | ".join(
        _f(np.mean(means[mm]) if means[mm] else None, ".1f")
        for mm in meth + ["abr-warm-sdp-full-cp", "abr-warm-sdp-3x3"])
        + f" | {np.mean([PAPER[k][0] for k in keys]):.1f} |")
    L += ["", "## Kernels used (|beta_j| > 1e-3) (Table 3) and fit time in s (Table 4)", "",
          "| dataset | " + " | ".join(f"{mm} nnz" for mm in meth) + " | ABR time | ABR time "
          "(re-timed, final code) | ABR 5 starts time | exact time | CV time (ABR grid) | "
          "paper Alg. 1 time |",
          "|---|" + "---|" * (len(meth) + 6)]
    for k in keys:
        r = results[k]["methods"]
        L.append(f"| {k} | " + " | ".join(str(r[mm]["nnz"]) for mm in meth) + " | "
                 + _f(r["abr"]["time_s"], ".3f") + " | "
                 + _f(results[k].get("abr_retime_s"), ".3f") + " | "
                 + " | ".join(_f(r[mm]["time_s"], ".3f") for mm in ("abr-5starts", "exact"))
                 + f" | {results[k]['cv_time_s']:.0f} | {PAPER[k][1]:.3f} |")
    L += ["", "## Objective (4) and certified bounds (Tables 6, 7)", "",
          "Relaxation columns: relaxation value / certified lower bound on (4) from its "
          "multipliers. Gap = (objective - bound) / objective of the exact method "
          "(branch-and-bound, 300 s cap).", "",
          "| dataset | SOC (16) | SOC rand (17) | 3x3 (18) | full SDP (14), SCS | (14) cutting "
          "planes | ABR obj | ABR warm (14) obj | exact obj | exact bound | exact gap % | "
          "status | paper Alg. 1 obj | paper full-SDP bound | paper best gap % |",
          "|---|" + "---|" * 14]
    for k in keys:
        r = results[k]
        rel = r["relaxations"]

        def rc(n: str, rel: dict = rel) -> str:
            x = rel.get(n, {})
            if "value" not in x:
                return "–"
            return f"{_f(x['value'])} / {_f(x['bound'])}"

        mt = r["methods"]
        ex = mt["exact"]
        warm = mt.get("abr-warm-sdp-full-cp", {}).get("objective")
        L.append(f"| {k} | {rc('soc-basis')} | {rc('soc-random')} | {rc('sdp-3x3')} | "
                 f"{rc('sdp-full')} | {rc('sdp-full-cp')} | {_f(mt['abr']['objective'])} | "
                 f"{_f(warm)} | {_f(ex['objective'])} | {_f(ex['bound'])} | "
                 f"{_f(None if ex['gap'] is None else 100 * ex['gap'], '.3f')} | "
                 f"{ex['status']} | {_f(PAPER[k][2])} | {_f(PAPER[k][3])} | "
                 f"{_f(PAPER[k][4])} |")
    L += ["", "Note: the paper's objective values use its own hyperparameters and split; they "
          "are shown for shape, not as the same instances.", "", "## Against the goals", ""]
    acc = {mm: np.mean([100 * results[k]["methods"][mm]["test_acc"] for k in keys])
           for mm in ("abr", "abr-5starts", "exact", "single")}
    kmax = max(results[k]["methods"]["abr"]["nnz"] for k in keys)
    faster = sum(results[k].get("abr_retime_s", results[k]["methods"]["abr"]["time_s"])
                 < PAPER[k][1] for k in keys)
    gaps = [results[k]["methods"]["exact"]["gap"] for k in keys]
    L += [f"- Mean test accuracy over {len(keys)} datasets: ABR {acc['abr']:.1f} % "
          f"(5 starts {acc['abr-5starts']:.1f} %, exact optimum {acc['exact']:.1f} %) vs the "
          f"CV-tuned single-kernel SVC {acc['single']:.1f} % (here) / 91.7 % (reference); "
          f"ABR uses at most {kmax} kernel(s).",
          f"- ABR fit time below the paper's Algorithm 1 time on {faster} of {len(keys)} "
          "datasets (one random start, after CV; the paper's machine differs).",
          f"- Certified gap on every dataset: {all(g is not None for g in gaps)}; exact optimum "
          f"proven (gap <= 1e-4) on {sum(g is not None and g <= 1e-4 for g in gaps)} of "
          f"{len(keys)}; largest gap {100 * max(g for g in gaps if g is not None):.4f} %."]
    return "\n".join(L) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--datasets", default=",".join(k for k, _ in DATASETS))
    ap.add_argument("--render", action="store_true", help="only re-render the markdown")
    ap.add_argument("--out", default=str(OUT), help="JSON file (merged into the tables)")
    ap.add_argument("--retime", action="store_true",
                    help="re-time ABR (median of 3 fits) at the chosen parameters")
    args = ap.parse_args()
    RES.mkdir(exist_ok=True)
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else {}
    for extra in RES.glob("smkl_tables*.json"):  # partial runs written with --out
        if extra != out:
            results = {**json.loads(extra.read_text()), **results}
    if args.retime:
        warnings.simplefilter("ignore")
        for key, name in DATASETS:
            if key in results:
                results[key]["abr_retime_s"] = retime(results[key], name)
                print(key, results[key]["abr_retime_s"], flush=True)
        out.write_text(json.dumps(results, indent=1, default=float))
    elif not args.render:
        warnings.simplefilter("ignore")
        wanted = args.datasets.split(",")
        for key, name in DATASETS:
            if key in wanted:
                print(f"== {key}", flush=True)
                results[key] = run_dataset(key, name)
                out.write_text(json.dumps(results, indent=1, default=float))
                (RES / "smkl_tables.md").write_text(render(results))
    (RES / "smkl_tables.md").write_text(render(results))


if __name__ == "__main__":
    main()
