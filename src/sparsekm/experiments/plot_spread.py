"""How far each series is from the best value found on an instance, in %:

- ``box``: paper A's Figure 1: per instance, box plots over the starts of multistart runs (or
  over seeds) of the objective as its gap to the best value found on that instance (absolute
  values that differ in the tenth digit are unreadable), and of the time per start when the
  runs report it. Drawn only where a series has at least three values.
- ``objective``: one grouped dot chart over all instances, the gap of each series' best value
  to the instance's best (one value per instance and series: no boxes of one point).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .child import FAILED
from .config import ExperimentConfig
from .plot_style import (
    MIN_BOX,
    best_per_instance,
    by_column,
    dot_height,
    dots,
    gap_to_best,
    instances,
    legend,
    new_figure,
    percent_formatter,
    short,
    title_width,
    wrap,
)

__all__ = ["draw_box", "draw_objective", "starts"]


def starts(runs: Any, column: str = "start_objectives", fallback: str = "objective"
           ) -> np.ndarray:
    """Values over starts: a multistart run's per-start values, else one per run (seed)."""
    vals: list[float] = []
    for per_start, one in zip(runs[column] if column in runs else [None] * len(runs),
                              runs[fallback]):
        if isinstance(per_start, list | np.ndarray) and len(per_start):
            vals += [float(v) for v in per_start if v is not None]
        elif isinstance(one, float | int) and not math.isnan(one):
            vals.append(float(one))
    return np.asarray(vals)


def _box_groups(df: Any, cfg: ExperimentConfig) -> list[tuple[str, dict, dict]]:
    """(instance, {series: values over starts}, {series: times per start}) of the instances
    where some series has at least :data:`MIN_BOX` values (the first six)."""
    by = by_column(df)
    ok = df[~df["status"].isin(FAILED)].copy()
    ok["instance"] = instances(ok, cfg) if not ok.empty else []
    groups = []
    for name, g in ok.groupby("instance", sort=False):
        per = {short(m): starts(h) for m, h in g.groupby(g[by].map(str), sort=False)}
        if max((v.size for v in per.values()), default=0) >= MIN_BOX:
            times = {short(m): starts(h, "start_times_s", "time_s")
                     for m, h in g.groupby(g[by].map(str), sort=False)}
            groups.append((name, per, times))
    return groups[:6]


def _box_axes(ax: Any, title: str, ylabel: str) -> None:
    ax.set_title(wrap(title, 36), fontsize=8)
    ax.set_ylabel(ylabel, fontsize=8)
    ax.tick_params(axis="x", rotation=30, labelsize=7)
    ax.tick_params(axis="y", labelsize=7)


def draw_box(df: Any, cfg: ExperimentConfig) -> Any:
    """Box plots of the objective over starts / seeds (gap to the best, %), times below."""
    groups = _box_groups(df, cfg)
    if not groups:
        return None
    sense = cfg.report.sense
    with_times = "start_times_s" in df.columns and df["start_times_s"].notna().any()
    fig, axes = new_figure(len(groups) * (2 if with_times else 1), width=3.0, height=2.9,
                           cols=len(groups))  # objectives in the first row, times below
    axes = list(axes)
    obj_axes = axes[:len(groups)]
    time_axes = axes[len(groups):] if with_times else []
    for i, (name, per, times) in enumerate(groups):
        finite = np.concatenate([v for v in per.values() if v.size])
        best = finite.min() if sense == "min" else finite.max()
        ax = obj_axes[i]
        gaps = [gap_to_best(v, best, sense) for v in per.values()]
        ax.boxplot(gaps, tick_labels=list(per))
        ax.ticklabel_format(axis="y", useOffset=False, style="plain")
        if max((float(g.max()) for g in gaps if g.size), default=0.0) == 0.0:
            ax.set_ylim(-0.05, 1.0)  # every start reached the best value
        _box_axes(ax, name, "objective above the best, %")
        if with_times:
            tx = time_axes[i]
            tx.boxplot([times[m] for m in per], tick_labels=list(per))
            _box_axes(tx, f"{name}: time per start", "time s")
    fig.suptitle(wrap(f"{cfg.name}: objective over starts / seeds (box: quartiles, "
                      "whiskers: 1.5 IQR)", 100), fontsize=10)
    return fig


def draw_objective(df: Any, cfg: ExperimentConfig) -> Any:
    """Each series' best objective as its gap to the instance's best, in % (grouped dots)."""
    got = best_per_instance(df, cfg, "objective")
    if got is None:
        return None
    insts, series, mat = got
    if len(series) < 2:
        return None
    sense = cfg.report.sense
    gaps = np.full_like(mat, np.nan)
    for i in range(len(insts)):
        row = mat[i]
        if np.isfinite(row).any():
            best = np.nanmin(row) if sense == "min" else np.nanmax(row)
            gaps[i] = gap_to_best(row, best, sense)
    fig, (ax,) = new_figure(width=max(5.0, 0.45 * len(insts) * max(1, len(series) / 3) + 2),
                            height=dot_height(insts))
    dots(ax, insts, series, gaps)
    top = np.nanmax(gaps) if np.isfinite(gaps).any() else 0.0
    if top > 0:
        ax.set_yscale("symlog", linthresh=0.01)
        ax.set_ylim(-0.002, top * 1.6)
    else:
        ax.set_ylim(-0.05, 1.0)
    ax.yaxis.set_major_formatter(percent_formatter())
    ax.set_ylabel("above the best, %", fontsize=8)
    ax.set_title(wrap(f"{cfg.name}: each series' best objective against the best of all "
                      f"({'lower' if sense == 'min' else 'higher'} is better)",
                      title_width(fig, len(series))), fontsize=9)
    legend(fig, ax)
    return fig
