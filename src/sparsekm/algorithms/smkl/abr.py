"""Algorithm 1 of paper B: alternating best response (ABR) for sparse MKL, eq. (4).

Each iteration solves the SVM dual (7) on K(beta) (alpha best response) and the beta-subproblem
(8) by GSSP (9). Stopping rules of Algorithm 1: at most ``max_iter`` (T) iterations, or an
improvement below ``tol`` (epsilon) for ``patience`` (M) consecutive iterations; the best
(alpha, beta) seen is returned.

``monotone=True`` (default) adds a safeguard the paper lacks: plain ABR can increase (4)
between iterations (the beta step minimizes f(alpha_t, .), a minorant of (4) that touches it at
beta_{t-1}; the paper notes the iterates may cycle). A step that does not decrease (4) is
backtracked along the segment when the support is unchanged (a descent direction: the minorant
and (4) share their gradient at beta_{t-1}) and rejected otherwise, which ends the run at a
point no best-response step improves. ``monotone=False`` is Algorithm 1 as printed.

``faces=True`` (the registered method's default) replaces that safeguard by a local search over
supports: when the best response does not decrease (4), (4) is minimized over the simplex faces
of nearby supports -- the union of the current and the best-response supports when it has at
most k0 kernels, the current support with one kernel added or swapped for one of the two
kernels of steepest descent (gradient 2 lam beta - d/2), the best-response support, the current
support -- and the first face whose minimum decreases (4) is the next iterate
(:func:`~sparsekm.algorithms.smkl.face.face_minimize`). The run ends at a point whose face is
optimal and which no such move improves. Without it ABR stalls at vertices: with paper10,
C = 10, lam = 1 on sonar it cycles {linear} <-> {poly d=5} at 17.76 while the certified optimum
mixes the two (14.79).

Every alpha met gives a certified lower bound on (4) (``lagrangian_bound``), so ABR reports one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.declare import Spec
from sparsekm.models.smkl.objective import Evaluation, evaluate
from sparsekm.models.smkl.problem import SMKLProblem
from sparsekm.models.smkl.specs import MAX_ITER, TOL
from sparsekm.models.smkl.subproblems import beta_step, lagrangian_bound

from .face import face_minimize

__all__ = ["BEST_RESPONSE", "FACE_OPTIMAL", "NO_DESCENT", "ABRStopping", "abr_run",
           "random_start", "sparse_start"]

# The local optimality a run can end at (``abr_run(...)["local"]``; a stall by ``tol`` is none).
BEST_RESPONSE = "mutual best response: alpha solves (7) on K(beta), beta solves (8) at alpha"
NO_DESCENT = "no best-response step (with backtracking) decreases (4)"
FACE_OPTIMAL = ("(4) minimal on its support's face, and no neighbouring support's face "
                "(best response, one kernel added or swapped) decreases it")


PATIENCE = Spec("M of Algorithm 1: stop after this many consecutive iterations improving (4) "
                "by less than tol.", ge=1)


@dataclass(frozen=True)
class ABRStopping:
    """The stopping rules of Algorithm 1: at most ``max_iter`` (T) iterations, or an
    improvement of (4) below ``tol`` (epsilon) for ``patience`` (M) consecutive iterations
    (declared: the ``abr`` method's options ``max_iter``, ``tol``, ``patience``)."""

    max_iter: int = declare.field(50, MAX_ITER)
    tol: float = declare.field(1e-2, TOL, gt=None, ge=0)
    patience: int = declare.field(3, PATIENCE)

    def __post_init__(self) -> None:
        declare.check_fields(self)


def random_start(q: int, k0: int, rng: np.random.Generator) -> np.ndarray:
    """k0-sparse random start (Section 3.3): a uniform k0-subset with weights 1/k0."""
    beta = np.zeros(q)
    beta[rng.choice(q, size=k0, replace=False)] = 1.0 / k0
    return beta


def sparse_start(beta: np.ndarray, k0: int) -> np.ndarray:
    """Warm start from a relaxation: its k0 largest weights, renormalised to sum 1."""
    beta = np.clip(np.asarray(beta, dtype=float), 0.0, None)
    keep = np.argsort(-beta, kind="stable")[:k0]
    out = np.zeros(beta.size)
    out[keep] = beta[keep]
    s = out.sum()
    if s <= 0:
        out[keep] = 1.0 / len(keep)
    else:
        out /= s
    return out


def _backtrack(problem: SMKLProblem, cur: Evaluation, target: np.ndarray,
               steps: tuple[float, ...], evals: list, deadline: Any = None
               ) -> Evaluation | None:
    """The first point cur + s (target - cur) with a lower (4) than ``cur``, else None."""
    for s in steps:
        trial = evaluate(problem, cur.beta + s * (target - cur.beta), cur.alpha,
                         deadline=deadline)
        evals.append(trial)
        if trial.value < cur.value:
            return trial
    return None


def _neighbour_faces(cur: Evaluation, target: np.ndarray, lam: float, k0: int,
                     node: tuple[tuple[int, ...], tuple[int, ...]]) -> list[frozenset]:
    """Supports to try when the best response ``target`` does not decrease (4) (see above)."""
    excluded, forced = node
    S = frozenset(cur.support)
    S2 = frozenset(np.flatnonzero(target > 0).tolist())
    out = [S | S2] if len(S | S2) <= k0 else []
    grad = 2.0 * lam * cur.beta - 0.5 * cur.d
    enter = [int(j) for j in np.argsort(grad, kind="stable")
             if j not in S and j not in excluded][:2]
    for j in enter:
        if len(S) < k0:
            out.append(S | {j})
        out += [(S - {i}) | {j} for i in sorted(S, key=lambda i: (cur.beta[i], i))
                if i not in forced]
    out += [S2, S]
    return [T for T in dict.fromkeys(out) if T]


def _face_step(problem: SMKLProblem, cur: Evaluation, target: np.ndarray, tried: dict,
               evals: list, node: tuple, deadline: Any) -> Evaluation | None:
    """The first neighbouring face whose minimum decreases (4) below ``cur``, else None
    (``tried``: the minimum found on each face so far; a face is not solved again unless
    ``cur`` lies above that minimum)."""
    eps = 1e-9 * max(1.0, abs(cur.value))
    for T in _neighbour_faces(cur, target, problem.lam, problem.k0, node):
        if tried.get(T, -np.inf) >= cur.value - eps or (len(T) == 1 and
                                                        frozenset(cur.support) == T):
            continue
        e = face_minimize(problem, T, cur.beta + target, evals=evals, deadline=deadline)
        tried[T] = e.value
        if e.value < cur.value - eps:
            return e
        if deadline is not None and deadline.expired():
            return None
    return None


def abr_run(problem: SMKLProblem, beta0: np.ndarray, *, stop: ABRStopping = ABRStopping(),
            monotone: bool = True, faces: bool = False, deadline: Any = None,
            node: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())) -> dict[str, Any]:
    """Run Algorithm 1 from ``beta0``; returns best Evaluation, bound, history and alphas.

    ``stop``: T, epsilon, M of Algorithm 1 (:class:`ABRStopping`); ``node = (excluded,
    forced)`` restricts the beta step to a branch-and-bound node; ``faces`` turns on the local
    search over supports (monotone only, see above).
    """
    max_iter, tol, patience = stop.max_iter, stop.tol, stop.patience
    excluded, forced = node
    t0 = time.perf_counter()
    lam, k0 = problem.lam, problem.k0
    cur = evaluate(problem, beta0, deadline=deadline)
    best: Evaluation = cur
    evals = [cur]
    history = [{"iter": 0, "objective": cur.value, "support": cur.support, "accepted": True,
                "beta": cur.beta.tolist()}]
    nondec, term, local, tried = 0, "iteration_limit", None, {}
    # an iteration's SVM solves cannot be cut short: near the limit, stop when the slowest
    # step so far (the first evaluation, then each iteration) no longer fits
    last = time.perf_counter()
    slowest = last - t0
    for t in range(1, max_iter + 1):
        now = time.perf_counter()
        slowest, last = max(slowest, now - last), now
        if deadline is not None and (deadline.expired() or deadline.remaining() < slowest):
            term = "time_limit"
            break
        beta_new = beta_step(cur.d, lam, k0, excluded, forced)
        same = np.allclose(beta_new, cur.beta, atol=1e-12, rtol=0)
        if same and not (faces and monotone):
            term, local = "converged", BEST_RESPONSE  # a mutual best response (Prop. 2)
            break
        new = cur if same else evaluate(problem, beta_new, alpha0=cur.alpha,
                                        deadline=deadline)
        if not same:
            evals.append(new)
        accepted = True
        if faces and monotone and new.value >= cur.value:
            trial = _face_step(problem, cur, beta_new, tried, evals, node, deadline)
            new, accepted = (trial, True) if trial is not None else (new, False)
        elif monotone and new.value > cur.value:
            accepted = False
            if np.array_equal(new.beta > 0, cur.beta > 0):
                trial = _backtrack(problem, cur, beta_new, (0.5, 0.25, 0.125), evals,
                                   deadline)
                new, accepted = (trial, True) if trial is not None else (new, False)
        if not accepted and not faces:  # polish on the current support (a descent direction)
            off = tuple(sorted(set(np.flatnonzero(cur.beta <= 0).tolist()) - set(forced)))
            face = beta_step(cur.d, lam, k0, off, forced)
            if not np.allclose(face, cur.beta, atol=1e-12, rtol=0):
                trial = _backtrack(problem, cur, face, (1.0, 0.5, 0.25), evals, deadline)
                new, accepted = (trial, True) if trial is not None else (new, False)
        history.append({"iter": t, "objective": new.value, "support": new.support,
                        "accepted": accepted, "beta": new.beta.tolist()})
        if not accepted:
            term, local = "converged", FACE_OPTIMAL if faces and monotone else NO_DESCENT
            break
        improvement = best.value - new.value
        cur = new
        if new.value < best.value:
            best = new
        if improvement < tol:
            nondec += 1
            if nondec >= patience:
                term = "converged"
                break
        else:
            nondec = 0
    if local is None and term == "converged" and np.allclose(
            beta_step(cur.d, lam, k0, excluded, forced), cur.beta, atol=1e-12, rtol=0):
        local = BEST_RESPONSE  # stalled by tol, yet at a mutual best response (one GSSP)
    bound = max(lagrangian_bound(e.d, float(e.alpha.sum()), lam, k0, excluded, forced)[0]
                for e in evals)
    return {"best": best, "bound": bound, "history": history, "termination": term,
            "local": local if best is cur else None, "evals": evals,
            "time_s": time.perf_counter() - t0}
