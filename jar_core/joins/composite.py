"""Rule 8 of the join graph (METHOD.md, the join graph): a reference on every column of a declared
primary key of several columns.

==============  ================================================  ==================  =================================
rule            evidence                                          confidence          example
==============  ================================================  ==================  =================================
composite key   a table's columns match a declared key of         :data:`COMPOSITE`   ``lineitem (l_partkey, l_suppkey)
                several columns, one column for each              (on a tie at most   -> partsupp``
                                                                  :data:`~.uncertain.
                                                                  AMBIGUOUS`)
==============  ================================================  ==================  =================================
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.edges import first_of
from jar_core.joins.preference import FAMILY, TIE_MARGIN, same_family
from jar_core.joins.profile import ColumnProfile
from jar_core.joins.uncertain import AMBIGUOUS

__all__ = ["composite", "COMPOSITE"]


#: Confidence of a reference to a declared primary key of several columns that the referencing
#: table matches column for column (rule 8).
COMPOSITE = 0.85


def composite(
    p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rule 8: references ``(f, k, confidence)`` to declared primary keys of several columns.

    A table ``A`` references the key ``(k_1, ..., k_m)`` of a table ``B`` of its database when each
    ``k_j`` joins its own column of ``A`` in the graph ``(f, k, conf, ev)`` (``lineitem.l_partkey``
    and ``l_suppkey``, siblings of ``partsupp.ps_partkey`` and ``ps_suppkey`` through ``part`` and
    ``supplier``): joined on one column, the rows repeat (a part has four suppliers); on all of them,
    a line item has one ``partsupp`` row. Each pair gets :data:`COMPOSITE`. When ``A``'s own key is
    what matches, the two tables are keyed alike and ``A`` references ``B`` only in ``B``'s family
    (``web_returns`` -> ``web_sales``; ``catalog_sales`` and ``web_sales`` are two sets of rows),
    and not when both names end with one head noun (``FactInternetSales``, ``FactResellerSales``:
    two kinds of sales). A table that matches several such keys references the best (the weakest
    pair's confidence, then a table of its family, then one whose whole name leads its own:
    ``FactInternetSalesReason`` -> ``FactInternetSales``); on a tie each is capped at
    :data:`AMBIGUOUS`. Declared
    references are left alone.
    """
    none = (np.zeros(0, dtype=np.int64),) * 2 + (np.zeros(0),)
    n_tables = int(p.table.max()) + 1 if p.n else 0
    key_size = np.bincount(p.table[p.in_pk], minlength=n_tables)
    composite = p.in_pk & (key_size[p.table] >= 2)
    if not composite.any() or len(f) == 0:
        return none
    declared = ev == 0
    pair_code = np.minimum(p.table[f], p.table[k]) * n_tables + np.maximum(p.table[f], p.table[k])
    declared_pairs = np.unique(pair_code[declared])
    # both directions of each inferred join, the second column in a composite key
    x, y, c = np.concatenate([f, k]), np.concatenate([k, f]), np.concatenate([conf, conf])
    ok = np.concatenate([~declared, ~declared]) & composite[y] & (p.table[x] != p.table[y])
    ok &= p.database[x] == p.database[y]
    x, y, c = x[ok], y[ok], c[ok]
    if len(x) == 0:
        return none
    ta, tb = p.table[x], p.table[y]
    # the best column of A for each key column of B
    order = np.lexsort((x, -c, y, ta))
    x, y, c, ta, tb = x[order], y[order], c[order], ta[order], tb[order]
    first = np.ones(len(x), dtype=bool)
    first[1:] = (ta[1:] != ta[:-1]) | (y[1:] != y[:-1])
    x, y, c, ta, tb = x[first], y[first], c[first], ta[first], tb[first]
    group = ta * n_tables + tb
    codes, inverse, size = np.unique(group, return_inverse=True, return_counts=True)
    distinct = np.bincount(inverse[first_of(group * p.n + x)], minlength=len(codes))
    g_a, g_b = codes // n_tables, codes % n_tables
    complete = (size == key_size[g_b]) & (distinct == size)
    complete &= ~np.isin(np.minimum(g_a, g_b) * n_tables + np.maximum(g_a, g_b), declared_pairs)
    if not complete.any():
        return none
    weakest = np.full(len(codes), np.inf)
    np.minimum.at(weakest, inverse, c)
    head = first_of(inverse)  # a pair of columns per group, for the family test
    family = same_family(p, x[head], y[head])
    names_a = [p.table_words[i][0] for i in x[head].tolist()]
    names_b = [p.table_words[i][0] for i in y[head].tolist()]
    # two kinds of one thing (FactInternetSales, FactResellerSales: both end with ``sales``)
    kinds = np.array([len(a) > 1 and len(b) > 1 and a[-1] == b[-1] for a, b in zip(names_a, names_b)], dtype=bool)
    # B's whole name leads A's (FactInternetSalesReason of FactInternetSales)
    leads = np.array([len(b) < len(a) and a[:len(b)] == b for a, b in zip(names_a, names_b)], dtype=bool)
    # A's own key matching B's: two tables keyed alike (catalog_sales, web_sales) are two sets of
    # rows unless they are of one family (web_returns of web_sales) and not two kinds of one thing
    own = np.bincount(inverse, weights=p.in_pk[x], minlength=len(codes))
    complete &= ~((own == size) & (key_size[g_a] == size)) | (family & ~kinds)
    rank = np.where(complete, weakest + FAMILY * (family.astype(float) + leads), -np.inf)
    best = np.full(n_tables, -np.inf)
    np.maximum.at(best, g_a, rank)
    chosen = complete & (rank >= best[g_a] - TIE_MARGIN)
    ties = np.bincount(g_a[chosen], minlength=n_tables)
    group_conf = np.where(ties[g_a] > 1, min(COMPOSITE, AMBIGUOUS), COMPOSITE)
    keep = chosen[inverse]
    return x[keep], y[keep], group_conf[inverse][keep]
