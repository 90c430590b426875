"""Small FS-SVM (2) instances shared by the tests of paper D (random and real)."""

from __future__ import annotations

import functools

import numpy as np

from sparsekm.models.fs_linear import FSLinearProblem


def random_instance(seed: int, m: int = 30, n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    beta = np.zeros(n)
    beta[:3] = [1.0, -0.7, 0.5]
    y = np.where(X @ beta + 0.5 * rng.normal(size=m) >= 0, 1.0, -1.0)
    return X, y


def issue_instance() -> FSLinearProblem:
    """50 x 18, B = 4, C = 10, the labels from features 4, 9, 13, 16: the optimum of (2) uses
    neither feature 0 nor 1 (a cut u_0 + u_1 <= 1 then changes the optimum), and CoP's
    perspective form without linking rows let SCIP stop 1e-4 below it."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 18))
    beta = np.zeros(18)
    beta[[4, 9, 13, 16]] = [1.0, -0.8, 0.6, 0.5]
    y = np.where(X @ beta + 0.4 * rng.normal(size=50) >= 0, 1.0, -1.0)
    return FSLinearProblem(X, y, B=4, C=10.0)


def real_instance(name: str, rows: int = 60) -> tuple[np.ndarray, np.ndarray, list[str]]:
    from sparsekm.data import Scaler, load_dataset

    ds = load_dataset(name)
    rng = np.random.default_rng(0)
    idx = np.sort(rng.choice(ds.m, size=rows, replace=False))
    X = Scaler("standard").fit(ds.X[idx]).transform(ds.X[idx])
    return X, ds.y[idx].astype(float), list(ds.feature_names)


def get(key: str) -> tuple[np.ndarray, np.ndarray]:
    if key.startswith("rand"):
        return random_instance(int(key[4:]))
    X, y, _ = real_instance(key)
    return X, y


def prob(key: str, B: int, C: float, **kw) -> FSLinearProblem:
    X, y = get(key)
    return FSLinearProblem(X, y, B=B, C=C, **kw)


@functools.cache
def enum_opt(key: str, B: int, C: float) -> tuple[float, tuple[int, ...], float]:
    """(optimum, support, ||w_bar||_inf) of (2) by enumeration, cached per instance."""
    from sparsekm.algorithms.fs_linear import solve_fs_linear

    r = solve_fs_linear(prob(key, B, C), "enumerate")
    return r.objective, tuple(r.selected), float(np.abs(r.values["w"]).max())


def under_m(res) -> float | None:
    """A big-M relaxation's bound at its given M: on (2) when M is proven valid, else the one
    it labels ``bound_under_M`` (a bound on (2) restricted to |w_j| <= M; these tests pass Ms
    known valid from the enumeration, or study the relaxation itself)."""
    return res.bound if res.bound is not None else res.extra.get("bound_under_M")


INSTANCES = [("rand0", 3, 1.0), ("rand1", 2, 10.0), ("rand2", 4, 0.5),
             ("wholesale", 3, 1.0), ("breast_cancer_wisconsin", 3, 0.1)]
