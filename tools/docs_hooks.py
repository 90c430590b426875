"""MkDocs hooks of the documentation site (``mkdocs.yml``: ``hooks``).

``reference/cli.md`` (from the ``sparsekm`` commands) and ``reference/registry.md`` (from the
registry) are generated in memory at every build, so they always equal ``--help`` and
``sparsekm methods``; ``reference/library.md`` likewise from the instance library's manifest
(``benchmarks/library/manifest.json``), and ``benchmarks/scripts.md`` from ``benchmarks/``. The
committed figures (``benchmarks/results/figures/*.png``) join the site as
``benchmarks/figures/NAME.png``, so a page shows the file `bench plot` wrote, not a copy.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

TOOLS = Path(__file__).resolve().parent
FIGURES = TOOLS.parent / "benchmarks" / "results" / "figures"


def _load(name: str) -> Any:
    """A module of this folder by its path (MkDocs loads hooks outside any package)."""
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def on_files(files: Any, config: Any) -> Any:
    """Add the generated command-line reference to the site's files."""
    from mkdocs.structure.files import File

    docs_benchmarks, docs_cli, docs_library, docs_registry = (
        _load(n) for n in ("docs_benchmarks", "docs_cli", "docs_library", "docs_registry"))

    files.append(File.generated(config, "reference/cli.md", content=docs_cli.markdown()))
    files.append(File.generated(config, "reference/registry.md",
                                content=docs_registry.markdown()))
    files.append(File.generated(config, "benchmarks/scripts.md",
                                content=docs_benchmarks.markdown()))
    for png in sorted(FIGURES.glob("*.png")):  # the committed figures, shown where a page asks
        files.append(File.generated(config, f"benchmarks/figures/{png.name}",
                                    abs_src_path=str(png)))
    files.append(File.generated(config, "reference/library.md",
                                content=docs_library.markdown()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Escape the papers' literal stars (LS*, CoP*) before Markdown reads them as emphasis."""
    return _load("docs_stars").escape(markdown)
