"""The code on the documentation site, as the tests run it.

A page's fenced blocks are read in order: a block with ``title="NAME"`` (a config or a module
the page shows) is written to the file NAME, not run; a ``python`` block runs (all blocks of a
page in one namespace, so a page reads as one script; ``--8<-- "FILE"`` includes the file it
names, as the site does), and every line of a ``bash`` block that starts with ``sparsekm`` is a
command
(``\\`` continues a line, ``#`` starts a comment, ``&&`` chains). Other lines of a bash block
(``make``, ``pip``, ``dask``, ``python tools/...``) are set-up the tests do not run.

A command runs in one of three modes:

- ``run``: as written, in this process (``typer``'s runner), and must exit 0 (or the code a
  trailing ``# exits N`` comment names). ``> FILE`` keeps its standard output in FILE.
- ``check``: the run layer's dry run (:func:`sparsekm.run.data.checking`): flags and values
  checked, data loaded (a few rows of each class), problem and options built, stopped before
  the solve. For ``solve``, ``relax`` and ``path`` outside the tutorials and how-to pages,
  whose full runs are long; a stale flag, value or data set still fails.
- ``skip``: the explicit list :data:`SKIP` (paper-sized runs whose results are generated from
  their runs and committed: `docs/reproduce.md`, the run logs); :data:`SKIP_BLOCKS` likewise
  names the python blocks whose transcripts a docs tool generated.

``python tests/core/docs_blocks.py PAGE`` runs one page in the current folder (the tests give
it a fresh one, :func:`prepare`) and prints what ran; exit 1 at the first failure. A page with
Python runs in a process of its own (its code may register entries or change settings); a page
of commands only runs in the test's process.
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SHELL = {"bash", "sh", "shell", "console"}
FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)"
                   r"(?:[^\n]*?\btitle=\"(?P<title>[^\"]+)\")?[^\n]*$")
SNIPPET = re.compile(r'^\s*--8<--\s+"(?P<path>[^"]+)"\s*$')
EXITS = re.compile(r"#\s*exits\s+(?P<code>\d+)\s*$")
REAL_PAGES = ("docs/tutorials/",)                # every command runs as written
CHECKED = {"solve", "relax", "path"}             # dry-run elsewhere
# (page, start of the command): not run, with the reason
SKIP: dict[tuple[str, str], str] = {
    ("README.md", "sparsekm bench run benchmarks/configs/"):
        "a paper-sized grid (hours); its results are generated from its run log",
    ("docs/reproduce.md", "sparsekm bench"):
        "the page is generated from the paper runs' logs (benchmarks/reproduce.py)",
    ("docs/topics/experiments.md", "sparsekm bench run grid.toml --scheduler"):
        "needs a Dask scheduler at HOST; the same grid runs on a LocalCluster above",
}
# (page, the block's first line): python blocks not run here, with the reason
SKIP_BLOCKS: dict[tuple[str, str], str] = {
    ("docs/topics/export.md", '--8<-- "examples/export/scip_read.py"'):
        "a script run on an exported file; tools/docs_export_examples.py ran it and the page "
        "shows its transcript",
}
# pages whose python fragments are not runnable yet: they are restructured once the branches
# editing them now are merged (their commands run already); keep this list empty after that
PENDING_PYTHON: set[str] = set()
# files a page's commands may name as the user's own (written into the page's folder)
FIXTURES: dict[str, str] = {
    "grid.toml": """\
name = "demo-grid"
store = "results.duckdb"
[grid]
problem = "fs-linear"
data = ["wine"]
method = ["fast", "bnb"]
seed = [0]
[grid.params]
B = [2]
C = [1.0]
rows = [80]
[run]
time_limit = 30
preload = []
[report]
rows = ["data", "B"]
""",
}


@dataclass(frozen=True)
class Block:
    """A fenced block of a page: its language, code, first line (1-based) and the file name
    its ``title="NAME"`` gives (the site shows it above the block; the tests write it)."""

    lang: str
    code: str
    line: int
    title: str | None = None


def blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text (indented ones inside admonitions too)."""
    out: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, start = m["indent"], m["fence"], i
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            line = lines[i]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            i += 1
        out.append(Block(m["lang"].lower(), "\n".join(body), start + 1, m["title"]))
        i += 1
    return out


def expand(code: str, page: Path) -> str:
    """``--8<-- "FILE"`` lines replaced by FILE (relative to docs/, else to the repository's
    root, as mkdocs.yml's ``pymdownx.snippets`` reads them)."""
    out = []
    for line in code.splitlines():
        m = SNIPPET.match(line)
        if m:
            path = DOCS / m["path"]
            line = (path if path.exists() else ROOT / m["path"]).read_text().rstrip("\n")
        out.append(line)
    return "\n".join(out)


def commands(code: str) -> list[tuple[str, int | None]]:
    """The ``sparsekm`` commands of a shell block: (command, expected exit code or None)."""
    joined, carry = [], ""
    for line in code.splitlines():
        if line.rstrip().endswith("\\"):
            carry += line.rstrip()[:-1] + " "
            continue
        joined.append(carry + line)
        carry = ""
    out = []
    for line in joined:
        m = EXITS.search(line)
        code_expected = int(m["code"]) if m else None
        words = shlex.split(line, comments=True)
        for part in " ".join(shlex.quote(w) if w != "&&" else w for w in words).split(" && "):
            part = part.strip()
            if part.startswith("sparsekm "):
                out.append((part, code_expected))
    return out


def mode(page: str, cmd: str) -> str:
    """``run``, ``check`` or ``skip`` for a command of ``page`` (a path from the root)."""
    if any(page == p and cmd.startswith(prefix) for (p, prefix) in SKIP):
        return "skip"
    if page.startswith(REAL_PAGES):
        return "run"
    words = cmd.split()
    return "check" if len(words) > 1 and words[1] in CHECKED else "run"


def run_command(cmd: str, how: str, expected: int | None) -> str:
    """Run one command in this process; returns a one-line account, raises on failure."""
    from typer.testing import CliRunner

    from sparsekm.cli.app import app
    from sparsekm.run.data import Ready, checking

    words = shlex.split(cmd)[1:]
    out_file = None
    if ">" in words:
        at = words.index(">")
        out_file, words = words[at + 1], words[:at]
    t0 = time.perf_counter()
    ctx = checking() if how == "check" else contextlib.nullcontext()
    with ctx:
        res = CliRunner().invoke(app, words, prog_name="sparsekm")
    took = time.perf_counter() - t0
    if how == "check" and isinstance(res.exception, Ready):
        return f"checked ({took:.1f} s)"
    want = 0 if expected is None else expected
    if res.exit_code != want:
        raise AssertionError(f"exit {res.exit_code} (expected {want})\nstdout: "
                             f"{res.stdout[-2000:]}\nstderr: {res.stderr[-2000:]}"
                             + (f"\nexception: {res.exception!r}" if res.exception and not
                                isinstance(res.exception, SystemExit) else ""))
    if out_file:
        Path(out_file).write_text(res.stdout)
    return f"ran, exit {res.exit_code} ({took:.1f} s)"


def run_page(page: Path) -> int:
    """Run the page's python blocks and commands in order in the current folder."""
    rel = page.resolve().relative_to(ROOT).as_posix()
    ns: dict = {"__name__": "__main__"}
    sys.path.insert(0, str(Path.cwd()))  # a module the page writes is importable
    for block in blocks(page.read_text()):
        where = f"{rel}:{block.line}"
        if block.title and block.lang not in SHELL | {""}:  # a file the page shows (a module)
            Path(block.title).write_text(expand(block.code, page) + "\n")
            print(f"{where} wrote {block.title}", flush=True)
        elif block.lang == "python" and ((rel, block.code.strip().splitlines()[0]) in SKIP_BLOCKS
                                         or rel in PENDING_PYTHON):
            print(f"{where} python block skipped", flush=True)
        elif block.lang == "python":
            code = expand(block.code, page)
            t0 = time.perf_counter()
            with contextlib.redirect_stdout(io.StringIO()):
                exec(compile(code, where, "exec"), ns)  # noqa: S102 - the site's own code
            print(f"{where} python block ran ({time.perf_counter() - t0:.1f} s)", flush=True)
        elif block.lang in SHELL or block.lang == "":
            for cmd, expected in commands(block.code):
                how = mode(rel, cmd)
                if how == "skip":
                    print(f"{where} skipped: {cmd}", flush=True)
                    continue
                try:
                    account = run_command(cmd, how, expected)
                except AssertionError as exc:
                    print(f"{where} FAILED: {cmd}\n{exc}", flush=True)
                    return 1
                print(f"{where} {account}: {cmd}", flush=True)
    return 0


def runnable(page: Path) -> bool:
    """True when the page has a python block or a ``sparsekm`` command."""
    bs = blocks(page.read_text())
    return any(b.lang == "python" or (b.lang in SHELL | {""} and commands(b.code)) for b in bs)


def prepare(folder: Path) -> None:
    """A page's folder: :data:`FIXTURES`, and ``benchmarks`` linked from the repository so a
    command may name a committed config (``benchmarks/configs/...``) as written."""
    for name, text in FIXTURES.items():
        if not (folder / name).exists():
            (folder / name).write_text(text)
    if not (folder / "benchmarks").exists():
        (folder / "benchmarks").symlink_to(ROOT / "benchmarks", target_is_directory=True)


def has_python(page: Path) -> bool:
    """True when a page runs Python (it then runs in a process of its own)."""
    return any(b.lang == "python" for b in blocks(page.read_text()))


if __name__ == "__main__":
    prepare(Path.cwd())
    raise SystemExit(run_page(Path(sys.argv[1])))
