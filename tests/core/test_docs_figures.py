"""Every figure the site shows: a committed PNG that `bench plot` wrote, readable at a size a
reader can use, and the same picture `bench plot` draws now from the committed run log (a
figure that no longer matches its data or its drawing code fails here)."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
FIGURES = ROOT / "benchmarks" / "results" / "figures"   # docs_hooks: benchmarks/figures/NAME
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
PAGES = sorted([ROOT / "README.md", *DOCS.rglob("*.md")])


def _shown() -> list[tuple[str, Path]]:
    """(page, committed file) of every image a page shows."""
    out = []
    for page in PAGES:
        for m in IMAGE.finditer(page.read_text()):
            site = (page.parent / m.group(1)).resolve()
            rel = site.relative_to(DOCS).as_posix() if site.is_relative_to(DOCS) else ""
            assert rel.startswith("benchmarks/figures/"), \
                f"{page.relative_to(ROOT)} shows {m.group(1)}: show a committed figure " \
                "(benchmarks/figures/NAME, from benchmarks/results/figures/)"
            out.append((str(page.relative_to(ROOT)), FIGURES / Path(rel).name))
    return out


SHOWN = _shown()


def _configs() -> dict[str, Path]:
    return {tomllib.loads(p.read_text()).get("name", p.stem): p
            for p in (ROOT / "benchmarks" / "configs").glob("*.toml")}


def _config_and_kind(figure: Path) -> tuple[Path, str]:
    name, _, kind = figure.stem.rpartition("_")
    configs = _configs()
    assert name in configs, f"{figure.name}: no bench config named {name!r} drew it"
    return configs[name], kind


def test_the_site_shows_figures() -> None:
    assert len(SHOWN) >= 4   # the benchmarks page and the compare tutorial show some


@pytest.mark.parametrize("page,figure", SHOWN, ids=lambda x: str(x).rsplit("/", 1)[-1])
def test_a_shown_figure_is_a_readable_committed_png(page: str, figure: Path) -> None:
    from PIL import Image

    assert figure.exists(), f"{page} shows {figure.name}, which is not committed"
    with Image.open(figure) as im:
        assert im.format == "PNG" and im.width >= 400 and im.height >= 250, im.size
    _config_and_kind(figure)


def _by_config() -> dict[Path, list[Path]]:
    groups: dict[Path, list[Path]] = defaultdict(list)
    for _, figure in SHOWN:
        cfg, _ = _config_and_kind(figure)
        if figure not in groups[cfg]:
            groups[cfg].append(figure)
    return dict(groups)


@pytest.mark.parametrize("config,figures", sorted(_by_config().items()),
                         ids=lambda x: x.stem if isinstance(x, Path) else "")
def test_a_shown_figure_is_what_bench_plot_draws_now(config: Path, figures: list[Path],
                                                     tmp_path: Path) -> None:
    """Redraw from the store (or its committed log) into a scratch folder: same size, and at
    most 0.5 % of the pixels differ (font hinting aside, the same picture)."""
    from PIL import Image

    from sparsekm.experiments import load_config
    from sparsekm.experiments.plots import plot

    cfg = load_config(config)
    kinds = [_config_and_kind(f)[1] for f in figures]
    drawn = {p.name: p for p in plot(cfg, tmp_path, kinds) if p.suffix == ".png"}
    for figure in figures:
        assert figure.name in drawn, f"bench plot no longer draws {figure.name}"
        with Image.open(figure) as a, Image.open(drawn[figure.name]) as b:
            assert a.size == b.size, (figure.name, a.size, b.size)
            old = np.asarray(a.convert("RGB"), dtype=int)
            new = np.asarray(b.convert("RGB"), dtype=int)
        changed = np.mean(np.abs(old - new).sum(axis=2) > 30)
        assert changed <= 0.005, f"{figure.name}: {changed:.1%} of the pixels differ; " \
            f"run `python benchmarks/run_all.py --report-only {config.stem}`"
