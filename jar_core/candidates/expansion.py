"""Join-graph expansion of the candidate set (beyond the paper; its "future work").

Dense retrieval misses bridge tables: a junction table such as ``PlaylistTrack`` or
``order_item`` is rarely similar to the question, so it never enters the top-N. Expansion adds,
besides the top-N by coarse relevance, the tables *joinable* to the strongest candidates,
read from the schema's join graph (:mod:`jar_core.joins`, declared and inferred joins), so the
search can choose a bridge:

* the ``seeds`` most relevant candidates are expanded;
* a neighbour is scored by its best ``confidence * r_seed``-weighted join to a seed plus its own
  coarse relevance, and the ``expand`` best neighbours not already candidates enter the set.

Everything is array work over the graph's edges; the table adjacency is built once per graph.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Callable

import numpy as np
from scipy import sparse

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.joins import JoinGraph

__all__ = ["table_adjacency", "expand_candidates", "joinable_tables"]

#: This stage's state: each join graph's last table adjacency, for as long as the graph lives.
_KEPT: "weakref.WeakKeyDictionary[JoinGraph, tuple[tuple[int, float], sparse.csr_matrix]]" = weakref.WeakKeyDictionary()


def table_adjacency(graph: "JoinGraph", n_tables: int, min_score: float = 0.0) -> sparse.csr_matrix:
    """Symmetric ``n_tables x n_tables`` matrix of the best join confidence between two tables."""
    cached = _KEPT.get(graph)
    if cached is not None and cached[0] == (n_tables, min_score):
        return cached[1]
    keep = (graph.confidence >= min_score) & (graph.table_a != graph.table_b)  # no self-references
    a, b, c = graph.table_a[keep], graph.table_b[keep], graph.confidence[keep].astype(np.float32)
    coo = sparse.coo_matrix((np.concatenate([c, c]), (np.concatenate([a, b]), np.concatenate([b, a]))),
                            shape=(n_tables, n_tables))
    order = np.lexsort((-coo.data, coo.col, coo.row))
    r, col, d = coo.row[order], coo.col[order], coo.data[order]
    first = np.ones(len(r), dtype=bool)
    first[1:] = (r[1:] != r[:-1]) | (col[1:] != col[:-1])
    m = sparse.csr_matrix((d[first], (r[first], col[first])), shape=(n_tables, n_tables))
    _KEPT[graph] = ((n_tables, min_score), m)
    return m


def expand_candidates(
    adjacency: sparse.csr_matrix,
    candidates: np.ndarray,
    relevance: Callable[[np.ndarray], np.ndarray],
    allowed: np.ndarray,
    *,
    seeds: int = 5,
    expand: int = 10,
) -> np.ndarray:
    """Tables to add to ``candidates``: the ``expand`` best neighbours of the ``seeds`` first ones.

    ``candidates`` are ordered best first; a neighbour ``t`` of seeds ``s`` scores
    ``max_s w_st * r_s + r_t``; only ``allowed`` tables outside the candidates are added.
    ``relevance(positions)`` gives the coarse relevance ``r`` of the tables at ``positions``.
    """
    if expand <= 0 or len(candidates) == 0:
        return np.zeros(0, dtype=np.int64)
    s = np.asarray(candidates[:seeds], dtype=np.int64)
    sub = adjacency[s]  # seeds x tables
    if sub.nnz == 0:
        return np.zeros(0, dtype=np.int64)
    weighted = sub.multiply(np.maximum(relevance(s), 0.0)[:, None]).tocsc()
    best = np.asarray(weighted.max(axis=0).todense()).ravel()
    reach = best > 0
    reach[candidates] = False
    reach &= allowed
    pos = np.flatnonzero(reach)
    if len(pos) == 0:
        return np.zeros(0, dtype=np.int64)
    score = best[pos] + relevance(pos)
    order = np.lexsort((pos, -score))
    return pos[order][:expand]


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
    """:func:`expand_candidates` over the adjacency of ``graph`` (joins of ``min_score`` or more):
    the tables joinable to the ``seeds`` first of ``ranked`` (best first) to add to the candidates."""
    adjacency = table_adjacency(graph, n_tables, min_score)
    return expand_candidates(adjacency, ranked, relevance, allowed, seeds=seeds, expand=expand)
