"""The paper's greedy join-aware search (METHOD.md, "Greedy join-aware retrieval").

Context after step k: the selected set ``S_k`` and the coverage vector ``q_k``.

* seed (k = 1): ``argmax_i  l_coarse * r_i + l_cov * sum_j F_ji``;
* step k > 1: ``argmax_i  l_coarse * r_i + l_cov * coverage_gain_i + l_join * join_gain_i``;
* update: ``q_k = max(q_{k-1}, F_{., i})``, join gain accumulates ``w_{i, .}``.

Each step is a handful of vector operations over the n candidates.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from jar_core.errors import InvalidArgumentError
from jar_core.signals import Signals
from jar_core.strategies.base import Selection, StepGain

__all__ = [
    "GreedyStrategy", "JoinAwareStrategy", "seed", "coverage_gain", "join_gain", "connect_gain", "update_coverage",
    "DEFAULT_WEIGHTS", "JOIN_AWARE_WEIGHTS", "FAMILY_WEIGHT",
]

#: (l_cov, l_join, l_coarse) of the paper.
DEFAULT_WEIGHTS = (2.0, 1.0, 4.0)


def seed(r: np.ndarray, F: np.ndarray, l_cov: float, l_coarse: float) -> np.ndarray:
    """Seed utility of every candidate: ``l_coarse * r_i + l_cov * sum_j F_ji``."""
    return l_coarse * r + l_cov * F.sum(axis=0)


def coverage_gain(F: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Marginal coverage gain ``sum_j max(0, F_ji - q_j)`` of every candidate."""
    return np.maximum(F - q[:, None], 0.0).sum(axis=0)


def join_gain(w: np.ndarray, selected: np.ndarray) -> np.ndarray:
    """Join gain ``sum_{l in S} w_il`` of every candidate (``selected``: boolean mask)."""
    return w[:, selected].sum(axis=1)


def connect_gain(w: np.ndarray, selected: np.ndarray) -> np.ndarray:
    """Connection gain ``max_{l in S} w_il``: how surely a candidate joins the selection (not how often)."""
    return w[:, selected].max(axis=1) if selected.any() else np.zeros(w.shape[0])


def update_coverage(q: np.ndarray, F: np.ndarray, i: int) -> np.ndarray:
    """``q_k = max(q_{k-1}, F_{., i})``."""
    return np.maximum(q, F[:, i])


class GreedyStrategy:
    """Greedy join-aware selection with weights ``(l_cov, l_join, l_coarse)`` (paper: 2, 1, 4).

    ``trace_width`` candidates (best first) are kept per step for :attr:`Selection.trace`.
    """

    name = "greedy"

    #: How the join term accumulates over the selection: ``"sum"`` (the paper) or ``"max"``.
    join_mode = "sum"
    #: Gain of a table in a chosen table's family (``Signals.family``); none in the paper's search.
    l_family = 0.0

    def __init__(
        self, l_cov: float = DEFAULT_WEIGHTS[0], l_join: float = DEFAULT_WEIGHTS[1],
        l_coarse: float = DEFAULT_WEIGHTS[2], *, trace_width: int = 5,
    ) -> None:
        for label, v in (("l_cov", l_cov), ("l_join", l_join), ("l_coarse", l_coarse)):
            if not np.isfinite(v) or v < 0:
                raise InvalidArgumentError(f"weight {label} must be a finite number >= 0, got {v}")
        self.l_cov, self.l_join, self.l_coarse = float(l_cov), float(l_join), float(l_coarse)
        self.trace_width = trace_width

    def select(self, signals: Signals, k: int, *, pinned: Sequence[int] = ()) -> Selection:
        r, F, w = signals.r, signals.F, signals.w
        n = signals.n
        k = min(k, n)
        selected = np.zeros(n, dtype=bool)
        q = np.zeros(F.shape[0], dtype=F.dtype)
        join_acc = np.zeros(n, dtype=np.float64)
        fam = signals.family if self.l_family > 0 else None
        fam_acc = np.zeros(n, dtype=np.float64)
        sel = Selection(order=[])
        width = min(self.trace_width, n)
        # per step: the (masked) utilities and the gains behind them, for the trace built at the end
        seen = np.empty((3, k, n)) if width else None
        for step in range(k):
            if step == 0:
                cov = F.sum(axis=0)
                total = self.l_coarse * r + self.l_cov * cov
            else:
                cov = coverage_gain(F, q)
                total = self.l_coarse * r + self.l_cov * cov + self.l_join * join_acc
                if fam is not None:
                    total = total + self.l_family * fam_acc
            total = np.where(selected, -np.inf, total)
            i = int(pinned[step]) if step < len(pinned) else int(np.argmax(total))
            sel.order.append(i)
            sel.steps.append(StepGain(i, float(r[i]), float(cov[i]), float(join_acc[i]), float(total[i])))
            if seen is not None:
                seen[:, step] = total, cov, join_acc
            selected[i] = True
            q = update_coverage(q, F, i)
            if fam is not None:
                np.maximum(fam_acc, fam[i], out=fam_acc)
            if self.join_mode == "max":
                np.maximum(join_acc, w[i], out=join_acc)
            else:
                join_acc += w[i]
        sel.coverage = q
        if seen is not None:
            sel.trace = _trace(r, seen, width, n)
        return sel


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


class JoinAwareStrategy(GreedyStrategy):
    """The default search: the paper's greedy with a *connection* gain instead of a join sum.

    The paper adds ``sum_{l in S} w_il``, which rewards hub tables that join everything
    already chosen (a warehouse's term or department dimension) over the relevant ones;
    here a candidate gains ``max_{l in S} w_il``: whether, and how surely, it joins the
    selection. With honest joins (:mod:`jar_core.joins`) that keeps the set connected without
    the hub bias. A table of the same *family* as a chosen one (same database, same leading name
    word: a warehouse's module prefix, ``SIS_DEPARTMENT`` / ``SIS_SUBJECT_CODE``) gains
    ``l_family`` (:data:`FAMILY_WEIGHT`): subject areas hang together even where their joins are
    not found. Weights ``(l_cov, l_join, l_coarse)`` default to :data:`JOIN_AWARE_WEIGHTS`.
    """

    name = "join-aware"
    join_mode = "max"

    def __init__(
        self, l_cov: float = JOIN_AWARE_WEIGHTS[0], l_join: float = JOIN_AWARE_WEIGHTS[1],
        l_coarse: float = JOIN_AWARE_WEIGHTS[2], *, l_family: float = FAMILY_WEIGHT, bridges: bool = True,
        trace_width: int = 5,
    ) -> None:
        super().__init__(l_cov, l_join, l_coarse, trace_width=trace_width)
        if not np.isfinite(l_family) or l_family < 0:
            raise InvalidArgumentError(f"weight l_family must be a finite number >= 0, got {l_family}")
        self.l_family = float(l_family)
        self.bridges = bool(bridges)


    def select(self, signals: Signals, k: int, *, pinned: Sequence[int] = ()) -> Selection:
        """The greedy's choice; with ``bridges``, connected within ``k`` (:func:`jar_core.bridge.connect`)."""
        sel = super().select(signals, k, pinned=pinned)
        # each choice after the first joined one before it (its join gain was > 0): connected
        if not self.bridges or all(s.join > 0 for s in sel.steps[1:]):
            return sel
        from jar_core.bridge import connect

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
    :func:`jar_core.auto_k.referenced`) their coverage gain over the tables before them too."""
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
    return Selection(order=list(order), steps=new_steps, trace=sel.trace[: len(order)], coverage=np.maximum(cov, 0.0),
                     bridges=list(bridges), references=list(references))


class DenseStrategy:
    """Top-K by coarse relevance (the dense-retrieval baseline); pinned candidates first."""

    name = "dense"

    def select(self, signals: Signals, k: int, *, pinned: Sequence[int] = ()) -> Selection:
        order = list(dict.fromkeys([*map(int, pinned), *np.argsort(-signals.r, kind="stable").tolist()]))[:k]
        steps = [StepGain(i, float(signals.r[i]), 0.0, 0.0, float(signals.r[i])) for i in order]
        cov = signals.F[:, order].max(axis=1) if order and signals.F.shape[0] else np.zeros(signals.F.shape[0])
        return Selection(order=order, steps=steps, coverage=np.maximum(cov, 0.0))
