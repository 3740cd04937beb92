"""Near copies: two tables of one database with nearly the same columns (ours; not in METHOD.md).

A warehouse keeps versions of one table side by side (``COURSE_CATALOG_SUBJECT_OFFERED`` and
``DRUPAL_COURSE_CATALOG``, ``ACADEMIC_TERMS`` and ``ACADEMIC_TERMS_ALL``): their names, columns
and relevance barely differ, so the search's choice between them is close to a coin toss when it
makes it, before the rest of the answer is known. Once the rest is chosen, one of the two may
join it more surely (``TERM_CODE`` of one is the terms table's key by its very name, the
other's is ``SO_TERM_CODE``): :func:`prefer_joined` keeps that one.

* :func:`near_copy_matrix`: which candidates are near copies of each other, from one sparse
  product of the candidates' column-name incidence (never a loop over pairs of columns);
* :func:`prefer_joined`: after the search, each chosen table is replaced by a near copy that joins
  the other chosen tables more surely and is worth more beside them by the search's own utility.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse

from jar_core.strategies.base import Selection, StepGain
from jar_core.strategies.greedy import coverage_gain

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.signals.matrices import Signals

__all__ = ["NEAR_COPY", "near_copy_matrix", "prefer_joined"]

#: Jaccard index of two tables' column names (case-folded) from which they are near copies.
NEAR_COPY = 0.8
#: A column name held by this share of its database's tables or more (and by :data:`COMMON_MIN`
#: tables or more) is common to many, no sign of a copy.
COMMON_SHARE = 0.1
COMMON_MIN = 3
#: How much more surely a near copy must join the rest of the choice to replace a chosen table.
JOIN_MARGIN = 1e-6


def _incidence(index: "SchemaIndex") -> tuple[sparse.csr_matrix, np.ndarray]:
    """Tables x distinct column names (case-folded, per database: tables of two databases share
    none) and each table's name count; built once per index. A name that :data:`COMMON_SHARE` of
    its database's tables or more hold (and at least :data:`COMMON_MIN` of them) is left out:
    bookkeeping columns (``ModifiedDate``, ``rowguid``, ``Name`` in AdventureWorks) make small
    tables look alike (``ProductCategory``, ``ProductSubcategory``) without their being copies."""
    cached = getattr(index, "_column_name_incidence", None)
    if cached is None:
        tables = index.schema.tables
        dbs: dict[str, int] = {}
        db = np.array([dbs.setdefault(t.database, len(dbs)) for t in tables], dtype=np.int64)
        vocab: dict[tuple[int, str], int] = {}
        rows, cols = [], []
        for ti, t in enumerate(tables):
            for name in {c.name.casefold() for c in t.columns}:
                rows.append(ti)
                cols.append(vocab.setdefault((int(db[ti]), name), len(vocab)))
        rows_a, cols_a = np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)
        held = np.bincount(cols_a, minlength=len(vocab))  # tables holding each name
        name_db = np.fromiter((d for d, _ in vocab), dtype=np.int64, count=len(vocab))
        common = (held >= COMMON_MIN) & (held >= COMMON_SHARE * np.bincount(db, minlength=len(dbs))[name_db])
        keep = ~common[cols_a]
        m = sparse.csr_matrix((np.ones(int(keep.sum()), dtype=np.float32), (rows_a[keep], cols_a[keep])),
                              shape=(len(tables), max(len(vocab), 1)))
        cached = index._column_name_incidence = (m, np.asarray(m.sum(axis=1)).ravel())
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


def prefer_joined(
    signals: "Signals", sel: Selection, weights: tuple[float, float, float], *, l_family: float = 0.0,
    pinned: int = 0,
) -> Selection:
    """``sel`` with each chosen table (after the ``pinned`` first ones) replaced by the near copy
    (:attr:`Signals.near_copies`, not chosen) that joins the other chosen tables more surely than
    it does and whose utility beside them (``l_coarse * r + l_cov * coverage gain over them +
    l_join * its best join to them``, plus the family gain) is higher. The replaced tables are in
    :attr:`Selection.replaced`; the step of a replacing table holds its gains beside the others.
    ``weights = (l_cov, l_join, l_coarse)``."""
    near = signals.near_copies
    if near is None or not sel.order:
        return sel
    chosen = np.array(sel.order, dtype=np.int64)
    if not near[chosen].any():
        return sel
    l_cov, l_join, l_coarse = weights
    F, w, r = signals.F, signals.w, signals.r
    order = list(sel.order)
    steps = list(sel.steps)
    replaced: dict[int, int] = dict(sel.replaced)
    for pos in range(pinned, len(order)):
        t = order[pos]
        copies = np.flatnonzero(near[t])
        copies = copies[~np.isin(copies, order)]
        if not len(copies):
            continue
        rest = np.array([x for x in order if x != t], dtype=np.int64)
        both = np.concatenate([[t], copies])
        if len(rest):
            covered = F[:, rest].max(axis=1) if F.shape[0] else np.zeros(0)
            joins = w[both][:, rest].max(axis=1)
            fam = signals.family[both][:, rest].any(axis=1) if signals.family is not None else np.zeros(len(both))
        else:
            covered, joins, fam = np.zeros(F.shape[0]), np.zeros(len(both)), np.zeros(len(both))
        cov = coverage_gain(F[:, both], covered) if F.shape[0] else np.zeros(len(both))
        u = l_coarse * r[both] + l_cov * cov + l_join * joins + l_family * fam
        better = (joins[1:] > joins[0] + JOIN_MARGIN) & (u[1:] > u[0])
        if not better.any():
            continue
        j = 1 + int(np.argmax(np.where(better, u[1:], -np.inf)))
        new = int(both[j])
        order[pos] = new
        replaced[new] = replaced.pop(t, t)
        if pos < len(steps):
            steps[pos] = StepGain(new, float(r[new]), float(cov[j]), float(joins[j]), float(u[j]))
    if order == sel.order:
        return sel
    cov_all = F[:, order].max(axis=1) if F.shape[0] else np.zeros(0)
    return Selection(order=order, steps=steps, trace=sel.trace, coverage=np.maximum(cov_all, 0.0), status=sel.status,
                     bridges=list(sel.bridges), references=list(sel.references), replaced=replaced)
