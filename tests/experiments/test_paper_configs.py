"""Every config in benchmarks/configs parses, expands against its commands, and its reference
CSV (the papers' published values) names rows and ``series:value`` columns that its grid and
report produce, so that ``bench report`` can print ``ours [paper]`` side by side."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sparsekm.experiments import load_config
from sparsekm.experiments.grid import expand

CONFIGS = Path(__file__).resolve().parents[2] / "benchmarks" / "configs"
PATHS = sorted(CONFIGS.glob("*.toml"))
PAPER = re.compile(r"^paper([A-E])_")
TUTORIAL = re.compile(r"^tutorial_")  # a grid a tutorial runs (docs/tutorials/), not a table


def _series(labels: dict, columns: list[str]) -> str:
    """The report's series label of a run, from its grid labels (as tables.series_frame)."""
    if labels.get("series") is not None:  # the grid's own name
        return labels["series"]
    labels = {**labels, "method": labels.get("method") or labels["problem"]}
    return " ".join(str(labels[k]) for k in columns if labels.get(k) is not None) or "-"


def _row(labels: dict, rows: list[str]) -> tuple[str, ...]:
    return tuple("-" if labels.get(k) is None else str(labels[k]) for k in rows)


def test_the_configs_folder_is_not_empty() -> None:
    assert len(PATHS) >= 10


@pytest.mark.parametrize("path", PATHS, ids=[p.stem for p in PATHS])
def test_config_parses_and_its_reference_matches_the_grid(path: Path) -> None:
    import pandas as pd

    cfg = load_config(path)
    specs = expand(cfg, views=True)  # every value checked by its command
    assert specs, f"{path.name}: an empty grid"
    assert cfg.store_path.parent.name == "stores"
    rep = cfg.report
    keys = {k for s in specs for k in s.labels}
    if rep.rows is not None:
        assert set(rep.rows) <= keys, f"{path.name}: report.rows {rep.rows} not grid keys"
    if rep.reference is None:
        return
    ref_path = cfg.resolve(rep.reference)
    head = ref_path.read_text().splitlines()[0]
    assert head.startswith("# Paper ") and re.search(r"(Table|Figure)s? \d", head) \
        and "../shared/papers/" in head, f"{ref_path.name}: the first line names the source"
    ref = pd.read_csv(ref_path, dtype=str, comment="#")
    rows = list(rep.rows)
    assert set(rows) <= set(ref.columns), f"{ref_path.name}: lacks row keys"
    value_cols = [c for c in ref.columns if c not in rows]
    assert value_cols and all(":" in c for c in value_cols), value_cols
    series = {_series(s.labels, rep.columns) for s in specs}
    for col in value_cols:
        name, value = col.split(":", 1)
        assert name in series, f"{ref_path.name}: series {name!r} not in {sorted(series)}"
        assert value in rep.values, f"{ref_path.name}: {value!r} not in report.values"
        cells = pd.to_numeric(ref[col].dropna(), errors="raise")  # numbers only
        assert cells.notna().all()
    grid_rows = {_row(s.labels, rows) for s in specs}
    ref_rows = {tuple(r) for r in ref[rows].itertuples(index=False)}
    assert len(ref_rows) == len(ref), f"{ref_path.name}: duplicated rows"
    if path.stem.endswith("_quick"):  # a subset of the full grid's rows
        assert ref_rows & grid_rows, f"{path.name}: no reference row is in the grid"
    else:
        missing = ref_rows - grid_rows
        assert not missing, f"{path.name}: reference rows not in the grid: {sorted(missing)}"


def test_every_paper_has_published_values_and_a_quick_variant() -> None:
    papers: dict[str, list[Path]] = {}
    for p in PATHS:
        if TUTORIAL.match(p.name):
            continue
        m = PAPER.match(p.name)
        assert m, (f"{p.name}: configs are named paper<A-E>_<table>[_quick].toml "
                   "(or tutorial_<name>.toml)")
        papers.setdefault(m.group(1), []).append(p)
    for p in PATHS:
        if p.stem.endswith("_quick"):
            assert p.with_name(p.stem.removesuffix("_quick") + ".toml").is_file(), p.name
    for paper, paths in papers.items():
        with_ref = [p for p in paths if load_config(p).report.reference is not None]
        quick_ref = [p for p in with_ref if p.stem.endswith("_quick")]
        assert with_ref and quick_ref, f"paper {paper}: no quick config with published values"
