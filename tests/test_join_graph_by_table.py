"""The join graph read by table: a question reads its candidates' edges (``JoinGraph.incident``),
saved with the index, and expansion and the join matrices give what a pass over every edge gives."""
from __future__ import annotations

import numpy as np
import pytest

from jar_core.candidates.expansion import joinable_tables
from jar_core.joins.edges import JoinGraph
from jar_core.joins.graph import candidate_join_matrices
from jar_core.joins.store import graph_arrays, graph_from_arrays


def random_graph(seed: int, n_tables: int = 12, cols_per_table: int = 3, n_edges: int = 40) -> tuple[JoinGraph, np.ndarray]:
    rng = np.random.default_rng(seed)
    col_table = np.repeat(np.arange(n_tables), cols_per_table)
    a = rng.integers(0, len(col_table), n_edges)
    b = rng.integers(0, len(col_table), n_edges)
    conf = np.sort(rng.uniform(0.3, 1.0, n_edges).astype(np.float32))[::-1].copy()  # best first
    ev = rng.integers(0, 4, n_edges)
    return JoinGraph(a=a, b=b, confidence=conf, evidence=ev, table_a=col_table[a], table_b=col_table[b]), col_table


@pytest.mark.parametrize("seed", range(5))
def test_incident_edges_are_those_with_an_end_in_the_tables(seed):
    g, _ = random_graph(seed)
    rng = np.random.default_rng(100 + seed)
    for _ in range(10):
        tables = rng.choice(12, size=rng.integers(0, 6), replace=False)
        want = np.flatnonzero(np.isin(g.table_a, tables) | np.isin(g.table_b, tables))
        assert g.incident(tables, 12).tolist() == want.tolist()  # each once, in the graph's order


def test_the_edges_by_table_are_saved_and_checked():
    g, col_table = random_graph(7)
    arrays = graph_arrays(g, False, 12)
    loaded = graph_from_arrays(arrays, False, col_table, 12)
    assert loaded.table_index is not None  # read, not built again
    for x, y in zip(loaded.table_index, g.by_table(12)):
        assert x.tolist() == y.tolist()
    old = {k: v for k, v in arrays.items() if "table_" not in k}  # a graph saved before: built at first use
    assert graph_from_arrays(old, False, col_table, 12).table_index is None
    bad = dict(arrays, within_table_edges=arrays["within_table_edges"][::-1] + 100)
    with pytest.raises(ValueError, match="edges by table do not index"):
        graph_from_arrays(bad, False, col_table, 12)
    with pytest.raises(ValueError, match="half of its edges by table"):
        graph_from_arrays({k: v for k, v in arrays.items() if k != "within_table_offsets"}, False, col_table, 12)


def _joinable_over_every_edge(g, n_tables, min_score, ranked, r, allowed, seeds, expand):
    """Expansion as a pass over every edge: best ``w * r_seed`` per neighbour, plus its own ``r``."""
    best = np.zeros(n_tables)
    s = ranked[:seeds]
    for e in range(len(g)):
        ta, tb, c = int(g.table_a[e]), int(g.table_b[e]), float(g.confidence[e])
        if c < min_score or ta == tb:
            continue
        if ta in s:
            best[tb] = max(best[tb], c * max(r[ta], 0.0))
        if tb in s:
            best[ta] = max(best[ta], c * max(r[tb], 0.0))
    pos = [t for t in range(n_tables) if best[t] > 0 and t not in ranked and allowed[t]]
    return sorted(pos, key=lambda t: (-(best[t] + r[t]), t))[:expand]


@pytest.mark.parametrize("seed", range(5))
def test_expansion_from_the_seeds_edges_is_a_pass_over_every_edge(seed):
    g, _ = random_graph(seed, n_tables=30, n_edges=120)
    rng = np.random.default_rng(seed)
    r = rng.uniform(-0.1, 1.0, 30)
    allowed = rng.uniform(size=30) > 0.2
    ranked = rng.permutation(30)[:8]
    got = joinable_tables(g, 30, 0.5, ranked, lambda p: r[p], allowed, seeds=3, expand=4)
    assert got.tolist() == _joinable_over_every_edge(g, 30, 0.5, ranked, r, allowed, 3, 4)


def test_candidate_join_matrices_take_the_best_edge_of_each_pair():
    g, col_table = random_graph(3)
    col_offsets = np.arange(0, 13 * 3, 3)
    tables = np.array([5, 0, 9, 2])
    w, cols, declared, evidence, refs = candidate_join_matrices(g, col_offsets, tables, 12)
    for i, ti in enumerate(tables):
        for j, tj in enumerate(tables):
            between = [e for e in range(len(g)) if {int(g.table_a[e]), int(g.table_b[e])} == {int(ti), int(tj)} and ti != tj]
            if not between:
                assert w[i, j] == 0 and evidence[i, j] == -1
                continue
            e = between[0]  # the graph's order: best first
            assert w[i, j] == pytest.approx(float(g.confidence[e]))
            assert evidence[i, j] == int(g.evidence[e]) and declared[i, j] == (int(g.evidence[e]) == 0)
            assert refs[i, j] == (int(g.table_a[e]) == ti)
