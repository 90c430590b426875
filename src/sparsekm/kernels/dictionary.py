"""A dictionary of base kernels for multiple kernel learning (paper B, Section 5.1).

Spec language (shared by the CLI's ``--kernels`` and ``SparseMKLClassifier(kernels=...)``),
comma-separated entries::

    linear                      x'z
    poly:GAMMA:COEF0:DEGREE     (GAMMA x'z + COEF0)^DEGREE
    rbf:GAMMA                   exp(-GAMMA ||x - z||^2)
    laplacian:GAMMA             exp(-GAMMA ||x - z||_1)
    sigmoid:GAMMA:COEF0         tanh(GAMMA x'z + COEF0)

Named dictionaries: ``paper10`` (the ten kernels of Section 5.1, polynomials scaled by 0.01 as
in the authors' code) and ``paper50`` (Section 5.5: 1 linear, 18 polynomials d = 2..10 x
c in {0, 1}, 12 RBF gamma = 2^-6..2^5, 12 sigmoid gamma in {.01, .03, .1, .3} x c0 in
{-1, 0, 1}, 7 Laplacian gamma = 2^-5..2^1). Names and entries may be mixed:
``"paper10,rbf:2"``.

Each training kernel is symmetrized and gets ``+ jitter * I`` (1e-6, Section 5.1) and nothing
else unless ``normalize="trace"`` (each K_i scaled to trace m, the same factor applied to its
test block). The stack is computed once; :meth:`KernelDictionary.combine` forms
``sum_i beta_i K_i`` over the nonzero ``beta_i`` only, into one reusable buffer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .functions import KernelSpec

__all__ = ["NAMED", "DictionaryTooLarge", "KernelDictionary", "kernel_label",
           "parse_kernels"]


class DictionaryTooLarge(ValueError):
    """The (q, m, m) kernel stack does not fit in the memory or the time available."""


def _check_memory(q: int, m: int) -> None:
    """DictionaryTooLarge when q m^2 doubles exceed the memory available (paper50 on all of
    spambase: 8.5 GB), said before allocating."""
    import os

    need = 8.0 * q * m * m
    try:
        avail = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):   # not Linux: no check
        return
    if need > 0.9 * avail:
        raise DictionaryTooLarge(f"the kernel dictionary ({q} kernels of {m} x {m}) needs "
                                 f"{need / 2**30:.1f} GB, more than the {avail / 2**30:.1f} GB "
                                 "of memory available")

_P10 = ("linear,poly:0.01:1:2,poly:0.01:1:3,poly:0.01:1:5,rbf:0.5,rbf:0.3,rbf:0.1,"
        "sigmoid:0.5:1,sigmoid:0.7:1,laplacian:0.3")


def _paper50() -> str:
    parts = ["linear"]
    parts += [f"poly:0.01:{c:g}:{d}" for d in range(2, 11) for c in (0.0, 1.0)]
    parts += [f"rbf:{2.0 ** e:g}" for e in range(-6, 6)]
    parts += [f"sigmoid:{g:g}:{c:g}" for g in (0.01, 0.03, 0.1, 0.3) for c in (-1.0, 0.0, 1.0)]
    parts += [f"laplacian:{2.0 ** e:g}" for e in range(-5, 2)]
    return ",".join(parts)


NAMED: dict[str, str] = {"paper10": _P10, "paper50": _paper50()}
"""Named dictionaries: name -> spec string."""

_ARITY = {"linear": 0, "poly": 3, "rbf": 1, "laplacian": 1, "sigmoid": 2}
_FORMS = ("linear, poly:GAMMA:COEF0:DEGREE, rbf:GAMMA, laplacian:GAMMA, sigmoid:GAMMA:COEF0, "
          "or a named dictionary (" + ", ".join(NAMED) + ")")


def _number(text: str, entry: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"kernel spec {entry!r}: {text!r} is not a number; use {_FORMS}")\
            from None
    if not np.isfinite(v):
        raise ValueError(f"kernel spec {entry!r}: {text!r} must be finite")
    return v


def _parse_entry(entry: str) -> KernelSpec:
    parts = [p.strip() for p in entry.split(":")]
    name = parts[0].lower()
    if name == "polynomial":
        name = "poly"
    if name not in _ARITY:
        raise ValueError(f"unknown kernel spec {entry!r}; use {_FORMS}")
    args = parts[1:]
    if len(args) != _ARITY[name]:
        raise ValueError(f"kernel spec {entry!r}: {name} takes {_ARITY[name]} parameter(s) "
                         f"({_FORMS})")
    vals = [_number(a, entry) for a in args]
    if name in ("rbf", "laplacian", "sigmoid", "poly") and not vals[0] > 0:
        raise ValueError(f"kernel spec {entry!r}: GAMMA must be > 0")
    if name == "linear":
        return KernelSpec("linear")
    if name == "poly":
        if vals[2] != int(vals[2]) or vals[2] < 1:
            raise ValueError(f"kernel spec {entry!r}: DEGREE must be an integer >= 1")
        return KernelSpec("poly", gamma=vals[0], coef0=vals[1], degree=int(vals[2]))
    if name == "sigmoid":
        return KernelSpec("sigmoid", gamma=vals[0], coef0=vals[1])
    return KernelSpec(name, gamma=vals[0])


def parse_kernels(spec: str | Sequence[str | KernelSpec]) -> list[KernelSpec]:
    """The list of kernels of a spec string, named dictionary or list of entries/specs."""
    if isinstance(spec, str):
        items: list[Any] = [s for s in spec.split(",") if s.strip()]
    else:
        items = list(spec)
    out: list[KernelSpec] = []
    for it in items:
        if isinstance(it, KernelSpec):
            out.append(it)
            continue
        if not isinstance(it, str):
            raise ValueError(f"kernel entry {it!r} must be a string or a KernelSpec; use {_FORMS}")
        key = it.strip().lower()
        if key in NAMED:
            out += parse_kernels(NAMED[key])
        else:
            out.append(_parse_entry(it.strip()))
    if not out:
        raise ValueError(f"empty kernel spec {spec!r}; use {_FORMS}")
    return out


def kernel_label(k: KernelSpec) -> str:
    """The spec-language entry of one kernel (``"rbf:0.5"``)."""
    if k.name == "linear":
        return "linear"
    if k.name == "poly":
        return f"poly:{k.gamma:g}:{k.coef0:g}:{k.degree}"
    if k.name == "sigmoid":
        return f"sigmoid:{k.gamma:g}:{k.coef0:g}"
    return f"{k.name}:{k.gamma:g}"


PROBE_ROWS = 1000   # rows of the kernel timed to predict the stack's building time

class KernelDictionary:
    """Precomputed base kernels K_1..K_q of the training rows and their combinations.

    Parameters
    ----------
    spec : spec string, named dictionary or list of entries (see the module docstring).
    jitter : added to the diagonal of each training kernel (paper B: 1e-6).
    normalize : ``None`` or ``"trace"`` (K_i <- K_i * m / trace(K_i)).
    """

    def __init__(self, spec: str | Sequence[str | KernelSpec] = "paper10", jitter: float = 1e-6,
                 normalize: str | None = None) -> None:
        if normalize not in (None, "none", "trace"):
            raise ValueError(f"normalize={normalize!r}: use None or 'trace'")
        self.kernels = parse_kernels(spec)
        self.labels = [kernel_label(k) for k in self.kernels]
        self.jitter = float(jitter)
        self.normalize = None if normalize in (None, "none") else normalize
        self.K: np.ndarray | None = None
        self.X: np.ndarray | None = None
        self.scale = np.ones(len(self.kernels))
        self._scratch = threading.local()   # combine()'s buffer, one per thread
        self._indefinite: list[str] | None = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickled and copied without the per-thread buffers (a copy gets its own)."""
        return {k: v for k, v in self.__dict__.items() if k != "_scratch"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._scratch = threading.local()

    @property
    def q(self) -> int:
        """Number of base kernels."""
        return len(self.kernels)

    def fit(self, X: np.ndarray, deadline: Any = None) -> KernelDictionary:
        """Compute the (q, m, m) stack of training kernels once.

        The stack must fit in the memory available, and, with a ``deadline``, in the time
        left: the first kernel's time (doubled: the stack's allocation and symmetrisation took
        as long again on spambase, 16.6 s for paper10's ten 4601 x 4601 kernels) predicts the
        rest, and a stack that cannot be built in time raises :class:`DictionaryTooLarge`
        then, not after it."""
        X = np.asarray(X, dtype=np.float64)
        m = X.shape[0]
        _check_memory(self.q, m)
        if deadline is not None and m > PROBE_ROWS:   # one kernel on PROBE_ROWS rows, scaled
            t_probe = time.perf_counter()            # by m^2: spambase's first 4601 x 4601
            self.kernels[0](X[:PROBE_ROWS])          # kernel alone ran 8 s past a 5 s limit
            probe = time.perf_counter() - t_probe
            self._too_slow(2.0 * probe * (m / PROBE_ROWS) ** 2 * self.q, deadline.remaining(),
                           m)
        K = np.empty((self.q, m, m))
        t0 = time.perf_counter()
        for i, spec in enumerate(self.kernels):
            if i == 1 and deadline is not None:
                self._too_slow(2.0 * (time.perf_counter() - t0) * self.q,
                               deadline.remaining() + (time.perf_counter() - t0), m)
            Ki = spec(X)
            Ki += Ki.T  # symmetrize in place: (K + K')/2
            Ki *= 0.5
            if self.normalize == "trace":
                tr = float(np.trace(Ki))
                self.scale[i] = m / tr if tr > 0 else 1.0
                Ki *= self.scale[i]
            Ki[np.diag_indices(m)] += self.jitter
            K[i] = Ki
        self.K, self.X, self._indefinite = K, X, None
        return self

    def _too_slow(self, need: float, left: float, m: int) -> None:
        """DictionaryTooLarge when building the stack (``need`` s) exceeds the ``left``."""
        if need > left:
            raise DictionaryTooLarge(
                f"the kernel dictionary ({self.q} kernels of {m} x {m}) takes about "
                f"{need:.0f} s to build here, more than the time left ({left:.1f} s)")

    def indefinite(self) -> list[str]:
        """Why each base kernel that is not positive semidefinite on the fitted rows is not
        (:func:`~.psd.indefinite_reason`; checked once per fit, only for kernels not PSD by
        construction such as the sigmoid): MISDP (13) and its relaxations (16)-(18) assume
        PSD kernels."""
        K = self._fitted()
        if self._indefinite is None:
            from .psd import indefinite_reason

            self._indefinite = [r for i, spec in enumerate(self.kernels)
                                if (r := indefinite_reason(spec, K[i], self.labels[i]))]
        return self._indefinite

    def _fitted(self) -> np.ndarray:
        if self.K is None:
            raise ValueError("the kernel dictionary is not fitted; call fit(X_train) first")
        return self.K

    def cross(self, Z: np.ndarray) -> np.ndarray:
        """The (q, t, m) stack of kernels between rows of ``Z`` and the training rows."""
        self._fitted()
        Z = np.asarray(Z, dtype=np.float64)
        out = np.empty((self.q, Z.shape[0], self.X.shape[0]))
        for i, spec in enumerate(self.kernels):
            out[i] = spec(Z, self.X) * self.scale[i]
        return out

    def decision(self, beta: np.ndarray, coef: np.ndarray, Z: np.ndarray) -> np.ndarray:
        """``sum_i beta_i K_i(Z, X) @ coef`` without the (q, t, m) cross stack: only the kernels
        with ``beta_i > 0`` and the training rows with ``coef != 0`` are evaluated (on spambase
        with 60 % test rows, 1.97 s for :meth:`cross` against 0.1 s)."""
        from .blocks import kernel_decision

        self._fitted()
        coef = np.asarray(coef, dtype=np.float64)
        out = np.zeros(np.shape(Z)[0])
        for i in np.flatnonzero(np.asarray(beta) > 0):
            out += kernel_decision(self.kernels[i], Z, self.X,
                                   (float(beta[i]) * self.scale[i]) * coef)
        return out

    def combine(self, beta: np.ndarray, stack: np.ndarray | None = None,
                out: np.ndarray | None = None) -> np.ndarray:
        """``sum_i beta_i K_i`` over the nonzero ``beta_i`` (no copy of the stack).

        With ``stack=None`` the training kernels are combined into a buffer owned by the
        dictionary and the calling thread, reused across that thread's calls (copy it if you
        keep it; threads sharing the dictionary, as in-process workers do, never write each
        other's); pass ``out`` to choose the destination, or a cross stack from :meth:`cross`.
        """
        S = self._fitted() if stack is None else stack
        beta = np.asarray(beta, dtype=np.float64)
        if beta.shape != (S.shape[0],):
            raise ValueError(f"beta must have {S.shape[0]} weights (one per kernel), "
                             f"got shape {beta.shape}")
        if out is None:
            if stack is None:
                out = getattr(self._scratch, "buf", None)
                if out is None or out.shape != S.shape[1:]:
                    out = self._scratch.buf = np.empty(S.shape[1:])
            else:
                out = np.empty(S.shape[1:])
        from scipy.linalg.blas import daxpy

        out[...] = 0.0
        flat = out.reshape(-1)  # a view: out is C-contiguous
        for i in np.flatnonzero(beta):
            daxpy(S[i].reshape(-1), flat, a=float(beta[i]))  # in place, no temporary
        return out

    def quad_forms(self, v: np.ndarray) -> np.ndarray:
        """``d_i = v' K_i v`` for every kernel (paper B, Section 3.2): O(q s^2) on the s nonzeros
        of v when v is sparse (an SVM dual), O(q m^2) otherwise."""
        S = self._fitted()
        q, m, _ = S.shape
        idx = np.flatnonzero(v)
        if idx.size < m // 2:  # SVM duals are sparse: O(q m s) on the s support vectors
            vs = v[idx]
            sub = S[np.ix_(np.arange(q), idx, idx)]  # (q, s, s): a copy of q s^2 entries
            return (sub @ vs) @ vs
        return (S.reshape(q * m, m) @ v).reshape(q, m) @ v
