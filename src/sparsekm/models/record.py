"""What a model built by the toolkit certifies, and whether it is still that model.

Every Pyomo model a builder of :mod:`sparsekm.models` returns carries a :class:`ModelRecord`
(:func:`record_of`): the problem it is exact for, or whose bound it gives, the registered
formulation and its paper reference, its role, the registered cuts applied to it, and a
fingerprint of its structure (active constraints with their bounds, variables with their
domains, bounds and fixings, the objective). As CVXPY's reductions record what they changed
so that a solution can be mapped back, the read-back compares the model it is handed with its
record (:func:`changes`): a constraint added, deactivated or rewritten, a variable fixed or
its bounds or domain changed, the objective changed. Such a model certifies its bound only for
itself ("user-modified model"), never for the problem.

Roles:

* ``exact``: the model's optimum is the problem's (BigMP (6), CoP (7));
* ``relaxation``: its optimum is a bound on the problem's (SR-DLMP (21) with relaxed u);
* ``restriction``: its points are the problem's, its optimum only the restricted
  subproblem's (CoP(K) (16) on K, the new-feature cut (18)): no bound on the problem.

A cut the toolkit registers (``registry`` kind "cut") and applies through its own function
keeps the record valid (:func:`note_cut`): a valid inequality such as the objective cut (17)
keeps the role; a restricting one such as (18) makes it a restriction.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["CERTIFIES", "ROLES", "ModelRecord", "changes", "note_cut", "record_of", "stamp"]

ROLES = ("exact", "relaxation", "restriction")
# what the read-back's bound is a bound on, by the model's state
CERTIFIES = {"exact": "problem", "relaxation": "problem",
             "restriction": "restricted subproblem", "modified": "user-modified model"}
_ATTR = "sparsekm_record"


@dataclass(frozen=True)
class Snapshot:
    """The structure of a Pyomo model as compared by :func:`changes`: per component its
    state, and the expressions it holds (kept by reference: a rewritten constraint holds a
    new expression object; a clone maps the references with the model)."""

    constraints: dict[str, tuple[Any, ...]]
    variables: dict[str, tuple[Any, ...]]
    objectives: dict[str, tuple[Any, ...]]
    expressions: dict[str, Any] = field(repr=False, compare=False)

    def digest(self) -> str:
        """SHA-256 (16 hex digits) of the names, bounds, fixings, domains and senses, and of
        each expression's kind and size."""
        h = hashlib.sha256()
        for part in (self.constraints, self.variables, self.objectives):
            for name in sorted(part):
                h.update(repr((name, part[name])).encode())
        for name in sorted(self.expressions):
            e = self.expressions[name]
            h.update(f"{name}:{type(e).__name__}:{getattr(e, 'nargs', lambda: 0)()}".encode())
        return h.hexdigest()[:16]


@dataclass(frozen=True)
class ModelRecord:
    """What a toolkit model is: ``problem`` (registered name), ``formulation`` (its registry
    name) and ``form`` (a variant, e.g. CoP's perspective form), ``ref`` (paper and
    equation), ``role`` (exact, relaxation or restriction), the registered ``cuts`` applied,
    a ``note`` (e.g. the subset K) and the ``fingerprint`` of its structure."""

    problem: str
    formulation: str
    ref: str
    role: str
    fingerprint: str
    form: str = ""
    cuts: tuple[str, ...] = ()
    note: str = ""
    snapshot: Snapshot | None = field(default=None, repr=False, compare=False)

    @property
    def certifies(self) -> str:
        """What a bound of the unmodified model is a bound on."""
        return CERTIFIES[self.role]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (a result's ``extra``, an export's sidecar)."""
        return {"problem": self.problem, "formulation": self.formulation, "form": self.form,
                "ref": self.ref, "role": self.role, "certifies": self.certifies,
                "cuts": list(self.cuts), "note": self.note, "fingerprint": self.fingerprint}


def _key(name: str, index: Any) -> str:
    if index is None:
        return name
    if isinstance(index, tuple):
        return f"{name}[{','.join(map(str, index))}]"
    return f"{name}[{index}]"


def snapshot(model: Any) -> Snapshot:
    """The structure of the Pyomo ``model`` (active constraints and objectives, every
    variable), read component by component (a data object's ``name`` costs a string per
    entry: 0.4 s on colorectal's CoP)."""
    import pyomo.environ as pyo

    cons, exprs, vars_, objs = {}, {}, {}, {}
    for comp in model.component_objects(pyo.Constraint, active=True, descend_into=True):
        cname = comp.getname(fully_qualified=True)
        for idx, c in comp.items():
            if c.active:
                key = _key(cname, idx)
                cons[key] = (c.lb, c.ub)
                exprs[f"c:{key}"] = c.expr
    for comp in model.component_objects(pyo.Var, descend_into=True):
        cname = comp.getname(fully_qualified=True)
        for idx, v in comp.items():
            vars_[_key(cname, idx)] = (v.lb, v.ub, v.fixed, v.value if v.fixed else None,
                                       v.domain.name)
    for o in model.component_data_objects(pyo.Objective, active=True, descend_into=True):
        objs[o.name] = (int(o.sense),)
        exprs[f"o:{o.name}"] = o.expr
    return Snapshot(cons, vars_, objs, exprs)


def stamp(model: Any, problem: str, formulation: str, *, ref: str, role: str,
          form: str = "", note: str = "") -> Any:
    """Attach a :class:`ModelRecord` to the Pyomo ``model`` (its current structure is the
    reference) and return the model."""
    if role not in ROLES:
        raise ValueError(f"role {role!r}: use one of {ROLES}")
    snap = snapshot(model)
    setattr(model, _ATTR, ModelRecord(problem, formulation, ref, role, snap.digest(), form,
                                      note=note, snapshot=snap))
    return model


def record_of(model: Any) -> ModelRecord | None:
    """The model's record (None for a model the toolkit did not build)."""
    rec = getattr(model, _ATTR, None)
    return rec if isinstance(rec, ModelRecord) else None


def note_cut(model: Any, cut: str, component: str, *, restricts: bool = False) -> Any:
    """Record that the toolkit added the registered cut ``cut`` to ``model`` as its
    constraint ``component`` (call it right after adding it): the structure with the cut
    becomes the reference; ``restricts``: the cut removes points of the problem (the record
    becomes a restriction). A model without a record is left alone (it certifies nothing);
    a model the user changed before stays changed (its reference is not moved)."""
    rec = record_of(model)
    if rec is None:
        return model
    snap = rec.snapshot
    if not changes(model, ignore=component):
        snap = snapshot(model)
    role = "restriction" if restricts and rec.role != "relaxation" else rec.role
    setattr(model, _ATTR, replace(rec, role=role, cuts=(*rec.cuts, cut),
                                  fingerprint=snap.digest() if snap else rec.fingerprint,
                                  snapshot=snap))
    return model


def _of(name: str, component: str | None) -> bool:
    """Whether the constraint ``name`` belongs to the component ``component``."""
    return component is not None and (name == component or name.startswith(component + "["))


def changes(model: Any, ignore: str | None = None) -> list[str]:
    """What differs between ``model`` and its record, in words (empty: the model is the one
    the toolkit built, up to its registered cuts; a model without a record: one entry).
    ``ignore``: a constraint component just added by a registered cut."""
    rec = record_of(model)
    if rec is None or rec.snapshot is None:
        return ["the model carries no record of the toolkit"]
    old, new = rec.snapshot, snapshot(model)
    out: list[str] = []
    for name in sorted(set(new.constraints) - set(old.constraints)):
        if not _of(name, ignore):
            out.append(f"constraint {name} added")
    for name in sorted(set(old.constraints) - set(new.constraints)):
        out.append(f"constraint {name} removed or deactivated")
    for name in sorted(set(old.constraints) & set(new.constraints)):
        if old.constraints[name] != new.constraints[name] or \
                old.expressions[f"c:{name}"] is not new.expressions[f"c:{name}"]:
            out.append(f"constraint {name} changed")
    for name in sorted(set(new.variables) ^ set(old.variables)):
        out.append(f"variable {name} {'added' if name in new.variables else 'removed'}")
    for name in sorted(set(old.variables) & set(new.variables)):
        a, b = old.variables[name], new.variables[name]
        if a[2] != b[2] or a[3] != b[3]:
            out.append(f"variable {name} " + (f"fixed at {b[3]:g}" if b[2] else "unfixed"))
        if a[:2] != b[:2]:
            out.append(f"bounds of {name} changed to [{b[0]}, {b[1]}]")
        if a[4] != b[4]:
            out.append(f"domain of {name} changed to {b[4]}")
    if set(old.objectives) != set(new.objectives):
        out.append("objective replaced")
    for name in sorted(set(old.objectives) & set(new.objectives)):
        if old.objectives[name] != new.objectives[name] or \
                old.expressions[f"o:{name}"] is not new.expressions[f"o:{name}"]:
            out.append(f"objective {name} changed")
    return out
