"""Ours against the paper's, per report column, and the verdict rule of the reproduce page.

A config's report (:func:`sparsekm.experiments.report_frame`) holds, for each compared series
and value, our column and the paper's (``value [paper]``). Each pair is summarised by the
means over the rows where both exist and a distance suited to the value; the verdict of the
pair follows from the distance (thresholds below), and a config's verdict is the worst of its
pairs. Times and iteration counts come from other machines and implementations: they are
shown, never judged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

REF = " [paper]"
VERDICTS = ("reproduced", "close", "differs")  # best first
# value -> (kind, threshold for "reproduced", threshold for "close")
#   points: mean absolute difference in percentage points (accuracies, stored as fractions)
#   absolute: mean absolute difference (fractions such as the share of points kept)
#   relative: median of |ours - paper| / |paper| over the rows
RULES: dict[str, tuple[str, float, float]] = {
    "test_accuracy": ("points", 2.0, 5.0),
    "train_accuracy": ("points", 2.0, 5.0),
    "validation_accuracy": ("points", 2.0, 5.0),
    "support_fraction": ("absolute", 0.05, 0.15),
    "objective": ("relative", 0.01, 0.10),
    "lower_bound": ("relative", 0.01, 0.10),
    "upper_bound": ("relative", 0.01, 0.10),
    "n_selected": ("relative", 0.0, 0.25),
}
# times, iterations and a solver's gap at its limit depend on the machine, the implementation
# and the solver (the papers used Baron, Gurobi, Knitro on other hardware): shown, not judged
NOT_JUDGED = ("time_s", "wall_s", "iterations", "gap")


@dataclass(frozen=True)
class Pair:
    """One compared column: series, value, the means, the rows, the distance, the verdict."""

    series: str
    value: str
    ours: float
    paper: float
    rows: int
    distance: float | None
    verdict: str | None  # None: shown, not judged (times, iterations)

    def describe(self) -> str:
        """``smo2 test_accuracy: 92.8 vs 93.6 over 12 rows (0.8 points): close``."""
        from sparsekm.experiments.tables import format_value

        ours, paper = format_value(self.ours, self.value), format_value(self.paper, self.value)
        text = f"{self.series} {self.value}: {ours} vs {paper} over {self.rows} rows"
        if self.verdict is None:
            ratio = self.ours / self.paper if self.paper else math.nan
            return f"{text} (ratio {ratio:.3g}; other machine, not judged)"
        return f"{text} ({_distance_text(self)}): {self.verdict}"


def _distance_text(pair: Pair) -> str:
    kind = RULES[pair.value][0]
    if kind == "points":
        return f"mean |difference| {pair.distance:.1f} points"
    if kind == "absolute":
        return f"mean |difference| {pair.distance:.3f}"
    return f"median relative difference {100 * pair.distance:.1f} %"


def _numeric(col: Any) -> Any:
    import pandas as pd

    return pd.to_numeric(col, errors="coerce")


def _distance(value: str, ours: Any, paper: Any) -> float:
    kind = RULES[value][0]
    diff = (ours - paper).abs()
    if kind == "points":
        return float(100 * diff.mean())
    if kind == "absolute":
        return float(diff.mean())
    scale = paper.abs().where(paper.abs() > 0)
    return float((diff / scale).median())


def _verdict(value: str, distance: float) -> str:
    _, good, close = RULES[value]
    return VERDICTS[0] if distance <= good else VERDICTS[1] if distance <= close else VERDICTS[2]


def pairs(frame: Any) -> list[Pair]:
    """Every (series, value) of a report frame that has a paper column beside it."""
    out = []
    columns = list(frame.columns)
    for series, name in columns:
        if name.endswith(REF) or (series, name + REF) not in columns:
            continue
        ours, paper = _numeric(frame[(series, name)]), _numeric(frame[(series, name + REF)])
        both = ours.notna() & paper.notna()
        if not both.any():
            continue
        ours, paper = ours[both], paper[both]
        judged = name in RULES and name not in NOT_JUDGED
        distance = _distance(name, ours, paper) if judged else None
        out.append(Pair(str(series), name, float(ours.mean()), float(paper.mean()),
                        int(both.sum()), distance,
                        _verdict(name, distance) if judged else None))
    return out


def overall(found: list[Pair], done: int, total: int) -> str:
    """The config's verdict: the worst judged pair, and how far the grid got."""
    judged = [p.verdict for p in found if p.verdict is not None]
    if not judged:
        verdict = "no published values to compare" if not found else "times only (not judged)"
    else:
        verdict = max(judged, key=VERDICTS.index)
        counts = {v: judged.count(v) for v in VERDICTS if v in judged}
        verdict += " (" + ", ".join(f"{n} {v}" for v, n in counts.items()) + ")"
    if done == 0:
        return f"not run yet (0 of {total} runs)"
    if done < total:
        verdict = f"partial run ({done} of {total}): {verdict}"
    return verdict


def ratio_line(frame: Any, num: str, den: str, value: str) -> str | None:
    """A paper's claim about two of its series (paper C: S-KLR-2ord's time over S-KLR-1ord's):
    the per-row ratio num/den of ``value``, ours and the paper's (mean and range)."""
    def summary(a: Any, b: Any) -> str | None:
        r = (_numeric(a) / _numeric(b)).replace([math.inf, -math.inf], math.nan).dropna()
        if r.empty:
            return None
        return f"mean {r.mean():.3g} (rows {r.min():.3g}-{r.max():.3g}, {len(r)} rows)"

    cols = set(frame.columns)
    if (num, value) not in cols or (den, value) not in cols:
        return None
    ours = summary(frame[(num, value)], frame[(den, value)])
    paper = summary(frame[(num, value + REF)], frame[(den, value + REF)]) \
        if {(num, value + REF), (den, value + REF)} <= cols else None
    if ours is None:
        return None
    return f"{num} / {den} {value}: ours {ours}" + (f"; paper {paper}" if paper else "")
