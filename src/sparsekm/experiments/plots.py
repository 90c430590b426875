"""Figures from the store (matplotlib, each as PNG and SVG), as the papers draw them.

- ``profile``: Dolan-More performance profiles (Dolan & More 2002, Math. Program. 91): for
  each instance (every grid key but the method) the ratio of a method's cost to the best
  method's; rho(tau) = share of instances with ratio <= tau. Cost is the objective (ratio
  1 + (f - f*) / |f*|, as paper A's Figure 2) or the time to a proven optimum
  (``[report] profile_metric``). A failed run has ratio infinity.
- ``box``: objective over seeds (starts) per method, one panel per instance (paper A Fig. 1).
- ``gap``: final gap vs time, one point per run (paper D's exact method).
- ``accuracy``: test (else train) accuracy vs number of selected features, per method.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from .child import FAILED
from .config import ExperimentConfig
from .tables import RESULT_COLUMNS, runs_frame, series_frame, series_keys

__all__ = ["plot", "profile_ratios", "KINDS"]

KINDS = ("profile", "box", "gap", "accuracy")
STYLES = ("-", "--", "-.", ":")


def _instance_keys(df: Any, drop: tuple[str, ...]) -> list[str]:
    """Grid keys that tell instances apart (not the series' own keys, not ``drop``)."""
    skip = {*drop, "series", *df.attrs.get("series_keys", ())}
    return [c for c in df.columns if c not in RESULT_COLUMNS and c not in skip]


def _by(df: Any) -> str:
    return "series" if "series" in df.columns else "method"


def profile_ratios(df: Any, metric: str = "objective", sense: str = "min") -> dict[str, Any]:
    """``{method: array of performance ratios over instances}`` (inf for a failed run)."""
    by = _by(df)
    keys = _instance_keys(df, (by,))
    inst = df[keys].map(str).agg("\x1f".join, axis=1)
    methods = list(dict.fromkeys(df[by].map(str)))
    out: dict[str, list[float]] = {m: [] for m in methods}
    for _, g in df.groupby(inst, sort=False):
        cost = {}
        for m in methods:
            r = g[g[by].map(str) == m]
            ok = r[~r["status"].isin(FAILED)]
            if metric == "time_s":
                ok = ok[ok["status"] == "optimal"]
            vals = ok[metric].dropna()
            if vals.empty:
                cost[m] = math.inf
            else:
                cost[m] = float(vals.min() if (metric == "time_s" or sense == "min")
                                else vals.max())
        finite = [c for c in cost.values() if math.isfinite(c)]
        if not finite:
            continue
        for m in methods:
            c = cost[m]
            if not math.isfinite(c):
                out[m].append(math.inf)
            elif metric == "time_s":
                out[m].append(c / max(min(finite), 1e-9))
            else:
                best = min(finite) if sense == "min" else max(finite)
                out[m].append(1.0 + abs(c - best) / max(abs(best), 1e-12))
    return {m: np.asarray(v) for m, v in out.items()}


def _new_figure(n_panels: int = 1, width: float = 4.2, height: float = 3.2) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    cols = min(n_panels, 4)
    rows = math.ceil(n_panels / cols)
    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _profile(df: Any, cfg: ExperimentConfig) -> Any:
    metric, key = cfg.report.profile_metric, cfg.report.panels
    parts = [(f"{key}={v}", df[df[key].map(str) == v])
             for v in dict.fromkeys(df[key].map(str))] if key in df.columns else [("", df)]
    fig, axes = _new_figure(len(parts))
    for ax, (title, part) in zip(axes, parts):
        ratios = profile_ratios(part, metric, cfg.report.sense)
        finite = np.concatenate([r[np.isfinite(r)] for r in ratios.values()] or [np.ones(1)])
        top = float(finite.max()) if finite.size else 1.0
        top = top * 1.05 if top > 1 else 1.05
        taus = np.geomspace(1.0, top, 400) if metric == "time_s" else \
            np.linspace(1.0, top, 400)
        for i, (m, r) in enumerate(ratios.items()):
            if r.size:  # styles differ: curves that coincide stay visible
                ax.step(taus, [(r <= t).mean() for t in taus], where="post", label=m,
                        linestyle=STYLES[i % len(STYLES)], linewidth=2.2 - 0.3 * (i % 4))
        if metric == "time_s":
            ax.set_xscale("log", base=2)
        ax.set_xlabel("tau (ratio to the best " + ("time" if metric == "time_s" else
                                                    "objective") + ")")
        ax.set_ylabel("share of instances within tau")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{cfg.name}: performance profile {title}".strip(), fontsize=9)
        ax.legend(fontsize=7)
    return fig


def _starts(runs: Any) -> np.ndarray:
    """Objectives over starts: a multistart run's per-start values, else one per run (seed)."""
    vals: list[float] = []
    for per_start, obj in zip(runs["start_objectives"], runs["objective"]):
        if isinstance(per_start, list | np.ndarray) and len(per_start):
            vals += [float(v) for v in per_start if v is not None]
        elif isinstance(obj, float | int) and not math.isnan(obj):
            vals.append(float(obj))
    return np.asarray(vals)


def _box(df: Any, cfg: ExperimentConfig) -> Any:
    by = _by(df)
    keys = _instance_keys(df, (by, "seed", "problem", "action"))
    keys = [k for k in keys if df[k].map(str).nunique() > 1] or ["data"]
    inst = df[keys].apply(lambda r: ", ".join(str(v) if k == "data" else f"{k}={v}"
                                              for k, v in r.items()
                                              if v is not None and v == v), axis=1)
    groups = list(df.groupby(inst, sort=False))[:12]
    fig, axes = _new_figure(len(groups), width=3.4)
    for ax, (name, g) in zip(axes, groups):
        ok = g[~g["status"].isin(FAILED)]
        methods = list(dict.fromkeys(ok[by].map(str)))
        ax.set_title(name, fontsize=8)
        if not methods:  # every run of this instance failed: say so, draw nothing
            ax.text(0.5, 0.5, "no successful run", ha="center", va="center",
                    transform=ax.transAxes, fontsize=8)
            continue
        ax.boxplot([_starts(ok[ok[by].map(str) == m]) for m in methods],
                   tick_labels=methods)
        ax.tick_params(axis="x", rotation=40, labelsize=7)
        ax.ticklabel_format(axis="y", useOffset=False)
        ax.set_ylabel("objective", fontsize=8)
    return fig


def _gap(df: Any, cfg: ExperimentConfig) -> Any:
    ok = df[df["gap"].notna() & df["time_s"].notna()]
    if ok.empty:
        return None
    fig, (ax,) = _new_figure()
    for m, g in ok.groupby(ok[_by(ok)].map(str), sort=False):
        ax.scatter(g["time_s"], np.maximum(g["gap"].to_numpy(), 1e-6), s=14, label=m, alpha=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("time s")
    ax.set_ylabel("gap (1e-6 = closed)")
    ax.set_title(f"{cfg.name}: gap vs time", fontsize=9)
    ax.legend(fontsize=7)
    return fig


def _accuracy(df: Any, cfg: ExperimentConfig) -> Any:
    col = "test_accuracy" if df["test_accuracy"].notna().any() else "train_accuracy"
    ok = df[df["n_selected"].notna() & df[col].notna()]
    if ok.empty:
        return None
    datas = list(dict.fromkeys(ok["data"]))
    fig, axes = _new_figure(len(datas))
    for ax, d in zip(axes, datas):
        g = ok[ok["data"] == d]
        for m, h in g.groupby(g[_by(g)].map(str), sort=False):
            mean = h.groupby("n_selected")[col].mean()
            ax.plot(mean.index, 100 * mean.to_numpy(), marker="o", label=m)
        ax.set_xlabel("number of selected features")
        ax.set_ylabel(col.replace("_", " ") + " %")
        ax.set_title(d, fontsize=9)
        ax.legend(fontsize=7)
    return fig


_DRAW = {"profile": _profile, "box": _box, "gap": _gap, "accuracy": _accuracy}


def plot(cfg: ExperimentConfig, out: str | Path | None = None,
         kinds: list[str] | tuple[str, ...] = KINDS) -> list[Path]:
    """Draw ``kinds`` from the store into ``out`` (default ``<store>_plots/``); returns the
    files written (PNG and SVG). A kind without data (no gaps, no selections) is skipped."""
    bad = [k for k in kinds if k not in _DRAW]
    if bad:
        raise ValueError(f"--kinds {','.join(bad)}: choose from {', '.join(KINDS)}")
    df = series_frame(cfg, runs_frame(cfg))
    df.attrs["series_keys"] = series_keys(cfg, df)
    if df.empty:
        raise ValueError(f"nothing stored yet for {cfg.name}: run `sparsekm bench run` first")
    folder = Path(out) if out is not None else \
        cfg.store_path.with_name(cfg.store_path.stem + "_plots")
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for kind in kinds:
        fig = _DRAW[kind](df, cfg)
        if fig is None:
            continue
        for ext in ("png", "svg"):
            path = folder / f"{cfg.name}_{kind}.{ext}"
            fig.savefig(path, dpi=120)
            files.append(path)
    return files
