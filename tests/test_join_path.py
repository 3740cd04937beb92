import numpy as np

from jar_core.join_path import components, spanning_tree


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
