"""Layers: code outside ``sparsekm.engines.smo`` uses its public surface only (issue 21)."""

from __future__ import annotations

import ast
from pathlib import Path

import sparsekm.engines.smo as smo

SRC = Path(smo.__file__).parents[2]


def test_only_the_public_surface_of_solvers_smo_is_imported_outside_it():
    offenders = []
    for path in SRC.rglob("*.py"):
        if "engines/smo" in path.as_posix():
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.module.startswith("sparsekm.engines.smo."):
                    offenders.append(f"{path.relative_to(SRC)}: {node.module}")
                elif node.module == "sparsekm.engines.smo":
                    missing = [a.name for a in node.names if a.name not in smo.__all__]
                    offenders += [f"{path.relative_to(SRC)}: {n}" for n in missing]
    assert offenders == []


def test_the_public_surface_resolves():
    assert all(hasattr(smo, name) for name in smo.__all__)
    assert {"solve_svm_dual", "SVMDualOptions", "fit_libsvm", "smo_decide", "get_row",
            "masked_matrix"} <= set(smo.__all__)
