"""Charts of single runs:

- ``gap``: certified gap vs time, one point per run (only when some gap exceeds 0.1 %); a
  closed gap is drawn at 0 on a symlog axis, not dropped.
- ``accuracy``: test (else train) accuracy; one grouped dot chart across data sets when each
  has one number of selected features, else accuracy vs that number (integer ticks).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .child import FAILED
from .config import ExperimentConfig
from .plot_style import (
    MARKERS,
    OPEN_GAP,
    best_per_instance,
    by_column,
    data_name,
    dot_height,
    dots,
    legend,
    new_figure,
    percent_formatter,
    short,
    title_width,
    wrap,
    zero_scale,
)

__all__ = ["draw_accuracy", "draw_gap"]


def draw_gap(df: Any, cfg: ExperimentConfig) -> Any:
    """Certified gap (%) vs the method's time, one point per run."""
    ok = df[df["gap"].notna() & df["time_s"].notna() & ~df["status"].isin(FAILED)]
    if ok.empty or not (ok["gap"] > OPEN_GAP).any():
        return None  # every gap closed to solver tolerance (or none reported): nothing to see
    fig, (ax,) = new_figure(width=5.0, height=3.6)
    order = list(dict.fromkeys(df[by_column(df)].map(str)))  # the colours of the other charts
    for m, g in ok.groupby(ok[by_column(ok)].map(str), sort=False):
        i = order.index(m)
        ax.scatter(g["time_s"], 100 * np.maximum(g["gap"].to_numpy(), 0.0), s=18,
                   label=short(m), alpha=0.8, marker=MARKERS[i % len(MARKERS)],
                   color=f"C{i % 10}")
    times = ok["time_s"].to_numpy(dtype=float)
    if times.min() > 0 and times.max() > 10 * times.min():
        ax.set_xscale("log")  # else a linear axis: a log axis within one decade has no labels
    gaps = 100 * np.maximum(ok["gap"].to_numpy(dtype=float), 0.0)
    pos = gaps[gaps > 0]
    if pos.size and (pos.max() > 10 * pos.min() or (gaps == 0).any()):
        zero_scale(ax, pos, has_zero=bool((gaps == 0).any()))  # a closed gap sits at 0
    ax.yaxis.set_major_formatter(percent_formatter())
    ax.set_xlabel("time s", fontsize=8)
    ax.set_ylabel("certified gap, % (0 = certified optimum)", fontsize=8)
    ax.set_title(wrap(f"{cfg.name}: certified gap vs time, one point per run",
                      title_width(fig, len(order))), fontsize=9)
    legend(fig, ax)
    return fig


def _accuracy_across(ok: Any, cfg: ExperimentConfig, col: str, label: str) -> Any:
    """One grouped dot chart across data sets (one number of features per data set)."""
    insts, series, mat = best_per_instance(ok, cfg, col)
    fig, (ax,) = new_figure(width=max(5.0, 0.5 * len(insts) * max(1, len(series) / 3) + 2),
                            height=dot_height(insts))
    dots(ax, insts, series, 100 * mat)
    ax.set_ylabel(label, fontsize=8)
    ax.set_title(wrap(f"{cfg.name}: {col.replace('_', ' ')} (mean over seeds)", 90),
                 fontsize=9)
    legend(fig, ax)
    return fig


def draw_accuracy(df: Any, cfg: ExperimentConfig) -> Any:
    """Test (else train) accuracy across data sets, or vs the number of selected features."""
    from matplotlib.ticker import MaxNLocator

    col = "test_accuracy" if df["test_accuracy"].notna().any() else "train_accuracy"
    ok = df[df["n_selected"].notna() & df[col].notna() & ~df["status"].isin(FAILED)]
    if ok.empty:
        return None
    label = col.replace("_", " ") + ", %"
    if ok.groupby("data")["n_selected"].nunique().max() == 1:
        return _accuracy_across(ok, cfg, col, label)
    datas = list(dict.fromkeys(ok["data"]))
    fig, axes = new_figure(len(datas), width=3.6, height=3.0)
    for ax, d in zip(axes, datas):
        g = ok[ok["data"] == d]
        for i, (m, h) in enumerate(g.groupby(g[by_column(g)].map(str), sort=False)):
            mean = h.groupby("n_selected")[col].mean()
            ax.plot(mean.index, 100 * mean.to_numpy(), marker=MARKERS[i % len(MARKERS)],
                    label=short(m))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("number of selected features", fontsize=8)
        ax.set_ylabel(label, fontsize=8)
        ax.set_title(wrap(data_name(d), 36), fontsize=9)
    fig.suptitle(wrap(f"{cfg.name}: accuracy vs number of selected features", 90),
                 fontsize=10)
    legend(fig, axes)
    return fig
