"""Figures from the store (matplotlib, each as PNG and SVG), the chart chosen for the data.

Each kind is drawn by its own module:

- ``values`` (:mod:`.plot_values`): the report table as a chart, one panel per ``[report]
  values`` entry, the published value (``reference``) as an open marker beside ours.
- ``profile`` (:mod:`.plot_profile`): Dolan-More performance profiles of the objective or of
  the time to a proven optimum (paper A's Figure 2).
- ``box`` and ``objective`` (:mod:`.plot_spread`): the objective over starts / seeds as its
  gap to the instance's best, in % (paper A's Figure 1), and each series' best against the
  best of all.
- ``gap`` and ``accuracy`` (:mod:`.plot_runs`): certified gap vs time, one point per run;
  accuracy across data sets or vs the number of selected features.

What they share (labels, figures, legends, dot charts) is :mod:`.plot_style`. Legends sit
outside the axes; titles are wrapped to fit; a series label never repeats a word (``box
Clarabel Clarabel`` -> ``box Clarabel``). ``[report] plots`` restricts the kinds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .config import ExperimentConfig
from .plot_profile import draw_profile, profile_ratios
from .plot_runs import draw_accuracy, draw_gap
from .plot_spread import draw_box, draw_objective
from .plot_style import EXTRAS, gap_to_best
from .plot_values import draw_values
from .tables import runs_frame, series_frame, series_keys

__all__ = ["plot", "profile_ratios", "gap_to_best", "grid_frame", "KINDS", "plot_folder"]

KINDS = ("values", "profile", "box", "objective", "gap", "accuracy")
_DRAW = {"values": draw_values, "profile": draw_profile, "box": draw_box,
         "objective": draw_objective, "gap": draw_gap, "accuracy": draw_accuracy}


def plot_folder(cfg: ExperimentConfig, out: str | Path | None = None) -> Path:
    """The folder the figures go to: ``out``, else ``<store>_plots`` next to the store; a
    ValueError (one line, naming it) when it cannot be a folder."""
    folder = Path(out) if out is not None else \
        cfg.store_path.with_name(cfg.store_path.stem + "_plots")
    for p in (folder, *folder.parents):
        if p.exists():
            if not p.is_dir():
                raise ValueError(f"figures folder {folder}: {p} is a file, not a folder; give "
                                 "a folder for the figures")
            break
    return folder


def grid_frame(cfg: ExperimentConfig) -> Any:
    """Every grid point, stored or not (a point not stored is ``pending``): a performance
    profile counts every instance of its config, as Dolan and More count an instance that
    no solver solved (ratio infinity for all)."""
    df = series_frame(cfg, runs_frame(cfg, EXTRAS, pending=True))
    df.attrs["series_keys"] = series_keys(cfg, df)
    return df


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
    folder = plot_folder(cfg, out)
    df = series_frame(cfg, runs_frame(cfg, EXTRAS))
    df.attrs["series_keys"] = series_keys(cfg, df)
    if df.empty:
        raise ValueError(f"nothing stored yet for {cfg.name}: run `sparsekm bench run` first")
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for kind in kinds:
        fig = _DRAW[kind](grid_frame(cfg) if kind == "profile" else df, cfg)
        if fig is None:
            continue
        for ext in ("png", "svg"):
            path = folder / f"{cfg.name}_{kind}.{ext}"
            fig.savefig(path, dpi=120)
            files.append(path)
    return files
