"""``sparsekm export PROBLEM --form NAME [the problem's flags] --format FMT [--out FILE]``.

The problem is built from the same declarations and the same data preparation as ``sparsekm
solve`` (``--data``, ``--scale``, ``--test-size``, ``--B``, ``--C``, ...), so a file written
here is the model a solve with the same flags works on. The form is one of the problem's
registered formulations or relaxations (each declares its export in the registry:
:mod:`.export_forms`), written by :func:`sparsekm.solvers.files.write_model`; beside the
file, ``FILE.json`` (the sidecar) holds what QPLIB and CBLIB publish with an instance: the
data's SHA-256, the parameters, the map from the file's variable names to the paper's
(``w(3) -> w_3``), the objective's sense and constant, what the model certifies (exact,
relaxation or restriction, with its record's fingerprint), and the best known objective and
certified bound when the instance library (``benchmarks/library/manifest.json``) holds this
instance.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sparsekm import declare

from .command import BASE_OPTIONS, Command
from .data import prepare, ready
from .errors import UserError
from .export_forms import forms, paper_name
from .resolve import Call

__all__ = ["EXPORT_COMMANDS", "data_sha256", "describe", "export_commands", "find_manifest",
           "instance_key", "parse_label"]

FORMAT_NAMES = ("lp", "mps", "nl", "cbf")
RUN_OPTIONS = tuple(o for o in BASE_OPTIONS if o not in ("solver", "time_limit")) + \
    ("train_rows",)
MANIFEST_ENV = "SPARSEKM_LIBRARY"
_LABEL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*?)(?:[\(\[]([0-9,_ ]+)[\)\]])?$")


def _export_base(problem: str) -> type:
    def form_names() -> tuple[str, ...]:
        return tuple(forms(problem))

    @dataclass(frozen=True)
    class Export:
        form: str = declare.field(None, "The formulation or relaxation to write (`sparsekm "
                                  "methods PROBLEM` says what each is).", choices=form_names,
                                  flag="--form")
        format: str | None = declare.field(None, "File format: lp, mps (quadratic sections), "
                                           "nl or cbf (Conic Benchmark Format 3), where the "
                                           "model's class allows (default: --out's suffix, "
                                           "else mps).", choices=FORMAT_NAMES, flag="--format")
        out: str | None = declare.field(None, "The file to write (default: PROBLEM-FORM-"
                                        "DATA.FMT here); its sidecar is FILE.json.",
                                        path="write", flag="--out")
    return Export


@dataclass(frozen=True)
class _FSLinearExtra:
    M: float | None = declare.field(None, "Big-M of bigm, box, dscomp, dsmp, shor-bigm, "
                                    "shor-cop-bigm, sr-dlmp (none: the always-valid sqrt(2 UB)"
                                    " of Remark 3.2).", gt=0, flag="--M")
    K: list[int] | None = declare.field(None, "Feature subset: the binary u_j of sr-dlmp, or "
                                        "the restriction CoP(K) (16) of cop (0-based).",
                                        ge=0, flag="--K")
    conic: str = declare.field("soc", "Blocks of dscop, dscomp, dsmp: soc (Lemma 4.3; LP, MPS, "
                               "NL or CBF) or sdp (PSD blocks; CBF).", choices=("soc", "sdp"),
                               flag="--conic")


@dataclass(frozen=True)
class _SMKLExtra:
    n_vectors: int = declare.field(100, "Random unit vectors of soc-random (17).", ge=1,
                                   flag="--n-vectors")


@dataclass(frozen=True)
class _MinMaxExtra:
    box: bool = declare.field(True, "Keep the redundant 0 <= alpha <= C (20d).",
                              flag="--box/--no-box")
    objective: str = declare.field("printed", "(18a) as printed, or reduced (the same value "
                                   "on (18b)).", choices=("printed", "reduced"),
                                   flag="--objective")


@dataclass(frozen=True)
class _FSKernelExtra:
    aux: bool = declare.field(True, "One auxiliary variable per pair of rows (a smaller "
                              "expression).", flag="--aux/--no-aux")


_EXTRA = {"fs-linear": _FSLinearExtra, "smkl": _SMKLExtra, "minmax-fs": _MinMaxExtra,
          "fs-kernel": _FSKernelExtra}


def _own(problem: str) -> type:
    base = _export_base(problem)
    extra = _EXTRA.get(problem)
    fields = [(f.name, f.type, f) for f in dataclasses.fields(base)]
    if extra is not None:
        fields += [(f.name, f.type, f) for f in dataclasses.fields(extra)]
    cls = dataclasses.make_dataclass(f"Export{problem.title().replace('-', '')}",
                                     [(n, t, dataclasses.field(default=f.default,
                                                               metadata=f.metadata))
                                      for n, t, f in fields], frozen=True)
    cls.__module__ = __name__
    return cls


def data_sha256(X: np.ndarray, y: np.ndarray) -> str:
    """SHA-256 of the data as the model holds it: the shape, then X (float64, row by row),
    then y (float64)."""
    h = hashlib.sha256()
    X = np.ascontiguousarray(X, dtype=np.float64)
    h.update(f"{X.shape[0]}x{X.shape[1]}".encode())
    h.update(X.tobytes())
    h.update(np.ascontiguousarray(y, dtype=np.float64).tobytes())
    return h.hexdigest()


def instance_key(problem: str, sha: str, params: dict[str, Any]) -> str:
    """The key of an instance: problem, data hash and the problem's parameters."""
    text = json.dumps({"problem": problem, "data": sha, "params": params}, sort_keys=True,
                      default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def find_manifest() -> Path | None:
    """The instance library's manifest: ``$SPARSEKM_LIBRARY``, else
    ``benchmarks/library/manifest.json`` under the current folder or the source checkout."""
    import os

    given = os.environ.get(MANIFEST_ENV)
    if given:
        p = Path(given)
        return p / "manifest.json" if p.is_dir() else p
    here = Path(__file__).resolve().parents[3] / "benchmarks" / "library" / "manifest.json"
    for p in (Path.cwd() / "benchmarks" / "library" / "manifest.json", here):
        if p.is_file():
            return p
    return None


def _known(key: str) -> dict[str, Any] | None:
    path = find_manifest()
    if path is None:
        return None
    try:
        rows = json.loads(path.read_text()).get("instances", [])
    except (OSError, ValueError):
        return None
    for row in rows:
        if row.get("key") == key:
            return {k: row.get(k) for k in ("best_objective", "certified_bound", "gap",
                                            "certified", "objective_by", "bound_by", "confirmed_by",
                                            "instance")} | {"source": str(path)}
    return None


def parse_label(label: str) -> tuple[str, Any]:
    """(base, index) of a variable's name in a file or a model: ``w(3)``, ``w[3]`` -> ("w", 3);
    ``s(0_1)`` -> ("s", (0, 1)); ``b`` -> ("b", None). ValueError when it is neither."""
    m = _LABEL.match(label.strip())
    if m is None:
        raise ValueError(f"{label!r} is not a variable name of the form name or name(i)")
    if m.group(2) is None:
        return m.group(1), None
    parts = tuple(int(p) for p in re.split(r"[,_ ]+", m.group(2).strip()) if p)
    return m.group(1), parts[0] if len(parts) == 1 else parts


def _default_out(problem: str, form: str, ds: Any, sha: str, fmt: str) -> str:
    data = re.sub(r"[^A-Za-z0-9]+", "_", str(ds.name)).strip("_") or "data"
    return f"{problem}-{form}-{data}-{sha[:8]}.{fmt}"


def _format_of(fmt: str | None, out: str | None) -> str:
    """The file format: ``--format``, else ``--out``'s suffix when it names one, else mps;
    a ``--format`` that contradicts ``--out``'s suffix is refused (an LP file named .mps)."""
    suffix = Path(out).suffix.lower().lstrip(".") if out else ""
    if fmt is None:
        return suffix if suffix in FORMAT_NAMES else "mps"
    if suffix in FORMAT_NAMES and suffix != fmt:
        raise UserError(f"--format {fmt}: --out {out} names a .{suffix} file; give --format "
                        f"{suffix}, or an --out ending in .{fmt}")
    return fmt


def run_export(call: Call) -> dict[str, Any]:
    """Build the form, write it, write its sidecar; the JSON payload says where and what."""
    from sparsekm import registry
    from sparsekm.registry import problem as problem_info
    from sparsekm.solvers.files import write_model

    name = call.command.problem
    own = dict(call.own)
    form_name, fmt = own.pop("form"), own.pop("format")
    if form_name is None:
        raise UserError(f"--form: give the model to write: {', '.join(forms(name))}")
    form = forms(name)[form_name]
    out = own.pop("out")
    fmt = _format_of(fmt, out)
    split = prepare(call.opts)
    problem = call.build(problem_info(name).cls, split.train.X, split.train.y)
    options = {**own, "seed": call.opts.seed}
    ready()
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        model = form.build(problem, options)
    except ValueError as exc:
        raise UserError(f"--form {form_name}: {exc}") from None
    allowed = form.allowed(options)
    if fmt not in allowed:
        raise UserError(f"--format {fmt}: {form_name} cannot be written as {fmt}; its "
                        f"formats: {', '.join(allowed)}")
    entry = registry.get(name, form.kind, form.entry)
    model_class = _model_class(model, form)
    sha = data_sha256(problem.X, problem.y)
    path = Path(out or _default_out(name, form_name, split.ds, sha, fmt))
    comments = [f"sparsekm export {name} --form {form_name}: {entry.citation}",
                f"data {split.ds.name}, m = {problem.m}, n = {problem.n}, sha256 {sha}"]
    try:
        written = write_model(model, path, fmt, integer=form.integer, comments=comments,
                              name=f"{name}_{form_name}".replace("-", "_"))
    except ValueError as exc:
        raise UserError(f"--format {fmt}: {exc}") from None
    except OSError as exc:
        raise UserError(f"--out {path}: cannot be written ({exc.strerror or exc}); give a "
                        "path in a folder you can write") from None
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    sidecar = _sidecar(call, form, entry, problem, split.ds, written, sha, options)
    sidecar["class"] = model_class
    sidecar["certifies"] = _certifies(model, form, entry)
    side_path = path.with_name(path.name + ".json")
    try:
        side_path.write_text(json.dumps(sidecar, indent=1, default=_plain) + "\n")
    except OSError as exc:
        raise UserError(f"--out {path}: its sidecar {side_path} cannot be written "
                        f"({exc.strerror or exc}); give a path in a folder you can "
                        "write") from None
    return {"problem": name, "form": form_name, "equation": entry.citation, "format": fmt,
            "file": str(path), "sidecar": str(side_path), "class": sidecar["class"],
            "variables": written.variables, "integer": written.integer,
            "bytes": path.stat().st_size, "data_sha256": sha, "key": sidecar["key"],
            "known": sidecar["known"], "certifies": sidecar["certifies"]["certifies"],
            "time_s": round(wall, 6), "cpu_s": round(cpu, 6)}


def _certifies(model: Any, form: Any, entry: Any) -> dict[str, Any]:
    """What the written model certifies: its record (a Pyomo formulation of the toolkit),
    else what the registry says of the form (a relaxation's bound, a formulation's
    optimum)."""
    from sparsekm.models.record import CERTIFIES, record_of

    rec = record_of(model)
    if rec is not None:
        return rec.to_dict()
    return {"problem": entry.problem, "formulation": entry.name, "form": form.name,
            "ref": entry.citation, "role": form.role, "certifies": CERTIFIES[form.role],
            "cuts": [], "note": form.note, "fingerprint": None}


def _model_class(model: Any, form: Any) -> str:
    """The model's class as the solver layer reads it (declared or from its structure); a
    model whose integers are marked for the file only (MISDP (13)) is mixed-integer."""
    from sparsekm.solvers import classify

    cls = classify(model).value
    return f"MI{cls}" if form.integer and not cls.startswith("MI") else cls


def _plain(x: Any) -> Any:
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


def model_params(problem: Any) -> dict[str, Any]:
    """The problem's declared parameters as plain data (its key in the library)."""
    params = problem.params()
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in params.items()}


def _sidecar(call: Call, form: Any, entry: Any, problem: Any, ds: Any, written: Any,
             sha: str, options: dict[str, Any]) -> dict[str, Any]:
    import sparsekm

    params = model_params(problem)
    key = instance_key(call.command.problem, sha, params)
    names = {}
    for label, model_name in written.names.items():
        base, index = parse_label(model_name)
        names[label] = {"model": model_name, "paper": paper_name(base, index, form.variables)}
    return {
        "instance": written.path.stem, "file": written.path.name, "format": written.fmt,
        "companions": [p.name for p in written.companions],
        "problem": call.command.problem, "form": form.name, "kind": form.kind,
        "equation": entry.citation, "class": entry.problem_class, "note": form.note,
        "data": {"name": ds.name, "m": problem.m, "n": problem.n, "sha256": sha,
                 "hashed": "the rows and labels as the model holds them (after the split "
                           "and the scaling): shape, X float64 row-major, y float64",
                 "features": list(ds.feature_names)},
        "run": call.opts.to_dict(), "params": params,
        "options": {k: v for k, v in options.items() if v is not None},
        "key": key,
        "objective": {"sense": written.sense, "constant": written.constant,
                      "constant_in_file": True},
        "variables": {"count": written.variables, "integer": written.integer,
                      "indexing": "0-based: w_j is feature j of data.features, xi_i row i",
                      "meaning": form.variables, "names": names},
        "cones": written.cones,
        "known": _known(key),
        "written_by": {"sparsekm": sparsekm.__version__, "writer": _writer(written.fmt),
                       "command": f"sparsekm export {call.command.problem} --form "
                                  f"{form.name} --format {written.fmt}"},
    }


def _writer(fmt: str) -> str:
    import cvxpy
    import pyomo.version

    if fmt == "cbf":
        return f"sparsekm CBF writer (version 3) from CVXPY {cvxpy.__version__}'s SCS data"
    return f"Pyomo {pyomo.version.version} {fmt.upper()} writer"


def describe(problem: str, given: dict[str, Any]) -> dict[str, Any]:
    """An instance's identity without writing a file: the data's SHA-256, the problem's
    parameters, its key (as the sidecar and the library hold them), m and n."""
    from sparsekm.registry import problem as problem_info

    from .resolve import GRID, resolve

    call = resolve(EXPORT_COMMANDS[problem], given, {}, GRID)
    split = prepare(call.opts)
    built = call.build(problem_info(problem).cls, split.train.X, split.train.y)
    sha = data_sha256(built.X, built.y)
    params = model_params(built)
    extra = {"q": built.q} if hasattr(built, "q") else {}
    return {"data_sha256": sha, "params": params, "key": instance_key(problem, sha, params),
            "m": built.m, "n": built.n, **extra}


def export_commands() -> dict[str, Command]:
    """``sparsekm export PROBLEM``, one command per problem with exportable forms."""
    return EXPORT_COMMANDS


EXPORT_COMMANDS = {
    name: Command("export", name, run_export,
                  f"Write a formulation or relaxation of {name} as an LP, MPS, NL or CBF "
                  "file, with a JSON sidecar (data hash, parameters, variable names).",
                  kind=None, own=_own(name), run_options=RUN_OPTIONS,
                  run_defaults=(("scale", "minmax11"),) if name == "minmax-fs" else ())
    for name in ("fs-linear", "fs-kernel", "smkl", "minmax-fs")
}
