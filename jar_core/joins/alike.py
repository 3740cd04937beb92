"""Rule 10 of the join graph (METHOD.md, the join graph): in a database the other rules join
nothing in, two keys of one name are the search's evidence only.

=====================  ==============================================  =======================  ====================================
rule (evidence)        evidence                                        confidence               example
=====================  ==============================================  =======================  ====================================
``names alike``        two columns of two tables of one database,      :data:`SCORE`            ``tags.id``, ``torrents.id``
                       each a key by its name (its table's own key or                           (KaggleDBQA's WhatCDHipHop without
                       a key word), of one name and one type                                    keys)
                       class, not both its table's first column nor
                       both declared primary keys, where no other
                       rule joins two tables of the database
=====================  ==============================================  =======================  ====================================

Without declared keys and rows, some databases give the rules nothing: a torrent's tags keyed by
a bare ``id`` that is the torrent's (``tags.id`` -> ``torrents.id``), a tweet's ``uid`` beside a
user profile's. The paper's pair score still joins such tables by their names, and the search
found them through it; here nothing joined them, and a question about a torrent's tags got the
torrents and tables of other databases. Two keys of one name may as well be two surrogate keys
that hold unrelated rows (Spider's ``TV_Channel.id`` and ``Cartoon.id``, ``wine.No`` and
``appellations.No``), so such a join is the search's evidence only
(:data:`jar_core.joins.calibration.SEARCH_ONLY`): the answer lists it as an unverified candidate
where no key is known, never as a key. Two first columns (``customer.id``, ``orders.id``) or two
declared primary keys are two tables' own keys, no such pair: one of the two must be a key column
after its table's first, as a reference is. A database the rules join at all gets none: their
joins say how its tables fit together.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from jar_core.joins.edges import EVIDENCE
from jar_core.joins.profile import ColumnProfile

__all__ = ["names_alike", "SCORE"]

#: The rules' score of two keys of one name in a database the rules join nothing in, above the
#: default ``min_join_score`` so that the search may use it. Measured on the development suite
#: (``run_suite.py``): at a sibling's 0.55 (:data:`~.uncertain.THROUGH_KEY`) no figure moved; at
#: 0.8 KaggleDBQA without keys gained its two questions of a torrent's tags (complete recall at
#: K = 3 and 5 90.9 -> 93.2 and 95.5) and no other figure moved.
SCORE = 0.8


def names_alike(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``names alike`` edges ``(f, k, confidence, evidence)`` of the databases of ``p`` in which
    the edges ``f -> k`` (every other rule's) join no two tables: per name, the first such key of
    each table joined to the first of every later table, unless both are their tables' first
    columns or both declared primary keys."""
    n_db = int(p.database.max()) + 1 if p.n else 0
    lead = np.ones(p.n, dtype=bool)  # its table's first column (columns are stacked table by table)
    lead[1:] = p.table[1:] != p.table[:-1]
    # a database of one table has no two tables to join (a lake's tables each on their own)
    joined = np.bincount(p.database[lead], minlength=n_db) < 2
    joined[p.database[f[p.table[f] != p.table[k]]]] = True
    keyish = (p.own_key | p.has_key_word) & ~p.keyless & ~p.flag
    groups: dict[tuple[int, str, int], dict[int, int]] = defaultdict(dict)
    for i in np.flatnonzero(keyish & ~joined[p.database]).tolist():
        if p.full_names[i]:  # per (database, name, type class): each table's first such column
            groups[(int(p.database[i]), p.full_names[i][0], int(p.type_class[i]))].setdefault(int(p.table[i]), i)
    out_f, out_k = [], []
    for cols in groups.values():
        firsts = list(cols.values())
        for x in range(len(firsts)):
            for y in range(x + 1, len(firsts)):
                a, b = firsts[x], firsts[y]
                if not (lead[a] and lead[b]) and not (p.pk_declared[a] and p.pk_declared[b]):
                    out_f.append(a)
                    out_k.append(b)
    n = len(out_f)
    return (np.asarray(out_f, dtype=np.int64), np.asarray(out_k, dtype=np.int64), np.full(n, SCORE),
            np.full(n, EVIDENCE.index("names alike"), dtype=np.int64))
