"""Copies: one table in several databases of a lake.

Lakes hold the same table many times over: a replica, a staging copy, one schema per tenant,
a dataset loaded twice. Copies are equally similar to every question, so a top-N by similarity
fills up with them (``teacher`` from ten databases) and leaves no room for the tables that join
them; and the tables chosen from different copies do not join each other.

Two tables are *copies* when they have the same name and the same column names (case-folded,
in order) in two different databases. Among the first stage's results, the copies of a table
collapse to the one in the database that ranks first (the database of the best-ranked table),
so that all the tables kept come from one copy of each source, and the freed places go to
other tables.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.schema import Schema

__all__ = ["table_signatures", "first_copies", "best_copies"]


def table_signatures(schema: "Schema") -> tuple[np.ndarray, np.ndarray]:
    """``(signature, database)`` codes of every table: equal signatures are copies of one table
    (same name, same column names, case-folded) and equal database codes one database."""
    sig_codes: dict[tuple[str, ...], int] = {}
    db_codes: dict[str, int] = {}
    sig = np.empty(len(schema.tables), dtype=np.int64)
    db = np.empty(len(schema.tables), dtype=np.int64)
    for i, t in enumerate(schema.tables):
        key = (t.name.casefold(), *(c.name.casefold() for c in t.columns))
        sig[i] = sig_codes.setdefault(key, len(sig_codes))
        db[i] = db_codes.setdefault(t.database, len(db_codes))
    return sig, db


def first_copies(positions: np.ndarray, signature: np.ndarray, database: np.ndarray) -> np.ndarray:
    """Mask over ``positions`` (ranked best first) keeping, of each table's copies among them,
    the one whose database appears first in the ranking."""
    positions = np.asarray(positions, dtype=np.int64)
    if len(positions) < 2:
        return np.ones(len(positions), dtype=bool)
    d = database[positions]
    _, first, inverse = np.unique(d, return_index=True, return_inverse=True)
    db_rank = first[inverse]  # where the table's database first appears in the ranking
    s = signature[positions]
    best = np.full(int(s.max()) + 1, np.iinfo(np.int64).max)
    np.minimum.at(best, s, db_rank)
    return db_rank == best[s]


def best_copies(
    scores: np.ndarray, positions: np.ndarray, signature: np.ndarray, database: np.ndarray,
) -> np.ndarray:
    """Mask over ``positions`` (any order; ``scores`` aligned with them) keeping, of each table's
    copies, the one whose database ranks first: :func:`first_copies` of the whole ranking by
    score (ties by the lower position) without sorting it. A database ranks by its best table
    here, ties by that table's lower position; a handful of vector operations over ``positions``,
    so a lake's every table can be collapsed per question."""
    positions = np.asarray(positions, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float64)
    if len(positions) < 2:
        return np.ones(len(positions), dtype=bool)
    d = database[positions]
    dbs, d = np.unique(d, return_inverse=True)
    best = np.full(len(dbs), -np.inf)
    np.maximum.at(best, d, scores)
    first = np.full(len(dbs), np.iinfo(np.int64).max)
    top = scores == best[d]
    np.minimum.at(first, d[top], positions[top])  # the database's first table in the ranking
    db_rank = np.empty(len(dbs), dtype=np.int64)
    db_rank[np.lexsort((first, -best))] = np.arange(len(dbs))
    r = db_rank[d]
    s = signature[positions]
    keep_rank = np.full(int(s.max()) + 1, np.iinfo(np.int64).max)
    np.minimum.at(keep_rank, s, r)
    return r == keep_rank[s]
