"""The instance library: the papers' data and grids as instances of their problems, with
certified values (issue 28).

Which instances (:func:`instances`): paper D's Tables 3-7 sets (six large data sets, B = 10,
20, 30, C = 10, all rows) and Table 8 sets (nine small data sets, B = 5, C = 10, the 80/20
split of seed 0); paper A's Tables 2-6 rows (four data sets, polynomial kernels d = 2, 3, 5
and the Gaussian kernel, m = 10 ... 200 training rows, paper sense, B = floor(n/2)); paper B's
Table 6 rows (ten data sets, the 80/20 split, C = 10, lam = 1, k0 = 2, paper10's kernels).
Each instance is a set of ``sparsekm`` flags: the same flags give the same data, hash and
model in ``solve``, ``export`` and ``check``.

What is known about each lives in ``benchmarks/library/records/NAME.json`` (one file an
instance, committed): every certification run (the tree engine, resumed from its checkpoint
in ``benchmarks/library/checkpoints/``), every imported earlier run, every independent
confirmation. :func:`manifest_rows` folds them into the manifest
(``benchmarks/library/manifest.csv`` and ``.json``); instance files are written on demand
(``sparsekm library build``), never committed.
"""

from __future__ import annotations

import fnmatch
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["CERTIFIED_GAP", "Instance", "LIBRARY", "instances", "load_records",
           "manifest_rows", "save_record", "select"]

LIBRARY = Path("benchmarks") / "library"
CERTIFIED_GAP = 1e-4                  # relative gap at which a bound certifies the objective
IONOSPHERE33 = "benchmarks/configs/data/ionosphere33.csv"   # paper A's n = 33 (data/README)


@dataclass(frozen=True)
class Instance:
    """One instance: its name, where it comes from, its problem and flags, the form its file
    is written in by default, and how it is certified (the method and its options)."""

    name: str
    paper: str
    table: str
    problem: str
    flags: dict[str, Any]
    form: str
    fmt: str
    method: str
    method_options: dict[str, Any] = field(default_factory=dict)
    confirm_forms: tuple[str, ...] = ()

    @property
    def cls(self) -> str:
        return {"fs-linear": "MIQP", "fs-kernel": "MINLP", "smkl": "MISDP"}[self.problem]

    def given(self) -> dict[str, Any]:
        """The flags as the run layer takes them (values as typed)."""
        return {k: v for k, v in self.flags.items()}


D_LARGE = ("arrhythmia", "colorectal", "dlbcl", "lymphoma", "madelon", "mfeat")
D_SMALL = ("breast_cancer_diagnostic", "breast_cancer_prognostic", "breast_cancer_wisconsin",
           "cleveland", "diabetes", "german", "ionosphere", "parkinsons", "wholesale")
A_DATA = (("cleveland", "cleveland"), ("breast_cancer_diagnostic", "bcd"),
          (IONOSPHERE33, "ionosphere33"), ("sonar", "sonar"))
A_KERNELS = (("poly", 2), ("poly", 3), ("poly", 5), ("rbf", None))
A_ROWS = (10, 50, 100, 150, 200)
B_DATA = ("iris", "wine", "breast_cancer_diagnostic", "ionosphere", "spambase", "banknote",
          "heart", "haberman", "mammographic", "parkinsons")
BNB = {"gap_tol": 1e-6}


def _paper_d() -> list[Instance]:
    out = []
    for data in D_LARGE:
        for B in (10, 20, 30):
            out.append(Instance(f"D-T3to7-{data}-B{B}", "D", "Tables 3-7", "fs-linear",
                                {"data": data, "B": B, "C": 10.0}, "bigm", "mps", "bnb", BNB,
                                ("cop",)))
    for data in D_SMALL:
        out.append(Instance(f"D-T8-{data}-B5", "D", "Table 8", "fs-linear",
                            {"data": data, "B": 5, "C": 10.0, "test_size": 0.2, "seed": 0},
                            "bigm", "mps", "bnb", BNB, ("cop",)))
    return out


def _paper_a() -> list[Instance]:
    out = []
    for data, short in A_DATA:
        for kernel, degree in A_KERNELS:
            table = "Table 6" if kernel == "rbf" else f"Tables 2-5 (d = {degree})"
            for m in A_ROWS:
                flags: dict[str, Any] = {"data": data, "kernel": kernel, "train_rows": m,
                                         "sense": "paper", "C": 10.0, "gamma": 0.1}
                if degree is not None:
                    flags.update(degree=degree, coef0=1.0)
                tag = f"poly{degree}" if degree else "rbf"
                # C(13, 6) = 1716 masks for cleveland: enumeration certifies; the other sets
                # (n = 30, 33, 60) have 1e8 and more: LS* gives a best known value
                method = "enumerate" if short == "cleveland" else "ls-star"
                out.append(Instance(f"A-{short}-{tag}-m{m}", "A", table, "fs-kernel", flags,
                                    "minlp", "nl", method))
    return out


def _paper_b() -> list[Instance]:
    return [Instance(f"B-T6-{data}", "B", "Table 6", "smkl",
                     {"data": data, "test_size": 0.2, "seed": 0, "C": 10.0, "lam": 1.0,
                      "k0": 2, "kernels": "paper10"}, "misdp", "cbf", "exact",
                     {"gap_tol": 1e-6})
            for data in B_DATA]


def instances() -> list[Instance]:
    """Every instance of the library, in a fixed order (paper D, A, B)."""
    return _paper_d() + _paper_a() + _paper_b()


def select(patterns: list[str] | None) -> list[Instance]:
    """The instances whose name matches one of the glob ``patterns`` (all when none); a
    pattern that matches nothing is a ValueError naming it."""
    every = instances()
    if not patterns:
        return every
    out = []
    for pat in patterns:
        hit = [i for i in every if fnmatch.fnmatch(i.name, pat)]
        if not hit:
            raise ValueError(f"--only {pat}: no instance matches; names look like "
                             f"{every[0].name}, {every[-1].name}")
        out += [i for i in hit if i not in out]
    return out


def record_path(root: Path, inst: Instance) -> Path:
    return root / "records" / f"{inst.name}.json"


def load_records(root: Path, inst: Instance) -> dict[str, Any]:
    """The instance's record (its key, data hash, size, runs and confirmations)."""
    path = record_path(root, inst)
    if path.is_file():
        return json.loads(path.read_text())
    return {"instance": inst.name, "runs": [], "confirmations": []}


def save_record(root: Path, inst: Instance, record: dict[str, Any]) -> Path:
    path = record_path(root, inst)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=False, default=str) + "\n")
    return path


def _best(runs: list[dict[str, Any]], sense: str) -> tuple[dict | None, dict | None]:
    """The run with the best objective and the one with the best certified bound."""
    sign = 1.0 if sense == "min" else -1.0
    with_obj = [r for r in runs if r.get("objective") is not None]
    with_bound = [r for r in runs if r.get("bound") is not None]
    obj = min(with_obj, key=lambda r: sign * r["objective"]) if with_obj else None
    bnd = max(with_bound, key=lambda r: sign * r["bound"]) if with_bound else None
    return obj, bnd


def _how(run: dict[str, Any] | None) -> str:
    if run is None:
        return ""
    parts = [run.get("method") or "", run.get("solver") or ""]
    if run.get("time_s") is not None:
        parts.append(f"{run['time_s']:.1f} s")
    if run.get("time_limit") is not None:
        parts.append(f"limit {run['time_limit']:g} s")
    if run.get("source"):
        parts.append(f"from {run['source']}")
    return ", ".join(p for p in parts if p)


def manifest_rows(root: Path) -> list[dict[str, Any]]:
    """One row per instance: size, class, best known objective, certified bound, gap, how
    each was obtained, and the independent confirmations."""
    rows = []
    for inst in instances():
        rec = load_records(root, inst)
        sense = rec.get("sense", "min")
        obj_run, bnd_run = _best(rec.get("runs", []), sense)
        obj = None if obj_run is None else obj_run["objective"]
        bound = None if bnd_run is None else bnd_run["bound"]
        gap = None
        if obj is not None and bound is not None:
            gap = max(0.0, (obj - bound) if sense == "min" else (bound - obj)) / \
                max(abs(obj), 1e-12)
        certified = gap is not None and gap <= CERTIFIED_GAP
        confirms = rec.get("confirmations", [])
        agree = [c for c in confirms if c.get("agrees")]
        size = rec.get("size", {})
        rows.append({
            "instance": inst.name, "paper": inst.paper, "table": inst.table,
            "problem": inst.problem, "class": inst.cls, "form": inst.form, "format": inst.fmt,
            "flags": " ".join(f"--{k.replace('_', '-')} {v}" for k, v in inst.flags.items()),
            "key": rec.get("key"), "data_sha256": rec.get("data_sha256"),
            "m": size.get("m"), "n": size.get("n"), "variables": size.get("variables"),
            "integer": size.get("integer"), "constraints": size.get("constraints"),
            "sense": sense, "best_objective": obj, "certified_bound": bound, "gap": gap,
            "certified": certified,
            "status": "certified" if certified else ("open" if obj is not None else "not run"),
            "objective_by": _how(obj_run), "bound_by": _how(bnd_run),
            "machine": (obj_run or bnd_run or {}).get("machine"),
            "date": (obj_run or bnd_run or {}).get("date"),
            "confirmed": bool(agree),
            "confirmed_by": "; ".join(_confirmation(c) for c in agree),
            "confirmation_kind": ", ".join(sorted({c.get("kind", "") for c in agree})),
            "selected": (obj_run or {}).get("selected"),
            "checkpoint": rec.get("checkpoint"),
        })
    return rows


def _confirmation(c: dict[str, Any]) -> str:
    val = c.get("objective")
    text = f"{c.get('solver')} on {c.get('file')}"
    if val is not None and math.isfinite(val):
        text += f": {val:.10g}"
    if c.get("time_s") is not None:
        text += f" in {c['time_s']:.1f} s"
    return text
