"""``profile``: Dolan-More performance profiles (Dolan & More 2002, Math. Program. 91), paper
A's Figure 2: for each instance (every grid key but the series) the ratio of a series' cost to
the best one's; rho(tau) = share of instances with ratio <= tau. Cost is the objective (ratio
1 + (f - f*) / |f*|: paper A's eta = f / f* for its negative objectives, inverted so that 1 is
best and larger is worse) or the time to a proven optimum (``[report] profile_metric``); a
failed (or not yet run) run has ratio infinity. Every instance of the config counts, as Dolan
and More count them: one that no series solved has ratio infinity for all, so no curve
reaches 1 there, and the title gives the grid's instance count and how many no series
solved. Needs two series."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .child import FAILED
from .config import ExperimentConfig
from .plot_style import (
    STYLES,
    by_column,
    instance_keys,
    legend,
    new_figure,
    percent_formatter,
    short,
    wrap,
)

__all__ = ["draw_profile", "profile_ratios"]


def _cost(g: Any, by: str, m: str, metric: str, sense: str) -> float:
    """Series ``m``'s cost on one instance: its best value, inf when it has none."""
    r = g[g[by].map(str) == m]
    ok = r[~r["status"].isin(FAILED)]
    if metric == "time_s":
        ok = ok[ok["status"] == "optimal"]
    vals = ok[metric].dropna()
    if vals.empty:
        return math.inf
    return float(vals.min() if (metric == "time_s" or sense == "min") else vals.max())


def profile_ratios(df: Any, metric: str = "objective", sense: str = "min",
                   keys: list[str] | None = None) -> dict[str, Any]:
    """``{method: array of performance ratios over instances}`` (inf for a failed run, and for
    every series on an instance that none solved); an instance is a value of ``keys``
    (default: every grid key but the series')."""
    by = by_column(df)
    keys = keys or instance_keys(df, (by,))
    inst = df[keys].map(str).agg("\x1f".join, axis=1)
    methods = list(dict.fromkeys(df[by].map(str)))
    out: dict[str, list[float]] = {m: [] for m in methods}
    for _, g in df.groupby(inst, sort=False):
        cost = {m: _cost(g, by, m, metric, sense) for m in methods}
        finite = [c for c in cost.values() if math.isfinite(c)]
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


def _panel(ax: Any, part: Any, cfg: ExperimentConfig, order: list[str], title: str) -> bool:
    """One profile panel; True when a curve was drawn."""
    metric = cfg.report.profile_metric
    rows = [k for k in (cfg.report.rows or []) if k in part.columns]
    ratios = profile_ratios(part, metric, cfg.report.sense, rows or None)
    n_inst = max((r.size for r in ratios.values()), default=0)
    unsolved = int((~np.isfinite(np.vstack(list(ratios.values())))).all(axis=0).sum()) \
        if n_inst else 0
    finite = np.concatenate([r[np.isfinite(r)] for r in ratios.values()] or [np.ones(1)])
    top = float(finite.max()) if finite.size else 1.0
    top = top * 1.05 if top > 1 else 1.05
    taus = np.geomspace(1.0, top, 400) if metric == "time_s" else np.linspace(1.0, top, 400)
    drawn = False
    for m, r in ratios.items():
        i = order.index(m)
        if r.size:  # styles differ: curves that coincide stay visible
            ax.step(taus, [(r <= t).mean() for t in taus], where="post", label=short(m),
                    linestyle=STYLES[i % len(STYLES)], linewidth=2.2 - 0.3 * (i % 4),
                    color=f"C{i % 10}")
            drawn = True
    if metric == "time_s":
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(percent_formatter())  # 1, 2, 4, 8: no 2^k
    ax.set_xlabel("tau (ratio to the best " + ("time" if metric == "time_s" else
                                                "objective") + ")", fontsize=8)
    ax.set_ylabel("share of instances within tau", fontsize=8)
    ax.set_ylim(-0.02, 1.02)
    none = f", {unsolved} solved by none" if unsolved else ""
    ax.set_title(wrap(f"{title} ({n_inst} instances{none})".strip()), fontsize=9)
    return drawn


def draw_profile(df: Any, cfg: ExperimentConfig) -> Any:
    """The performance profiles, one panel per value of ``[report] panels`` (or one)."""
    key = cfg.report.panels
    by = by_column(df)
    if df[by].nunique() < 2:
        return None
    order = list(dict.fromkeys(df[by].map(str)))  # one colour and style per series
    parts = [(f"{key} = {v}", df[df[key].map(str) == v])
             for v in dict.fromkeys(df[key].map(str))] if key in df.columns else [("", df)]
    fig, axes = new_figure(len(parts), width=4.0, height=3.0)
    drawn = False
    for ax, (title, part) in zip(axes, parts):
        drawn = _panel(ax, part, cfg, order, title) or drawn
    if not drawn:
        return None
    fig.suptitle(wrap(f"{cfg.name}: performance profiles", 90), fontsize=10)
    legend(fig, axes)
    return fig
