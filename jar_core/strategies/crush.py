"""CRUSH4SQL (Kothyari et al. 2023): coverage-first greedy selection (METHOD.md).

Segments are the question's decomposition (the sub-queries). With ``sim[s, t] = cos(s, t)``
(segment ``s``, candidate ``t``), the score of a pair is::

    score[s, t] = sigmoid(mean_entropy - entropy_s) * (sim[s, t] + 1) / 2

where ``entropy_s`` is the Shannon entropy (natural log) of segment ``s``'s scores over all
candidates made a probability distribution: ``p_s = ((sim[s] + 1) / 2) / sum((sim[s] + 1) / 2)``
(``(sim + 1) / 2`` maps a cosine to [0, 1], so the distribution is well defined; a segment whose
similarities are all -1 gets the uniform distribution), and ``mean_entropy`` is the mean over
segments. A sharply peaked segment (low entropy) is trusted more than a diffuse one.

Selection: repeatedly take the best (uncovered segment, unselected table) pair, select the table
and mark the segment covered; when every segment is covered, mark them all uncovered again. Stop
at ``budget`` tables or when the candidates run out. The selection order is the ranking. Ties
are broken by the lowest table index, then the lowest segment index, so the result is
deterministic. Similarities are clipped to [-1, 1].

With no segments the scores are undefined; the candidates are then returned in their given
order (which for :class:`~jar_core.signals.matrices.Signals` is by decreasing coarse relevance),
up to ``budget``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from jar_core.errors import InvalidArgumentError
from jar_core.strategies.base import Selection, StepGain

__all__ = ["crush_scores", "crush_rank", "CrushStrategy"]


def _check_budget(budget: int) -> int:
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise InvalidArgumentError(f"budget must be a positive integer, got {budget!r}")
    return int(budget)


def _check_sim(sim: np.ndarray) -> np.ndarray:
    sim = np.asarray(sim, dtype=np.float64)
    if sim.ndim != 2:
        raise InvalidArgumentError(f"sim must be (segments x candidates), got shape {sim.shape}")
    if not np.all(np.isfinite(sim)):
        raise InvalidArgumentError("sim has non-finite values")
    return np.clip(sim, -1.0, 1.0)


def crush_scores(sim: np.ndarray) -> np.ndarray:
    """The (segments x candidates) pair scores ``sigmoid(mean_H - H_s) * (sim + 1) / 2``."""
    sim = _check_sim(sim)
    S, n = sim.shape
    if S == 0 or n == 0:
        return np.zeros((S, n))
    p = (sim + 1.0) / 2.0
    sums = p.sum(axis=1, keepdims=True)
    dist = np.where(sums > 0, p / np.where(sums > 0, sums, 1.0), 1.0 / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        plogp = np.where(dist > 0, dist * np.log(dist), 0.0)
    entropy = -plogp.sum(axis=1)
    gate = 1.0 / (1.0 + np.exp(-(entropy.mean() - entropy)))
    return gate[:, None] * p


def _crush_picks(
    sim: np.ndarray, budget: int, preselected: Sequence[int] = ()
) -> list[tuple[int, int, float]]:
    """``(table, segment, score)`` of each pick, in order; ``preselected`` are unavailable
    and count toward the budget. With no segments, segment is -1 and score 0."""
    sim = _check_sim(sim)
    budget = _check_budget(budget)
    S, n = sim.shape
    selected = np.zeros(n, dtype=bool)
    for t in preselected:
        selected[int(t)] = True
    room = budget - int(selected.sum())
    if room <= 0:
        return []
    if S == 0:
        return [(t, -1, 0.0) for t in range(n) if not selected[t]][:room]
    # Table-major layout so that a flat argmax breaks ties by table, then segment.
    scores = crush_scores(sim).T.copy()  # (n, S)
    covered = np.zeros(S, dtype=bool)
    picks: list[tuple[int, int, float]] = []
    while len(picks) < room and not selected.all():
        if covered.all():
            covered[:] = False
        masked = np.where(selected[:, None] | covered[None, :], -np.inf, scores)
        t, s = divmod(int(np.argmax(masked)), S)
        picks.append((t, s, float(scores[t, s])))
        selected[t] = True
        covered[s] = True
    return picks


def crush_rank(sim: np.ndarray, budget: int = 20) -> list[int]:
    """CRUSH4SQL's ranking of the candidates (column indices of ``sim``), at most ``budget``.

    Args:
        sim: (segments x candidates) cosine similarities in [-1, 1].
        budget: the number of tables to select (CRUSH's budget, 20 by default).
    """
    return [t for t, _, _ in _crush_picks(sim, budget)]


class CrushStrategy:
    """CRUSH4SQL as a search strategy.

    It reads the segment-vs-candidate cosine similarities from ``signals.segment_sim``
    (shape (segments x candidates)) and returns the first ``k`` of: the pinned candidates,
    then CRUSH's picks among the others (pinned tables count toward the budget, so at most
    ``max(budget, len(pinned))`` tables are ever returned). ``steps`` record, for each table,
    ``coarse = r_i`` and as ``coverage`` / ``total`` the pair score that selected it (0 for
    pinned tables); ``join`` is always 0 (CRUSH ignores joins).
    """

    name = "crush"

    def __init__(self, budget: int = 20) -> None:
        self.budget = _check_budget(budget)

    def __repr__(self) -> str:
        return f"CrushStrategy(budget={self.budget})"

    def select(self, signals, k: int, *, pinned: Sequence[int] = ()) -> Selection:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
        sim = getattr(signals, "segment_sim", None)
        if sim is None:
            raise InvalidArgumentError(
                "crush needs segment similarities (Signals.segment_sim is missing)"
            )
        sim = _check_sim(sim)
        n = signals.n
        if sim.shape[1] != n:
            raise InvalidArgumentError(
                f"segment_sim has {sim.shape[1]} candidates, signals have {n}"
            )
        pins: list[int] = []
        for p in pinned:
            if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or not 0 <= p < n:
                raise InvalidArgumentError(f"pinned candidate {p!r} out of range [0, {n})")
            if int(p) in pins:
                raise InvalidArgumentError(f"candidate {p} pinned twice")
            pins.append(int(p))
        if len(pins) > k:
            raise InvalidArgumentError(f"{len(pins)} pinned candidates but only {k} to select")
        r = np.asarray(signals.r, dtype=np.float64)
        picks = _crush_picks(sim, self.budget, pins)
        steps = [
            StepGain(candidate=p, coarse=float(r[p]), coverage=0.0, join=0.0, total=0.0)
            for p in pins
        ]
        steps += [
            StepGain(candidate=t, coarse=float(r[t]), coverage=sc, join=0.0, total=sc)
            for t, _, sc in picks
        ]
        steps = steps[: int(k)]
        return Selection(order=[s.candidate for s in steps], steps=steps, status="ok")
