"""What every chart of ``bench plot`` shares: series and instance labels, figures, legends,
grouped dot charts, and the gap of a value to the best on its instance."""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

import numpy as np

from .child import FAILED
from .config import ExperimentConfig
from .tables import RESULT_COLUMNS

__all__ = ["EXTRAS", "MARKERS", "MIN_BOX", "NOISE", "OPEN_GAP", "STYLES", "TITLES",
           "best_per_instance", "by_column", "data_name", "dot_height", "dots", "gap_to_best",
           "instance_keys", "instances", "legend", "new_figure", "percent_formatter",
           "row_label", "short", "title_width", "wrap", "zero_scale"]

STYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
OPEN_GAP = 1e-3  # a relative gap above a solver's tolerance: worth a gap-vs-time chart
MIN_BOX = 3  # values per box: fewer are drawn as dots (the `objective` kind)
NOISE = 1e-6  # %: objectives equal to ~1e-8 relative (solver tolerance) count as equal
EXTRAS = ("start_times_s",)
TITLES = {"time_s": "time per run, s", "iterations": "iterations",
          "test_accuracy": "test accuracy, %", "validation_accuracy": "validation accuracy, %",
          "train_accuracy": "train accuracy, %", "support_fraction":
          "fraction of training points kept", "objective": "objective", "gap": "gap, %",
          "n_selected": "selected features", "lower_bound": "lower bound",
          "upper_bound": "upper bound"}


def instance_keys(df: Any, drop: tuple[str, ...]) -> list[str]:
    """Grid keys that tell instances apart (not the series' own keys, not ``drop``)."""
    skip = {*drop, "series", *df.attrs.get("series_keys", ()), *EXTRAS}
    return [c for c in df.columns if c not in RESULT_COLUMNS and c not in skip]


def by_column(df: Any) -> str:
    """The column naming a run's series: ``series`` (the ``[report] columns``) or ``method``."""
    return "series" if "series" in df.columns else "method"


def short(name: str) -> str:
    """A series label without repeated words (``box Clarabel Clarabel`` -> ``box Clarabel``)."""
    return " ".join(dict.fromkeys(str(name).split())) or str(name)


def data_name(v: Any) -> str:
    """A data set's label: a file's stem (``path/own.csv``, ``own.svm.gz`` -> ``own``), else
    its name."""
    from sparsekm.data.files import data_stem, looks_like_path

    s = str(v)
    if not looks_like_path(s):
        return s
    stem = data_stem(s)
    return stem if stem != Path(s).name else Path(s).stem


def instances(df: Any, cfg: ExperimentConfig) -> Any:
    """A readable instance label per row: the ``[report] rows`` keys (else the data set and
    the other grid keys that vary), ``key=value`` after the data set's name."""
    keys = [k for k in (cfg.report.rows or []) if k in df.columns]
    if not keys:
        keys = instance_keys(df, (by_column(df), "seed", "problem", "action"))
        keys = [k for k in keys if df[k].map(str).nunique() > 1] or ["data"]
    return df[keys].apply(lambda r: row_label(r.items()), axis=1)


def row_label(items: Any) -> str:
    """``data key=value ...`` of (key, value) pairs, empty values left out."""
    return " ".join(data_name(v) if k == "data" else f"{k}={v}" for k, v in items
                    if v is not None and v == v and str(v) != "-")


def title_width(fig: Any, n_series: int) -> int:
    """Characters per title line of a one-axes figure: narrower when :func:`legend` puts its
    column of more than three series on the right, beside the axes."""
    return int((7 if n_series > 3 else 11) * fig.get_figwidth())


def wrap(title: str, width: int = 42) -> str:
    """A title broken into lines of ``width`` characters."""
    return "\n".join(textwrap.wrap(title, width)) or title


def gap_to_best(values: np.ndarray, best: float, sense: str = "min") -> np.ndarray:
    """How far each value is from ``best`` (the best on its instance), in % of ``|best|``;
    0 for the best, positive for worse in either sense."""
    diff = (values - best) if sense == "min" else (best - values)
    pct = 100.0 * np.maximum(diff, 0.0) / max(abs(best), 1e-12)
    return np.where(pct < NOISE, 0.0, pct)


def new_figure(n_panels: int = 1, width: float = 4.2, height: float = 3.2,
               cols: int = 4) -> tuple[Any, Any]:
    """A figure of ``n_panels`` axes in rows of ``cols`` (unused axes hidden)."""
    from matplotlib.figure import Figure

    cols = max(1, min(n_panels, cols))
    rows = math.ceil(n_panels / cols)
    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def legend(fig: Any, axes: Any) -> None:
    """One legend for the figure, outside every axes (below them)."""
    handles, labels = {}, []
    for ax in np.atleast_1d(axes):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    if labels and len(np.atleast_1d(axes)) == 1 and len(labels) > 3:  # a column on the right
        fig.legend([handles[k] for k in labels], labels, loc="outside right center",
                   fontsize=8, frameon=False)  # centred: clear of the figure's title
    elif labels:  # as many columns as the figure's width holds (8 pt: ~0.075 in per character)
        per = 0.075 * max(len(k) for k in labels) + 0.6
        ncols = max(1, min(len(labels), int(fig.get_figwidth() / per)))
        fig.legend([handles[k] for k in labels], labels, loc="outside lower center",
                   ncols=ncols, fontsize=8, frameon=False)


def percent_formatter() -> Any:
    """Tick labels as plain numbers (0.01, 1, 100: no 10^k)."""
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _: f"{v:g}")


def zero_scale(ax: Any, positive: np.ndarray, has_zero: bool) -> None:
    """A log y axis for ``positive`` values spanning decades; with ``has_zero`` a symlog
    axis instead, linear from 0 up to the decade below the smallest positive value (at least
    :data:`NOISE`) and logarithmic above it, so a value of 0 (a closed gap) is drawn at 0,
    not dropped or clipped. Tick labels as plain numbers."""
    from matplotlib.ticker import LogLocator, NullFormatter, SymmetricalLogLocator

    if has_zero:  # values below NOISE (e.g. a gap of 1e-14 %) sit with the zeros
        lin = 10.0 ** math.floor(math.log10(max(float(positive.min()), NOISE)))
        ax.set_yscale("symlog", linthresh=lin, linscale=0.5)
        ax.set_ylim(bottom=-0.7 * lin)  # room for a whole marker at 0
        decades = math.log10(max(float(positive.max()), lin) / lin)
        ax.yaxis.set_major_locator(SymmetricalLogLocator(  # every decade, or every second
            base=10 if decades <= 6 else 100, linthresh=lin))
    else:
        ax.set_yscale("log")
        if positive.max() < 100 * positive.min():  # under two decades: 1, 2, 5 x 10^k too
            ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(percent_formatter())  # 0, 0.01, 1, 100: no 10^k
    ax.yaxis.set_minor_formatter(NullFormatter())


def best_per_instance(df: Any, cfg: ExperimentConfig, value: str) -> Any:
    """(instance labels, series labels, matrix instance x series of the best ``value``)."""
    by = by_column(df)
    ok = df[~df["status"].isin(FAILED) & df[value].notna()].copy()
    if ok.empty:
        return None
    ok["instance"] = instances(ok, cfg)
    ok["label"] = ok[by].map(lambda m: short(str(m)))
    insts = list(dict.fromkeys(ok["instance"]))[:40]
    series = list(dict.fromkeys(ok["label"]))
    best_fn = "min" if cfg.report.sense == "min" or value != "objective" else "max"
    if value in ("test_accuracy", "train_accuracy"):
        best_fn = "mean"
    table = ok.groupby(["instance", "label"], sort=False)[value].agg(best_fn)
    mat = np.full((len(insts), len(series)), np.nan)
    for (i, s), v in table.items():
        if i in insts:
            mat[insts.index(i), series.index(s)] = v
    return insts, series, mat


def dot_height(insts: list[str]) -> float:
    """Figure height that leaves room for rotated instance labels."""
    return min(7.0, 2.8 + 0.055 * max((len(i) for i in insts), default=0))


def dots(ax: Any, insts: list[str], series: list[str], mat: np.ndarray) -> None:
    """A grouped dot chart: one x slot per instance, the series side by side within it."""
    k = len(series)
    width = 0.7 / max(k, 1)
    x = np.arange(len(insts))
    for j, s in enumerate(series):
        ax.plot(x + (j - (k - 1) / 2) * width, mat[:, j], linestyle="none",
                marker=MARKERS[j % len(MARKERS)], markersize=6, label=s, alpha=0.85)
    ax.set_xticks(x, insts, rotation=45 if len(insts) > 3 else 0, ha="right"
                  if len(insts) > 3 else "center", fontsize=7)
    ax.set_xlim(-0.6, len(insts) - 0.4)
    ax.grid(axis="y", alpha=0.3)
