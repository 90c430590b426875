"""Figures from the store (matplotlib, each as PNG and SVG), the chart chosen for the data.

- ``profile``: Dolan-More performance profiles (Dolan & More 2002, Math. Program. 91), paper
  A's Figure 2: for each instance (every grid key but the series) the ratio of a series' cost
  to the best one's; rho(tau) = share of instances with ratio <= tau. Cost is the objective
  (ratio 1 + (f - f*) / |f*|: paper A's eta = f / f* for its negative objectives, inverted so
  that 1 is best and larger is worse) or the time to a proven optimum (``[report]
  profile_metric``); a failed run has ratio infinity. Needs two series and two instances.
- ``box``: paper A's Figure 1: per instance, box plots over the starts of multistart runs (or
  over seeds) of the objective as its gap to the best value found on that instance, in %
  (absolute values that differ in the tenth digit are unreadable), and of the time per start
  when the runs report it. Drawn only where a series has at least three values.
- ``objective``: one grouped dot chart over all instances, the gap of each series' best value
  to the instance's best, in % (one value per instance and series: no boxes of one point).
- ``values``: the report table as a chart, one panel per ``[report] values`` entry: one
  grouped dot chart across its rows (after ``select`` and ``agg``), a filled marker per series
  and, where a ``reference`` CSV gives one, the published value as an open marker beside it;
  log axis for times and iteration counts spanning more than a decade.
- ``gap``: certified gap vs time, one point per run (only when some gap exceeds 0.1 %).
- ``accuracy``: test (else train) accuracy; one grouped dot chart across data sets when each
  has one number of selected features, else accuracy vs that number (integer ticks).

Legends sit outside the axes; titles are wrapped to fit; a series label never repeats a word
(``box Clarabel Clarabel`` -> ``box Clarabel``). ``[report] plots`` restricts the kinds.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

import numpy as np

from .child import FAILED
from .config import ExperimentConfig
from .tables import (
    LABELS,
    REF,
    RESULT_COLUMNS,
    report_frame,
    runs_frame,
    series_frame,
    series_keys,
)

__all__ = ["plot", "profile_ratios", "gap_to_best", "KINDS"]

KINDS = ("values", "profile", "box", "objective", "gap", "accuracy")
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
          "n_selected": "selected features", "lower_bound": "lower bound"}


def _instance_keys(df: Any, drop: tuple[str, ...]) -> list[str]:
    """Grid keys that tell instances apart (not the series' own keys, not ``drop``)."""
    skip = {*drop, "series", *df.attrs.get("series_keys", ()), *EXTRAS}
    return [c for c in df.columns if c not in RESULT_COLUMNS and c not in skip]


def _by(df: Any) -> str:
    return "series" if "series" in df.columns else "method"


def _short(name: str) -> str:
    """A series label without repeated words (``box Clarabel Clarabel`` -> ``box Clarabel``)."""
    return " ".join(dict.fromkeys(str(name).split())) or str(name)


def _data_name(v: Any) -> str:
    s = str(v)
    return Path(s).stem.removesuffix(".csv") if ("/" in s or s.endswith((".csv", ".gz"))) else s


def _instances(df: Any, cfg: ExperimentConfig) -> Any:
    """A readable instance label per row: the ``[report] rows`` keys (else the data set and
    the other grid keys that vary), ``key=value`` after the data set's name."""
    keys = [k for k in (cfg.report.rows or []) if k in df.columns]
    if not keys:
        keys = _instance_keys(df, (_by(df), "seed", "problem", "action"))
        keys = [k for k in keys if df[k].map(str).nunique() > 1] or ["data"]
    return df[keys].apply(lambda r: _row_label(r.items()), axis=1)


def _row_label(items: Any) -> str:
    return " ".join(_data_name(v) if k == "data" else f"{k}={v}" for k, v in items
                    if v is not None and v == v and str(v) != "-")


def _wrap(title: str, width: int = 42) -> str:
    return "\n".join(textwrap.wrap(title, width)) or title


def profile_ratios(df: Any, metric: str = "objective", sense: str = "min",
                   keys: list[str] | None = None) -> dict[str, Any]:
    """``{method: array of performance ratios over instances}`` (inf for a failed run); an
    instance is a value of ``keys`` (default: every grid key but the series')."""
    by = _by(df)
    keys = keys or _instance_keys(df, (by,))
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


def gap_to_best(values: np.ndarray, best: float, sense: str = "min") -> np.ndarray:
    """How far each value is from ``best`` (the best on its instance), in % of ``|best|``;
    0 for the best, positive for worse in either sense."""
    diff = (values - best) if sense == "min" else (best - values)
    pct = 100.0 * np.maximum(diff, 0.0) / max(abs(best), 1e-12)
    return np.where(pct < NOISE, 0.0, pct)


def _new_figure(n_panels: int = 1, width: float = 4.2, height: float = 3.2,
                cols: int = 4) -> tuple[Any, Any]:
    from matplotlib.figure import Figure

    cols = max(1, min(n_panels, cols))
    rows = math.ceil(n_panels / cols)
    fig = Figure(figsize=(width * cols, height * rows), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n_panels:]:
        ax.set_visible(False)
    return fig, axes[:n_panels]


def _legend(fig: Any, axes: Any) -> None:
    """One legend for the figure, outside every axes (below them)."""
    handles, labels = {}, []
    for ax in np.atleast_1d(axes):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    if labels and len(np.atleast_1d(axes)) == 1 and len(labels) > 3:  # a column on the right
        fig.legend([handles[k] for k in labels], labels, loc="outside right upper",
                   fontsize=8, frameon=False)
    elif labels:  # as many columns as the figure's width holds (8 pt: ~0.075 in per character)
        per = 0.075 * max(len(k) for k in labels) + 0.6
        ncols = max(1, min(len(labels), int(fig.get_figwidth() / per)))
        fig.legend([handles[k] for k in labels], labels, loc="outside lower center",
                   ncols=ncols, fontsize=8, frameon=False)


def _profile(df: Any, cfg: ExperimentConfig) -> Any:
    metric, key = cfg.report.profile_metric, cfg.report.panels
    if df[_by(df)].nunique() < 2:
        return None
    order = list(dict.fromkeys(df[_by(df)].map(str)))  # one colour and style per series
    parts = [(f"{key} = {v}", df[df[key].map(str) == v])
             for v in dict.fromkeys(df[key].map(str))] if key in df.columns else [("", df)]
    fig, axes = _new_figure(len(parts), width=4.0, height=3.0)
    drawn = False
    for ax, (title, part) in zip(axes, parts):
        rows = [k for k in (cfg.report.rows or []) if k in part.columns]
        ratios = profile_ratios(part, metric, cfg.report.sense, rows or None)
        n_inst = max((r.size for r in ratios.values()), default=0)
        finite = np.concatenate([r[np.isfinite(r)] for r in ratios.values()] or [np.ones(1)])
        top = float(finite.max()) if finite.size else 1.0
        top = top * 1.05 if top > 1 else 1.05
        taus = np.geomspace(1.0, top, 400) if metric == "time_s" else \
            np.linspace(1.0, top, 400)
        for m, r in ratios.items():
            i = order.index(m)
            if r.size:  # styles differ: curves that coincide stay visible
                ax.step(taus, [(r <= t).mean() for t in taus], where="post", label=_short(m),
                        linestyle=STYLES[i % len(STYLES)], linewidth=2.2 - 0.3 * (i % 4),
                        color=f"C{i % 10}")
                drawn = True
        if metric == "time_s":
            ax.set_xscale("log", base=2)
        ax.set_xlabel("tau (ratio to the best " + ("time" if metric == "time_s" else
                                                    "objective") + ")", fontsize=8)
        ax.set_ylabel("share of instances within tau", fontsize=8)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(_wrap(f"{title} ({n_inst} instances)".strip()), fontsize=9)
    if not drawn:
        return None
    fig.suptitle(_wrap(f"{cfg.name}: performance profiles", 90), fontsize=10)
    _legend(fig, axes)
    return fig


def _starts(runs: Any, column: str = "start_objectives", fallback: str = "objective"
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


def _box(df: Any, cfg: ExperimentConfig) -> Any:
    by = _by(df)
    ok = df[~df["status"].isin(FAILED)].copy()
    ok["instance"] = _instances(ok, cfg) if not ok.empty else []
    groups = []
    for name, g in ok.groupby("instance", sort=False):
        per = {_short(m): _starts(h) for m, h in g.groupby(g[by].map(str), sort=False)}
        if max((v.size for v in per.values()), default=0) >= MIN_BOX:
            times = {_short(m): _starts(h, "start_times_s", "time_s")
                     for m, h in g.groupby(g[by].map(str), sort=False)}
            groups.append((name, per, times))
    if not groups:
        return None
    groups = groups[:6]
    with_times = "start_times_s" in df.columns and df["start_times_s"].notna().any()
    fig, axes = _new_figure(len(groups) * (2 if with_times else 1), width=3.0, height=2.9,
                            cols=len(groups))  # objectives in the first row, times below
    axes = list(axes)
    obj_axes = axes[:len(groups)]
    time_axes = axes[len(groups):] if with_times else []
    for i, (name, per, times) in enumerate(groups):
        finite = np.concatenate([v for v in per.values() if v.size])
        best = finite.min() if cfg.report.sense == "min" else finite.max()
        ax = obj_axes[i]
        gaps = [gap_to_best(v, best, cfg.report.sense) for v in per.values()]
        ax.boxplot(gaps, tick_labels=list(per))
        ax.ticklabel_format(axis="y", useOffset=False, style="plain")
        if max((float(g.max()) for g in gaps if g.size), default=0.0) == 0.0:
            ax.set_ylim(-0.05, 1.0)  # every start reached the best value
        ax.set_title(_wrap(name, 36), fontsize=8)
        ax.set_ylabel("objective above the best, %", fontsize=8)
        ax.tick_params(axis="x", rotation=30, labelsize=7)
        ax.tick_params(axis="y", labelsize=7)
        if with_times:
            tx = time_axes[i]
            tx.boxplot([times[m] for m in per], tick_labels=list(per))
            tx.set_title(_wrap(f"{name}: time per start", 36), fontsize=8)
            tx.set_ylabel("time s", fontsize=8)
            tx.tick_params(axis="x", rotation=30, labelsize=7)
            tx.tick_params(axis="y", labelsize=7)
    fig.suptitle(_wrap(f"{cfg.name}: objective over starts / seeds (box: quartiles, "
                       "whiskers: 1.5 IQR)", 100), fontsize=10)
    return fig


def _best_per_instance(df: Any, cfg: ExperimentConfig, value: str) -> Any:
    """(instance labels, series labels, matrix instance x series of the best ``value``)."""
    by = _by(df)
    ok = df[~df["status"].isin(FAILED) & df[value].notna()].copy()
    if ok.empty:
        return None
    ok["instance"] = _instances(ok, cfg)
    ok["label"] = ok[by].map(lambda m: _short(str(m)))
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


def _dot_height(insts: list[str]) -> float:
    """Figure height that leaves room for rotated instance labels."""
    return min(7.0, 2.8 + 0.055 * max((len(i) for i in insts), default=0))


def _dots(ax: Any, insts: list[str], series: list[str], mat: np.ndarray) -> None:
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


def _objective(df: Any, cfg: ExperimentConfig) -> Any:
    got = _best_per_instance(df, cfg, "objective")
    if got is None:
        return None
    insts, series, mat = got
    if len(series) < 2:
        return None
    gaps = np.full_like(mat, np.nan)
    for i in range(len(insts)):
        row = mat[i]
        if np.isfinite(row).any():
            best = np.nanmin(row) if cfg.report.sense == "min" else np.nanmax(row)
            gaps[i] = gap_to_best(row, best, cfg.report.sense)
    fig, (ax,) = _new_figure(width=max(5.0, 0.45 * len(insts) * max(1, len(series) / 3) + 2),
                             height=_dot_height(insts))
    _dots(ax, insts, series, gaps)
    top = np.nanmax(gaps) if np.isfinite(gaps).any() else 0.0
    if top > 0:
        ax.set_yscale("symlog", linthresh=0.01)
        ax.set_ylim(-0.002, top * 1.6)
    else:
        ax.set_ylim(-0.05, 1.0)
    ax.yaxis.set_major_formatter(_percent_formatter())
    ax.set_ylabel("above the best, %", fontsize=8)
    ax.set_title(_wrap(f"{cfg.name}: each series' best objective against the best of all "
                       f"({'lower' if cfg.report.sense == 'min' else 'higher'} is better)",
                       int(11 * fig.get_figwidth())), fontsize=9)
    _legend(fig, ax)
    return fig


def _percent_formatter() -> Any:
    from matplotlib.ticker import FuncFormatter

    return FuncFormatter(lambda v, _: f"{v:g}")


def _gap(df: Any, cfg: ExperimentConfig) -> Any:
    ok = df[df["gap"].notna() & df["time_s"].notna() & ~df["status"].isin(FAILED)]
    if ok.empty or not (ok["gap"] > OPEN_GAP).any():
        return None  # every gap closed to solver tolerance (or none reported): nothing to see
    fig, (ax,) = _new_figure(width=5.0, height=3.6)
    order = list(dict.fromkeys(df[_by(df)].map(str)))  # the colours of the other charts
    for m, g in ok.groupby(ok[_by(ok)].map(str), sort=False):
        i = order.index(m)
        ax.scatter(g["time_s"], 100 * np.maximum(g["gap"].to_numpy(), 1e-6), s=18,
                   label=_short(m), alpha=0.8, marker=MARKERS[i % len(MARKERS)],
                   color=f"C{i % 10}")
    times = ok["time_s"].to_numpy(dtype=float)
    if times.min() > 0 and times.max() > 10 * times.min():
        ax.set_xscale("log")  # else a linear axis: a log axis within one decade has no labels
    gaps = 100 * np.maximum(ok["gap"].to_numpy(dtype=float), 1e-6)
    if gaps.max() > 10 * gaps.min():
        from matplotlib.ticker import NullFormatter

        ax.set_yscale("log")
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_formatter(_percent_formatter())
    ax.set_xlabel("time s", fontsize=8)
    ax.set_ylabel("certified gap, % (1e-4 = closed)", fontsize=8)
    ax.set_title(_wrap(f"{cfg.name}: certified gap vs time, one point per run",
                       int(11 * fig.get_figwidth())), fontsize=9)
    _legend(fig, ax)
    return fig


def _accuracy(df: Any, cfg: ExperimentConfig) -> Any:
    from matplotlib.ticker import MaxNLocator

    col = "test_accuracy" if df["test_accuracy"].notna().any() else "train_accuracy"
    ok = df[df["n_selected"].notna() & df[col].notna() & ~df["status"].isin(FAILED)]
    if ok.empty:
        return None
    label = col.replace("_", " ") + ", %"
    one_x = ok.groupby("data")["n_selected"].nunique().max() == 1
    if one_x:  # one number of features per data set: one grouped chart across data sets
        got = _best_per_instance(ok, cfg, col)
        insts, series, mat = got
        fig, (ax,) = _new_figure(width=max(5.0, 0.5 * len(insts) * max(1, len(series) / 3)
                                           + 2), height=_dot_height(insts))
        _dots(ax, insts, series, 100 * mat)
        ax.set_ylabel(label, fontsize=8)
        ax.set_title(_wrap(f"{cfg.name}: {col.replace('_', ' ')} (mean over seeds)", 90),
                     fontsize=9)
        _legend(fig, ax)
        return fig
    datas = list(dict.fromkeys(ok["data"]))
    fig, axes = _new_figure(len(datas), width=3.6, height=3.0)
    for ax, d in zip(axes, datas):
        g = ok[ok["data"] == d]
        for i, (m, h) in enumerate(g.groupby(g[_by(g)].map(str), sort=False)):
            mean = h.groupby("n_selected")[col].mean()
            ax.plot(mean.index, 100 * mean.to_numpy(), marker=MARKERS[i % len(MARKERS)],
                    label=_short(m))
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("number of selected features", fontsize=8)
        ax.set_ylabel(label, fontsize=8)
        ax.set_title(_wrap(_data_name(d), 36), fontsize=9)
    fig.suptitle(_wrap(f"{cfg.name}: accuracy vs number of selected features", 90),
                 fontsize=10)
    _legend(fig, axes)
    return fig


def _values(df: Any, cfg: ExperimentConfig) -> Any:
    tab = report_frame(cfg)
    if tab.empty or getattr(tab.columns, "nlevels", 1) < 2:
        return None
    names = [n or "data" for n in tab.index.names]
    rows = [_row_label(zip(names, ix if isinstance(ix, tuple) else (ix,)))
            for ix in tab.index][:40]
    tab = tab.iloc[:len(rows)]
    series = list(dict.fromkeys(m for m, _ in tab.columns))
    values = [v for v in cfg.report.values if any((m, v) in tab.columns for m in series)]
    width = max(4.0, 0.22 * len(rows) * len(series) + 1.5)
    cols = max(1, min(len(values), int(16 // width)))
    fig, axes = _new_figure(len(values), width=width, height=3.4 if cols > 1 else 2.6,
                            cols=cols)
    x = np.arange(len(rows))
    width = 0.7 / max(len(series), 1)
    stacked = cols == 1 and len(values) > 1
    for k, (ax, v) in enumerate(zip(axes, values)):
        scale = 100.0 if v in ("test_accuracy", "train_accuracy", "validation_accuracy",
                               "gap") else 1.0
        for j, m in enumerate(series):
            xs = x + (j - (len(series) - 1) / 2) * width
            color = f"C{j % 10}"
            for col, face, lab in (((m, v), color, _short(m)),
                                   ((m, v + REF), "none", f"{_short(m)} [paper]")):
                if col not in tab.columns:
                    continue
                y = scale * np.asarray(tab[col].map(
                    lambda a: a if isinstance(a, int | float) else np.nan), dtype=float)
                if np.isfinite(y).any():
                    ax.plot(xs, y, linestyle="none", marker=MARKERS[j % len(MARKERS)],
                            markersize=6, markerfacecolor=face, markeredgecolor=color,
                            label=lab)
        pos = [ln.get_ydata() for ln in ax.get_lines()]
        pos = np.concatenate(pos) if pos else np.array([])
        pos = pos[np.isfinite(pos) & (pos > 0)]
        if v in ("time_s", "iterations", "wall_s", "gap") and pos.size \
                and pos.max() > 10 * pos.min():
            from matplotlib.ticker import NullFormatter

            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(_percent_formatter())  # 0.01, 1, 100: no 10^k
            ax.yaxis.set_minor_formatter(NullFormatter())
        elif v in ("objective", "lower_bound"):
            mags = np.abs(np.concatenate([ln.get_ydata() for ln in ax.get_lines()] or [[]]))
            mags = mags[np.isfinite(mags) & (mags > 0)]
            if mags.size and mags.max() > 100 * mags.min():
                ax.set_yscale("symlog", linthresh=float(np.quantile(mags, 0.1)))
        if v in ("n_selected", "iterations"):
            from matplotlib.ticker import MaxNLocator

            if ax.get_yscale() == "linear":
                ax.yaxis.set_major_locator(MaxNLocator(integer=True))
                if pos.size and pos.max() - pos.min() < 2:
                    ax.set_ylim(pos.min() - 1.5, pos.max() + 1.5)
        ax.set_ylabel(TITLES.get(v, LABELS.get(v, v)), fontsize=8)
        ax.set_title(TITLES.get(v, LABELS.get(v, v)), fontsize=9)
        if stacked and k < len(values) - 1:  # one column of panels: labels under the last
            ax.set_xticks(x, [""] * len(rows))
        else:
            ax.set_xticks(x, rows, rotation=45 if len(rows) > 3 else 0,
                          ha="right" if len(rows) > 3 else "center", fontsize=7)
        ax.set_xlim(-0.6, len(rows) - 0.4)
        ax.grid(axis="both", alpha=0.3)
    over = f"{cfg.report.agg} over seeds" + (", per seed the best " +
                                             ", ".join(cfg.report.select)
                                             if cfg.report.select else "")
    paper = "; open markers: the paper's" if cfg.report.reference else ""
    fig.suptitle(_wrap(f"{cfg.name}: the report's values ({over}){paper}", 110), fontsize=10)
    _legend(fig, axes)
    return fig


_DRAW = {"values": _values, "profile": _profile, "box": _box, "objective": _objective, "gap": _gap,
         "accuracy": _accuracy}


def plot(cfg: ExperimentConfig, out: str | Path | None = None,
         kinds: list[str] | tuple[str, ...] | None = None) -> list[Path]:
    """Draw ``kinds`` (default ``[report] plots``, else every kind) from the store into ``out``
    (default ``<store>_plots/``); returns the files written (PNG and SVG). A kind without
    data for its chart (one series, one value per box, no open gap, ...) is skipped."""
    if kinds is None:
        kinds = KINDS if cfg.report.plots is None else cfg.report.plots
    kinds = tuple(kinds)
    bad = [k for k in kinds if k not in _DRAW]
    if bad:
        raise ValueError(f"--kinds {','.join(bad)}: choose from {', '.join(KINDS)}")
    df = series_frame(cfg, runs_frame(cfg, EXTRAS))
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
