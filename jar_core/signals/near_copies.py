"""Near copies: two tables of one database with nearly the same columns (ours; not in METHOD.md).

A warehouse keeps versions of one table side by side (``COURSE_CATALOG_SUBJECT_OFFERED`` and
``DRUPAL_COURSE_CATALOG``, ``ACADEMIC_TERMS`` and ``ACADEMIC_TERMS_ALL``): their names, columns
and relevance barely differ, so the search's choice between them is close to a coin toss when it
makes it, before the rest of the answer is known. This signal says which candidates are such
copies; after the search, :func:`jar_core.strategies.near_copies.prefer_joined` keeps of two
copies the one that joins the rest of the choice more surely.

* :func:`near_copy_matrix`: which candidates are near copies of each other, from one sparse
  product of the candidates' column-name incidence per database (never a loop over pairs of
  columns), each database's incidence built the first time a question's candidates come from it.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from jar_core.joins.compat import column_positions

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["NEAR_COPY", "near_copy_matrix"]

#: Jaccard index of two tables' column names (case-folded) from which they are near copies.
NEAR_COPY = 0.8
#: A column name held by this share of its database's tables or more (and by :data:`COMMON_MIN`
#: tables or more) is common to many, no sign of a copy.
COMMON_SHARE = 0.1
COMMON_MIN = 3


#: This stage's state, for as long as the index lives: its tables grouped by database, and each
#: database's column-name incidence once a question's candidates come from it.
_KEPT: "weakref.WeakKeyDictionary[SchemaIndex, _ByDatabase]" = weakref.WeakKeyDictionary()


class _ByDatabase:
    """An index's tables by database (from the corpus's structure: no table read) and, per database
    asked for, its incidence (:meth:`incidence`)."""

    def __init__(self, index: "SchemaIndex") -> None:
        from jar_core.index.structure import structure

        self.s = structure(index.schema)  # codes of the case-folded column names
        self._kept: dict[int, tuple[np.ndarray, sparse.csr_matrix, np.ndarray]] = {}

    def incidence(self, db: int) -> tuple[np.ndarray, sparse.csr_matrix, np.ndarray]:
        """``(tables, m, sizes)`` of database ``db``: its tables (positions), tables x the distinct
        column names (case-folded) they hold, and each table's name count. A name that
        :data:`COMMON_SHARE` of the database's tables or more hold (and at least :data:`COMMON_MIN`
        of them) is left out: bookkeeping columns (``ModifiedDate``, ``rowguid``, ``Name`` in
        AdventureWorks) make small tables look alike (``ProductCategory``, ``ProductSubcategory``)
        without their being copies."""
        hit = self._kept.get(db)
        if hit is None:
            s = self.s
            order, starts = s.by_database
            tables = order[starts[db]:starts[db + 1]]
            rows = np.repeat(np.arange(len(tables), dtype=np.int64), s.col_offsets[tables + 1] - s.col_offsets[tables])
            names = s.column[column_positions(s.col_offsets, tables)]
            n_names = max(len(s.column_names), 1)
            pairs = np.unique(rows * n_names + names)  # each table's distinct names
            rows, vocab_of = pairs // n_names, pairs % n_names
            vocab, cols = np.unique(vocab_of, return_inverse=True)
            cols = cols.ravel()
            held = np.bincount(cols, minlength=len(vocab))  # tables holding each name
            common = (held >= COMMON_MIN) & (held >= COMMON_SHARE * len(tables))
            keep = ~common[cols]
            m = sparse.csr_matrix((np.ones(int(keep.sum()), dtype=np.float32), (rows[keep], cols[keep])),
                                  shape=(len(tables), max(len(vocab), 1)))
            hit = self._kept[db] = (tables, m, np.asarray(m.sum(axis=1)).ravel())
        return hit


def near_copy_matrix(index: "SchemaIndex", candidates: np.ndarray) -> np.ndarray:
    """bool ``(n, n)``: candidates of one database whose column names overlap by a Jaccard index of
    :data:`NEAR_COPY` or more (zero diagonal), names common to many of the database's tables left
    out; read from the candidates' databases only. Spider's databases have no such pair;
    BEAVER-DW's warehouse has 15."""
    by_db = _KEPT.get(index)
    if by_db is None:
        by_db = _KEPT[index] = _ByDatabase(index)
    c = np.asarray(candidates, dtype=np.int64)
    out = np.zeros((len(c), len(c)), dtype=bool)
    dbs = by_db.s.database[c]
    for db in np.unique(dbs).tolist():
        at = np.flatnonzero(dbs == db)
        if len(at) < 2:
            continue
        tables, m, sizes = by_db.incidence(db)
        rows = np.searchsorted(tables, c[at])  # tables of a database are in position order
        sub = m[rows]
        inter = np.asarray((sub @ sub.T).todense(), dtype=np.float64)
        union = sizes[rows][:, None] + sizes[rows][None, :] - inter
        out[np.ix_(at, at)] = (inter >= NEAR_COPY * np.maximum(union, 1.0)) & (union > 0)
    np.fill_diagonal(out, False)
    return out
