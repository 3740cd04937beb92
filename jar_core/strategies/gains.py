"""The gains a search weighs at each step (METHOD.md, "Greedy join-aware retrieval"): the
marginal coverage gain, the join gain (and our connection gain), the coverage update.

Pure array functions over the candidates; the greedy (:mod:`jar_core.strategies.greedy`) and the
near-copy step after it (:mod:`jar_core.strategies.near_copies`) read them.
"""
from __future__ import annotations

import numpy as np

__all__ = ["coverage_gain", "join_gain", "connect_gain", "update_coverage", "referred_first", "bridging"]


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


def referred_first(w: np.ndarray, references: np.ndarray, share: float) -> np.ndarray:
    """``w`` with each join ``w[i, l]`` that does not go from ``i`` to ``l``'s key (``references[i, l]``
    false: ``l`` refers to ``i``) scaled by ``share``: once ``i`` is chosen, a table it refers to (a
    course offering's course, its semester) or a sibling (both refer to one key: a join without a
    direction goes both ways) gains the join in full, one that refers to it (the offering's instructors) ``share`` of it."""
    return np.where(np.asarray(references, dtype=bool), w, w * share).astype(w.dtype)


def bridging(w: np.ndarray, references: np.ndarray, core: list[int], free: np.ndarray) -> np.ndarray:
    """bool per candidate: a ``free`` one that refers to two tables of ``core`` (tables chosen for
    what they cover) that nothing joins yet, neither directly nor through a third table of
    ``core``: the way between them (ATIS's ``airport_service``, between a question's city and its
    flight's airport), not one more child of either."""
    out = np.zeros(len(free), dtype=bool)
    if len(core) < 2:
        return out
    core_idx = np.asarray(core, dtype=np.int64)
    joined = w[np.ix_(core_idx, core_idx)] > 0
    linked = joined | ((joined.astype(np.int64) @ joined.astype(np.int64)) > 0)
    refers = np.asarray(references, dtype=bool)[:, core_idx] & (w[:, core_idx] > 0)
    for c in np.flatnonzero(free & (refers.sum(axis=1) >= 2)).tolist():
        parents = np.flatnonzero(refers[c])
        out[c] = not linked[np.ix_(parents, parents)].all()
    return out
