"""Rule 9 of the join graph (METHOD.md, the join graph): a copy of a table joins as the table it
copies.

=============  ===============================================  ===================  =================================
rule           evidence                                         confidence           example
=============  ===============================================  ===================  =================================
copy           a table named as another and a copy word after,  the copied join's,   ``Customers_Archive.CustomerID``
               holding all its columns                          at most :data:`COPY`  -> ``Customers``
=============  ===============================================  ===================  =================================

No column references a copy's column: the copied table holds the entity.
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.edges import EVIDENCE, best_per_pair, is_sibling
from jar_core.joins.name_facts import is_archive
from jar_core.joins.profile import ColumnProfile

__all__ = ["copy_joins", "COPY"]


#: Confidence cap of a join that a copy's column takes from the copied table's column, and of a
#: copy's key column to the copied table's key (rule 9).
COPY = 0.95


def copy_joins(
    p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rule 9: a copy joins as the table it copies (:attr:`ColumnProfile.copy_source`:
    ``Customers_Archive``, ``FCLT_BUILDING_HIST``).

    The inferred joins of a copy's copied columns are replaced by those of the copied table's
    columns: each reference ``b -> k`` of a copied column ``b`` gives its copy's column ``b'`` the
    reference ``b' -> k`` (a self-reference still points at the copied table's rows: a version's
    parent is a current row), each sibling gives both copies' columns the sibling, and no column
    references a copy's column (the copied table holds the entity). A copy's column of the copied
    table's key references that key only (a version of the row), except in an archive
    (:func:`~.naming.is_archive`: its rows were moved out of the table, and the two share none).
    Confidences are capped at :data:`COPY`, evidence ``copy``; declared references are left
    alone."""
    src = p.copy_source
    copied = src >= 0
    if not copied.any():
        return f, k, conf, ev
    sib = is_sibling(ev)
    key = p.own_key | p.pk_declared
    # a copy's key column is one more reference to the copied key: its siblings outside the copied
    # table and its copies stay (rule 7 makes them joins through the key)
    key_copy = copied & key[np.maximum(src, 0)]
    home = np.where(copied, p.table[np.maximum(src, 0)], p.table)  # the copied table of a copy's column
    kept_sib = sib & (key_copy[f] ^ key_copy[k]) & ~(copied[f] & copied[k]) & (home[f] != home[k])
    keep = ~((copied[f] | copied[k]) & (ev != 0)) | kept_sib
    f, k, conf, ev, sib = f[keep], k[keep], conf[keep], ev[keep], sib[keep]
    cj = np.flatnonzero(copied)
    order = np.argsort(src[cj], kind="stable")
    cj, cb = cj[order], src[cj][order]  # copy columns, sorted by the column they copy

    def copies_of(cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(edge, copy column)`` for each copy of each of ``cols``."""
        lo, hi = np.searchsorted(cb, cols, "left"), np.searchsorted(cb, cols, "right")
        n = hi - lo
        edge = np.repeat(np.arange(len(cols)), n)
        at = np.repeat(lo - np.cumsum(n) + n, n) + np.arange(int(n.sum()))
        return edge, cj[at]

    # the copied table's key references nothing for its copy: the copy's key references it
    ef, cf = copies_of(f)
    keep = ~key[f[ef]] | sib[ef]
    ef, cf = ef[keep], cf[keep]
    ek, ck = copies_of(k[sib])
    ek = np.flatnonzero(sib)[ek]
    # the copy's key column references the copied table's key, but in an archive
    keys = cj[key[cb]]
    archive = np.array([is_archive(p.table_words[i]) for i in keys.tolist()], dtype=bool)
    keys = keys[~archive] if len(keys) else keys
    new_f = np.concatenate([cf, f[ek], keys])
    new_k = np.concatenate([k[ef], ck, src[keys]])
    new_conf = np.minimum(np.concatenate([conf[ef], conf[ek], np.full(len(keys), COPY)]), COPY)
    new_ev = np.concatenate([np.where(sib[ef], ev[ef], EVIDENCE.index("copy")), ev[ek],
                             np.full(len(keys), EVIDENCE.index("copy"))]).astype(np.int64)
    ok = p.table[new_f] != p.table[new_k]
    f, k = np.concatenate([f, new_f[ok]]), np.concatenate([k, new_k[ok]])
    conf, ev = np.concatenate([conf, new_conf[ok]]), np.concatenate([ev, new_ev[ok]])
    return best_per_pair(f, k, conf, ev)
