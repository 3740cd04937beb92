"""The greedy search's formulas on a small example computed by hand (METHOD.md)."""
import dataclasses

import numpy as np
import pytest

from jar_core.errors import InvalidArgumentError
from jar_core.signals.matrices import Signals
from jar_core.strategies import DenseStrategy, GreedyStrategy, JoinAwareStrategy
from jar_core.strategies.greedy import CHILD_SHARE, FILLER_COVERAGE, coverage_gain, join_gain, seed, update_coverage

R = np.array([0.5, 0.4, 0.1])
F = np.array([[0.9, 0.2, 0.1], [0.1, 0.3, 0.8]])
W = np.array([[0.0, 0.2, 0.9], [0.2, 0.0, 0.0], [0.9, 0.0, 0.0]])


def references(n: int, *refers: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``(w, references)`` of ``n`` candidates where each ``(a, b)`` of ``refers`` is a reference
    from ``a`` to ``b``, joined at 0.9 both ways."""
    w = np.zeros((n, n), dtype=np.float32)
    refs = np.zeros((n, n), dtype=bool)
    for a, b in refers:
        w[a, b] = w[b, a] = 0.9
        refs[a, b] = True
    return w, refs


def signals(r: np.ndarray = R, F: np.ndarray = F, w: np.ndarray = W, references: np.ndarray | None = None) -> Signals:
    """Hand-made signals of ``len(r)`` candidates (the example above by default), no join columns."""
    n = len(r)
    return Signals(candidates=np.arange(n), r=r, F=F, w=w, join_columns=np.full((n, n, 2), -1), references=references)


def test_seed_is_coarse_plus_total_fine_relevance():
    # 4*0.5 + 2*(0.9+0.1) = 4.0 ; 4*0.4 + 2*0.5 = 2.6 ; 4*0.1 + 2*0.9 = 2.2
    np.testing.assert_allclose(seed(R, F, l_cov=2, l_coarse=4), [4.0, 2.6, 2.2])


def test_coverage_gain_counts_only_improvements():
    q = np.array([0.9, 0.1])
    # t0: 0 + 0 ; t1: max(0, 0.2-0.9) + (0.3-0.1) = 0.2 ; t2: 0 + (0.8-0.1) = 0.7
    np.testing.assert_allclose(coverage_gain(F, q), [0.0, 0.2, 0.7])


def test_join_gain_sums_over_selected():
    np.testing.assert_allclose(join_gain(W, np.array([True, False, False])), [0.0, 0.2, 0.9])
    np.testing.assert_allclose(join_gain(W, np.array([True, False, True])), [0.9, 0.2, 0.9])


def test_update_takes_the_elementwise_max():
    np.testing.assert_allclose(update_coverage(np.array([0.9, 0.1]), F, 2), [0.9, 0.8])


def test_greedy_picks_the_joinable_covering_table_over_the_denser_one():
    sel = GreedyStrategy().select(signals(), 3)
    # step 2: t1 = 4*0.4 + 2*0.2 + 0.2 = 2.2 ; t2 = 4*0.1 + 2*0.7 + 0.9 = 2.7
    assert sel.order == [0, 2, 1]
    assert [round(s.total, 6) for s in sel.steps] == [4.0, 2.7, 1.8]
    assert [round(s.coverage, 6) for s in sel.steps] == [1.0, 0.7, 0.0]
    assert [round(s.join, 6) for s in sel.steps] == [0.0, 0.9, 0.2]
    np.testing.assert_allclose(sel.coverage, [0.9, 0.8])
    assert DenseStrategy().select(signals(), 3).order == [0, 1, 2]


def test_trace_lists_best_candidates_with_the_chosen_first():
    sel = GreedyStrategy(trace_width=2).select(signals(), 2)
    assert [g.candidate for g in sel.trace[1]] == [2, 1]
    assert sel.trace[1][0].total == pytest.approx(2.7)


def test_weights_change_the_choice():
    # without the join and coverage terms it is dense retrieval
    assert GreedyStrategy(0, 0, 1).select(signals(), 3).order == [0, 1, 2]
    with pytest.raises(InvalidArgumentError, match="l_join"):
        GreedyStrategy(l_join=-1)


def test_pinned_tables_start_the_context():
    sel = GreedyStrategy().select(signals(), 2, pinned=[1])
    assert sel.order[0] == 1
    # after pinning t1 (q = [0.2, 0.3]): t0 = 2.0 + 2*0.7 + 0.2 = 3.6 ; t2 = 0.4 + 2*0.5 + 0 = 1.4
    assert sel.order == [1, 0]
    assert sel.steps[1].total == pytest.approx(3.6)


def test_k_larger_than_candidates_returns_all():
    assert sorted(GreedyStrategy().select(signals(), 10).order) == [0, 1, 2]


def test_no_subqueries_reduces_to_coarse_plus_join():
    s = signals()
    s.F = np.zeros((0, 3))
    sel = GreedyStrategy().select(s, 2)
    # seed = t0 ; step 2: t1 = 1.6 + 0.2 = 1.8, t2 = 0.4 + 0.9 = 1.3
    assert sel.order == [0, 1]


@pytest.mark.parametrize("cls", [GreedyStrategy, JoinAwareStrategy])
@pytest.mark.parametrize("weights, label", [
    ((1e308, 1e308, 1e308), "l_cov"),  # overflows the utilities: inf / NaN scores
    ((2.0, 1e7, 4.0), "l_join"),
    ((2.0, 1.0, float("inf")), "l_coarse"),
    ((float("nan"), 1.0, 4.0), "l_cov"),
    (("a", 1, 1), "l_cov"),
    ((2.0, None, 4.0), "l_join"),
    ((2.0, 1.0, True), "l_coarse"),
])
def test_weights_must_be_numbers_in_a_sane_range(cls, weights, label):
    with pytest.raises(InvalidArgumentError, match=label):
        cls(*weights)


@pytest.mark.parametrize("cls", [GreedyStrategy, JoinAwareStrategy])
def test_all_zero_weights_are_rejected(cls):
    with pytest.raises(InvalidArgumentError, match="all 0"):
        cls(0, 0, 0)
    assert cls(0, 0, 1e6).select(signals(), 3).order == [0, 1, 2]  # the documented bound itself is accepted


@pytest.mark.parametrize("l_family", [1e308, float("inf"), -1.0, "x", None])
def test_family_weight_is_checked_like_the_others(l_family):
    with pytest.raises(InvalidArgumentError, match="l_family"):
        JoinAwareStrategy(l_family=l_family)


def test_weights_by_name_and_of_the_exact_program_are_checked_too():
    from jar_core.strategies import get_strategy  # what the command line's --weights goes through

    with pytest.raises(InvalidArgumentError, match="l_cov"):
        get_strategy("greedy", l_cov=1e308, l_join=1e308, l_coarse=1e308)
    with pytest.raises(InvalidArgumentError, match="all 0"):
        get_strategy("join-aware", l_cov=0.0, l_join=0.0, l_coarse=0.0)
    pytest.importorskip("mip")
    from jar_core.strategies.mip import MipStrategy

    with pytest.raises(InvalidArgumentError, match="w2"):
        MipStrategy(weights=(2.0, 1e308, 1.0, 10.0))
    with pytest.raises(InvalidArgumentError, match="all 0"):
        MipStrategy(weights=(0, 0, 0, 0))


def test_referred_first_scales_the_joins_that_are_no_reference():
    from jar_core.strategies.gains import referred_first

    w = np.array([[0.0, 0.9, 0.8], [0.9, 0.0, 0.0], [0.8, 0.0, 0.0]], dtype=np.float32)
    refs = np.array([[False, True, False], [False, False, False], [True, False, False]])
    got = referred_first(w, refs, 0.5)
    # 0 refers to 1 (its parent: in full), 2 refers to 0 (0's child: half from 0's side)
    np.testing.assert_allclose(got, [[0.0, 0.9, 0.4], [0.45, 0.0, 0.0], [0.8, 0.0, 0.0]])
    assert got.dtype == w.dtype


def test_child_share_takes_the_table_the_chosen_one_refers_to():
    # an offering (0), an instructors' link that refers to it (1) and the course it refers to (2):
    # alike but for the direction of their joins and a hundredth of relevance (4 x 0.01 < 0.1 x 0.9)
    r = np.array([0.9, 0.31, 0.3], dtype=np.float32)
    F = np.array([[0.9, 0.1, 0.1]], dtype=np.float32)
    w = np.array([[0.0, 0.9, 0.9], [0.9, 0.0, 0.0], [0.9, 0.0, 0.0]], dtype=np.float32)
    refs = np.array([[False, False, True], [True, False, False], [False, False, False]])
    sig = signals(r, F, w, refs)
    # nothing adds coverage after the offering: a filler step, where the parent comes first
    assert JoinAwareStrategy(bridges=False).select(sig, 2).order == [0, 2]
    assert JoinAwareStrategy(bridges=False, child_share=1.0).select(sig, 2).order == [0, 1]
    # a child that extends the offering (keyed by the offering's key) is as good as a parent
    ext = np.zeros((3, 3), dtype=bool)
    ext[1, 0] = True
    assert JoinAwareStrategy(bridges=False).select(dataclasses.replace(sig, extends=ext), 2).order == [0, 1]
    # where the child adds coverage beyond FILLER_COVERAGE, no filler step: every join alike
    F2 = np.array([[0.9, 0.1, 0.1], [0.0, FILLER_COVERAGE + 0.01, 0.0]], dtype=np.float32)
    step = JoinAwareStrategy(bridges=False).select(dataclasses.replace(sig, F=F2), 2)
    assert step.order == [0, 1]
    assert step.steps[1].join == pytest.approx(0.9)  # the child's join in full
    for bad in (1.5, -0.1, True, "0.9"):
        with pytest.raises(InvalidArgumentError, match="child_share"):
            JoinAwareStrategy(child_share=bad)


def test_a_table_chosen_at_a_filler_step_brings_no_parent_first():
    # a course (0) the question names; a program's course (1) that refers to it, taken to fill K;
    # the program (2), the program's course's parent, and the course's prerequisites (3), another
    # child of the course, alike but for a hundredth of relevance (4 x 0.01 < 0.25 x 0.9)
    r = np.array([0.9, 0.4, 0.3, 0.31], dtype=np.float32)
    F = np.array([[0.9, 0.1, 0.1, 0.1]], dtype=np.float32)
    w, refs = references(4, (1, 0), (1, 2), (3, 0))
    sig = signals(r, F, w, refs)
    got = JoinAwareStrategy(bridges=False).select(sig, 3)
    # the program's course is a filler: its parent gains a child's share, as the prerequisites do
    assert got.order == [0, 1, 3], got.order
    assert got.steps[2].join == pytest.approx(0.9 * CHILD_SHARE)
    # a table chosen for its coverage brings its parent first (the course's program, where the
    # program's course covers the question)
    F2 = np.array([[0.9, 0.1, 0.1, 0.1], [0.0, 0.9, 0.0, 0.0]], dtype=np.float32)
    assert JoinAwareStrategy(bridges=False).select(dataclasses.replace(sig, F=F2), 3).order == [0, 1, 2]


def test_a_way_between_two_core_tables_keeps_its_joins_at_a_filler_step():
    # a city (0) and an airport (1) the question names, chosen for their coverage and joined by
    # nothing; the airport service (2) refers to both, a time zone (3) is the city's parent
    r = np.array([0.9, 0.8, 0.3, 0.28], dtype=np.float32)
    F = np.array([[0.9, 0.1, 0.1, 0.1], [0.1, 0.9, 0.1, 0.1]], dtype=np.float32)
    w, refs = references(4, (2, 0), (2, 1), (0, 3))
    sig = signals(r, F, w, refs)
    got = JoinAwareStrategy(bridges=False).select(sig, 3)
    assert got.order == [0, 1, 2]
    assert got.steps[2].join == pytest.approx(0.9)  # its join in full, not a child's share
    # where the two are joined already, the service is one more child and the parent comes first
    w[0, 1] = w[1, 0] = 0.9
    assert JoinAwareStrategy(bridges=False).select(dataclasses.replace(sig, w=w), 3).order == [0, 1, 3]


def test_bridging_reads_links_through_a_third_core_table():
    from jar_core.strategies.gains import bridging

    w = np.zeros((5, 5))
    refs = np.zeros((5, 5), dtype=bool)
    # 4 refers to 0 and 1; 0 and 1 are joined through 2, a core table: no way between them
    w[4, 0] = w[4, 1] = w[0, 2] = w[2, 0] = w[1, 2] = w[2, 1] = 0.9
    refs[4, 0] = refs[4, 1] = True
    free = np.array([False, False, False, True, True])
    assert not bridging(w, refs, [0, 1, 2], free).any()
    assert bridging(w, refs, [0, 1], free).tolist() == [False, False, False, False, True]
    assert not bridging(w, refs, [0], free).any()
