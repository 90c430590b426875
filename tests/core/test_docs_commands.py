"""Every command and code block on the site runs (``tests/core/docs_blocks.py`` says how): each
page in its own process and a fresh folder, so a stale flag, option, data set or API call
fails here instead of on a reader's machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from docs_blocks import (  # noqa: E402
    FIXTURES,
    ROOT,
    blocks,
    commands,
    has_python,
    mode,
    prepare,
    run_page,
    runnable,
)

PAGES = sorted(p for p in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")] if runnable(p))
RUNNER = Path(__file__).with_name("docs_blocks.py")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_runs(page: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    if not has_python(page):  # commands only: in this process, in a fresh folder
        prepare(tmp_path)
        monkeypatch.chdir(tmp_path)
        assert run_page(page) == 0, capsys.readouterr().out[-4000:]
        return
    env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, str(RUNNER), str(page)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"


def test_the_runner_reads_blocks_commands_and_modes() -> None:
    """The parser itself, on a page written here: fences inside admonitions, continuations,
    comments, chains, expected exit codes; the modes by page."""
    text = ('??? example "x"\n\n    ```bash\n    sparsekm solve svm --data wine \\\n'
            '        --C 10   # a comment\n    make test && sparsekm methods svm\n'
            '    sparsekm check fs-linear bad.json  # exits 1\n    ```\n\n```python\nx = 1\n```\n')
    got = blocks(text)
    assert [(b.lang, b.line) for b in got] == [("bash", 3), ("python", 10)]
    assert commands(got[0].code) == [("sparsekm solve svm --data wine --C 10", None),
                                     ("sparsekm methods svm", None),
                                     ("sparsekm check fs-linear bad.json", 1)]
    assert mode("docs/guides/x.md", "sparsekm solve svm") == "check"
    assert mode("docs/guides/x.md", "sparsekm methods svm") == "run"
    assert mode("docs/tutorials/x.md", "sparsekm solve svm") == "run"
    assert mode("docs/howto/x.md", "sparsekm solve svm") == "check"
    assert mode("README.md", "sparsekm bench run benchmarks/configs/paperD_table8.toml") == "skip"
    assert "grid.toml" in FIXTURES
