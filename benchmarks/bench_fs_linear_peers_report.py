"""The stored results of ``bench_fs_linear_peers.py`` and their Markdown: the JSON
section files, the protocol's constants, and the summary (per-fit table against abess, the
inner-C and earlier-code lines, whole model selection per outer fold, the wide synthetic
set). Run as ``bench_fs_linear_peers.py report``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

__all__ = ["BASE", "BUDGETS", "OUT", "SETS", "report", "store"]

OUT = Path(__file__).parent / "results"
SETS = ("colorectal", "lymphoma", "dlbcl")
BUDGETS = (5, 10, 20)
BASE = "d0cfa15"          # the code before the 2026-11 rewrite


def store(name: str) -> tuple[Path, dict]:
    """A section's JSON file and its content ({} before its first run)."""
    path = OUT / f"fs_linear_peers.{name}.json"
    return path, (json.loads(path.read_text()) if path.exists() else {})


def _c_violations(before: dict) -> list[str]:
    """(set, fold, B) where the code before gave a smaller C a higher objective."""
    bad = []
    for key in {k.rsplit("/", 1)[0] for k in before}:
        o = [before.get(f"{key}/{C}", {}).get("obj") for C in (0.1, 1.0, 10.0)]
        if None not in o and any(o[a] > o[b] * (1 + 1e-9) for a, b in ((0, 1), (1, 2), (0, 2))):
            bad.append(key)
    return sorted(bad)


def _pm(v: np.ndarray, scale: float = 100.0) -> str:
    v = np.asarray(v, float) * scale
    se = v.std(ddof=1) / np.sqrt(v.size) if v.size > 1 else 0.0
    return f"{v.mean():+.1f} ± {se:.1f}"


def _fixed_table(fx: dict) -> list[str]:
    peers = ("abess", "l1-LinearSVC", "skglm-MCP")
    lines = ["| set / B | fast acc | abess | l1-LinearSVC | skglm MCP | fast − abess | "
             "fast − l1 | fast − MCP | CPU s/fit fast | before | abess | fast / abess | "
             "before / abess | objective vs before (≤ / <) |", "|" + "---|" * 14]
    pooled = {p: [] for p in peers}
    ratios, before_ratios, objs = [], [], []
    for name in SETS:
        for B in BUDGETS:
            rows = [fx[k] for k in fx if k.startswith(f"{name}/") and k.endswith(f"/B={B}")]
            if not rows:
                continue
            acc = {m: np.array([r[m]["acc"] for r in rows]) for m in ("fast", *peers)}
            cpu = {m: np.array([r[m]["cpu"] for r in rows]) for m in ("fast", "fast-before",
                                                                      "abess")}
            rel = np.array([r["fast"]["objective"] / r["fast-before"]["objective"] - 1
                            for r in rows])
            objs += list(rel)
            ratios += list(cpu["fast"] / cpu["abess"])
            before_ratios += list(cpu["fast-before"] / cpu["abess"])
            for p in peers:
                pooled[p] += list(acc["fast"] - acc[p])
            lines.append(
                f"| {name}/B={B} | {100 * acc['fast'].mean():.1f} | "
                + " | ".join(f"{100 * acc[p].mean():.1f}" for p in peers) + " | "
                + " | ".join(_pm(acc["fast"] - acc[p]) for p in peers) + " | "
                + f"{np.median(cpu['fast']):.3f} | {np.median(cpu['fast-before']):.3f} | "
                f"{np.median(cpu['abess']):.4f} | {np.median(cpu['fast'] / cpu['abess']):.0f}x | "
                f"{np.median(cpu['fast-before'] / cpu['abess']):.0f}x | "
                f"{int(np.sum(rel <= 1e-9))}/{rel.size} ≤, {int(np.sum(rel < -1e-9))} < |")
    if ratios:
        objs_a = np.array(objs)
        lines += ["", f"Pooled over {len(ratios)} folds: paired accuracy difference "
                  + ", ".join(f"fast − {p} {_pm(np.array(v))} points" for p, v in pooled.items())
                  + f"; CPU per fit fast / abess median {np.median(ratios):.0f}x (range "
                  f"{min(ratios):.0f}-{max(ratios):.0f}x), before the 2026-11 rewrite median "
                  f"{np.median(before_ratios):.0f}x (range {min(before_ratios):.0f}-"
                  f"{max(before_ratios):.0f}x); objective of (2) at or below the code before "
                  f"on {int(np.sum(objs_a <= 1e-9))} of {objs_a.size} fits (largest excess "
                  f"{100 * max(objs_a.max(), 0):.3f} %)."]
    return lines


def _select_table(sel: dict) -> list[str]:
    meths = ("fast-CV", "abess-CV", "l1-LinearSVC-grid", "skglm-MCP-grid")
    lines = ["| set / outer fold | " + " | ".join(f"{m} CPU s (acc, size)" for m in meths)
             + " | before the 2026-11 rewrite CPU s | fast-CV / l1 grid |", "|" + "---|" * 7]
    for key, row in sel.items():
        cells = [f"{row[m]['cpu']:.2f} ({100 * row[m]['acc']:.0f} %, {row[m]['B']})"
                 for m in meths]
        before = row.get("fast-CV-before", {}).get("cpu")
        lines.append(f"| {key} | " + " | ".join(cells)
                     + f" | {'' if before is None else f'{before:.1f}'} | "
                     f"{row['fast-CV']['cpu'] / row['l1-LinearSVC-grid']['cpu']:.1f}x |")
    return lines


def _synth_lines(sy: dict) -> list[str]:
    lines = ["| B | fast | Kernel Search 60 s | fast CPU s (wall) | KS wall / fast wall |",
             "|---|---|---|---|---|"]
    for B in BUDGETS:
        r = sy.get(f"fast/B={B}")
        if r:
            lines.append(f"| {B} | {r['objective']:.4f} | {r['ks_objective']:.4f} | "
                         f"{r['cpu']:.2f} ({r['wall']:.2f}) | {r['ks_seconds'] / r['wall']:.0f}x |")
    if "path" in sy:
        e, f = sy["path"]["entries"], sy["path"]["fast"]
        above = sum(e[k] > f[k] for k in e)
        monoB = all(e[f"{B}/{C}"] <= e[f"{B - 1}/{C}"] for C in (0.1, 1.0)
                    for B in range(2, 21))
        monoC = all(e[f"{B}/0.1"] <= e[f"{B}/1.0"] for B in range(1, 21))
        lines += ["", f"Path B = 1..20 x C = 0.1, 1: entries above `fast` {above} of {len(e)}; "
                  f"non-increasing in B: {monoB}; C = 0.1 at or below C = 1 at every B: {monoC}; "
                  f"CPU {sy['path']['cpu']:.1f} s (wall {sy['path']['wall']:.1f} s)."]
    if "cv" in sy:
        lines.append(f"`CardinalityLinearSVCCV` 3 B x 3 C x 5 folds + refit: CPU "
                     f"{sy['cv']['cpu']:.1f} s (wall {sy['cv']['wall']:.1f} s) against a fifth "
                     "of one Kernel Search run (12 s).")
    return lines


def report() -> str:
    """The Markdown summary of the stored sections."""
    load = {k: store(k)[1] for k in ("fixed", "innerC", "select", "synth", "before")}
    lines = ["# Paper D's `fast` and its CV against abess, an l1-LinearSVC and skglm",
             "", "Produced by `benchmarks/bench_fs_linear_peers.py` in its own venv "
             "(`benchmarks/bench_fs_linear_peers_env.sh`: abess 0.4.11, skglm 0.5); stratified "
             "5-fold CV (shuffled, seed 0), the same folds for every method, scaling fitted on "
             "each training part; all methods in one process, in turn; CPU is process CPU "
             "time (the machine was shared, so wall seconds are inflated). `before` is the "
             f"code before the 2026-11 rewrite (commit {BASE}) run in the same process.", "",
             "## Per fit at fixed B (C = 1 for `fast`)", ""]
    runs = {v.get("runs", 1) for row in load["fixed"].values() for v in row.values()}
    if runs:
        lines += [f"Each fit's CPU and wall time: the smallest of {max(runs)} runs of that "
                  "method on that fold." if runs == {max(runs)} and max(runs) > 1 else
                  "Each fit's CPU and wall time: one run.", ""]
    lines += _fixed_table(load["fixed"])
    if load["innerC"]:
        v = load["innerC"]
        lines += ["", "## `fast` at B = 10 with C by inner 3-fold CV (path over C)", "",
                  f"Mean test accuracy {100 * np.mean([r['acc'] for r in v.values()]):.1f} % over "
                  f"{len(v)} outer folds, CPU per selection median "
                  f"{np.median([r['cpu'] for r in v.values()]):.2f} s."]
    if load["before"]:
        bad = _c_violations(load["before"])
        n = len({k.rsplit("/", 1)[0] for k in load["before"]})
        lines += ["", "## `fast` before the 2026-11 rewrite, and C", "",
                  f"Objective at a smaller C above the objective at a larger C (C = 0.1, 1, 10) "
                  f"in {len(bad)} of {n} (set, fold, B): " + ", ".join(bad) + "."]
    lines += ["", "## Whole model selection per outer fold", ""]
    lines += _select_table(load["select"])
    lines += ["", "## Wide synthetic set (120 x 1500), C = 1", ""]
    lines += _synth_lines(load["synth"])
    return "\n".join(lines) + "\n"
