"""Join-graph expansion of the candidate set (beyond the paper; its "future work").

Dense retrieval misses bridge tables: a junction table such as ``PlaylistTrack`` or
``order_item`` is rarely similar to the question, so it never enters the top-N. Expansion adds,
besides the top-N by coarse relevance, the tables *joinable* to the strongest candidates,
read from the schema's join graph (:mod:`jar_core.joins`, declared and inferred joins), so the
search can choose a bridge:

* the ``seeds`` most relevant candidates are expanded;
* a neighbour is scored by its best ``confidence * r_seed``-weighted join to a seed plus its own
  coarse relevance, and the ``expand`` best neighbours not already candidates enter the set.

Everything is array work over the seeds' edges (:meth:`~jar_core.joins.edges.JoinGraph.incident`),
not over the whole graph.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.joins import JoinGraph

__all__ = ["joinable_tables"]


def joinable_tables(
    graph: "JoinGraph",
    n_tables: int,
    min_score: float,
    ranked: np.ndarray,
    relevance: Callable[[np.ndarray], np.ndarray],
    allowed: np.ndarray,
    *,
    seeds: int = 5,
    expand: int = 10,
) -> np.ndarray:
    """The ``expand`` best tables joinable to the ``seeds`` first of ``ranked`` (best first) over
    the joins of ``min_score`` or more, to add to the candidates: a neighbour ``t`` of seeds ``s``
    scores ``max_s w_st * r_s + r_t`` (``relevance(positions)``: the coarse relevance ``r``); only
    ``allowed`` tables outside ``ranked`` are added."""
    if expand <= 0 or len(ranked) == 0:
        return np.zeros(0, dtype=np.int64)
    s = np.asarray(ranked[:seeds], dtype=np.int64)
    e = graph.incident(s, n_tables)
    e = e[(graph.confidence[e] >= min_score) & (graph.table_a[e] != graph.table_b[e])]
    if len(e) == 0:
        return np.zeros(0, dtype=np.int64)
    ta, tb = graph.table_a[e].astype(np.int64), graph.table_b[e].astype(np.int64)
    order = np.argsort(s)
    r_seed = np.maximum(relevance(s), 0.0)[order]
    sorted_s = s[order]

    def seed_relevance(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        at = np.minimum(np.searchsorted(sorted_s, t), len(s) - 1)
        hit = sorted_s[at] == t
        return hit, np.where(hit, r_seed[at], 0.0)

    hit_a, r_a = seed_relevance(ta)
    hit_b, r_b = seed_relevance(tb)
    conf = graph.confidence[e]
    neighbour = np.concatenate([tb[hit_a], ta[hit_b]])  # the other end of a seed's join
    weight = np.concatenate([conf[hit_a] * r_a[hit_a], conf[hit_b] * r_b[hit_b]])
    by = np.argsort(neighbour, kind="stable")
    neighbour, weight = neighbour[by], weight[by]
    starts = np.flatnonzero(np.r_[True, neighbour[1:] != neighbour[:-1]])
    pos, best = neighbour[starts], np.maximum.reduceat(weight, starts)
    keep = (best > 0) & ~np.isin(pos, ranked) & allowed[pos]
    pos, best = pos[keep], best[keep]
    if len(pos) == 0:
        return np.zeros(0, dtype=np.int64)
    score = best + relevance(pos)
    return pos[np.lexsort((pos, -score))][:expand]
