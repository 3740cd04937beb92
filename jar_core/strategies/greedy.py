"""The paper's greedy join-aware search (METHOD.md, "Greedy join-aware retrieval").

Context after step k: the selected set ``S_k`` and the coverage vector ``q_k``.

* seed (k = 1): ``argmax_i  l_coarse * r_i + l_cov * sum_j F_ji``;
* step k > 1: ``argmax_i  l_coarse * r_i + l_cov * coverage_gain_i + l_join * join_gain_i``;
* update: ``q_k = max(q_{k-1}, F_{., i})``, join gain accumulates ``w_{i, .}``.

Each step is a handful of vector operations over the n candidates.
"""
from __future__ import annotations

import dataclasses
from numbers import Real
from typing import Any, Sequence

import numpy as np

from jar_core.errors import InvalidArgumentError
from jar_core.options import check_weight
from jar_core.signals.matrices import Signals
from jar_core.strategies.base import Selection, StepGain
from jar_core.strategies.gains import bridging, connect_gain, coverage_gain, join_gain, referred_first, update_coverage

__all__ = [
    "GreedyStrategy", "JoinAwareStrategy", "seed", "coverage_gain", "join_gain", "connect_gain", "update_coverage",
    "bridge_pair", "DEFAULT_WEIGHTS", "JOIN_AWARE_WEIGHTS", "FAMILY_WEIGHT", "MAX_WEIGHT", "check_weights",
]

#: (l_cov, l_join, l_coarse) of the paper.
DEFAULT_WEIGHTS = (2.0, 1.0, 4.0)

#: Largest weight a search takes. The gains it weighs (relevance, coverage, join) are of order 1 to 10,
#: so a larger weight changes no choice a smaller one would not, and near ``1e308`` the utilities
#: overflow to inf / NaN.
MAX_WEIGHT = 1e6
#: A step is a *filler* step when no candidate left adds more coverage than this (a sum over the
#: sub-queries, each in [0, 1]): what the question names is found, and the joins choose the rest.
FILLER_COVERAGE = 0.2


def check_weights(weights: Sequence[tuple[str, Any]], *, all_zero: bool = False) -> tuple[float, ...]:
    """The ``(name, value)`` weights as floats, or :class:`InvalidArgumentError` naming the first bad one.

    Each must be a real number (not a bool) in ``[0, MAX_WEIGHT]``; unless ``all_zero``, not all of
    them 0 (every candidate would score 0 and the choice would be arbitrary).
    """
    out = []
    for label, v in weights:
        if isinstance(v, bool) or not isinstance(v, Real) or not 0.0 <= float(v) <= MAX_WEIGHT:
            raise InvalidArgumentError(f"weight {label} must be a number in [0, {MAX_WEIGHT:g}], got {v!r}")
        out.append(float(v))
    if not all_zero and out and not any(out):
        names = ", ".join(label for label, _ in weights)
        raise InvalidArgumentError(
            f"the weights {names} are all 0: every table would score 0 and the choice would be arbitrary; "
            "give at least one of them a positive weight"
        )
    return tuple(out)


def seed(r: np.ndarray, F: np.ndarray, l_cov: float, l_coarse: float) -> np.ndarray:
    """Seed utility of every candidate: ``l_coarse * r_i + l_cov * sum_j F_ji``."""
    return l_coarse * r + l_cov * F.sum(axis=0)


def bridge_pair(
    total: np.ndarray, cov: np.ndarray, r: np.ndarray, F: np.ndarray, w: np.ndarray, q: np.ndarray,
    join_acc: np.ndarray, weights: tuple[float, float, float], *, beat: float = -np.inf,
    family: np.ndarray | None = None, fam_acc: np.ndarray | None = None, l_family: float = 0.0,
) -> tuple[int, int, float] | None:
    """The best two-step move through a bridge: ``(b, t, per-step utility)``, or ``None``.

    ``b`` joins the selection (``join_acc_b > 0``); ``t`` joins nothing chosen yet but adds coverage,
    and joins ``b``. The pair is worth ``(total_b + U_t) / 2`` per step, ``U_t`` being ``t``'s utility
    once ``b`` is chosen: ``l_coarse * r_t + l_cov * gain_t(max(q, F_b)) + l_join * w_bt`` (plus the
    family gain), ``weights = (l_cov, l_join, l_coarse)``. The table a question names only through a
    value ('Mystery & Crime' in ``categories``) is such a ``t`` when the table it hangs off
    (``book_categories``) covers nothing itself. ``total`` and ``cov``: this step's utilities (``-inf``
    for the chosen tables) and coverage gains. Only a pair worth more than ``beat`` per step is looked
    for: an upper bound of each side's worth prunes the candidates first.
    """
    l_cov, l_join, l_coarse = weights
    free = np.isfinite(total)
    T = np.flatnonzero(free & (join_acc <= 0) & (cov > 0))
    B = np.flatnonzero(free & (join_acc > 0))
    if not T.size or not B.size:
        return None
    # t's worth after any b is at most: its coverage gain now, its best join to a b, the family gain
    top = l_coarse * r[T] + l_cov * cov[T] + l_join * w[B][:, T].max(axis=0) + l_family
    tb = total[B]
    T = T[top + tb.max() > 2 * beat]
    if not T.size:
        return None
    B = B[tb + top.max() > 2 * beat]
    J = w[B][:, T]
    reach = np.maximum(q[:, None], F[:, B])  # coverage once each b is chosen: (m, |B|)
    gain = np.maximum(F[:, None, T] - reach[:, :, None], 0.0).sum(axis=0)  # (|B|, |T|)
    u = l_coarse * r[T] + l_cov * gain + l_join * J
    if family is not None and fam_acc is not None and l_family > 0:
        u = u + l_family * np.maximum(fam_acc[T], family[B][:, T])
    pair = np.where(J > 0, (total[B][:, None] + u) / 2.0, -np.inf)
    bb, tt = np.unravel_index(int(np.argmax(pair)), pair.shape)
    return (int(B[bb]), int(T[tt]), float(pair[bb, tt])) if np.isfinite(pair[bb, tt]) else None


class GreedyStrategy:
    """Greedy join-aware selection with weights ``(l_cov, l_join, l_coarse)`` (paper: 2, 1, 4).

    Each weight is a number in ``[0, MAX_WEIGHT]`` (:data:`MAX_WEIGHT`, 1e6), not all three 0;
    anything else raises :class:`InvalidArgumentError` naming the weight.

    ``trace_width`` candidates (best first) are kept per step for :attr:`Selection.trace`.
    """

    name = "greedy"

    #: How the join term accumulates over the selection: ``"sum"`` (the paper) or ``"max"``.
    join_mode = "sum"
    #: With ``join_mode == "max"``: the share of the paper's join sum beyond the best join
    #: (0: the connection gain alone, 1: the paper's sum).
    join_sum_share = 0.0
    #: Gain of a table in a chosen table's family (``Signals.family``); none in the paper's search.
    l_family = 0.0
    #: Whether a step may take a bridge for the table behind it (:func:`bridge_pair`); not in the paper.
    lookahead = False
    #: At a filler step, the share of a chosen table's join a candidate gains where the chosen table
    #: does not refer to it, and of every join of a table chosen at a filler step (1: all alike, the paper).
    child_share = 1.0

    def __init__(
        self, l_cov: float = DEFAULT_WEIGHTS[0], l_join: float = DEFAULT_WEIGHTS[1],
        l_coarse: float = DEFAULT_WEIGHTS[2], *, trace_width: int = 5,
    ) -> None:
        self.l_cov, self.l_join, self.l_coarse = check_weights(
            (("l_cov", l_cov), ("l_join", l_join), ("l_coarse", l_coarse))
        )
        self.trace_width = trace_width

    def sum_share(self, signals: Signals) -> float | np.ndarray:
        """Per candidate (or for all), the share of the join sum beyond the best join
        (``join_mode == "max"`` only): :attr:`join_sum_share`."""
        return self.join_sum_share

    def filler_joins(self, signals: Signals) -> np.ndarray | None:
        """The joins weighed at a *filler* step, where no candidate adds more than
        :data:`FILLER_COVERAGE` of coverage; ``None`` (here): ``signals.w`` as at any step."""
        return None

    def select(self, signals: Signals, k: int, *, pinned: Sequence[int] = ()) -> Selection:
        r, F, w = signals.r, signals.F, signals.w
        n = signals.n
        k = min(k, n)
        selected = np.zeros(n, dtype=bool)
        q = np.zeros(F.shape[0], dtype=F.dtype)
        join_acc = np.zeros(n, dtype=np.float64)
        join_max, join_sum = np.zeros(n, dtype=np.float64), np.zeros(n, dtype=np.float64)
        share = self.sum_share(signals)
        wf = self.filler_joins(signals)
        filler_acc, filler_max, filler_sum = np.zeros(n), np.zeros(n), np.zeros(n)
        core: list[int] = []  # the tables chosen for what they cover, not at a filler step
        fam = signals.family if self.l_family > 0 else None
        fam_acc = np.zeros(n, dtype=np.float64)
        sel = Selection(order=[])
        width = min(self.trace_width, n)
        # per step: the (masked) utilities and the gains behind them, for the trace built at the end
        seen = np.empty((3, k, n)) if width else None
        target = -1  # the table a bridge was taken for, chosen at the next step
        for step in range(k):
            filler = False
            if step == 0:
                cov = F.sum(axis=0)
                total = self.l_coarse * r + self.l_cov * cov
                acc = join_acc
            else:
                cov = coverage_gain(F, q)
                acc = join_acc
                filler = wf is not None and np.where(selected, 0.0, cov).max() <= FILLER_COVERAGE
                if filler:  # no candidate adds coverage that counts; a way between core tables keeps its joins
                    acc = np.where(bridging(w, signals.references, core, ~selected), join_acc, filler_acc)
                total = self.l_coarse * r + self.l_cov * cov + self.l_join * acc
                if fam is not None:
                    total = total + self.l_family * fam_acc
            total = np.where(selected, -np.inf, total)
            if step < len(pinned):
                i = int(pinned[step])
            elif target >= 0:
                i, target = target, -1
            else:
                i = int(np.argmax(total))
                if self.lookahead and step >= 1 and k - step >= 2:
                    pair = bridge_pair(total, cov, r, F, w, q, join_acc, (self.l_cov, self.l_join, self.l_coarse),
                                       beat=float(total[i]), family=fam, fam_acc=fam_acc, l_family=self.l_family)
                    if pair is not None and pair[2] > total[i]:
                        if pair[0] != i:  # taken for the table behind it, not for itself
                            sel.bridges.append(pair[0])
                        i, target = pair[0], pair[1]
            sel.order.append(i)
            sel.steps.append(StepGain(i, float(r[i]), float(cov[i]), float(acc[i]), float(total[i])))
            if seen is not None:
                seen[:, step] = total, cov, acc
            selected[i] = True
            q = update_coverage(q, F, i)
            if fam is not None:
                np.maximum(fam_acc, fam[i], out=fam_acc)
            join_acc = _accumulate(join_acc, join_max, join_sum, w[i], self.join_mode, share)
            if not filler:
                core.append(i)
            if wf is not None:  # a table taken to fill K brings no parent of its own first
                row = w[i] * self.child_share if filler else wf[i]
                filler_acc = _accumulate(filler_acc, filler_max, filler_sum, row, self.join_mode, share)
        sel.coverage = q
        if seen is not None:
            sel.trace = _trace(r, seen, width, n)
        return sel


def _accumulate(
    acc: np.ndarray, best: np.ndarray, total: np.ndarray, row: np.ndarray, mode: str, share: float | np.ndarray,
) -> np.ndarray:
    """The join gains once a table whose joins are ``row`` is chosen: in ``"sum"`` mode ``acc +
    row``; in ``"max"`` mode the best join so far (``best``, updated in place) plus ``share`` of
    the rest of the sum (``total``, updated in place)."""
    if mode == "max":
        np.maximum(best, row, out=best)
        total += row
        return best + share * (total - best)
    return acc + row


def _trace(r: np.ndarray, seen: np.ndarray, width: int, n: int) -> list[list[StepGain]]:
    """The best ``width`` candidates of each step (fewer as candidates run out), from ``seen``,
    the steps' ``(total, coverage, join)`` rows (shape ``(3, steps, n)``): one sort and one
    gather for all steps."""
    top = np.argsort(-seen[0], axis=1, kind="stable")[:, :width]
    total, cov, join = seen[:, np.arange(top.shape[0])[:, None], top].tolist()
    cand, coarse = top.tolist(), r[top].tolist()
    return [
        [StepGain(*g) for g in zip(*(c[step][: n - step] for c in (cand, coarse, cov, join, total)))]
        for step in range(len(cand))
    ]


#: (l_cov, l_join, l_coarse) of :class:`JoinAwareStrategy`, chosen on Spider and BEAVER-DW together
#: (docs/results.md, "Beyond the paper").
JOIN_AWARE_WEIGHTS = (3.0, 1.0, 4.0)
#: Gain of a table of the same family (same database and leading name word) as a chosen one.
FAMILY_WEIGHT = 0.4
#: At a filler step, the share of a chosen table's join a candidate gains where it refers to the
#: chosen table (a child) rather than the chosen table to it (a parent), chosen on the suite
#: (docs/results.md): below the ratio of a bare reference's confidence to a named key's (0.77 /
#: 0.97), so that a course offering's semester comes before the course's other children.
CHILD_SHARE = 0.75


class JoinAwareStrategy(GreedyStrategy):
    """The default search: the paper's greedy with a *connection* gain instead of a join sum.

    The paper adds ``sum_{l in S} w_il``, which rewards hub tables that join everything
    already chosen (a warehouse's term or department dimension) over the relevant ones;
    here a candidate gains ``max_{l in S} w_il``: whether, and how surely, it joins the
    selection. With honest joins (:mod:`jar_core.joins`) that keeps the set connected without
    the hub bias. A table of the same *family* as a chosen one (same database, same leading name
    word: a warehouse's module prefix, ``SIS_DEPARTMENT`` / ``SIS_SUBJECT_CODE``) gains
    ``l_family`` (:data:`FAMILY_WEIGHT`): subject areas hang together even where their joins are
    not found. With ``lookahead`` (default: as ``bridges``), a step with two or more places left may
    take a bridge for the table behind it, when the two are worth more per step than the best single
    table (:func:`bridge_pair`); the bridge shows in :attr:`Selection.bridges`. With ``central_sum``,
    a *central* table (one a third or more of its database's tables reference: a hospital stay that
    every event references, :mod:`jar_core.signals.central`) gains the paper's sum of its joins to the selection:
    it is the way in to most questions of its database. With ``link_relevance``, a link table
    (``domain_author``: keys of the tables it links) is no more relevant than the least relevant
    candidate it refers to (:mod:`jar_core.signals.link_relevance`): its name echoes theirs, and a
    question needs it only to join them. At a *filler* step (no candidate adds more than
    :data:`FILLER_COVERAGE` of coverage), a candidate gains a chosen table's join in full only where
    the chosen table refers to it (its parent: a course offering's course and semester) or where it
    extends the chosen table (:attr:`Signals.extends`: a restaurant's location) or where it is the
    way between two tables chosen for their coverage that nothing joins yet
    (:func:`jar_core.strategies.gains.bridging`), and ``child_share`` (:data:`CHILD_SHARE`) of it
    otherwise (a table referring to the chosen one, or sharing a key with it):
    :func:`jar_core.strategies.gains.referred_first`. Only the tables chosen for what they cover
    bring their parents first: every join of a table chosen at a filler step counts ``child_share``,
    so that a table taken to fill K does not bring its own parents in turn (Advising's program
    behind a program's course, its student behind a student's record). ``child_share`` 1 weighs
    every join alike at every step. Weights
    ``(l_cov, l_join, l_coarse)`` default to :data:`JOIN_AWARE_WEIGHTS`; they and ``l_family`` are
    checked as :class:`GreedyStrategy`'s (``l_family`` alone may be 0); ``child_share`` is a number
    in ``[0, 1]``.
    """

    name = "join-aware"
    join_mode = "max"

    def __init__(
        self, l_cov: float = JOIN_AWARE_WEIGHTS[0], l_join: float = JOIN_AWARE_WEIGHTS[1],
        l_coarse: float = JOIN_AWARE_WEIGHTS[2], *, l_family: float = FAMILY_WEIGHT, bridges: bool = True,
        lookahead: bool | None = None, near_copies: bool = True, central_sum: bool = True,
        link_relevance: bool = True, child_share: float = CHILD_SHARE, trace_width: int = 5,
    ) -> None:
        super().__init__(l_cov, l_join, l_coarse, trace_width=trace_width)
        self.child_share = check_weight("child_share", child_share, 1.0)
        self.central_sum = bool(central_sum)
        self.link_relevance = bool(link_relevance)
        (self.l_family,) = check_weights((("l_family", l_family),), all_zero=True)
        self.bridges = bool(bridges)
        self.lookahead = self.bridges if lookahead is None else bool(lookahead)
        self.near_copies = bool(near_copies)

    def sum_share(self, signals: Signals) -> float | np.ndarray:
        """With ``central_sum``, the central tables (:mod:`jar_core.signals.central`) gain the
        paper's join sum, the others their best join only."""
        if self.central_sum and signals.central is not None:
            return signals.central.astype(np.float64)
        return self.join_sum_share

    def filler_joins(self, signals: Signals) -> np.ndarray | None:
        """With ``child_share`` below 1, the joins of a filler step: parents first
        (:func:`jar_core.strategies.gains.referred_first`)."""
        if self.child_share >= 1.0 or signals.references is None:
            return None
        parents = signals.references if signals.extends is None else signals.references | signals.extends.T
        return referred_first(signals.w, parents, self.child_share)

    def select(self, signals: Signals, k: int, *, pinned: Sequence[int] = ()) -> Selection:
        """The greedy's choice; with ``near_copies``, a chosen table's near copy that joins the others
        more surely in its place (:func:`jar_core.strategies.near_copies.prefer_joined`); with ``bridges``,
        connected within ``k`` (:func:`jar_core.strategies.bridge.connect`)."""
        if self.link_relevance:
            from jar_core.signals.link_relevance import link_relevance

            r = link_relevance(signals)
            if r is not signals.r:
                signals = dataclasses.replace(signals, r=r)
        sel = super().select(signals, k, pinned=pinned)
        if self.near_copies and signals.near_copies is not None:
            from jar_core.strategies.near_copies import prefer_joined

            sel = prefer_joined(signals, sel, (self.l_cov, self.l_join, self.l_coarse), l_family=self.l_family,
                                pinned=len(pinned))
        # each choice after the first joined one before it (its join gain was > 0): connected
        if not self.bridges or all(s.join > 0 for s in sel.steps[1:]):
            return sel
        from jar_core.strategies.bridge import connect

        spare = [s.candidate for s in sel.steps if s.coverage <= 0.0]  # chosen for relevance or a join alone
        order, bridges = connect(signals.w, min(k, signals.n), sel.order, pinned=len(pinned), spare=spare,
                                 F=signals.F, r=signals.r)
        if not bridges:
            return sel
        return with_bridges(signals, sel, order, bridges, self.l_coarse, self.l_join)


def with_bridges(
    signals: Signals, sel: Selection, order: Sequence[int], bridges: Sequence[int], l_coarse: float, l_join: float,
    *, references: Sequence[int] = (), l_cov: float = 0.0,
) -> Selection:
    """``sel`` re-ordered to ``order``, with ``bridges`` (tables added only to connect the others)
    given their relevance and their strongest join to the tables before them, and ``references``
    (tables added for a sub-query that a chosen table covers through a reference to them,
    :func:`jar_core.strategies.auto_k.referenced`) their coverage gain over the tables before them too."""
    steps = {s.candidate: s for s in sel.steps}
    w, F = signals.w, signals.F
    refs = set(references)
    new_steps = []
    for pos, i in enumerate(order):
        if i in steps and i not in bridges and i not in refs:
            new_steps.append(steps[i])
        else:
            j = float(w[i, order[:pos]].max()) if pos else 0.0
            cov = 0.0
            if i in refs and F.shape[0]:
                cov = float(coverage_gain(F[:, [i]], F[:, list(order[:pos])].max(axis=1))[0])
            new_steps.append(StepGain(i, float(signals.r[i]), cov, j,
                                      float(l_coarse * signals.r[i] + l_cov * cov + l_join * j)))
    cov = F[:, order].max(axis=1) if F.shape[0] else np.zeros(0)
    kept = [b for b in sel.bridges if b in order]  # the search's own bridges (lookahead) stay bridges
    return Selection(order=list(order), steps=new_steps, trace=sel.trace[: len(order)], coverage=np.maximum(cov, 0.0),
                     bridges=list(dict.fromkeys([*kept, *bridges])), references=list(references),
                     replaced={a: b for a, b in sel.replaced.items() if a in order})


class DenseStrategy:
    """Top-K by coarse relevance (the dense-retrieval baseline); pinned candidates first."""

    name = "dense"

    def select(self, signals: Signals, k: int, *, pinned: Sequence[int] = ()) -> Selection:
        order = list(dict.fromkeys([*map(int, pinned), *np.argsort(-signals.r, kind="stable").tolist()]))[:k]
        steps = [StepGain(i, float(signals.r[i]), 0.0, 0.0, float(signals.r[i])) for i in order]
        cov = signals.F[:, order].max(axis=1) if order and signals.F.shape[0] else np.zeros(signals.F.shape[0])
        return Selection(order=order, steps=steps, coverage=np.maximum(cov, 0.0))
