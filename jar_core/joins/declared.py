"""Rule 1 of the join graph (METHOD.md, the join graph): declared foreign keys, certain joins.

====================  ================  ==========  =========================================
rule                  evidence          confidence  example
====================  ================  ==========  =========================================
declared foreign key  ``declared``      1           ``orders.customer_id REFERENCES customer(id)``
====================  ================  ==========  =========================================

A column that declares its reference of one column gets no other join (:mod:`.profile`'s
``fk_from``); a column of a declared key of several columns (``lineitem.l_suppkey`` of the key to
``partsupp``) still names its own entity and may reference it (``supplier``).
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.keys import declared_columns
from jar_core.joins.profile import ColumnProfile
from jar_core.schema import Table

__all__ = ["declared", "declared_columns", "other_key_columns"]


def other_key_columns(
    left: Table, left_column: str, right: Table, right_column: str,
) -> tuple[tuple[str, str], ...]:
    """The other ``(left, right)`` column pairs of a declared foreign key of several columns (either
    way between the two tables) that equates ``left_column`` with ``right_column``: joining on
    one column of a composite key repeats rows (a part has several suppliers). ``()`` when no
    such key holds the pair."""
    for src, dst, flip in ((left, right, False), (right, left, True)):
        want = (right_column, left_column) if flip else (left_column, right_column)
        for fk in src.foreign_keys:
            if fk.ref_table != dst.id or len(fk.columns) < 2:
                continue
            pairs = list(zip(fk.columns, fk.ref_columns))
            if want in pairs:
                return tuple((b, a) if flip else (a, b) for a, b in pairs if (a, b) != want)
    return ()


def declared(p: ColumnProfile) -> tuple[np.ndarray, np.ndarray]:
    """``(referencing, referenced)`` column positions of every declared foreign key."""
    if not p.declared:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    pairs = np.array(sorted(set(p.declared)), dtype=np.int64)
    return pairs[:, 0], pairs[:, 1]
