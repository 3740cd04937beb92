"""CRUSH4SQL baseline (jar_core.strategies.crush)."""

from __future__ import annotations

import numpy as np
import pytest

from jar_core.errors import InvalidArgumentError
from jar_core.signals.matrices import Signals
from jar_core.strategies.base import SearchStrategy
from jar_core.strategies.crush import CrushStrategy, crush_rank, crush_scores

SIM = np.array(
    [
        [0.9, 0.1, 0.2, 0.0],  # segment 0: peaked on table 0 (low entropy)
        [0.3, 0.35, 0.3, 0.8],  # segment 1: flatter
    ]
)


def _hand_scores(sim):
    p = (sim + 1) / 2
    dist = p / p.sum(axis=1, keepdims=True)
    H = np.array([-sum(x * np.log(x) for x in row) for row in dist])
    gate = 1 / (1 + np.exp(-(H.mean() - H)))
    return gate[:, None] * p, H


def test_scores_match_hand_computation():
    expected, H = _hand_scores(SIM)
    assert H[0] < H[1]  # the peaked segment has the lower entropy ...
    got = crush_scores(SIM)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # ... so its gate is above 1/2 and the flat one's below.
    assert got[0, 0] / ((SIM[0, 0] + 1) / 2) > 0.5 > got[1, 3] / ((SIM[1, 3] + 1) / 2)


def test_rank_with_reset():
    sc, _ = _hand_scores(SIM)
    # Step 1: best pair overall is (segment 0, table 0).
    assert np.unravel_index(np.argmax(sc), sc.shape) == (0, 0)
    # Step 2: only segment 1 is uncovered: its best unselected table is 3.
    assert int(np.argmax(sc[1, 1:])) + 1 == 3
    # Step 3: every segment covered -> reset; among tables 1, 2 the best pair is (1, table 1)
    # (0.3355 > 0.3230 from segment 1, > 0.3018 from segment 0).
    assert sc[1, 1] > max(sc[0, 1], sc[0, 2], sc[1, 2])
    # Step 4: segment 1 covered again; table 2 remains, through segment 0.
    assert crush_rank(SIM, budget=4) == [0, 3, 1, 2]
    # Without the reset the third pick would not be table 1: segment 0 alone prefers table 2.
    assert sc[0, 2] > sc[0, 1]


def test_budget_and_exhaustion():
    assert crush_rank(SIM, budget=2) == [0, 3]
    assert crush_rank(SIM, budget=20) == [0, 3, 1, 2]  # candidates run out
    assert crush_rank(np.zeros((2, 0))) == []


def test_no_segments_keeps_given_order():
    assert crush_rank(np.zeros((0, 5)), budget=3) == [0, 1, 2]


def test_ties_broken_by_lowest_index():
    sim = np.zeros((2, 4))
    assert crush_rank(sim) == [0, 1, 2, 3]


def test_bad_budget():
    with pytest.raises(InvalidArgumentError):
        crush_rank(SIM, budget=0)
    with pytest.raises(InvalidArgumentError):
        CrushStrategy(budget=-1)


def _signals(n=4, sim=None):
    sig = Signals(
        candidates=np.arange(n),
        r=np.linspace(1.0, 0.5, n),
        F=np.zeros((2, n)),
        w=np.zeros((n, n)),
        join_columns=np.full((n, n, 2), -1),
    )
    if sim is not None:
        sig.segment_sim = sim  # the optional field the lead adds to Signals
    return sig


def test_strategy_select():
    strat = CrushStrategy()
    assert isinstance(strat, SearchStrategy) and strat.name == "crush"
    sel = strat.select(_signals(sim=SIM), 3)
    assert sel.order == [0, 3, 1]
    assert [s.candidate for s in sel.steps] == sel.order
    assert sel.steps[0].total == pytest.approx(crush_scores(SIM)[0, 0])
    # Pinned first; CRUSH then picks among the others.
    sel = strat.select(_signals(sim=SIM), 3, pinned=[2])
    assert sel.order == [2, 0, 3]
    # The budget caps the output below k.
    assert CrushStrategy(budget=2).select(_signals(sim=SIM), 4).order == [0, 3]


def test_strategy_needs_segment_similarities():
    with pytest.raises(InvalidArgumentError, match="segment similarities"):
        CrushStrategy().select(_signals(), 2)
    with pytest.raises(InvalidArgumentError):
        CrushStrategy().select(_signals(n=3, sim=SIM), 2)  # 4 columns vs 3 candidates
