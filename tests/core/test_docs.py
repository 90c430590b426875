"""The README and the documentation: a front door of at most 200 lines, no placeholder where a
number or a sentence should be, and no reference to a file that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
PLACEHOLDER = re.compile(r"\b(TODO|TBD|XXX|FIXME|ACC_[A-Z_]+|ACCNEW|PLACEHOLDER|lorem ipsum)\b",
                         re.IGNORECASE)
# a file named in backticks or in a Markdown link: a path with a file extension
PATH = re.compile(r"`([\w.\-/]+\.(?:md|py|toml|csv|json|png|svg|ipynb|txt|gz|yml|cfg))`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
BASES = ("", "src", "src/sparsekm", "src/sparsekm/algorithms", "docs", "benchmarks",
         "benchmarks/results",
         "benchmarks/configs", "tests", "tools")
# example names a user would write (their own grid, checkpoint or config), not repo files
USER_FILES = {"grid.toml", "sparsekm.toml", "run.ckpt", "results.duckdb", "own.csv",
              "data.csv", "my_grid.toml", "config.toml", "my_bound.py"}
GENERATED = {"reference/cli.md", "reference/registry.md", "reference/library.md",  # docs_hooks
             "benchmarks.md"}


def _names() -> set[str]:
    """The base names of the repository's files (a bare name such as `swap.py` in a page)."""
    skip = {".git", ".venv", "site", "node_modules", "__pycache__"}
    return {p.name for p in ROOT.rglob("*") if p.is_file() and not skip & set(p.parts)}


NAMES = _names()


def _inside(path: Path) -> bool:
    """In the repository: a page may not lean on files beside the clone (``../shared``)."""
    return path.resolve().is_relative_to(ROOT.resolve())


def _exists(ref: str, page: Path) -> bool:
    if ((page.parent / ref).exists() and _inside(page.parent / ref)) or \
            ("/" not in ref and ref in NAMES):
        return True
    docs = ROOT / "docs"
    in_docs = (page.parent / ref).resolve()
    if in_docs.is_relative_to(docs) and in_docs.relative_to(docs).as_posix() in GENERATED:
        return True
    return any((ROOT / base / ref).exists() and _inside(ROOT / base / ref) for base in BASES)


def test_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; the rest belongs in docs/"
    text = "\n".join(lines)
    for must in ("make demo", "make test", "make docs", "docs/reproduce.md"):
        assert must in text, must


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_placeholder(page: Path) -> None:
    found = [(i + 1, m.group(0)) for i, line in enumerate(page.read_text().splitlines())
             for m in PLACEHOLDER.finditer(line)]
    assert not found, f"{page.relative_to(ROOT)}: placeholders at {found}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_file_it_names_exists(page: Path) -> None:
    text = page.read_text()
    refs = {m.group(1) for m in PATH.finditer(text)}
    refs |= {m.group(1) for m in LINK.finditer(text) if "://" not in m.group(1)}
    dead = sorted(r for r in refs if Path(r).name not in USER_FILES
                  and not r.startswith(("~", "/")) and not _exists(r, page))
    assert not dead, f"{page.relative_to(ROOT)} names files that do not exist: {dead}"


def test_the_site_config_names_every_page() -> None:
    """Every Markdown page under docs/ is in the site's navigation (or generated into it)."""
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")]
    missing = [p for p in pages if p not in nav]
    assert not missing, f"pages outside mkdocs.yml's nav: {missing}"
