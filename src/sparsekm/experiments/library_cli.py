"""``sparsekm library build|certify|confirm|import|manifest|status``: the instance library
(:mod:`.library`), found by the CLI through the ``sparsekm.commands`` entry point.

``build`` writes the instance files (on demand, never committed) and the manifest into
``--out``; ``certify`` runs the certifying methods (resumable: each run continues from its
checkpoint), ``confirm`` has another solver read the exported file, ``import`` takes earlier
benchmark runs, ``manifest`` rewrites ``benchmarks/library/manifest.csv`` and ``.json`` from
the records. Run the long ones with ``nice -n 19`` on a shared machine.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Annotated

import typer

from sparsekm.run.errors import reported as cli_errors

app = typer.Typer(name="library", no_args_is_help=True,
                  help="The instance library: papers' instances with certified values, "
                       "written as standard files on demand.")

Only = Annotated[list[str] | None, typer.Option(
    "--only", help="Instance names or globs (repeatable; default: all), e.g. 'D-T8-*'.")]
Root = Annotated[Path, typer.Option(
    "--root", help="The library's folder (records, checkpoints, manifest).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object to stdout.")]
DEFAULT_ROOT = Path("benchmarks") / "library"
MANIFEST_KEYS = ("instance", "paper", "table", "problem", "class", "form", "format", "m", "n",
                 "variables", "integer", "constraints", "sense", "best_objective",
                 "certified_bound", "gap", "certified", "status", "objective_by", "bound_by",
                 "machine", "date", "confirmed", "confirmed_by", "confirmation_kind", "flags",
                 "key", "data_sha256", "selected", "checkpoint")


def write_manifest(root: Path, out: Path) -> tuple[Path, Path]:
    """``manifest.json`` and ``manifest.csv`` of the records under ``root``, into ``out``."""
    from .library import CERTIFIED_GAP, manifest_rows

    rows = manifest_rows(root)
    out.mkdir(parents=True, exist_ok=True)
    doc = {"description": "sparsekm instance library (issue 28): instances of papers A, B "
           "and D with the best known objective, the best certified bound and how each was "
           "obtained; files are written on demand by `sparsekm library build`",
           "certified_when": f"relative gap <= {CERTIFIED_GAP:g}",
           "confirmed_when": "another solver read the exported file and found the same value "
           "to 1e-6 relative (kind: optimum, or the value at the certified point)",
           "counts": {"instances": len(rows),
                      "certified": sum(r["certified"] for r in rows),
                      "confirmed": sum(r["confirmed"] for r in rows),
                      "certified_and_confirmed": sum(r["certified"] and r["confirmed"]
                                                     for r in rows)},
           "instances": rows}
    jpath = out / "manifest.json"
    jpath.write_text(json.dumps(doc, indent=1, default=str) + "\n")
    cpath = out / "manifest.csv"
    with cpath.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(MANIFEST_KEYS), extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({k: json.dumps(v) if isinstance(v, list) else v for k, v in r.items()})
    return jpath, cpath


@app.command("manifest")
def manifest_cmd(root: Root = DEFAULT_ROOT, json_out: JsonOpt = False) -> None:
    """Rewrite ROOT/manifest.json and manifest.csv from the records."""
    with cli_errors():
        jpath, cpath = write_manifest(root, root)
        counts = json.loads(jpath.read_text())["counts"]
    typer.echo(json.dumps({**counts, "json": str(jpath), "csv": str(cpath)}) if json_out
               else f"{jpath}, {cpath}: {counts}")


@app.command("status")
def status_cmd(root: Root = DEFAULT_ROOT, only: Only = None) -> None:
    """One line per instance: status, best objective, certified bound, gap, confirmation."""
    from .library import manifest_rows, select

    with cli_errors():
        names = {i.name for i in select(only)}
        for r in manifest_rows(root):
            if r["instance"] in names:
                gap = "" if r["gap"] is None else f"{r['gap']:.2e}"
                typer.echo(f"{r['instance']:<32} {r['status']:<9} {r['best_objective']!s:<22}"
                           f" {r['certified_bound']!s:<22} {gap:<9} "
                           f"{'confirmed' if r['confirmed'] else ''}")


@app.command("certify")
def certify_cmd(only: Only = None, root: Root = DEFAULT_ROOT,
                time_limit: Annotated[float, typer.Option(
                    "--time-limit", help="Seconds per instance and call (a checkpointed "
                    "search resumes where the last call stopped).")] = 120.0,
                skip_certified: Annotated[bool, typer.Option(
                    "--skip-certified/--all", help="Leave certified instances alone.")] = True,
                ) -> None:
    """Run each instance's certifying method (tree engine / enumeration) within the limit."""
    from .library import manifest_rows, select
    from .library_runs import certify

    with cli_errors():
        done = {r["instance"] for r in manifest_rows(root) if r["certified"]}
        for inst in select(only):
            if skip_certified and inst.name in done:
                continue
            run = certify(inst, root, time_limit)
            typer.echo(f"{inst.name}: {run['status']} {run['objective']} bound {run['bound']} "
                       f"({run['wall_s']:.1f} s, cpu {run['cpu_s']:.1f} s)")
        write_manifest(root, root)


@app.command("confirm")
def confirm_cmd(only: Only = None, root: Root = DEFAULT_ROOT,
                solver: Annotated[str, typer.Option("--solver", help="scip or cplex.")] = "scip",
                form: Annotated[str | None, typer.Option(
                    "--form", help="The form to export (default: the instance's).")] = None,
                time_limit: Annotated[float, typer.Option("--time-limit")] = 300.0) -> None:
    """Export each instance and have another solver read the file: the same value?"""
    from .library import select
    from .library_runs import confirm

    with cli_errors():
        if solver not in ("scip", "cplex"):
            raise ValueError(f"--solver {solver}: choose scip or cplex")
        for inst in select(only):
            entry = confirm(inst, root, solver, time_limit, form)
            if entry is None:
                typer.echo(f"{inst.name}: no best objective yet (certify first)")
                continue
            verdict = "agrees" if entry["agrees"] else "differs"
            typer.echo(f"{inst.name}: {entry['solver']} {entry['status']} {entry['objective']}"
                       f" vs {entry['library_objective']} ({verdict}, "
                       f"{entry['time_s']:.1f} s)")
        write_manifest(root, root)


@app.command("import")
def import_cmd(root: Root = DEFAULT_ROOT,
               source: Annotated[Path, typer.Option("--source")] = Path(
                   "benchmarks/results/fs_linear_certify_bnb.json")) -> None:
    """Take earlier certification runs (paper D, Tables 3-7), each incumbent re-valued."""
    from .library import instances
    from .library_runs import import_runs

    with cli_errors():
        done = import_runs(root, source, {i.name: i for i in instances()})
        write_manifest(root, root)
    typer.echo(f"imported {len(done)} runs from {source}")


@app.command("build")
def build_cmd(out: Annotated[Path, typer.Option("--out", help="Folder for the files.")] = Path(
                  "library"),
              only: Only = None, root: Root = DEFAULT_ROOT,
              form: Annotated[str | None, typer.Option(
                  "--form", help="Write this form instead of each instance's default.")] = None,
              json_out: JsonOpt = False) -> None:
    """Write the instance files (and their sidecars) with the manifest into --out."""
    from .library import select
    from .library_runs import _export

    with cli_errors():
        out.mkdir(parents=True, exist_ok=True)
        written = []
        for inst in select(only):
            folder = out / inst.name
            folder.mkdir(exist_ok=True)
            payload = _export(inst, form or inst.form, folder)
            written.append({"instance": inst.name, "file": payload["file"],
                            "bytes": payload["bytes"], "time_s": payload["time_s"]})
            if not json_out:
                typer.echo(f"{payload['file']} ({payload['bytes']} bytes)")
        jpath, cpath = write_manifest(root, out)
    if json_out:
        typer.echo(json.dumps({"files": written, "manifest": [str(jpath), str(cpath)]}))
