"""Near copies: two tables of one database with nearly the same columns (ours; not in METHOD.md).

A warehouse keeps versions of one table side by side (``COURSE_CATALOG_SUBJECT_OFFERED`` and
``DRUPAL_COURSE_CATALOG``, ``ACADEMIC_TERMS`` and ``ACADEMIC_TERMS_ALL``): their names, columns
and relevance barely differ, so the search's choice between them is close to a coin toss when it
makes it, before the rest of the answer is known. This signal says which candidates are such
copies; after the search, :func:`jar_core.strategies.near_copies.prefer_joined` keeps of two
copies the one that joins the rest of the choice more surely.

* :func:`near_copy_matrix`: which candidates are near copies of each other, from one sparse
  product of the candidates' column-name incidence (never a loop over pairs of columns).
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["NEAR_COPY", "near_copy_matrix"]

#: Jaccard index of two tables' column names (case-folded) from which they are near copies.
NEAR_COPY = 0.8
#: A column name held by this share of its database's tables or more (and by :data:`COMMON_MIN`
#: tables or more) is common to many, no sign of a copy.
COMMON_SHARE = 0.1
COMMON_MIN = 3


#: This stage's state: each index's column-name incidence, for as long as the index lives.
_KEPT: "weakref.WeakKeyDictionary[SchemaIndex, tuple[sparse.csr_matrix, np.ndarray]]" = weakref.WeakKeyDictionary()


def _incidence(index: "SchemaIndex") -> tuple[sparse.csr_matrix, np.ndarray]:
    """Tables x distinct column names (case-folded, per database: tables of two databases share
    none) and each table's name count; built once per index. A name that :data:`COMMON_SHARE` of
    its database's tables or more hold (and at least :data:`COMMON_MIN` of them) is left out:
    bookkeeping columns (``ModifiedDate``, ``rowguid``, ``Name`` in AdventureWorks) make small
    tables look alike (``ProductCategory``, ``ProductSubcategory``) without their being copies."""
    cached = _KEPT.get(index)
    if cached is None:
        from jar_core.index.structure import structure

        s = structure(index.schema)  # codes of the case-folded column names: no table read
        n_tables, n_names = len(s), max(len(s.column_names), 1)
        col_table = np.repeat(np.arange(n_tables, dtype=np.int64), np.diff(s.col_offsets))
        pairs = np.unique(col_table * n_names + s.column)  # each table's distinct names
        rows_a = pairs // n_names
        db = s.database
        # a name per database: tables of two databases share none
        vocab, cols_a = np.unique(db[rows_a] * n_names + pairs % n_names, return_inverse=True)
        cols_a = cols_a.ravel()
        held = np.bincount(cols_a, minlength=len(vocab))  # tables holding each name
        name_db = vocab // n_names
        common = (held >= COMMON_MIN) & (held >= COMMON_SHARE * np.bincount(db, minlength=len(s.databases))[name_db])
        keep = ~common[cols_a]
        m = sparse.csr_matrix((np.ones(int(keep.sum()), dtype=np.float32), (rows_a[keep], cols_a[keep])),
                              shape=(n_tables, max(len(vocab), 1)))
        cached = _KEPT[index] = (m, np.asarray(m.sum(axis=1)).ravel())
    return cached


def near_copy_matrix(index: "SchemaIndex", candidates: np.ndarray) -> np.ndarray:
    """bool ``(n, n)``: candidates of one database whose column names overlap by a Jaccard index of
    :data:`NEAR_COPY` or more (zero diagonal), names common to many of the database's tables left
    out. Spider's databases have no such pair; BEAVER-DW's warehouse has 15."""
    m, sizes = _incidence(index)
    c = np.asarray(candidates, dtype=np.int64)
    sub = m[c]
    inter = np.asarray((sub @ sub.T).todense(), dtype=np.float64)
    union = sizes[c][:, None] + sizes[c][None, :] - inter
    out = (inter >= NEAR_COPY * np.maximum(union, 1.0)) & (union > 0)
    np.fill_diagonal(out, False)
    return out
