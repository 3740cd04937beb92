"""Declared foreign keys: certain joins (confidence 1)."""
from __future__ import annotations

import numpy as np

from jar_core.joins.profile import ColumnProfile

__all__ = ["declared"]


def declared(p: ColumnProfile) -> tuple[np.ndarray, np.ndarray]:
    """``(referencing, referenced)`` column positions of every declared foreign key."""
    if not p.declared:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    pairs = np.array(sorted(set(p.declared)), dtype=np.int64)
    return pairs[:, 0], pairs[:, 1]
