"""Markdown tables and PNG plots for paper E from the JSON files of bench_minmax_fs.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from sparsekm.algorithms.minmax_fs.summary import curve, frontier, table2


def _pct(x: float) -> str:
    return f"{100 * x:.2f}"


def _table2_md(data: dict, paper: dict) -> list[str]:
    out = ["## Table 2: test accuracy over the 10 outer folds (pooled)", "",
           "| data | m x n | MM-FS (ours) | C2 (ours) | NO-FS (ours) | MM-FS (paper) | "
           "C2 (paper) | NO-FS (paper) | wall (s) | s / fold |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for key, d in data.items():
        t = table2(d["folds"])
        per_fold = np.mean([f["time_s"] for f in d["folds"]])
        mm, no, c2 = paper[key]
        out.append(f"| {key} | {d['m']} x {d['n']} | {_pct(t['mmfs'])} | "
                   f"{', '.join(f'{c:g}' for c in t['C2'])} | {_pct(t['nofs'])} | {mm} | {c2} | "
                   f"{no} | {d['wall_s']:.0f} ({d['workers']} workers) | {per_fold:.0f} |")
    out += ["", "MM-FS is the best pooled accuracy over the 11 values of C2, as in the paper "
            "(which picks C2 on the test folds); s / fold is one fold's CV, 11 solves of (14) "
            "by the fast route and the ranking curves, on one core.", ""]
    return out


def _frontier_md(data: dict) -> list[str]:
    out = ["## Figure 1: the C2 frontier (fast route)", ""]
    for key, d in data.items():
        out += [f"### {key}", "", "| C2 | accuracy % | mean ||gamma||_1 | mean selected | "
                "mean (14) NO-FS start -> end | max KKT residual | mean time (s) |",
                "|---|---|---|---|---|---|---|"]
        for r in frontier(d["folds"]):
            out.append(f"| {r['C2']:g} | {_pct(r['accuracy'])} | {r['norm1']:.4g} | "
                       f"{r['n_selected']:.1f} | {r['start_objective']:.5g} -> "
                       f"{r['objective']:.5g} | {r['kkt_max']:.1e} | {r['time_s']:.1f} |")
        cs = sorted({f["C"] for f in d["folds"]})
        gs = sorted({f["gamma_ini"] for f in d["folds"]})
        out += ["", f"CV choices over the folds: C* in {cs}, gamma_ini in {gs}.", ""]
    return out


def _top_features(data: dict, key: str, C2: float) -> str:
    counts: dict[str, int] = {}
    for f in data[key]["folds"]:
        for r in f["runs"]:
            if r["C2"] == C2:
                for _, name, g in r["top"][:5]:
                    if g > 0:
                        counts[name] = counts.get(name, 0) + 1
    best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    return ", ".join(f"{n} ({c}/10)" for n, c in best)


def _curves_md(data: dict) -> list[str]:
    out = ["## Figure 2: accuracy with the top-F features (at the best C2)", ""]
    for key, d in data.items():
        C2 = table2(d["folds"])["C2"][-1]
        Fs, acc = curve(d["folds"], C2)
        pairs = ", ".join(f"{F}: {_pct(a)}" for F, a in zip(Fs, acc))
        out += [f"- **{key}** (C2 = {C2:g}): {pairs}",
                f"  - top-5 features most often among the 5 largest gamma_j: "
                f"{_top_features(data, key, C2)}"]
    return out + [""]


def _routes_md(routes: dict) -> list[str]:
    out = ["## Time per fold: fast route vs Ipopt on (20), same start", "",
           "| data | C2 | fold | fast (s) | Ipopt (s) | ratio | (14) fast | (14) Ipopt | "
           "Ipopt status | KKT fast | KKT Ipopt |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key, d in routes.items():
        for f in d["folds"]:
            fa, ip = f["runs"]
            out.append(f"| {key} | {d['C2']:g} | {f['fold']} | {fa['time_s']:.1f} | "
                       f"{ip['time_s']:.1f} | {ip['time_s'] / fa['time_s']:.1f} | "
                       f"{fa['objective']:.8g} | {ip['objective']:.8g} | {ip['status']} | "
                       f"{fa['kkt']['kkt_residual']:.1e} | {ip['kkt']['kkt_residual']:.1e} |")
        ratios = [f["runs"][1]["time_s"] / f["runs"][0]["time_s"] for f in d["folds"]]
        better = sum(f["runs"][0]["objective"] <= f["runs"][1]["objective"] * (1 + 1e-6)
                     for f in d["folds"])
        out.append(f"| **{key}** | | all | | | median {np.median(ratios):.1f} | fast equal "
                   f"or better in {better}/{len(d['folds'])} | | limit "
                   f"{d['ipopt_limit_s']:.0f} CPU s | | |")
    return out + [""]


def _plots(data: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(data), figsize=(4 * len(data), 3.4))
    for ax, (key, d) in zip(np.atleast_1d(axes), data.items()):
        rows = frontier(d["folds"])
        x = [r["norm1"] for r in rows]
        y = [100 * r["accuracy"] for r in rows]
        ax.plot(x, y, "o-")
        for r, xi, yi in zip(rows, x, y):
            ax.annotate(f"{r['C2']:g}", (xi, yi), fontsize=7, xytext=(2, 2),
                        textcoords="offset points")
        ax.axhline(100 * table2(d["folds"])["nofs"], color="gray", ls="--", label="NO-FS")
        ax.set_xscale("log")
        ax.set(title=key, xlabel="mean ||gamma||_1", ylabel="test accuracy (%)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "minmax_fs_frontier.png", dpi=110)
    fig, axes = plt.subplots(1, len(data), figsize=(4 * len(data), 3.4))
    for ax, (key, d) in zip(np.atleast_1d(axes), data.items()):
        C2 = table2(d["folds"])["C2"][-1]
        Fs, acc = curve(d["folds"], C2)
        ax.plot(Fs, [100 * a for a in acc], "o-", ms=3)
        ax.axhline(100 * table2(d["folds"])["nofs"], color="gray", ls="--", label="NO-FS")
        if Fs[-1] > 40:
            ax.set_xscale("log")
        ax.set(title=f"{key} (C2 = {C2:g})", xlabel="top-F features",
               ylabel="test accuracy (%)")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "minmax_fs_ranking.png", dpi=110)


def _models_md(models: dict) -> list[str]:
    out = ["## (20) by Ipopt: declarative Pyomo model vs numpy callbacks (breast, first m rows)",
           "", "| m | n | model | Hessian | time (s) | (14) at the result | status |",
           "|---|---|---|---|---|---|---|"]
    for r in models.get("rows", []):
        out.append(f"| {r['m']} | {r['n']} | {r['model']} | {r['hessian']} | "
                   f"{r['time_s']:.2f} | {r['objective']:.8g} | {r['status']} |")
    return out + [""]


def _engine_md(engine: dict) -> list[str]:
    out = ["## SVM engine inside the fast route (fold 0, paper's C2, same process, alternating)",
           "", "| data | C* | engine | route time (s) | SVM time (s) | evaluations | (14) |",
           "|---|---|---|---|---|---|---|"]
    for r in engine.get("rows", []):
        out.append(f"| {r['data']} | {r['C']:g} | {r['engine']} | {r['time_s']:.2f} | "
                   f"{r['svm_time_s']:.2f} | {r['evaluations']} | {r['objective']:.10g} |")
    return out + ["", "libsvm starts from alpha = 0 at every evaluation; smo is sparsekm's "
                  "compiled SMO warm-started from the previous evaluation's alpha.", ""]


def write_report(out: Path, paper: dict, paper_c2: dict, datasets: dict) -> None:
    """Write minmax_fs_table2.md (+ PNGs), minmax_fs_routes.md from the JSON files."""
    del paper_c2, datasets
    t2 = out / "minmax_fs_table2.json"
    if t2.exists():
        data = json.loads(t2.read_text())
        lines = ["# Paper E (min-max feature weighting): Table 2, Figures 1-2 reproduced", "",
                 "Generated by `benchmarks/bench_minmax_fs.py report`; protocol of Section 4.2 "
                 "(10 stratified outer folds, seed 0; [-1, 1] scaling on training rows; 5-fold "
                 "CV over the (C, gamma) grid; C2 grid of Section 5; p = 1; fast route).", ""]
        lines += _table2_md(data, paper) + _frontier_md(data) + _curves_md(data)
        (out / "minmax_fs_table2.md").write_text("\n".join(lines))
        _plots(data, out)
    routes = out / "minmax_fs_routes.json"
    models = out / "minmax_fs_models.json"
    engine = out / "minmax_fs_engine.json"
    if routes.exists() or models.exists() or engine.exists():
        lines = ["# Paper E: the fast route vs the paper's route (Ipopt on (20))", "",
                 "Same start (Algorithm 1's CV choice and the duals (18) there), same fold; "
                 "time of the route alone (CV excluded), one core, machine shared with other "
                 "jobs (ratios are measured in the same process).", ""]
        if routes.exists():
            lines += _routes_md(json.loads(routes.read_text()))
        if models.exists():
            lines += _models_md(json.loads(models.read_text()))
        if engine.exists():
            lines += _engine_md(json.loads(engine.read_text()))
        (out / "minmax_fs_routes.md").write_text("\n".join(lines))
