"""The search-strategy interface: how a table set is chosen from precomputed signals.

A strategy sees only a :class:`~jar_core.signals.matrices.Signals` object (the candidates with their
coarse relevance ``r``, fine relevance ``F`` and join compatibility ``w``) and returns a
:class:`Selection`. Greedy, dense, the MIP and CRUSH all implement it, so they run on the
same candidates and the same signals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol, Sequence, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.signals.matrices import Signals

__all__ = ["StepGain", "Selection", "SearchStrategy"]


class StepGain(NamedTuple):
    """The gain components of one candidate at one step (weights already applied in ``total``).

    ``coarse``, ``coverage`` and ``join`` are the unweighted gains (``r_i``, the marginal
    coverage gain, the join gain); ``total`` is the weighted utility that was maximised.
    Immutable; a named tuple rather than a dataclass because a trace makes dozens per question.
    """

    candidate: int
    coarse: float
    coverage: float
    join: float
    total: float


@dataclass
class Selection:
    """What a strategy chose: candidate indices (into ``Signals.candidates``) in selection order.

    ``steps[i]`` holds the gains of ``order[i]`` when it was chosen (strategies without
    per-step gains fill what they can); ``trace[i]`` the best few candidates considered at
    that step; ``status`` is ``"ok"`` or a solver outcome (``optimal``, ``feasible``,
    ``no_solution``, ``infeasible``); ``bridges`` the candidates added only to connect the others;
    ``references`` those added because a chosen table refers to them for a sub-query they answer
    better (``k="auto"``); ``replaced`` maps a chosen candidate to the near copy the search had
    chosen in its place (:func:`jar_core.strategies.near_copies.prefer_joined`).
    """

    order: list[int]
    steps: list[StepGain] = field(default_factory=list)
    trace: list[list[StepGain]] = field(default_factory=list)
    coverage: np.ndarray | None = None
    status: str = "ok"
    bridges: list[int] = field(default_factory=list)  # candidates added only to connect the others
    references: list[int] = field(default_factory=list)  # candidates a chosen table refers to (k="auto")
    replaced: dict[int, int] = field(default_factory=dict)  # chosen candidate -> the near copy it replaced


@runtime_checkable
class SearchStrategy(Protocol):
    """Chooses ``k`` candidates; ``pinned`` candidate indices must come first, in their order."""

    name: str

    def select(self, signals: "Signals", k: int, *, pinned: Sequence[int] = ()) -> Selection:
        ...
