"""A native swap search for FS-SVM (2) of paper D: supports of B features, no model build
(the local search of the ``fast`` method, :mod:`.iterated_swap`, and of the path,
:mod:`.budget_path`).

Start: the B features with the largest |w_j| = |X_j'(alpha y)| of the SVM (1) on all features.
Moves, in the spirit of abess's splicing (Zhu, Wen, Zhang, Wang & Wang, PNAS 117 (2020)):

* 1-swaps (i out, j in) with i in the support S and j among the ``candidates`` outside
  features of largest dual correlation |d_j|, d = X'(alpha y) at the support's dual alpha;
* when no 1-swap improves, splicings of size k = 2..``splice``: the k features of S with the
  smallest |w_i| (backward sacrifice) out, the k outside features of largest |d_j| (forward
  sacrifice) in.

Every move is first screened by a certified bound: alpha stays dual feasible on any support,
and D_{S'}(alpha) = D_S(alpha) + 1/2 (sum_{out} d_i^2 - sum_{in} d_j^2) <= optimum on S', so a
move whose bound is not below the incumbent cannot improve it and is never solved; the others
are tried in increasing order of that bound (first improvement). A support is solved by the
native linear SVM (:mod:`sparsekm.engines.linear_svm`: a primal-dual interior-point method,
O(m B^2) per iteration, stopped as soon as its certificate decides "below the incumbent or
not"); an accepted support is solved to a relative duality gap of ``tol``, so the objective
returned is the SVM (1) optimum of its support up to that certified gap (``extra["svm_gap"]``)
and the exact value of the returned point (w, b).

The result is a heuristic point (status ``feasible``), a local optimum for these moves, with a
certified lower bound for free:
the perspective bound g(alpha) = 1'alpha - 1/2 (sum of the B largest (X_j'(alpha y))^2) of
:mod:`sparsekm.relaxations.fs_linear.perspective` at the dual points met (Lemma 4.3 /
Theorem 3.6 of paper D); when it closes the gap the point is certified optimal.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sparsekm import declare
from sparsekm.declare import Spec, with_
from sparsekm.engines.linear_svm import (
    AUTO_PAIRS_PER_ROW,
    METHODS,
    LinearSVMFit,
    decide_below,
    feasible_dual,
    snapped_dual,
    solve_linear_svm,
)
from sparsekm.models.fs_linear import FSLinearProblem, point_result
from sparsekm.parallel import single_blas
from sparsekm.solvers import Result, SolverPlan, Termination
from sparsekm.specs import TOL

from .swap_engine import memo_store, new_memo, scan_exchanges, scan_state, support_hash, zobrist
from .swap_scores import (
    backward_sacrifices,
    line_lower_bounds,
    removal_state,
    smallest_swap_values,
)

__all__ = ["CANDIDATES", "MAX_EVALS", "MOVES", "MOVE_RULE", "SPLICE", "SVM", "SVM_TOL",
           "TRIES", "WEAKEST", "SearchMemo", "SwapOptions", "checked_support", "full_svm_dual",
           "grow_support", "swap_search"]

REL_IMPROVE = 1e-9   # a move must lower the objective by this much (relative) to be taken
MOVES = ("dual", "both", "primal")   # 1-swaps ranked by dual bounds, then primal, or reversed
SCAN_CHUNK = 256   # moves decided per compiled call at CHUNK_ROWS rows (the clock is read
CHUNK_ROWS = 180   # between calls); the chunk scales as (CHUNK_ROWS / m)^2, ...
MAX_CHUNK = 1024   # ... up to this many moves
FULL_IPM_MAX_COLUMNS = 400   # the full SVM by the IPM up to this many (virtual) columns
SNAP_TAU = 1e-6   # decisions start from the incumbent's alpha snapped to bounds within tau C

# the swap search's options, declared once (the ``fast`` method takes them flat)
CANDIDATES = Spec("Outside features (largest dual correlation |X_j'(alpha y)|) tried per "
                  "1-swap step of the swap search.", ge=1)
SPLICE = Spec("Largest splicing: the k weakest support features out, the k strongest outside "
              "in, k = 2..splice (abess-style).", ge=1)
MOVE_RULE = Spec("Order of the 1-swaps: dual (by their certified dual bound), both (then also "
                 "by their primal upper bound), or primal (that one first).", choices=MOVES)
WEAKEST = Spec("Primal-ranked 1-swaps: support features (weakest by backward sacrifice) "
               "considered for removal.", ge=1)
TRIES = Spec("Primal-ranked 1-swaps: the best-ranked ones decided per step.", ge=1)
SVM_TOL = with_(TOL, help="Relative duality gap to which each accepted support's SVM (1) is "
                "solved.", lt=1e-2)
MAX_EVALS = Spec("SVM (1) solves per swap search at most.", ge=1)
SVM = Spec("Native SVM (1) solver of a support: auto (warm pair coordinate descent, then the "
           "interior point when undecided), ipm or dcd.", choices=METHODS)


@dataclass(frozen=True)
class SwapOptions:
    """Options of the swap search (see the module docstring)."""

    candidates: int = declare.field(40, CANDIDATES)
    splice: int = declare.field(5, SPLICE)
    moves: str = declare.field("dual", MOVE_RULE)
    weakest: int = declare.field(3, WEAKEST)
    tries: int = declare.field(20, TRIES)
    tol: float = declare.field(1e-9, SVM_TOL)
    max_evals: int = declare.field(100_000, MAX_EVALS)
    svm: str = declare.field("auto", SVM)

    def __post_init__(self) -> None:
        declare.check_fields(self)


def full_svm_dual(problem: FSLinearProblem, deadline: Any = None) -> np.ndarray:
    """The dual alpha of the SVM (1) on all features.

    The dual sees X only through X X', so when n > m the IPM runs on m "virtual columns"
    L = U sqrt(lambda) (X X' = U diag(lambda) U'); it runs on X itself when n <= m. With more
    than ``FULL_IPM_MAX_COLUMNS`` columns either way, the SMO engine on X X' takes over,
    within ``deadline`` (a :class:`~sparsekm.solvers.Deadline`): at it, its feasible alpha
    (madelon's 2000 x 500 took libsvm 10 s, which no limit could stop).
    """
    p = problem
    cols = p.X
    if p.n > p.m:
        lam, U = np.linalg.eigh(p.X @ p.X.T)
        keep = lam > 1e-12 * max(float(lam.max()), 1e-300)
        cols = U[:, keep] * np.sqrt(lam[keep])
    if cols.shape[1] <= FULL_IPM_MAX_COLUMNS:
        return solve_linear_svm(cols, p.y, p.C, method="ipm", tol=1e-8).alpha
    import warnings

    from sparsekm.engines.linear_svm import feasible_dual
    from sparsekm.engines.smo import SVMDualOptions, solve_svm_dual

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        left = None if deadline is None else deadline.cap(None)
        r = solve_svm_dual(p.X @ p.X.T, p.y, p.C, options=SVMDualOptions(
            tol=1e-6, max_iter=1_000_000, check_input=False, backend="smo", time_limit=left))
    alpha = np.empty(p.m)
    feasible_dual(p.y, np.asarray(r.values["alpha"], float), float(p.C), alpha)
    return alpha


@dataclass
class SearchMemo:
    """What swap searches on one problem learn and share (e.g. across restarts).

    ``known``: Zobrist hash of a support S -> (a certified lower bound on the SVM (1) optimum
    of S, a feasible value, 1.0 when they are within ``tol``) (:mod:`.swap_engine`);
    ``states``: the hashes of the supports that were a search's incumbent (a search reaching
    one follows a trajectory already walked, so it stops there).
    """

    known: Any = field(default_factory=new_memo)
    states: set[int] = field(default_factory=set)
    cache: dict[str, Any] = field(default_factory=dict)   # X' and the Zobrist words

    def columns(self, problem: FSLinearProblem) -> tuple[np.ndarray, np.ndarray]:
        """X' (n, m) contiguous and the Zobrist words of ``problem``, made once per memo."""
        if self.cache.get("X") is not problem.X:
            self.cache.update(X=problem.X, Xt=np.ascontiguousarray(problem.X.T),
                              zob=zobrist(problem.n))
        return self.cache["Xt"], self.cache["zob"]


def _cutoff(fit: LinearSVMFit) -> float:
    return fit.primal - REL_IMPROVE * max(1.0, abs(fit.primal))


def scan_chunk(m: int) -> int:
    """Moves per compiled call on m rows: :data:`SCAN_CHUNK` at :data:`CHUNK_ROWS` rows,
    scaled as 1/m^2 (a decision costs O(m^2)), at most :data:`MAX_CHUNK`, so that the clock
    is read often enough (madelon, m = 2000: 256 decisions took ~60 s). Fixed by m, not by
    timing: the same search makes the same decisions on any machine."""
    return max(1, min(MAX_CHUNK, int(SCAN_CHUNK * (CHUNK_ROWS / m) ** 2)))


class _Search:
    """The state of one swap search: the incumbent support, its fit and the counters."""

    def __init__(self, problem: FSLinearProblem, plan: SolverPlan, opts: SwapOptions,
                 memo: SearchMemo) -> None:
        self.p, self.plan, self.o, self.memo = problem, plan, opts, memo
        self.Xt, self.zob = memo.columns(problem)
        self.pairs = {"ipm": 0, "dcd": 100_000 + 200 * problem.m}.get(
            opts.svm, AUTO_PAIRS_PER_ROW * problem.m)
        self.evals = 0
        self.moves = 0
        self.bound = -math.inf
        self.timed_out = False
        self.merged = False
        self.per_decision = 0.0     # the slowest seconds per decision of a chunk so far
        self.last: tuple[Any, Any] = (None, None)   # the last alpha correlated, and its d

    def solve(self, S: np.ndarray, cutoff: float = math.inf,
              warm: np.ndarray | None = None) -> LinearSVMFit:
        """The SVM (1) on support S (decided against ``cutoff``, or solved to ``tol``);
        ``warm``: a dual start (used by the pair updates, not by the IPM)."""
        self.evals += 1
        XS = np.ascontiguousarray(self.Xt[S].T)
        return decide_below(XS, self.p.y, self.p.C, cutoff, method=self.o.svm,
                            alpha0=None if self.o.svm == "ipm" else warm, tol=self.o.tol)

    def correlations(self, alpha: np.ndarray) -> np.ndarray:
        """d = X'(alpha y) at alpha made feasible; folds the perspective bound
        g(alpha) = 1'alpha - 1/2 (sum of the B largest d_j^2) into ``self.bound``."""
        if alpha is self.last[0]:      # the search's last fit again (its final bound)
            return self.last[1]
        a = np.empty_like(alpha)
        feasible_dual(self.p.y, alpha, float(self.p.C), a)
        d = self.Xt @ (a * self.p.y)
        B = min(self.p.B, d.size)
        s2 = d * d
        top = np.partition(s2, s2.size - B)[s2.size - B:]
        self.bound = max(self.bound, float(a.sum() - 0.5 * top.sum()))
        self.last = (alpha, d)
        return d

    def stop(self) -> bool:
        if self.plan.clock.expired():
            self.timed_out = True
        return self.timed_out or self.evals >= self.o.max_evals

    def scan(self, S: np.ndarray, fit: LinearSVMFit, moves: tuple[np.ndarray, ...]
             ) -> tuple[int, LinearSVMFit] | None:
        """The first of ``moves`` = (outs, ins, lbs) (:func:`.swap_engine.scan_exchanges`)
        whose support beats the incumbent, solved to ``tol``: (its index, its fit)."""
        outs, ins = (np.ascontiguousarray(a) for a in moves[:2])
        lbs = np.array(moves[2], dtype=float)   # a copy: the decisions raise it in place
        cutoff = _cutoff(fit)
        hS = support_hash(self.zob, S)
        alpha = np.empty(self.p.m)
        start = np.empty(self.p.m)   # the interior point's alpha, its near-bound entries put on
        snapped_dual(self.p.y, fit.alpha, float(self.p.C), SNAP_TAU, start)   # their bound
        data = (self.Xt, self.p.y, float(self.p.C), self.zob)
        state = scan_state(data, S, start, ins, int(self.pairs))   # once for all the chunks
        q, size = 0, scan_chunk(self.p.m)
        while q < lbs.size and not self.stop():
            rem = self.plan.clock.remaining()
            if math.isfinite(rem) and self.per_decision > 0:   # near the limit: what fits
                size = max(1, min(size, int(rem / self.per_decision)))
            left = min(self.o.max_evals - self.evals, size)
            t = time.perf_counter()
            got, nxt, ev = scan_exchanges(
                data, S, state, (outs, ins, lbs), cutoff,
                (float(self.o.tol), int(self.pairs), int(left), hS, q, min(q + size, lbs.size)),
                self.memo.known, alpha)
            if ev:
                self.per_decision = max(self.per_decision, (time.perf_counter() - t) / ev)
            self.evals += ev
            if got >= 0:
                return got, self._accept(S, outs[got], ins[got], alpha)
            q = nxt
        return None

    def _accept(self, S: np.ndarray, out: np.ndarray, into: np.ndarray,
                alpha: np.ndarray) -> tuple[np.ndarray, LinearSVMFit]:
        S2 = S.copy()
        r = int(np.sum(out >= 0))
        S2[out[:r]] = into[:r]
        self.moves += 1
        new = self.solve(S2, warm=alpha)  # the accepted support, solved to tol
        key = support_hash(self.zob, S2)
        memo_store(self.memo.known, key, (float(new.dual), float(new.primal), 1.0))
        self.merged = key in self.memo.states
        self.memo.states.add(key)
        return S2, new

    def one_swap(self, S: np.ndarray, fit: LinearSVMFit,
                 d: np.ndarray) -> tuple[np.ndarray, LinearSVMFit] | None:
        """First improving 1-swap, in increasing order of its certified lower bound."""
        inside = np.zeros(d.size, bool)
        inside[S] = True
        outside = np.flatnonzero(~inside)
        if outside.size == 0:
            return None
        q = min(self.o.candidates, outside.size)
        top = outside[np.argpartition(-np.abs(d[outside]), q - 1)[:q]] if q < outside.size \
            else outside
        lb = fit.dual + 0.5 * (d[S][:, None] ** 2 - d[top][None, :] ** 2)
        order = np.flatnonzero(lb < _cutoff(fit))     # the moves the bound leaves open, ...
        order = order[np.argsort(lb.flat[order], kind="stable")]   # ... in increasing bound
        pos, col = np.divmod(order, top.size)
        got = self.scan(S, fit, (pos[:, None], top[col][:, None], lb.flat[order]))
        return None if got is None else got[1]

    def ranked_swap(self, S: np.ndarray, fit: LinearSVMFit,
                    d: np.ndarray) -> tuple[np.ndarray, LinearSVMFit] | None:
        """The best of the ``tries`` 1-swaps of smallest primal upper bound ub(i, j)
        (:mod:`.swap_scores`): i among the ``weakest`` features of S by backward sacrifice,
        j over every outside feature; a move whose certified dual bound is not below the
        incumbent is left out (best improvement among those decided)."""
        p = self.p
        inside = np.zeros(p.n, bool)
        inside[S] = True
        outside = np.flatnonzero(~inside)
        if outside.size == 0:
            return None
        XS = np.ascontiguousarray(self.Xt[S].T)
        back = np.empty(S.size)
        f = backward_sacrifices(XS, p.y, p.C, fit.w, back)
        weak = np.argsort(back, kind="stable")[:min(self.o.weakest, S.size)]
        A = np.stack([removal_state(XS, p.y, fit.w, f, int(i)) for i in weak])
        off = 0.5 * (float(fit.w @ fit.w) - fit.w[weak] ** 2)
        lower = line_lower_bounds(self.Xt, outside, p.y, float(p.C), A) + off[:, None]
        lb = fit.dual + 0.5 * (d[S[weak]][:, None] ** 2 - d[outside][None, :] ** 2)
        lower[lb >= _cutoff(fit)] = np.inf
        T = min(self.o.tries, lower.size)
        ub = np.empty_like(lower)
        smallest_swap_values(self.Xt, p.y, float(p.C), (A, off), outside,
                             (lower, np.argsort(lower, axis=None), T), ub)
        flat = np.argpartition(ub, T - 1, axis=None)[:T]
        flat = flat[np.argsort(ub.flat[flat], kind="stable")]
        flat = flat[np.isfinite(ub.flat[flat])]
        k, c = np.divmod(flat, outside.size)
        moves = (weak[k][:, None].astype(np.int64), outside[c][:, None].astype(np.int64),
                 np.full(flat.size, -math.inf))
        found, q = None, 0
        while q < flat.size:   # best improvement: each improvement becomes the cutoff
            got = self.scan(S, fit if found is None else found[1],
                            tuple(a[q:] for a in moves))
            if got is None:
                break
            found, q = got[1], q + got[0] + 1
        return found

    def splice_move(self, S: np.ndarray, fit: LinearSVMFit,
                    d: np.ndarray) -> tuple[np.ndarray, LinearSVMFit] | None:
        """Splicing of size k = 2..splice: the k weakest of S for the k strongest outside."""
        inside = np.zeros(d.size, bool)
        inside[S] = True
        outside = np.flatnonzero(~inside)
        weak = np.argsort(np.abs(d[S]), kind="stable")
        K = min(self.o.splice, S.size, outside.size)
        top = outside[np.argpartition(-np.abs(d[outside]), K - 1)[:K]] if outside.size > K \
            else outside
        strong = top[np.argsort(-np.abs(d[top]), kind="stable")]
        if K < 2:
            return None
        outs = np.full((K - 1, K), -1, np.int64)
        ins = np.zeros((K - 1, K), np.int64)
        lbs = np.empty(K - 1)
        for k in range(2, K + 1):
            outs[k - 2, :k], ins[k - 2, :k] = weak[:k], strong[:k]
            lbs[k - 2] = fit.dual + 0.5 * (np.sum(d[S[weak[:k]]] ** 2)
                                           - np.sum(d[strong[:k]] ** 2))
        got = self.scan(S, fit, (outs, ins, lbs))
        return None if got is None else got[1]

    def run(self, S: np.ndarray, fit: LinearSVMFit) -> tuple[np.ndarray, LinearSVMFit]:
        """Improve (S, fit) until no 1-swap or splicing improves, or a limit."""
        self.memo.states.add(support_hash(self.zob, S))
        while not (self.stop() or self.merged):
            d = self.correlations(fit.alpha)
            if self.o.moves == "primal":
                got = self.ranked_swap(S, fit, d) or self.one_swap(S, fit, d)
            else:
                got = self.one_swap(S, fit, d) or \
                    (self.ranked_swap(S, fit, d) if self.o.moves == "both" else None)
            got = got or self.splice_move(S, fit, d)
            if got is None:
                break
            S, fit = got
        return S, fit


def _result(problem: FSLinearProblem, S: np.ndarray, fit: LinearSVMFit) -> Result:
    w = np.zeros(problem.n)
    w[S] = fit.w
    res = point_result(problem, w, fit.b, method="fast", solver="sparsekm linear-svm ipm")
    res.selected = sorted(int(j) for j in S)   # the support, even where some w_j = 0
    res.values["alpha"] = fit.alpha
    return res


@single_blas
def swap_search(problem: FSLinearProblem, plan: SolverPlan | None = None,
                start: Sequence[int] | None = None, options: SwapOptions | None = None,
                memo: SearchMemo | None = None) -> Result:
    """The swap search from ``start`` (at most B features; default: none), filled up to B
    with the features of largest |X_j'(alpha y)| at the full SVM's alpha (the top B of the
    full SVM when ``start`` is None).

    The objective never exceeds the start's SVM (1) value. ``memo`` shares what earlier
    searches on the same problem learnt (:class:`SearchMemo`; a search that reaches an
    earlier incumbent stops there, ``extra["merged"]``).
    """
    p = problem
    plan = (plan or SolverPlan()).start()
    o = options or SwapOptions()
    srch = _Search(p, plan, o, SearchMemo() if memo is None else memo)
    S = checked_support(p, start)
    if S.size < p.B:
        S = grow_support(S, srch.correlations(full_svm_dual(p, plan.clock)), p.B)
    S, fit = srch.run(S, srch.solve(S))
    srch.correlations(fit.alpha)
    res = _result(p, S, fit)
    res.time_s = plan.clock.elapsed()
    res.termination = Termination.TIME_LIMIT if srch.timed_out else Termination.CONVERGED
    res.extra.update(svm_gap=fit.gap, evaluations=srch.evals, moves=srch.moves,
                     merged=srch.merged)
    res.certify(srch.bound)
    res.extra["perspective_bound"] = srch.bound
    return res


def checked_support(problem: FSLinearProblem, start: Sequence[int] | None) -> np.ndarray:
    """``start`` as a sorted index array: at most B distinct features of [0, n)."""
    S = np.array(sorted({int(j) for j in (() if start is None else start)}), dtype=np.int64)
    if S.size > problem.B:
        raise ValueError(f"start has {S.size} features, more than B={problem.B}")
    if S.size and (S[0] < 0 or S[-1] >= problem.n):
        raise ValueError(f"start has feature indices outside [0, {problem.n - 1}]")
    return S


def grow_support(S: np.ndarray, d: np.ndarray, B: int) -> np.ndarray:
    """S plus the features outside S of largest |d_j| (d = X'(alpha y)), up to B features:
    each added feature is the one whose dual bound promises the largest decrease."""
    rank = np.argsort(-np.abs(d), kind="stable")
    extra = rank[~np.isin(rank, S)][:max(B - S.size, 0)]
    return np.concatenate([S, extra]).astype(np.int64)
