"""``values``: the report table as a chart, one panel per ``[report] values`` entry: one
grouped dot chart across its rows (after ``select`` and ``agg``), a filled marker per series
and, where a ``reference`` CSV gives one, the published value as an open marker beside it; log
axis for times and iteration counts spanning more than a decade, symlog for objectives and
bounds spanning more than two; a log axis that would drop values of 0 (a closed gap) is
symlog, linear through 0, so those points stay on the chart at 0."""

from __future__ import annotations

from typing import Any

import numpy as np

from .config import ExperimentConfig
from .plot_style import (
    MARKERS,
    TITLES,
    legend,
    new_figure,
    row_label,
    short,
    wrap,
    zero_scale,
)
from .tables import LABELS, REF, report_frame

__all__ = ["draw_values"]

PERCENT = ("test_accuracy", "train_accuracy", "validation_accuracy", "gap")
LOG = ("time_s", "iterations", "wall_s", "gap")  # log axis when spanning > a decade
SYMLOG = ("objective", "lower_bound", "upper_bound")  # symlog when spanning > two decades
INTEGER = ("n_selected", "iterations")


def _points(ax: Any, tab: Any, series: list[str], value: str, x: np.ndarray,
            width: float) -> None:
    """Each series' markers of ``value`` (filled), the reference's beside them (open)."""
    scale = 100.0 if value in PERCENT else 1.0
    for j, m in enumerate(series):
        xs = x + (j - (len(series) - 1) / 2) * width
        color = f"C{j % 10}"
        for col, face, lab in (((m, value), color, short(m)),
                               ((m, value + REF), "none", f"{short(m)} [paper]")):
            if col not in tab.columns:
                continue
            y = scale * np.asarray(tab[col].map(
                lambda a: a if isinstance(a, int | float) else np.nan), dtype=float)
            if np.isfinite(y).any():
                ax.plot(xs, y, linestyle="none", marker=MARKERS[j % len(MARKERS)],
                        markersize=6, markerfacecolor=face, markeredgecolor=color,
                        label=lab)


def _scale(ax: Any, value: str) -> None:
    """The y axis of ``value``: log / symlog where its values span decades, integer ticks for
    counts."""
    ys = [ln.get_ydata() for ln in ax.get_lines()]
    ys = np.concatenate(ys) if ys else np.array([])
    pos = ys[np.isfinite(ys) & (ys > 0)]
    if value in LOG and pos.size and pos.max() > 10 * pos.min():
        zero_scale(ax, pos, has_zero=bool((ys == 0).any()))
    elif value in SYMLOG:
        mags = np.abs(np.concatenate([ln.get_ydata() for ln in ax.get_lines()] or [[]]))
        mags = mags[np.isfinite(mags) & (mags > 0)]
        if mags.size and mags.max() > 100 * mags.min():
            ax.set_yscale("symlog", linthresh=float(np.quantile(mags, 0.1)))
    if value in INTEGER:
        from matplotlib.ticker import MaxNLocator

        if ax.get_yscale() == "linear":
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
            if pos.size and pos.max() - pos.min() < 2:
                ax.set_ylim(pos.min() - 1.5, pos.max() + 1.5)


def _labels(ax: Any, value: str, x: np.ndarray, rows: list[str], bare: bool) -> None:
    """Title, y label and the row labels under the panel (none when ``bare``)."""
    ax.set_ylabel(TITLES.get(value, LABELS.get(value, value)), fontsize=8)
    ax.set_title(TITLES.get(value, LABELS.get(value, value)), fontsize=9)
    if bare:  # one column of panels: labels under the last
        ax.set_xticks(x, [""] * len(rows))
    else:
        ax.set_xticks(x, rows, rotation=45 if len(rows) > 3 else 0,
                      ha="right" if len(rows) > 3 else "center", fontsize=7)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    ax.grid(axis="both", alpha=0.3)


def draw_values(df: Any, cfg: ExperimentConfig) -> Any:
    """The report's values per row and series (its first 40 rows), one panel per value."""
    tab = report_frame(cfg)
    if tab.empty or getattr(tab.columns, "nlevels", 1) < 2:
        return None
    names = [n or "data" for n in tab.index.names]
    rows = [row_label(zip(names, ix if isinstance(ix, tuple) else (ix,)))
            for ix in tab.index][:40]
    tab = tab.iloc[:len(rows)]
    series = list(dict.fromkeys(m for m, _ in tab.columns))
    values = [v for v in cfg.report.values if any((m, v) in tab.columns for m in series)]
    width = max(4.0, 0.22 * len(rows) * len(series) + 1.5)
    cols = max(1, min(len(values), int(16 // width)))
    fig, axes = new_figure(len(values), width=width, height=3.4 if cols > 1 else 2.6,
                           cols=cols)
    x = np.arange(len(rows))
    stacked = cols == 1 and len(values) > 1
    for k, (ax, v) in enumerate(zip(axes, values)):
        _points(ax, tab, series, v, x, 0.7 / max(len(series), 1))
        _scale(ax, v)
        _labels(ax, v, x, rows, bare=stacked and k < len(values) - 1)
    over = f"{cfg.report.agg} over seeds" + (", per seed the best " +
                                             ", ".join(cfg.report.select)
                                             if cfg.report.select else "")
    paper = "; open markers: the paper's" if cfg.report.reference else ""
    fig.suptitle(wrap(f"{cfg.name}: the report's values ({over}){paper}", 110), fontsize=10)
    legend(fig, axes)
    return fig
