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

from jar_core.candidates.first_stage import exact_scores, exact_top

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.candidates.first_stage import CandidateGenerator
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.schema import Schema

__all__ = ["table_signatures", "first_copies", "best_copies", "CopyCollapse"]


def table_signatures(schema: "Schema") -> tuple[np.ndarray, np.ndarray]:
    """``(signature, database)`` codes of every table: equal signatures are copies of one table
    (same name, same column names, case-folded) and equal database codes one database (the
    corpus's structure, :func:`jar_core.index.structure.structure`: saved with an index)."""
    from jar_core.index.structure import structure

    s = structure(schema)
    return s.signature, s.database


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


class CopyCollapse:
    """The first stage over one schema with the copies of one table collapsed (when ``enabled``);
    the schema's :func:`table_signatures` are worked out once, at first use."""

    def __init__(self, schema: "Schema", *, enabled: bool = True) -> None:
        self.schema, self.enabled = schema, enabled
        self._signatures: tuple[np.ndarray, np.ndarray] | None = None

    def signatures(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`table_signatures` of the schema."""
        if self._signatures is None:
            self._signatures = table_signatures(self.schema)
        return self._signatures

    def top(self, scores: np.ndarray, positions: np.ndarray, n: int) -> np.ndarray:
        """The ``n`` best of ``positions`` by ``scores``, best first, the copies of one table
        collapsed (when enabled) over the whole ranking (:func:`best_copies`)."""
        if not self.enabled:
            return exact_top(scores, positions, n)[0]
        scores, positions = np.asarray(scores), np.asarray(positions, dtype=np.int64)
        keep = best_copies(scores, positions, *self.signatures())
        return exact_top(scores[keep], positions[keep], n)[0]

    def first_stage(
        self, generator: "CandidateGenerator", index: "SchemaIndex", query: np.ndarray, n: int, allowed: np.ndarray,
    ) -> np.ndarray:
        """The ``n`` tables most similar to ``query`` among ``allowed``, best first, with the
        copies of one table in other databases collapsed.

        ``generator`` is asked for ``2n``; when copies leave fewer than ``n`` of them (a lake of
        many copies), every allowed table is scored exactly (one product with the table vectors
        costs less than asking an index for ever more neighbours) and the copies are collapsed
        over that whole ranking without sorting it (:func:`best_copies`).
        """
        pos, _ = generator.search(index, query, 2 * n if self.enabled else n, allowed)
        if not self.enabled or len(pos) < 2:
            return pos[:n]
        kept = pos[first_copies(pos, *self.signatures())]
        if len(kept) >= n or len(pos) < 2 * n:
            return kept[:n]
        every, scores = exact_scores(index, query, allowed)
        return self.top(scores, every, n)
