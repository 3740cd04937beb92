"""Value matches as signals (ours; beyond METHOD.md's "Input signals"): a value the question names
(:mod:`jar_core.candidates.values`) is a sub-query that the tables holding it cover, and a boost
of their coarse relevance.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from jar_core.candidates.values import VALUE_PREFIX

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.candidates.values import ValueMatch
    from jar_core.signals.matrices import Signals

__all__ = ["VALUE_BOOST", "VALUE_COVERAGE", "apply_value_matches"]

#: Coarse relevance added to a table that holds a value the question names.
VALUE_BOOST = 0.05
#: Coverage of a matched value's sub-query by the tables that hold it.
VALUE_COVERAGE = 0.6


def apply_value_matches(sig: "Signals", matches: "list[ValueMatch]") -> None:
    """A matched value is a sub-query its tables cover (``F = weight``) and a relevance boost:
    ``sig`` gains a row of ``F`` per matched span (named ``value: <span>``), ``r`` the boost and
    ``value_matches`` the matches."""
    pos = {int(c): i for i, c in enumerate(sig.candidates)}
    spans: dict[str, np.ndarray] = {}
    for m in matches:
        i = pos.get(m.table)
        if i is None:
            continue
        row = spans.setdefault(VALUE_PREFIX + m.span, np.zeros(sig.n, dtype=np.float32))
        row[i] = max(row[i], VALUE_COVERAGE * m.weight)
    if not spans:
        return
    rows = np.stack(list(spans.values()))
    sig.r = (sig.r + VALUE_BOOST * rows.max(axis=0) / VALUE_COVERAGE).astype(np.float32)
    sig.F = np.vstack([sig.F, rows]).astype(np.float32)
    sig.subqueries = [*sig.subqueries, *spans]
    sig.value_matches = list(matches)
