"""Retrieval metrics (jar_core.eval.metrics) on hand-made predictions."""

from __future__ import annotations

import pytest

from jar_core.errors import InvalidArgumentError
from jar_core.eval.metrics import aggregate, complete, recall


def test_recall_and_complete():
    assert recall(["a", "b", "c"], {"a", "d"}) == pytest.approx(0.5)
    assert recall([], ["a"]) == 0.0
    assert recall(["a", "a"], ["a", "b"]) == pytest.approx(0.5)  # duplicates count once
    assert complete(["x", "a", "b"], ["b", "a"]) is True
    assert complete(["a"], ["a", "b"]) is False


def test_empty_gold_rejected():
    with pytest.raises(InvalidArgumentError):
        recall(["a"], [])


def test_aggregate_truncates_to_k():
    preds = [
        ["a", "b", "c"],  # gold {a, c}
        ["x", "y", "z"],  # gold {y}
        ["p", "q", "r"],  # gold {p, q, r}
    ]
    golds = [{"a", "c"}, {"y"}, {"p", "q", "r"}]
    # k=1: recalls 1/2, 0, 1/3 -> mean 5/18; complete: none
    r1, c1 = aggregate(preds, golds, 1)
    assert r1 == pytest.approx(100 * 5 / 18)
    assert c1 == pytest.approx(0.0)
    # k=2: recalls 1/2, 1, 2/3 -> mean 13/18; complete: q2 only
    r2, c2 = aggregate(preds, golds, 2)
    assert r2 == pytest.approx(100 * 13 / 18)
    assert c2 == pytest.approx(100 / 3)
    # k=3 (and beyond): recalls 1, 1, 1; all complete
    assert aggregate(preds, golds, 3) == pytest.approx((100.0, 100.0))
    assert aggregate(preds, golds, 10) == pytest.approx((100.0, 100.0))


def test_aggregate_edge_cases():
    assert aggregate([], [], 2) == (0.0, 0.0)
    assert aggregate([[]], [["a"]], 2) == (0.0, 0.0)
    with pytest.raises(InvalidArgumentError):
        aggregate([["a"]], [["a"], ["b"]], 2)
    with pytest.raises(InvalidArgumentError):
        aggregate([["a"]], [["a"]], 0)


def test_join_precision_and_recall_on_hand_made_predictions():
    from jar_core.eval.metrics import join_counts, join_scores

    gold_tables = ["a", "b", "c"]
    gold = [(("a", "id"), ("b", "a_id")), (("b", "id"), ("c", "b_id"))]
    # returned: a, b, x; edges a-b right (ends in the other order), b-x not judged (x not gold)
    edges = [(("b", "a_id"), ("a", "id")), (("b", "id"), ("x", "b_id"))]
    assert join_counts(edges, gold, ["a", "b", "x"], gold_tables) == (1, 1, 1, 1)
    # a wrong column pair between two gold tables; the b-c gold join reachable and missed
    edges = [(("a", "name"), ("b", "a_id"))]
    assert join_counts(edges, gold, ["a", "b", "c"], gold_tables) == (0, 1, 0, 2)
    p, r = join_scores([(1, 1, 1, 1), (0, 1, 0, 2)])
    assert p == 50.0 and r == pytest.approx(100 / 3)
    assert join_scores([(0, 0, 0, 0)]) == (None, None)
