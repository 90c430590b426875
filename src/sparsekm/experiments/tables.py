"""Tables from the store (never from re-running): CSV per run, markdown / LaTeX like the papers.

:func:`runs_frame` has one row per stored run of the config: a column per grid key (``problem,
action, data, method, seed`` and every ``[grid.params]`` key) then the results (``status,
objective, lower_bound, upper_bound, gap, time_s, ...``: a minimisation's certified bound is
its lower_bound, a maximisation's its upper_bound, the other one empty). :func:`report_frame`
pivots it the way the papers' tables read: one row per instance (``[report] rows``, default
the grid keys that vary), one column group per method with the chosen values, aggregated over
seeds (``best`` run, ``mean`` or ``median``); a cell whose runs all failed shows their status.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from .child import FAILED
from .config import ExperimentConfig
from .grid import expand
from .store import Store

__all__ = ["RESULT_COLUMNS", "runs_frame", "series_frame", "report_frame", "report",
           "format_value"]

RESULT_COLUMNS = ("status", "objective", "lower_bound", "upper_bound", "gap", "time_s",
                  "wall_s", "start_s", "n_selected", "train_accuracy", "test_accuracy", "solver",
                  "termination", "message", "selected", "start_objectives", "key")
NUMERIC = ("objective", "lower_bound", "upper_bound", "gap", "time_s", "wall_s", "start_s",
           "n_selected", "train_accuracy", "test_accuracy")
LABELS = {"objective": "obj", "lower_bound": "bound", "upper_bound": "upper bound",
          "gap": "gap %", "time_s": "time s", "wall_s": "wall s", "n_selected": "#feat",
          "train_accuracy": "train acc", "test_accuracy": "test acc",
          "validation_accuracy": "val acc", "support_fraction": "sel", "iterations": "iter"}
PERCENT = ("train_accuracy", "test_accuracy", "validation_accuracy")


def runs_frame(cfg: ExperimentConfig, extras: Sequence[str] = (),
               pending: bool = False) -> Any:
    """One row per stored run of the config (grid order), grid keys first, then results;
    ``extras`` names payload keys of a problem (e.g. ``support_fraction``) added as columns.
    A grid without ``method`` is one series named after its problem (e.g. ``svm``). With
    ``pending``, a grid point not stored yet is a row too, of status ``pending`` and no
    values (a performance profile counts every instance of the grid)."""
    import json

    import pandas as pd

    specs = expand(cfg, views=True)
    keys = list(dict.fromkeys(s.key for s in specs))
    stored = Store(cfg.store_path).load(keys).set_index("key")
    label_cols: list[str] = []
    for s in specs:
        label_cols += [k for k in s.labels if k not in label_cols]
    rows = []
    for s in specs:
        row = {k: s.labels.get(k) for k in label_cols}
        if row.get("method") is None:
            row["method"] = s.problem
        if s.key not in stored.index:
            if pending:
                rows.append({**row, "status": "pending", "key": s.key})
            continue
        r = stored.loc[s.key]
        row.update({c: (s.key if c == "key" else _plain(r[c])) for c in RESULT_COLUMNS})
        payload = json.loads(r["payload"]) if extras and r["payload"] else {}
        row.update({c: payload.get(c) for c in extras})
        rows.append(row)
    # a grid key named like a result column (e.g. ``solver``) is one column, holding what the
    # run reports (the solver it used): a duplicate would repeat it in every header
    columns = list(dict.fromkeys(label_cols + list(RESULT_COLUMNS) + list(extras)))
    df = pd.DataFrame(rows, columns=columns, dtype=object)
    for c in (*NUMERIC, *extras):
        if c in NUMERIC or df[c].map(lambda v: v is None or isinstance(v, int | float)).all():
            df[c] = pd.to_numeric(df[c], errors="coerce")
    return df


def payload_keys(cfg: ExperimentConfig) -> list[str]:
    """The ``[report]`` values and ``select`` keys that are not store columns: read from each
    run's JSON payload (``iterations``, ``support_fraction``, ``validation_accuracy``, ...)."""
    keys = [*cfg.report.values, *(k.lstrip("-") for k in cfg.report.select)]
    return list(dict.fromkeys(k for k in keys if k not in RESULT_COLUMNS))


def _plain(v: Any) -> Any:
    """numpy arrays from DuckDB lists as plain lists (CSV cells like ``[0, 3, 7]``)."""
    return v.tolist() if hasattr(v, "tolist") and not isinstance(v, str | float | int) else v


def _row_keys(cfg: ExperimentConfig, df: Any) -> list[str]:
    if cfg.report.rows is not None:
        missing = [k for k in cfg.report.rows if k not in df.columns]
        if missing:
            from .config import ConfigError

            raise ConfigError(f"report.rows: {missing} are not grid keys; use some of "
                              f"{[c for c in df.columns if c not in RESULT_COLUMNS]}")
        return list(cfg.report.rows)
    skip = {*cfg.report.columns, "series", "seed", "problem", "action", *payload_keys(cfg)}
    keys = [c for c in df.columns if c not in RESULT_COLUMNS and c not in skip
            and df[c].map(str).nunique() > 1]
    if df["problem"].nunique() > 1:
        keys.insert(0, "problem")
    return keys or ["data"]


def series_keys(cfg: ExperimentConfig, df: Any) -> list[str]:
    """The ``[report] columns`` keys present in ``df``: together they name a compared series."""
    return [c for c in cfg.report.columns if c in df.columns]


def series_frame(cfg: ExperimentConfig, df: Any) -> Any:
    """``df`` with a ``series`` column: the values of the ``[report] columns`` keys joined
    (e.g. ``heuristic local-search``), or ``-`` when none of them is a grid key."""
    out = df.copy()
    keys = series_keys(cfg, df)
    if df.empty:
        out["series"] = []
        return out
    out["series"] = df[keys].apply(
        lambda r: " ".join(str(v) for v in r if v is not None and v == v) or "-", axis=1) \
        if keys else "-"
    if "series" in df.columns:  # a grid's own series name
        named = df["series"].notna()
        out.loc[named, "series"] = df.loc[named, "series"]
    return out


def _selected(ok: Any, select: Sequence[str]) -> Any:
    """Model selection: per seed, the run ranked first by the ``select`` keys (each maximised,
    or minimised with a leading ``-``; ties in grid order), e.g. the best validation accuracy
    over a grid of C values, as a paper's cross-validation picks its hyperparameters."""
    if not select or ok.empty:
        return ok
    cols = [k.lstrip("-") for k in select]
    ranked = ok.sort_values(cols, ascending=[k.startswith("-") for k in select],
                            na_position="last", kind="stable")
    return ranked.groupby("seed", sort=False).head(1)


def _cell(group: Any, rep: Any) -> dict[str, Any]:
    import pandas as pd

    values, agg, sense = rep.values, rep.agg, rep.sense
    ok = group[~group["status"].isin(FAILED) & group["objective"].notna()]
    ok = _selected(ok, rep.select)
    if ok.empty:
        return {v: "/".join(sorted(set(group["status"]))) for v in values}
    if agg == "best":
        i = ok["objective"].idxmin() if sense == "min" else ok["objective"].idxmax()
        return {v: ok.loc[i, v] for v in values}
    fn = "mean" if agg == "mean" else "median"
    out = {}
    for v in values:
        col = ok[v]
        numeric = v in NUMERIC or pd.api.types.is_numeric_dtype(col)
        out[v] = getattr(col, fn)() if numeric else col.iloc[0]
    return out


def report_frame(cfg: ExperimentConfig) -> Any:
    """The papers' layout: index = instance keys, columns = (method, value)."""
    import pandas as pd

    extras = payload_keys(cfg)
    runs = runs_frame(cfg, extras)
    df = series_frame(cfg, runs)
    rep = cfg.report
    if df.empty:
        return pd.DataFrame()
    unknown = [v for v in extras if df[v].isna().all()]
    if unknown:
        from .config import ConfigError

        raise ConfigError(f"report.values / report.select: no stored run reports {unknown}; "
                          f"use store columns {list(NUMERIC)} or keys of the runs' JSON")
    rows = _row_keys(cfg, df)
    named = "series" in runs and runs["series"].notna().any()
    col = "series" if series_keys(cfg, df) or named else None
    df[rows] = df[rows].where(df[rows].notna(), "-")  # a key a grid does not set
    by = rows + ([col] if col else [])
    key = df[by].map(str).agg("\x1f".join, axis=1)
    records = []
    for _, group in df.groupby(key, sort=False):
        first = group.iloc[0]
        cell = _cell(group, rep)
        records.append({**{k: first[k] for k in by}, **cell})
    flat = pd.DataFrame(records)
    if col is None:
        return flat.set_index(rows)
    out = flat.pivot(index=rows, columns=col, values=rep.values)
    methods = list(dict.fromkeys(df[col].astype(object)))
    out = out.swaplevel(0, 1, axis=1).reindex(
        columns=pd.MultiIndex.from_product([methods, rep.values]))
    order = list(dict.fromkeys(tuple(r) if len(rows) > 1 else r[0]
                               for r in df[rows].itertuples(index=False)))
    out = out.reindex(order)
    if rep.reference is not None:
        out = _with_reference(cfg, out, rows)
    return _drop_empty(out)


def _drop_empty(out: Any) -> Any:
    """Without the (series, value) columns that no run reports (e.g. a heuristic's gap) and no
    reference value accompanies."""
    import pandas as pd

    def empty(col: Any) -> bool:
        return bool(pd.to_numeric(out[col], errors="coerce").isna().all()
                    and out[col].map(lambda v: v is None or v != v).all())

    keep = [c for c in out.columns
            if not (empty(c) and ((c[0], c[1] + REF) not in out.columns
                                  or empty((c[0], c[1] + REF))))]
    return out[keep]


def format_value(value: Any, name: str, digits: int = 4) -> str:
    """A cell as the papers print it (gap in %, times with 2 decimals)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, str):
        return value
    if name == "gap":
        return f"{100 * value:.2f}"
    if name in ("time_s", "wall_s"):
        return f"{value:.2f}"
    if name in PERCENT:
        return f"{100 * value:.1f}"
    if name in ("n_selected", "iterations"):
        return f"{value:.0f}"
    if name == "support_fraction":
        return f"{value:.3f}"
    return f"{value:.{digits}g}"


def _header(cfg: ExperimentConfig, df: Any) -> str:
    rep = cfg.report
    n_seeds = df["seed"].nunique() if "seed" in df else 1
    over = f"; {rep.agg} over {n_seeds} seeds" if n_seeds > 1 else ""
    if rep.select:
        over += f"; per seed the run with the best {', '.join(rep.select)}"
    ref = ""
    if rep.reference is not None:
        notes = reference_notes(cfg)
        ref = f" [paper]: {notes[0].rstrip('.:;,') if notes else rep.reference}."
    return (f"{cfg.name}: {len(df)} runs from {cfg.store_path.name}{over}. gap in %, "
            f"accuracies in %, times in s.{ref}")


def reference_notes(cfg: ExperimentConfig) -> list[str]:
    """The ``#`` comment lines at the top of the reference CSV (its source: table, page)."""
    lines = []
    with open(cfg.resolve(cfg.report.reference)) as fh:
        for line in fh:
            if not line.startswith("#"):
                break
            lines.append(line.lstrip("#").strip())
    return [ln for ln in lines if ln]


REF = " [paper]"


def _label(value: str) -> str:
    base = value.removesuffix(REF)
    return LABELS.get(base, base) + (REF if value.endswith(REF) else "")


def _table(cfg: ExperimentConfig) -> tuple[int, list[str], list[list[str]],
                                           list[tuple[str, int]] | None, list[str], Any]:
    """(number of index columns, column names, body cells, method groups and their widths or
    None, sub-header names, runs)."""
    df = runs_frame(cfg)
    tab = report_frame(cfg)
    digits = cfg.report.digits
    idx_names = [n for n in tab.index.names if n is not None] if len(tab) else []
    multi = len(tab.columns) and getattr(tab.columns, "nlevels", 1) > 1
    body = []
    for ix, row in tab.iterrows():
        ix = ix if isinstance(ix, tuple) else (ix,)
        cells = [str(v) for v in ix]
        for c, v in row.items():
            cells.append(format_value(v, (c[1] if multi else c).removesuffix(REF), digits))
        body.append(cells)
    if multi:
        names = idx_names + [f"{m} {_label(v)}" for m, v in tab.columns]
        order = list(dict.fromkeys(m for m, _ in tab.columns))
        groups = [(m, sum(1 for g, _ in tab.columns if g == m)) for m in order]
        sub = idx_names + [_label(v) for _, v in tab.columns]
    else:
        names = idx_names + [_label(c) for c in tab.columns]
        groups, sub = None, names
    return len(idx_names), names, body, groups, sub, df


def _markdown(cfg: ExperimentConfig) -> str:
    _, names, body, _, _, df = _table(cfg)
    lines = [f"<!-- {_header(cfg, df)} -->", "", "| " + " | ".join(names) + " |",
             "|" + "---|" * len(names)]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines) + "\n"


def _latex_escape(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("_", r"\_"), ("%", r"\%"), ("&", r"\&"),
                 ("#", r"\#")):
        s = s.replace(a, b)
    return s


def _latex(cfg: ExperimentConfig) -> str:
    n_idx, names, body, groups, sub, df = _table(cfg)
    lines = [f"% {_header(cfg, df)}", r"\begin{tabular}{" + "l" * max(n_idx, 1)
             + "r" * (len(names) - max(n_idx, 1)) + "}", r"\toprule"]
    if groups:
        head = [""] * n_idx + [rf"\multicolumn{{{w}}}{{c}}{{{_latex_escape(g)}}}"
                               for g, w in groups]
        lines.append(" & ".join(head) + r" \\")
        rules, at = [], n_idx + 1
        for _, w in groups:
            rules.append(rf"\cmidrule(lr){{{at}-{at + w - 1}}}")
            at += w
        lines.append(" ".join(rules))
    lines.append(" & ".join(_latex_escape(s) for s in sub) + r" \\")
    lines.append(r"\midrule")
    lines += [" & ".join(_latex_escape(c) for c in r) + r" \\" for r in body]
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines) + "\n"


def _with_reference(cfg: ExperimentConfig, out: Any, rows: list[str]) -> Any:
    """Add the ``[report] reference`` CSV's values (e.g. the paper's) as ``value [paper]``
    columns next to the measured ones; its columns are the row keys and ``series:value``."""
    import pandas as pd

    from .config import ConfigError

    path = cfg.resolve(cfg.report.reference)
    try:
        ref = pd.read_csv(path, dtype=str, comment="#")
    except (OSError, ValueError) as exc:
        raise ConfigError(f"report.reference: cannot read {path}: {exc}") from None
    missing = [k for k in rows if k not in ref.columns]
    if missing:
        raise ConfigError(f"report.reference: {path.name} lacks the row keys {missing}")
    lookup = {tuple(r[k] for k in rows): r for _, r in ref.iterrows()}
    cols = list(out.columns)
    for col in [c for c in ref.columns if ":" in c]:
        series, value = col.split(":", 1)
        if (series, value) not in cols:
            continue
        vals = [lookup.get(tuple(str(v) for v in (ix if isinstance(ix, tuple) else (ix,))))
                for ix in out.index]
        out[(series, value + REF)] = [None if r is None or pd.isna(r[col]) else float(r[col])
                                      for r in vals]
        cols.insert(cols.index((series, value)) + 1, (series, value + REF))
    return out[cols]


def report(cfg: ExperimentConfig, fmt: str = "markdown") -> str:
    """The report as text: ``markdown``, ``latex`` or ``csv`` (one row per run)."""
    if fmt == "csv":
        # the header alone when nothing is stored
        return runs_frame(cfg, payload_keys(cfg)).to_csv(index=False)
    if fmt in ("markdown", "latex") and not Store(cfg.store_path).statuses(
            [s.key for s in expand(cfg)]):
        raise ValueError(f"nothing stored yet for {cfg.name}: run `sparsekm bench run` first")
    if fmt == "markdown":
        return _markdown(cfg)
    if fmt == "latex":
        return _latex(cfg)
    raise ValueError(f"--format {fmt!r}: choose markdown, latex or csv")
