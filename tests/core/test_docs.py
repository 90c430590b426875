"""The README and the documentation: a front door of under 150 lines, no placeholder where a
number or a sentence should be, no reference to a file that does not exist, no internal tracker
number, no stale command in the prose, guides of about 250 lines, and the papers cited where
their problems are explained."""

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
              "data.csv", "my_grid.toml", "config.toml", "my_bound.py",
              # the tutorials' own files, written as the reader follows them
              "tumours.csv", "tumours.svm", "bnb.json", "cleveland-bigm.mps",
              "cleveland-bigm.mps.json", "cleveland-bigm.sol", "compare.toml",
              "compare.records.jsonl.gz", "node_bounds.toml"}
GENERATED = {"reference/cli.md", "reference/registry.md", "reference/library.md",  # docs_hooks
             "benchmarks/scripts.md"}
FIGURES = ROOT / "benchmarks" / "results" / "figures"  # docs_hooks: benchmarks/figures/NAME


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
    if in_docs.is_relative_to(docs):
        site = in_docs.relative_to(docs).as_posix()
        if site in GENERATED or (site.startswith("benchmarks/figures/")
                                 and (FIGURES / Path(site).name).exists()):
            return True
    return any((ROOT / base / ref).exists() and _inside(ROOT / base / ref) for base in BASES)


def test_readme_is_a_front_door() -> None:
    lines = (ROOT / "README.md").read_text().splitlines()
    assert len(lines) < 150, f"README.md has {len(lines)} lines; the rest belongs in docs/"
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


# --- no internal tracker numbers on the site -------------------------------------------------
TRACKER = re.compile(r"\bissues?[ -]?\d+\b|(?<![\w&/])#\d+\b", re.IGNORECASE)


def _load_tool(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _site_texts() -> dict[str, str]:
    """Every text the site shows: the pages, the files they include, the rendered notebooks,
    the pages the build generates and the docstrings the API page renders."""
    import inspect
    import json

    texts = {str(p.relative_to(ROOT)): p.read_text() for p in PAGES}
    for p in (ROOT / "docs" / "examples").rglob("*"):
        if p.is_file() and p.suffix in (".txt", ".py", ".json"):
            texts[str(p.relative_to(ROOT))] = p.read_text()
    for p in (ROOT / "docs" / "notebooks").glob("*.ipynb"):
        cells = json.loads(p.read_text())["cells"]
        texts[str(p.relative_to(ROOT))] = "\n".join("".join(c["source"]) for c in cells)
    for tool in ("docs_benchmarks", "docs_cli", "docs_registry", "docs_library"):
        texts[f"generated by tools/{tool}.py"] = _load_tool(tool).markdown()
    for line in (ROOT / "docs" / "reference" / "api.md").read_text().splitlines():
        if line.startswith("::: "):
            module, _, name = line[4:].strip().rpartition(".")
            obj = getattr(__import__(module, fromlist=[name]), name)
            texts[f"docstring of {module}.{name}"] = inspect.getdoc(obj) or ""
    return texts


def test_no_internal_tracker_number_on_the_site() -> None:
    found = {where: sorted({m.group(0) for m in TRACKER.finditer(text)})
             for where, text in _site_texts().items() if TRACKER.search(text)}
    assert not found, f"internal references a reader cannot follow: {found}"


def test_the_tracker_pattern_finds_what_it_must() -> None:
    for text in ("(issue 9)", "Issue 19 part 2", "issues 13 and 19", "before issue-27", "#30"):
        assert TRACKER.search(text), text
    for text in ("the issue of scaling", "&#8212;", "page.md#anchor-2", "B = 20, C = 1"):
        assert not TRACKER.search(text), text


# --- stale commands in the prose ---------------------------------------------------------------
INLINE = re.compile(r"`(sparsekm [^`]+)`")


def _command_tree():
    import typer.main

    from sparsekm.cli.app import app

    return typer.main.get_command(app)


def _options(cmd) -> set[str]:
    out = {"--help"}
    for param in cmd.params:
        out |= {o for o in (*param.opts, *param.secondary_opts) if o.startswith("-")}
    return out


def _stale(text: str, root) -> str | None:
    """Why an inline ``sparsekm ...`` command names no command or a flag its command lacks."""
    words = [w.strip("[]|,;.") for w in text.split()[1:]]
    cmd, path = root, ["sparsekm"]
    for word in words:
        sub = getattr(cmd, "commands", None)
        if not sub or word.startswith("-"):
            if sub:  # flags after a group (`sparsekm solve --json`): any of its commands
                flags = [w.split("=")[0] for w in words if w.startswith("--")]
                bad = [f for f in flags if f not in _options(cmd)
                       and not any(f in _options(c) for c in _leaves(cmd))]
                return f"{' '.join(path)} ... has no {bad}" if bad else None
            break
        if word in sub:
            cmd = sub[word]
            path.append(word)
        elif word.isupper() or word in ("...", ""):  # a placeholder: any subcommand
            flags = [w for w in words if w.startswith("--")]
            leaves = _leaves(cmd)
            bad = [f for f in flags if not any(f.split("=")[0] in _options(c) for c in leaves)]
            return f"{' '.join(path)} ... has no {bad}" if bad else None
        else:
            return f"{' '.join(path)} has no command {word!r}"
    bad = [w.split("=")[0] for w in words if w.startswith("--")
           and w.split("=")[0] not in _options(cmd)]
    return f"{' '.join(path)} has no option {bad}" if bad else None


def _leaves(cmd) -> list:
    sub = getattr(cmd, "commands", None)
    return [leaf for c in sub.values() for leaf in _leaves(c)] if sub else [cmd]


def test_every_inline_command_exists_with_its_flags() -> None:
    root = _command_tree()
    stale = {}
    for page in PAGES:
        for m in INLINE.finditer(page.read_text()):
            why = _stale(m.group(1), root)
            if why:
                stale.setdefault(str(page.relative_to(ROOT)), []).append(f"`{m.group(1)}`: {why}")
    assert not stale, stale


def test_the_inline_check_finds_stale_commands() -> None:
    root = _command_tree()
    assert _stale("sparsekm methods --update-tables docs/reference/registry.md", root)
    assert _stale("sparsekm solve fs-linear --bogus 3", root)
    assert _stale("sparsekm nonsense", root)
    assert _stale("sparsekm solve PROBLEM --nope", root)
    assert not _stale("sparsekm solve fs-linear --data wine --B 3 --method bnb", root)
    assert not _stale("sparsekm solve PROBLEM --data X --json", root)
    assert not _stale("sparsekm bench status grid.toml [--json]", root)
    assert not _stale("sparsekm solve --json", root)
    assert _stale("sparsekm solve --update-tables", root)


# --- guides: explanation, not lab notebooks --------------------------------------------------
# the two guides other branches are editing now; they are restructured after their merge
PENDING_RESTRUCTURE: set[str] = set()


@pytest.mark.parametrize("guide", sorted((ROOT / "docs" / "guides").glob("*.md")),
                         ids=lambda p: p.name)
def test_a_guide_is_about_250_lines(guide: Path) -> None:
    if guide.name in PENDING_RESTRUCTURE:
        pytest.skip("restructured after the branches editing it are merged")
    n = len(guide.read_text().splitlines())
    assert n <= 260, f"{guide.name}: {n} lines; measurements belong on a docs/benchmarks/ page"


PAPERS = {  # problem guide -> its paper's title, as CITATION.cff holds it
    "fs_kernel.md": "Combinatorial Approaches for Embedded Feature Selection in Nonlinear SVMs",
    "smkl.md": "Sparse Multiple Kernel Learning: Alternating Best Response and Semidefinite "
               "Relaxations",
    "sklr.md": "Binary Kernel Logistic Regression: a sparsity-inducing formulation and a "
               "convergent decomposition training algorithm",
    "fs_linear.md": "Feature selection in linear Support Vector Machines via a hard "
                    "cardinality constraint: a scalable conic decomposition approach",
    "minmax_fs.md": "A novel embedded min-max approach for feature selection in nonlinear "
                    "Support Vector Machine classification",
}


@pytest.mark.parametrize("guide", sorted(PAPERS))
def test_each_problem_guide_cites_its_paper(guide: str) -> None:
    text = " ".join((ROOT / "docs" / "guides" / guide).read_text().split())
    assert PAPERS[guide] in text.replace("*", "")


def test_the_citation_file_and_the_version_agree() -> None:
    """CITATION.cff holds the keys CFF 1.2 requires, the package's version and the five papers;
    `sparsekm --version` prints the installed metadata's version, which is the package's."""
    from importlib.metadata import version

    import yaml
    from typer.testing import CliRunner

    import sparsekm
    from sparsekm.cli.app import app

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0"
    assert cff["message"] and cff["title"] and cff["authors"]
    assert cff["version"] == version("sparsekm") == sparsekm.__version__
    titles = {" ".join(r["title"].split()) for r in cff["references"]}
    assert titles == set(PAPERS.values())
    for ref in cff["references"]:
        assert ref["authors"] and ref["year"] and ref["type"] == "article"
    res = CliRunner().invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout == f"sparsekm {version('sparsekm')}\n"
