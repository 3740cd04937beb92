"""Connected selection: bridge tables that join a disconnected selection (a Steiner-tree approximation).

A question's tables are joined in its SQL, so a selection that falls apart into pieces either
misses a bridge (``PlaylistTrack`` between ``Playlist`` and ``Track``) or holds a table that
does not belong. :func:`bridge_paths` connects the pieces the classic way: grow a tree from
the first piece and attach each other piece by its cheapest path over the candidates' join
graph (Dijkstra, once per selection; a path's cost counts its bridge tables first, then how
weak its joins are).
:func:`connect` fits that into the budget ``K``: it keeps the greedy's first ``K - b`` tables
and the ``b`` bridges that connect them, with the largest ``K - b`` for which that fits; or,
where the last choices are the ones left out, lets choices that covered nothing give way to the
bridges (``PlaylistTrack``, chosen for its similarity alone, makes room for the ``Invoice`` that
joins ``Customer``).
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

__all__ = ["bridge_paths", "connect", "is_connected", "labels", "pieces", "MAX_BRIDGES"]

#: At most this many of the greedy's choices give way to bridges.
MAX_BRIDGES = 2


#: Up to this many nodes, components come from a depth-first walk in Python (a question's
#: candidates: tens of tables, where the walk costs less than a sparse-graph library's set-up);
#: above it from scipy's graph traversal.
SMALL_GRAPH = 64


def labels(w: np.ndarray, nodes: Sequence[int]) -> np.ndarray:
    """Component label of each of ``nodes`` in the graph ``w > 0`` restricted to them (the
    position, among ``nodes``, of the component's first node)."""
    idx = np.asarray(nodes, dtype=np.int64)
    n = len(idx)
    sub = w[idx][:, idx] > 0
    if n > SMALL_GRAPH:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components

        comp = connected_components(csr_matrix(sub), directed=False)[1]
        first = np.full(comp.max() + 1, n, dtype=np.int64)
        np.minimum.at(first, comp, np.arange(n))
        return first[comp]
    a, b = np.nonzero(sub | sub.T)
    adjacent: list[list[int]] = [[] for _ in range(n)]
    for x, y in zip(a.tolist(), b.tolist()):
        adjacent[x].append(y)
    out = [-1] * n
    for first in range(n):
        if out[first] >= 0:
            continue
        out[first] = first
        stack = [first]
        while stack:
            for v in adjacent[stack.pop()]:
                if out[v] < 0:
                    out[v] = first
                    stack.append(v)
    return np.array(out, dtype=np.int64)


def pieces(w: np.ndarray, nodes: Sequence[int]) -> int:
    """How many components ``nodes`` fall into in the graph ``w > 0`` restricted to them."""
    return len(set(labels(w, nodes).tolist()))


def is_connected(w: np.ndarray, nodes: Sequence[int]) -> bool:
    """Whether ``nodes`` form one component of the graph ``w > 0`` restricted to them."""
    return len(nodes) < 2 or pieces(w, nodes) == 1


def _shortest_paths(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All-pairs cheapest paths over the candidates; edge cost ``1 + (1 - w)``: every bridge
    table costs 1, weaker joins a little more."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    cost = csr_matrix(np.where(w > 0, 2.0 - w, 0.0))
    return dijkstra(cost, directed=False, return_predecessors=True)


def bridge_paths(
    w: np.ndarray, nodes: Sequence[int], paths: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[int] | None:
    """Candidates (not in ``nodes``) whose addition connects ``nodes``, or None if none can.

    A tree grows from the piece of ``nodes[0]``; each other piece (in the order of its first
    node in ``nodes``) is attached by the cheapest path from the tree (:func:`_shortest_paths`).
    """
    idx = [int(x) for x in nodes]
    if len(idx) < 2:
        return []
    dist, pred = paths if paths is not None else _shortest_paths(w)
    label = labels(w, idx)
    tree = {idx[i] for i in range(len(idx)) if label[i] == label[0]}
    bridges: list[int] = []
    for comp in dict.fromkeys(label.tolist()):
        piece = [idx[i] for i in range(len(idx)) if label[i] == comp]
        if tree & set(piece):
            continue
        src = sorted(tree)
        sub = dist[np.ix_(src, piece)]
        a, b = np.unravel_index(int(np.argmin(sub)), sub.shape)
        if not np.isfinite(sub[a, b]):
            return None
        s, t = src[a], piece[b]
        path, cur = [], int(pred[s, t])
        while cur >= 0 and cur != s:
            path.append(cur)
            cur = int(pred[s, cur])
        new = [p for p in reversed(path) if p not in tree]
        bridges.extend(p for p in new if p not in bridges)
        tree |= set(piece) | set(path)
    return bridges


def connect(
    w: np.ndarray, k: int, order: Sequence[int], *, pinned: int = 0, spare: Sequence[int] = (),
    F: np.ndarray | None = None, r: np.ndarray | None = None,
) -> tuple[list[int], list[int]]:
    """``(order, bridges)``: the greedy's ``order`` (its ``k`` choices), connected within ``k`` if possible.

    When the choices are not connected, the largest ``m < k`` whose first ``m`` choices plus
    their bridges fit in ``k`` is taken (``m >= 2``, ``m >= k - MAX_BRIDGES``, never fewer than
    the ``pinned`` tables), and any room
    left goes to the greedy's next choices that join the set. When that needs no bridge (the
    first ``m`` are connected, and the choices after them do not join them), up to
    :data:`MAX_BRIDGES` of the ``spare`` choices (those that added no coverage: chosen for their
    relevance or a join alone) give way to bridges instead (:func:`_give_way`). If nothing
    connects, the original choice stands.
    """
    order = [int(x) for x in order]
    parts = pieces(w, order) if len(order) > 1 else 1
    if parts == 1:
        return order, []
    # quick exit: no path at all between the pieces over the candidates (the usual case of a
    # table without joins) means nothing to bridge
    everything = labels(w, range(w.shape[0]))
    if len(set(everything[order].tolist())) == parts:
        return order, []
    paths = _shortest_paths(w)
    for m in range(len(order) - 1, max(pinned, 2, len(order) - MAX_BRIDGES) - 1, -1):
        head = order[:m]
        bridges = bridge_paths(w, head, paths)
        if bridges is not None and m + len(bridges) <= k:
            if not bridges:  # a connected prefix alone: the choices after it join nothing
                break
            return _filled(w, k, head + bridges, order[m:]), bridges
    return _give_way(w, k, order, paths, spare, pinned, F, r)


def _filled(w: np.ndarray, k: int, chosen: list[int], rest: Sequence[int]) -> list[int]:
    """``chosen`` and, while there is room in ``k``, the choices of ``rest`` that join it."""
    for t in rest:
        if len(chosen) >= k:
            break
        if t not in chosen and w[t, chosen].max() > 0:
            chosen.append(t)
    return chosen


def _give_way(
    w: np.ndarray, k: int, order: list[int], paths: tuple[np.ndarray, np.ndarray], spare: Sequence[int],
    pinned: int, F: np.ndarray | None, r: np.ndarray | None,
) -> tuple[list[int], list[int]]:
    """``(order, bridges)`` with up to :data:`MAX_BRIDGES` of the ``spare`` choices (never the first
    nor a pinned one) replaced by the bridges that connect the others, the rest of the room going
    to the dropped choices that join the set: of the ways that fit in ``k``, the one whose tables
    cover the sub-queries ``F`` best, then the most relevant (``r``); the original when none fits."""
    keep_first = order[: max(pinned, 1)]
    spare_set = {int(x) for x in spare}
    droppable = [t for t in order if t in spare_set and t not in keep_first]
    best: tuple[float, float, list[int], list[int]] | None = None
    for n_drop in range(1, min(MAX_BRIDGES, len(droppable)) + 1):
        for drop in itertools.combinations(droppable, n_drop):
            head = [t for t in order if t not in drop]
            bridges = bridge_paths(w, head, paths)
            if not bridges or len(head) + len(bridges) > k:
                continue
            chosen = _filled(w, k, head + bridges, drop)
            cov = float(np.maximum(F[:, chosen].max(axis=1), 0.0).sum()) if F is not None and F.shape[0] else 0.0
            rel = float(r[chosen].sum()) if r is not None else 0.0
            if best is None or (cov, rel) > best[:2]:
                best = (cov, rel, chosen, bridges)
    return (best[2], best[3]) if best is not None else (order, [])
