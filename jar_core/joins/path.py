"""Join paths: the maximum-weight spanning tree over ``w`` restricted to the selected tables.

Plain Python over at most K tables (Kruskal's algorithm with a stable sort, the same edges as
``scipy.sparse.csgraph.minimum_spanning_tree`` of ``2 - w``, ties included; a test compares
them), so that answering a question does not import SciPy's graph module (0.15 s at start-up).
"""
from __future__ import annotations

import numpy as np

__all__ = ["spanning_tree", "components", "join_tree"]


def _root(parent: list[int], i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def spanning_tree(w: np.ndarray, first: np.ndarray | None = None) -> list[tuple[int, int, float]]:
    """Edges ``(i, l, w_il)`` (``i < l``) of a maximum-weight spanning forest of the graph ``w``.

    Only positive weights are edges. The heaviest joins are kept: edges are taken by increasing
    ``2 - w`` (a minimum spanning tree of ``2 - w``), ties in row-major order, each one that
    joins two components; the edges ``first`` marks (a boolean matrix like ``w``) before all others.
    """
    n = w.shape[0]
    if n < 2:
        return []
    cost = np.triu(np.where(w > 0, 2.0 - w, 0.0), k=1)
    rows, cols = np.nonzero(cost)  # row-major, as a CSR matrix stores them
    key = cost[rows, cols].astype(np.float64)
    if first is not None:
        key = key - 2.0 * first[rows, cols]
    order = np.argsort(key, kind="stable")
    parent = list(range(n))
    edges: list[tuple[int, int]] = []
    for e in order.tolist():
        a, b = int(rows[e]), int(cols[e])
        ra, rb = _root(parent, a), _root(parent, b)
        if ra != rb:
            parent[rb] = ra
            edges.append((a, b))
            if len(edges) == n - 1:
                break
    return [(a, b, float(w[a, b])) for a, b in sorted(edges)]


def components(n: int, edges: list[tuple[int, int, float]]) -> np.ndarray:
    """Connected-component label of each of ``n`` nodes given the tree edges (labels numbered
    in order of each component's first node)."""
    parent = list(range(n))
    for a, b, _ in edges:
        ra, rb = _root(parent, a), _root(parent, b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    labels: dict[int, int] = {}
    return np.array([labels.setdefault(_root(parent, i), len(labels)) for i in range(n)], dtype=np.int64)


def join_tree(
    w: np.ndarray, order: "np.ndarray | list[int]", min_score: float = 0.0, *, evidence: np.ndarray | None = None,
) -> list[tuple[int, int, float]]:
    """The join edges returned for a selection: the spanning forest of ``w`` over ``order``.

    ``w`` is the candidates' join matrix, ``order`` the selected candidates; edges are
    ``(a, b, w)`` between positions ``a < b`` of ``order``, weaker than ``min_score`` dropped
    before the tree is built (a weak join is no join). With the joins' ``evidence`` (indices
    into :data:`jar_core.joins.graph.EVIDENCE`), a reference on every column of a key of several
    columns (``composite key``) is taken before the others: through one of its columns' tables
    (``part``), a line item would meet the ``partsupp`` row of every supplier of its part.
    """
    idx = np.asarray(order, dtype=np.int64)
    if len(idx) < 2:
        return []
    sub = w[np.ix_(idx, idx)]
    if min_score > 0:
        sub = np.where(sub >= min_score, sub, 0.0)
    first = None
    if evidence is not None:
        from jar_core.joins.graph import EVIDENCE

        first = evidence[np.ix_(idx, idx)] == EVIDENCE.index("composite key")
    return spanning_tree(sub, first)
