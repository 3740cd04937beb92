"""Adaptive K (``k="auto"``): as few tables as answer the question, as many as it needs.

The search runs up to ``k_max`` tables; the answer is the shortest prefix of its choices that

* covers every sub-query above ``threshold`` (``max_{i in prefix} F_ji >= threshold`` for all j,
  when each sub-query is covered that well by some candidate at all), and
* is join-connected as far as the whole choice allows (its tables fall into as many pieces as
  the whole choice splits them into: a later table may be the bridge they need);

at least ``k_min`` tables. Without sub-queries the coverage test is the question's own: the
prefix stops once the next table's coarse relevance falls below ``threshold`` times the first's.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from jar_core.bridge import labels as _labels


__all__ = ["auto_size", "AUTO_K_MAX", "AUTO_THRESHOLD", "AUTO_K_MIN"]

AUTO_K_MAX = 10
AUTO_K_MIN = 2
AUTO_THRESHOLD = 0.6


def auto_size(
    F: np.ndarray, w: np.ndarray, r: np.ndarray, order: Sequence[int], *, threshold: float = AUTO_THRESHOLD,
    k_min: int = AUTO_K_MIN,
) -> int:
    """The number of leading tables of ``order`` to keep (see the module docstring)."""
    order = [int(i) for i in order]
    n = len(order)
    if n <= k_min:
        return n
    whole = _labels(w, order)

    def joined(m: int) -> bool:
        return len(set(_labels(w, order[:m]).tolist())) == len(set(whole[:m].tolist()))

    if F.shape[0]:
        target = np.minimum(F[:, order].max(axis=1), threshold)  # what can be reached at all
        for m in range(max(k_min, 1), n + 1):
            covered = F[:, order[:m]].max(axis=1) >= target - 1e-9
            if covered.all() and joined(m):
                return m
        return n
    top = float(r[order[0]])
    for m in range(max(k_min, 1), n):
        if r[order[m]] < threshold * top and joined(m):
            return m
    return n
