import numpy as np

from jar_core.joins.path import components, spanning_tree


def test_maximum_spanning_tree_keeps_the_heaviest_joins():
    w = np.array(
        [
            [0.0, 0.9, 0.5, 0.0],
            [0.9, 0.0, 0.8, 0.0],
            [0.5, 0.8, 0.0, 0.3],
            [0.0, 0.0, 0.3, 0.0],
        ]
    )
    # by hand: take 0-1 (0.9), 1-2 (0.8), skip 0-2 (cycle), take 2-3 (0.3)
    assert spanning_tree(w) == [(0, 1, 0.9), (1, 2, 0.8), (2, 3, 0.3)]


def test_disconnected_tables_form_separate_components():
    w = np.zeros((3, 3))
    w[0, 1] = w[1, 0] = 0.4
    edges = spanning_tree(w)
    assert edges == [(0, 1, 0.4)]
    comp = components(3, edges)
    assert comp[0] == comp[1] != comp[2]


def test_single_table_has_no_edges():
    assert spanning_tree(np.zeros((1, 1))) == []


def test_same_trees_and_components_as_scipy_ties_included():
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

    rng = np.random.default_rng(7)
    for trial in range(400):
        n = int(rng.integers(1, 12))
        # few distinct weights: many ties (declared keys score exactly 1.0), zeros, float32 like the signals
        w = rng.choice(np.array([0.0, 0.0, 0.3, 0.5, 0.5, 0.8, 1.0, 1.0], dtype=np.float32), size=(n, n))
        w = np.triu(w, 1)
        w = w + w.T
        edges = spanning_tree(w)
        if n >= 2:
            tree = minimum_spanning_tree(csr_matrix(np.triu(np.where(w > 0, 2.0 - w, 0.0), k=1))).tocoo()
            expected = sorted((min(a, b), max(a, b)) for a, b in zip(tree.row.tolist(), tree.col.tolist()))
            assert [(a, b) for a, b, _ in edges] == expected, (trial, w)
        g = csr_matrix((np.ones(len(edges)), ([a for a, _, _ in edges], [b for _, b, _ in edges])), shape=(n, n))
        assert components(n, edges).tolist() == connected_components(g, directed=False)[1].tolist()


def test_join_path_does_not_import_scipy_graphs():
    import subprocess
    import sys

    code = "import sys, jar_core.joins.path; print('scipy.sparse.csgraph' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
