"""Join paths: the maximum-weight spanning tree over ``w`` restricted to the selected tables."""
from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

__all__ = ["spanning_tree", "components", "join_tree"]


def spanning_tree(w: np.ndarray) -> list[tuple[int, int, float]]:
    """Edges ``(i, l, w_il)`` (``i < l``) of a maximum-weight spanning forest of the graph ``w``.

    Only positive weights are edges. Computed as a minimum spanning tree of ``2 - w`` on the
    positive entries (scipy), so the heaviest joins are kept.
    """
    n = w.shape[0]
    if n < 2:
        return []
    upper = np.triu(np.where(w > 0, 2.0 - w, 0.0), k=1)
    tree = minimum_spanning_tree(csr_matrix(upper)).tocoo()
    edges = sorted((min(a, b), max(a, b)) for a, b in zip(tree.row.tolist(), tree.col.tolist()))
    return [(a, b, float(w[a, b])) for a, b in edges]


def components(n: int, edges: list[tuple[int, int, float]]) -> np.ndarray:
    """Connected-component label of each of ``n`` nodes given the tree edges."""
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    rows = [a for a, _, _ in edges]
    cols = [b for _, b, _ in edges]
    g = csr_matrix((np.ones(len(edges)), (rows, cols)), shape=(n, n))
    return connected_components(g, directed=False)[1]


def join_tree(w: np.ndarray, order: "np.ndarray | list[int]", min_score: float = 0.0) -> list[tuple[int, int, float]]:
    """The join edges returned for a selection: the spanning forest of ``w`` over ``order``.

    ``w`` is the candidates' join matrix, ``order`` the selected candidates; edges are
    ``(a, b, w)`` between positions ``a < b`` of ``order``, weaker than ``min_score`` dropped
    before the tree is built (a weak join is no join).
    """
    idx = np.asarray(order, dtype=np.int64)
    if len(idx) < 2:
        return []
    sub = w[np.ix_(idx, idx)]
    if min_score > 0:
        sub = np.where(sub >= min_score, sub, 0.0)
    return spanning_tree(sub)
