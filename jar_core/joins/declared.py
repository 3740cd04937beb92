"""Declared foreign keys: certain joins (confidence 1)."""
from __future__ import annotations

import numpy as np

from typing import TYPE_CHECKING

from jar_core.joins.profile import ColumnProfile

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.schema import Schema, Table

__all__ = ["declared", "declared_columns", "other_key_columns"]


def other_key_columns(
    left: "Table", left_column: str, right: "Table", right_column: str,
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


def declared_columns(schema: "Schema", col_offsets: np.ndarray) -> list[tuple[int, int, bool]]:
    """``(referencing, referenced, single_column_key)`` global column positions of every declared
    foreign key of ``schema`` (columns stacked in table order, ``col_offsets`` as in the index)."""
    out = []
    for ti, t in enumerate(schema.tables):
        if not t.foreign_keys:
            continue
        names = [c.name for c in t.columns]
        for fk in t.foreign_keys:
            rt = schema.position(fk.ref_table)
            rnames = [c.name for c in schema.tables[rt].columns]
            for a, b in zip(fk.columns, fk.ref_columns):
                out.append((int(col_offsets[ti]) + names.index(a), int(col_offsets[rt]) + rnames.index(b),
                            len(fk.columns) == 1))
    return out


def declared(p: ColumnProfile) -> tuple[np.ndarray, np.ndarray]:
    """``(referencing, referenced)`` column positions of every declared foreign key."""
    if not p.declared:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    pairs = np.array(sorted(set(p.declared)), dtype=np.int64)
    return pairs[:, 0], pairs[:, 1]
