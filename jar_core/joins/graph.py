"""The join graph of a schema: every column pair that joins, with its evidence and confidence.

Composed from the rules, in order of trust (each a module of :mod:`jar_core.joins`):

1. declared foreign keys, confidence 1; a column that declares its reference gets no other join,
   except a column of a key of several columns (``lineitem.l_suppkey`` of the key to
   ``partsupp``), which still names its own entity and may reference it (``supplier``);
2. naming conventions (:mod:`.naming`) and value inclusion (:mod:`.inclusion`);
3. the sample values then confirm or contradict a name: at least half of ``f``'s values among
   ``k``'s adds :data:`VALUE_SUPPORT`; text columns with :data:`MIN_DISJOINT` or more values
   each and none in common halve it;
4. types: the two type classes (read off the samples where there are samples) must agree;
   where a declared type alone disagrees, a strong name match (>= 0.9) keeps 0.6 of its
   confidence (declared types are often wrong) and anything weaker is dropped, but a declared
   UUID and a column declared as other text never join (PostgreSQL and SQL Server cannot declare that reference:
   an external id or a code, ``external_customer_id``). A column that
   holds no key joins nothing (:func:`~jar_core.schema.keyless_type`: binary data, a document, a
   geometry, an array, money, a decimal with a fractional scale; sample values with fractions;
   a computed column, :attr:`~jar_core.schema.Column.computed`; or an enumeration's labels,
   :attr:`~jar_core.schema.Column.enum`), and a column declared a real number (``numeric``, ``float``) whose name has no key
   word and whose samples show no integers references no key declared integer: it is a measure
   (``EmployeePayHistory.Rate`` is no ``CurrencyRate``);
5. no join between two databases unless ``cross_database`` (a lake whose sources do join); then
   the joins within databases are the same as without it, and the joins across databases are
   judged by the same rules on the candidate pairs :mod:`.blocking` finds only (name aliases and
   values as blocks, a bounded window per block, values in more than
   :data:`~.blocking.VALUE_CAP` columns and bare key words such as ``id`` left out), at most
   :data:`MAX_CROSS_KEYS` per referencing column (see :func:`_across`): never all pairs, so the
   pairs compared and the edges kept grow linearly with the lake;
6. a referencing column references one key: only its best match is kept (all of them on a
   tie), so ``Track.GenreId`` joins ``Genre`` and not ``MediaType``; between keys of equal
   evidence, one in a table named by a qualifier that starts the referencing table's name and
   the column's entity is preferred (``LABEVENTS.ITEMID`` -> ``D_LABITEMS``, not ``D_ITEMS``),
   then one named after its own table (its name or head noun) to one naming
   only the start of its table (``film_actor.film_id`` -> ``film``, not the 1:1 ``film_text``), then one in a table of the referencing table's family
   (same leading name word, a one-word name heading its family: ``FAC_ROOMS.BUILDING_KEY`` ->
   ``FAC_BUILDING``, not ``BUILDINGS``; ``CustomerTransactions.CustomerID`` -> ``Customers``), then
   one whose table the column names whole, alone or after its own table's name (``artist.type`` ->
   ``artist_type``, not the other ``*_type`` tables);
7. what stays uncertain says so (:func:`_uncertain`): a reference kept to several keys on a tie
   (``SUBJECT_ID`` unique in five subject tables) cannot tell which table it joins, and
   counts at most :data:`AMBIGUOUS`; two siblings that both reference one key of the graph
   (``city.CountryCode``, ``countrylanguage.CountryCode`` -> ``country.Code``) join through
   that key's table, and their direct edge counts :data:`THROUGH_KEY`, below every direct join;
   a reference found by values alone that fits more than :data:`MAX_VALUE_TIES` keys is dropped
   (small integers lie inside every surrogate key); a polymorphic ``<x>_id`` beside an
   ``<x>_type`` references only a table that ``<x>`` names whole (:func:`_polymorphic`);
8. a table whose columns match a declared primary key of several columns, one column for each,
   references it on all of them (:func:`_composite`, evidence ``composite key``): ``lineitem
   (l_partkey, l_suppkey) -> partsupp`` where only primary keys are declared;
9. a copy of a table (``Customers_Archive``, ``FCLT_BUILDING_HIST``) joins as the table it
   copies (:func:`_copy_joins`, evidence ``copy``); no column references a copy's.

The graph is sparse (one row per joining column pair, never all pairs) and computed once per
index; :func:`candidate_joins` reads the join matrix of a candidate set from it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from jar_core._gc import gc_paused

from jar_core.joins import blocking
from jar_core.joins.declared import declared as declared_rule
from jar_core.joins.inclusion import inclusion, inclusion_ratio, MIN_INCLUSION, MIN_VALUES
from jar_core.joins.naming import RULES, context_aliases, is_archive, ref_aliases, naming, person_roles, self_references
from jar_core.joins.profile import UUID_TYPE, ColumnProfile, incidence, words
from jar_core.schema import Schema, TypeFamily

__all__ = ["JoinGraph", "build_join_graph", "candidate_joins", "EVIDENCE", "VALUE_SUPPORT", "TIE_MARGIN",
           "AMBIGUOUS", "THROUGH_KEY", "MAX_VALUE_TIES", "JOIN_RULES_VERSION"]

#: Version of the join rules, saved with the join graphs of an index: a graph saved under another
#: version (or by other rule modules: :func:`jar_core.joins.store.rules_version` adds a digest of
#: their source) is not used but inferred again. Bump it whenever a rule or a constant changes.
JOIN_RULES_VERSION = 45

#: Evidence names, indexed by :attr:`JoinGraph.evidence`.
EVIDENCE = ("declared", *RULES, "inclusion", "composite key", "copy")
VALUE_SUPPORT = 0.04
MIN_DISJOINT = 5
TIE_MARGIN = 1e-6
#: Rule 6's preferences between keys of equal evidence, the first above the second: a key named
#: after its own table, its name or head noun (``film.film_id``, ``ACADEMIC_TERMS.TERM_CODE``;
#: not ``film_text.film_id`` in a 1:1 extension table, which names only the start of its table),
#: then a key in the referencing table's family.
EXACT_NAME = 0.05
FAMILY = 0.03
#: ... and last, a key whose table's whole name is a name of the referencing column
#: (``BillToAddressID`` -> ``Address``, not ``EmailAddress``, whose head noun it names too), or
#: its own table's name followed by it (``artist.type`` -> ``artist_type``, not ``event_type``).
WHOLE_NAME = 0.01
#: In place of the family's and above a key named after its table, a key whose table is the
#: referencing table's qualifier's entity (``D_LABITEMS`` for ``LABEVENTS.ITEMID``, not ``D_ITEMS``;
#: ``current_nodes`` for ``current_node_tags.node_id``, not ``nodes``): a tie-breaker, as the others
#: (a qualifier of this many letters or more).
QUALIFIED = 0.055
QUALIFIER_LETTERS = 3
TYPE_MISMATCH = 0.6
#: Within databases the rules run on blocks of whole databases of about this many columns, not
#: on the whole schema at once: the same joins (none crosses two databases), without comparing
#: every ``id`` of a lake of 50,000 tables with every other.
BLOCK_COLUMNS = 4096
#: Across databases (``cross_database=True``), a referencing column joins at most this many
#: columns of other databases (the best, see :func:`_across`).
MAX_CROSS_KEYS = 3
#: Confidence cap of a reference kept to several keys on a tie (rule 7): no surer than a
#: sibling with value support.
AMBIGUOUS = 0.74
#: Confidence of two siblings that both reference one key of the graph (rule 7): a many-to-many
#: shortcut of the join through the key's table, kept above the default ``min_join_score``.
THROUGH_KEY = 0.55
#: A reference found by its values alone (no name says it) and tied between more keys than this
#: is dropped (rule 7): small integers are included in every surrogate key of a database.
MAX_VALUE_TIES = 2
#: Confidence of a reference to a declared primary key of several columns that the referencing
#: table matches column for column (rule 8).
COMPOSITE = 0.85
#: Confidence cap of a join that a copy's column takes from the copied table's column, and of a
#: copy's key column to the copied table's key (rule 9).
COPY = 0.95


@dataclass
class JoinGraph:
    """Joining column pairs ``a[e] = b[e]`` (global column positions, ``a`` the referencing side),
    sorted by decreasing confidence; ``table_a`` / ``table_b`` their tables."""

    a: np.ndarray
    b: np.ndarray
    confidence: np.ndarray
    evidence: np.ndarray  # index into EVIDENCE
    table_a: np.ndarray
    table_b: np.ndarray

    @property
    def declared(self) -> np.ndarray:
        return self.evidence == 0

    def __len__(self) -> int:
        return int(self.a.shape[0])


def _best_per_pair(f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray) -> tuple[np.ndarray, ...]:
    lo, hi = np.minimum(f, k), np.maximum(f, k)
    order = np.lexsort((ev, -conf, hi, lo))
    f, k, conf, ev, lo, hi = f[order], k[order], conf[order], ev[order], lo[order], hi[order]
    first = np.ones(len(f), dtype=bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    return f[first], k[first], conf[first], ev[first]


def build_join_graph(
    schema: Schema, col_offsets: np.ndarray | None = None, *, cross_database: bool = False,
    profile: ColumnProfile | None = None,
) -> JoinGraph:
    """Infer the join graph of ``schema`` (see the module docstring for the rules).

    Within databases the rules compare every column pair of a database. With ``cross_database``
    the graph holds the same joins within databases and, across them, only the pairs blocking
    finds (:mod:`.blocking`: a window of :data:`~.blocking.WINDOW` columns per name alias or
    value, values in more than :data:`~.blocking.VALUE_CAP` columns left out), at most
    :data:`MAX_CROSS_KEYS` keys of other databases per referencing column.
    """
    with gc_paused():  # the profiles are millions of small lists
        return _build_join_graph(schema, col_offsets, cross_database, profile)


def _build_join_graph(
    schema: Schema, col_offsets: np.ndarray | None, cross_database: bool, profile: ColumnProfile | None,
) -> JoinGraph:
    p = profile or ColumnProfile.from_schema(schema, col_offsets)
    blocks = _database_blocks(p.database, BLOCK_COLUMNS)
    if blocks is None:
        f, k, conf, ev = _inferred(p, False)
    else:
        parts = []
        for rows in blocks:
            bf, bk, bconf, bev = _inferred(p.rows(rows), False)
            parts.append((rows[bf], rows[bk], bconf, bev))
        f, k = (np.concatenate([x[i] for x in parts]).astype(np.int64) for i in (0, 1))
        conf = np.concatenate([x[2] for x in parts]).astype(np.float64)
        ev = np.concatenate([x[3] for x in parts]).astype(np.int64)
    if cross_database:  # within databases as they are, and the blocked joins across them
        xf, xk, xconf, xev = _across(p, f, k, conf, ev)
        f, k = np.concatenate([f, xf]), np.concatenate([k, xk])
        conf, ev = np.concatenate([conf, xconf]), np.concatenate([ev, xev])

    df, dk = declared_rule(p)
    f = np.concatenate([df, f])
    k = np.concatenate([dk, k])
    conf = np.concatenate([np.ones(len(df)), conf])
    ev = np.concatenate([np.zeros(len(df), dtype=np.int64), ev])
    f, k, conf, ev = _best_per_pair(f, k, conf, ev)
    f, k, conf, ev = _copy_joins(p, f, k, conf, ev)
    conf = _uncertain(p.n, f, k, conf, ev, p.database[f] == p.database[k])
    kept = conf > 0
    f, k, conf, ev = f[kept], k[kept], conf[kept], ev[kept]
    cf, ck, cconf = _composite(p, f, k, conf, ev)
    if len(cf):
        f, k = np.concatenate([f, cf]), np.concatenate([k, ck])
        conf = np.concatenate([conf, cconf])
        ev = np.concatenate([ev, np.full(len(cf), EVIDENCE.index("composite key"), dtype=np.int64)])
        f, k, conf, ev = _best_per_pair(f, k, conf, ev)
    order = np.lexsort((k, f, -conf))
    f, k, conf, ev = f[order], k[order], conf[order], ev[order]
    return JoinGraph(
        a=f, b=k, confidence=conf.astype(np.float32), evidence=ev, table_a=p.table[f], table_b=p.table[k],
    )


def _uncertain(
    n: int, f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray, within: np.ndarray,
) -> np.ndarray:
    """The confidences of the edges ``f -> k`` (``n`` columns) after rule 7, within databases
    (``within``; the joins across databases, bounded by rule 5, leave those within as they are):
    an inferred reference whose column references several keys is capped at :data:`AMBIGUOUS`;
    a sibling pair whose two columns reference one key lowered to :data:`THROUGH_KEY`; a
    reference found by values alone and tied between more than :data:`MAX_VALUE_TIES` keys
    dropped (confidence 0). Declared edges are left alone."""
    if len(f) == 0:
        return conf
    sib = (ev == EVIDENCE.index("sibling")) & within
    ref = (ev != EVIDENCE.index("sibling")) & within
    # keys a column is inferred to reference (a composite key's declared reference, partsupp's
    # for lineitem.l_suppkey, leaves its reference to supplier unambiguous)
    inferred = ref & (ev != 0)
    n_keys = np.bincount(f[inferred], minlength=n)
    ambiguous = inferred & (n_keys[f] > 1)
    refs = sparse.csr_matrix((np.ones(int(ref.sum()), dtype=np.float32), (f[ref], k[ref])), shape=(n, n))
    through = np.zeros(len(f), dtype=bool)
    if sib.any() and refs.nnz:
        shared = np.asarray(refs[f[sib]].multiply(refs[k[sib]]).sum(axis=1)).ravel() > 0
        through[np.flatnonzero(sib)] = shared
    conf = np.where(ambiguous, np.minimum(conf, AMBIGUOUS), conf)
    # values alone that fit many keys fit any: {3, 4, 5} is in every serial id of the database
    unfounded = ambiguous & (ev == EVIDENCE.index("inclusion")) & (n_keys[f] > MAX_VALUE_TIES)
    conf = np.where(unfounded, 0.0, conf)
    return np.where(through, np.minimum(conf, THROUGH_KEY), conf)


def _composite(
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
    distinct = np.bincount(inverse[_first_of(group * p.n + x)], minlength=len(codes))
    g_a, g_b = codes // n_tables, codes % n_tables
    complete = (size == key_size[g_b]) & (distinct == size)
    complete &= ~np.isin(np.minimum(g_a, g_b) * n_tables + np.maximum(g_a, g_b), declared_pairs)
    if not complete.any():
        return none
    weakest = np.full(len(codes), np.inf)
    np.minimum.at(weakest, inverse, c)
    head = _first_of(inverse)  # a pair of columns per group, for the family test
    family = _same_family(p, x[head], y[head])
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


def _copy_joins(
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
    sib = ev == EVIDENCE.index("sibling")
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
    return _best_per_pair(f, k, conf, ev)


def _first_of(values: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each distinct value of ``values``."""
    return np.unique(values, return_index=True)[1]


def _database_blocks(database: np.ndarray, limit: int) -> list[np.ndarray] | None:
    """Column positions in blocks of whole databases (about ``limit`` columns each, a larger
    database alone), each sorted; ``None`` when the whole schema is one block."""
    if len(database) <= limit:
        return None
    order = np.argsort(database, kind="stable")
    starts = np.concatenate([[0], np.flatnonzero(np.diff(database[order])) + 1, [len(order)]])
    blocks: list[np.ndarray] = []
    first, size = 0, 0  # the block's first database, its columns so far
    for d in range(len(starts) - 1):
        n = int(starts[d + 1] - starts[d])
        if size and size + n > limit:
            blocks.append(np.sort(order[starts[first] : starts[d]]))
            first, size = d, 0
        size += n
    blocks.append(np.sort(order[starts[first] :]))
    return blocks if len(blocks) > 1 else None


def _inferred(p: ColumnProfile, cross_database: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The inferred (not declared) joins ``(f, k, confidence, evidence)`` among ``p``'s columns,
    one per column pair (positions in ``p``)."""
    keyish = p.keyish()
    # self-references (within a table) and people's roles (within a database) beside the names
    names, selfs, people = naming(p, keyish), self_references(p), person_roles(p)
    nf, nk, nconf, nrule = (np.concatenate(parts) for parts in zip(names, selfs, people))
    vf, vk, vconf = inclusion(p, keyish, _class_code(p, "numeric"))
    f, k, conf, ev = _checked(p, nf, nk, nconf, nrule, vf, vk, vconf)
    if not cross_database:
        ok = p.database[f] == p.database[k]
        f, k, conf, ev = f[ok], k[ok], conf[ok], ev[ok]
    poly = np.flatnonzero(_polymorphic(p)[f] & (ev != EVIDENCE.index("sibling")))
    if len(poly):
        ok = np.ones(len(f), dtype=bool)
        ok[poly] = _whole_name(p, f[poly], k[poly])
        f, k, conf, ev = f[ok], k[ok], conf[ok], ev[ok]

    # one key per referencing column (siblings are two references, not a reference); a key in
    # a table of the referencing table's family (``FAC_ROOMS`` -> ``FAC_BUILDING``) is nearer
    sib = ev == EVIDENCE.index("sibling")
    rank = _rank(p, f, k, conf)
    best = np.full(p.n, -np.inf)
    np.maximum.at(best, f[~sib], rank[~sib])
    keep = sib | (rank >= best[f] - TIE_MARGIN)
    f, k, conf, ev = f[keep], k[keep], conf[keep], ev[keep]
    return _best_per_pair(f, k, conf, ev)


def _polymorphic(p: ColumnProfile) -> np.ndarray:
    """bool per column: a reference of several tables, named ``<x>_id`` beside an ``<x>_type`` of its
    table that names the referenced table's class (:attr:`ColumnProfile.typed_stem`: Rails'
    polymorphic ``record_id`` / ``record_type``, ``owner_id`` / ``owner_type``), not its own
    table's key. It references a table only where ``<x>`` names that table whole
    (``payment_method_id`` -> ``payment_methods``, ``assigned_facility_id`` -> ``facilities``), not
    one whose name only ends so (``idempotency_records``) nor its people."""
    return p.typed_stem & p.has_key_word & (p.names_table == 0)


def _rank(p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray) -> np.ndarray:
    """Rule 6's order of the keys ``k`` a column ``f`` may reference: the confidence, then a key
    named after its table (its name or head noun), then a key of the referencing table's family,
    then a key of a table named by the column's whole entity or role (:func:`_whole_name`)."""
    return (conf + EXACT_NAME * (p.names_table[k] == 2)
            + np.maximum(FAMILY * _same_family(p, f, k), QUALIFIED * _qualified(p, f, k))
            + WHOLE_NAME * _whole_name(p, f, k))


def _qualified(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Whether ``k``'s table is named by a qualifier and ``f``'s entity (``D_LABITEMS``: ``lab``
    and ``item``) and ``f``'s table's whole name, not one of ``k``'s table's, starts with that
    qualifier (``LABEVENTS.ITEMID``): the lab's items, not ``D_ITEMS``, which ``ITEMID`` names
    exactly."""
    out = np.zeros(len(f), dtype=bool)
    memo: dict[tuple[int, int, int], bool] = {}
    for e, (i, j) in enumerate(zip(f.tolist(), k.tolist())):
        key = (id(p.stems[i]), id(p.table_names[i]), int(p.table[j]))
        got = memo.get(key)
        if got is None:
            ends = {"".join(st) for st in p.stems[i] if st}
            own = p.table_names[i][0] if p.table_names[i] else ""
            got = memo[key] = bool(own) and own not in p.table_names[j] and any(
                len(n) - len(x) >= QUALIFIER_LETTERS and n.endswith(x) and own.startswith(n[:len(n) - len(x)])
                for n in p.table_names[j] for x in ends)
        out[e] = got
    return out


def _whole_name(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Whether the whole name of ``k``'s table is one of ``f``'s entity or role names (its words
    before the key word, or their last words: ``bill to address`` -> ``address``), or ``f``'s own
    table's name followed by its entity words (``artist.type`` -> ``artist_type``)."""
    out = np.zeros(len(f), dtype=bool)
    if not len(f):
        return out
    # names of each referencing column, one list per shared stems list; then one lookup per edge
    uf, f_row = np.unique(f, return_inverse=True)
    memo: dict[tuple[int, int], list[str]] = {}
    rows = []
    for i in uf.tolist():
        stems = p.stems[i]
        mkey = (id(stems), id(p.table_names[i]))
        got = memo.get(mkey)
        if got is None:
            entity, role, _, _ = ref_aliases(stems, False)  # the names the naming rules read it by
            got = memo[mkey] = entity + role + context_aliases(stems, p.table_names[i])
        rows.append(got)
    vocab: dict[str, int] = {}
    names, _ = incidence(rows, vocab)
    uk, k_row = np.unique(k, return_inverse=True)
    whole = np.array([vocab.get(p.table_names[i][0], -1) if p.table_names[i] else -1 for i in uk.tolist()],
                     dtype=np.int64)[k_row]
    known = np.flatnonzero(whole >= 0)
    if len(known):
        out[known] = np.asarray(names[f_row[known], whole[known]]).ravel() > 0
    return out


def _checked(
    p: ColumnProfile, nf: np.ndarray, nk: np.ndarray, nconf: np.ndarray, nrule: np.ndarray,
    vf: np.ndarray, vk: np.ndarray, vconf: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The name matches ``(nf, nk, nconf, nrule)`` and value inclusions ``(vf, vk, vconf)`` with
    the samples' and the types' say (rules 3 and 4), less declared references and pairs inside
    one table: ``(f, k, confidence, evidence)``, every database pair kept."""
    nev = nrule + 1  # EVIDENCE[0] is "declared"
    f = np.concatenate([nf, vf]).astype(np.int64)
    k = np.concatenate([nk, vk]).astype(np.int64)
    conf = np.concatenate([nconf, vconf]).astype(np.float64)
    ev = np.concatenate([nev, np.full(len(vf), EVIDENCE.index("inclusion"))]).astype(np.int64)
    is_name = ev != EVIDENCE.index("inclusion")

    # values confirm or contradict a name
    both = (p.n_values[f] >= MIN_VALUES) & (p.n_values[k] >= MIN_VALUES)
    ratio = np.nan_to_num(inclusion_ratio(p, f, k), nan=0.0)
    text = p.type_class[f] == _class_code(p, "text")
    disjoint = both & (ratio == 0) & text & (p.n_values[f] >= MIN_DISJOINT) & (p.n_values[k] >= MIN_DISJOINT)
    conf = np.where(is_name & both & (ratio >= 0.5), np.minimum(conf + VALUE_SUPPORT, 0.99), conf)
    conf = np.where(is_name & disjoint, conf * 0.5, conf)
    # two references to one key share values: siblings whose samples barely meet are not joined
    sib = ev == EVIDENCE.index("sibling")
    sym = np.maximum(ratio, np.nan_to_num(inclusion_ratio(p, k, f), nan=0.0))
    conf = np.where(sib & both & (sym < 0.5), 0.0, conf)

    # types
    other = p.other_class
    tf, tk = p.type_class[f], p.type_class[k]
    agree = (tf == tk) | (tf == other) | (tk == other)
    seen = p.from_samples[f] & p.from_samples[k]
    conf = np.where(agree, conf, np.where(~seen & (conf >= 0.9), conf * TYPE_MISMATCH, 0.0))
    # a declared UUID holds no text of another type, nor the other way round: PostgreSQL and SQL
    # Server cannot declare the reference (an external id or a code named like a table's key)
    declared_text = ~p.from_samples[f] & ~p.from_samples[k] & (tf == tk) & text
    conf = np.where(declared_text & (p.uuid[f] != p.uuid[k]), 0.0, conf)
    # no key in binary data, a document or money, nor in numbers with fractions; a real number
    # whose name has no key word is a measure beside keys declared integer (a pay rate is no
    # CurrencyRate)
    measure = p.keyless[f] | p.keyless[k] | (p.decimal[f] & ~p.has_key_word[f] & p.integer[k])
    conf = np.where(measure, 0.0, conf)

    # declared references; nothing inside one table but a self-reference (``ReportsTo``) and a
    # person's role in the table of people (``People.LastEditedBy``)
    inside = (p.table[f] == p.table[k]) & (ev != EVIDENCE.index("self")) & (ev != EVIDENCE.index("person"))
    ok = (conf > 0) & ~inside & ~p.fk_from[f] & ~p.fk_from[k]
    return f[ok], k[ok], conf[ok], ev[ok]


def _across(
    p: ColumnProfile, wf: np.ndarray, wk: np.ndarray, wconf: np.ndarray, wev: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The inferred joins between two databases ``(f, k, confidence, evidence)``, given the
    inferred joins within databases ``(wf, wk, wconf, wev)`` (kept as they are).

    The same rules decide, on the candidate pairs of :mod:`.blocking` only (name aliases and
    sample values as blocks, a window of :data:`~.blocking.WINDOW` columns per block, values in
    more than :data:`~.blocking.VALUE_CAP` columns left out). A column whose name is a bare key
    word (``id``, ``code``) names no entity and references nothing in another database. A
    referencing column keeps a key of another database only where no key of its own database
    is better (rule 6 over both), and at most :data:`MAX_CROSS_KEYS` of them (siblings
    included): the best by confidence, then by the share of its sample values inside the key,
    then the nearest in the blocking order, then the first.
    """
    rank_order = blocking.order_rank(p)
    keyish = p.keyish()

    def product(a_rows, b_rows):
        return blocking.name_pairs(a_rows, b_rows, rank_order, p.database)

    nf, nk, nconf, nrule = naming(p, keyish, product=product)
    # value blocks: a referencing column that may join on values alone probes its rarest values
    # among the keys' values (the values in more than VALUE_CAP columns left out)
    probing = (p.n_values >= MIN_VALUES) & ~(p.own_key | p.pk_declared)
    probes = blocking.value_probes(p.values, np.flatnonzero(probing), MIN_INCLUSION)
    common = blocking.common_values(p.values)
    key_values = sparse.diags(keyish.astype(np.float32)) @ p.values @ sparse.diags((~common).astype(np.float32))
    key_values.eliminate_zeros()
    pairs = blocking.windowed_pairs(probes, key_values.tocsr(), rank_order, p.database)
    vf, vk, vconf = inclusion(p, keyish, _class_code(p, "numeric"), pairs=pairs)
    f, k, conf, ev = _checked(p, nf, nk, nconf, nrule, vf, vk, vconf)
    bare = np.array([not any(s) for s in p.stems], dtype=bool)
    ok = (p.database[f] != p.database[k]) & ~bare[f]
    f, k, conf, ev = f[ok], k[ok], conf[ok], ev[ok]

    # rule 6 over the joins within and across databases: a key of another database only where
    # it is as good as the referencing column's best
    sib = ev == EVIDENCE.index("sibling")
    rank = _rank(p, f, k, conf)
    best = np.full(p.n, -np.inf)
    np.maximum.at(best, f[~sib], rank[~sib])
    wsib = wev == EVIDENCE.index("sibling")
    np.maximum.at(best, wf[~wsib], _rank(p, wf, wk, wconf)[~wsib])
    keep = sib | (rank >= best[f] - TIE_MARGIN)
    f, k, conf, ev, rank = f[keep], k[keep], conf[keep], ev[keep], rank[keep]

    # at most MAX_CROSS_KEYS per referencing column
    ratio = np.nan_to_num(inclusion_ratio(p, f, k), nan=0.0)
    distance = np.abs(rank_order[f] - rank_order[k])
    order = np.lexsort((k, distance, -ratio, -np.round(rank, 9), f))
    f, k, conf, ev = f[order], k[order], conf[order], ev[order]
    first = np.searchsorted(f, f, side="left")
    keep = np.arange(len(f)) - first < MAX_CROSS_KEYS
    f, k, conf, ev = f[keep], k[keep], conf[keep], ev[keep]
    return _best_per_pair(f, k, conf, ev)


def _same_family(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Whether the two columns' tables share a leading name word (``FAC_ROOMS``, ``FAC_BUILDING``)."""
    if len(f) == 0:
        return np.zeros(0, dtype=bool)
    ff, fk = p.lead_word[f], p.lead_word[k]
    return (ff == fk) & (ff != "")


def _class_code(p: ColumnProfile, name: str) -> int | None:
    return p.class_codes.get(name)


def candidate_joins(
    graph: JoinGraph, col_offsets: np.ndarray, tables: np.ndarray, n_tables: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(w, join_columns, declared, evidence)`` between the tables at positions ``tables``.

    ``w[i, l]`` is the confidence of the best join between tables ``i`` and ``l`` (0: none),
    ``join_columns[i, l]`` its two columns (positions within each table, ``-1`` where none),
    ``declared[i, l]`` whether it is a declared key and ``evidence[i, l]`` its rule
    (index into :data:`EVIDENCE`, ``-1`` where none).
    """
    return candidate_join_matrices(graph, col_offsets, tables, n_tables)[:4]


def candidate_join_matrices(
    graph: JoinGraph, col_offsets: np.ndarray, tables: np.ndarray, n_tables: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`candidate_joins` and the direction of each join, from one pass over the graph:
    ``(w, join_columns, declared, evidence, references)``, ``references[i, l]`` where the join
    goes from a column of ``i`` to ``l``'s key (``film_actor.actor_id`` -> ``actor.actor_id``:
    ``i`` refers to ``l``'s rows)."""
    n = len(tables)
    w = np.zeros((n, n), dtype=np.float32)
    cols = np.full((n, n, 2), -1, dtype=np.int64)
    evidence = np.full((n, n), -1, dtype=np.int64)
    refs = np.zeros((n, n), dtype=bool)
    if n < 2 or len(graph) == 0:
        return w, cols, evidence == 0, evidence, refs
    pos = np.full(n_tables, -1, dtype=np.int64)
    pos[tables] = np.arange(n)
    ia, ib = pos[graph.table_a], pos[graph.table_b]
    m = (ia >= 0) & (ib >= 0) & (ia != ib)  # a table's join to itself joins no two tables
    ia, ib = ia[m], ib[m]
    a, b, conf, ev = graph.a[m], graph.b[m], graph.confidence[m], graph.evidence[m]
    key = np.minimum(ia, ib) * n + np.maximum(ia, ib)
    _, first = np.unique(key, return_index=True)  # edges are sorted best first
    ia, ib, a, b, conf, ev = ia[first], ib[first], a[first], b[first], conf[first], ev[first]
    la = a - col_offsets[tables[ia]]
    lb = b - col_offsets[tables[ib]]
    w[ia, ib] = conf
    w[ib, ia] = conf
    cols[ia, ib, 0], cols[ia, ib, 1] = la, lb
    cols[ib, ia, 0], cols[ib, ia, 1] = lb, la
    evidence[ia, ib] = ev
    evidence[ib, ia] = ev
    refs[ia, ib] = True
    return w, cols, evidence == 0, evidence, refs


#: Raw type of a row's version (SQL Server's ``rowversion``); with a UUID (:data:`UUID_TYPE`), a
#: column that records a row's identity or version, not something it describes.
_ROW_VERSION_TYPE = re.compile(r"^\s*rowversion\b", re.I)


def _bookkeeping(type_: str | None) -> bool:
    """Whether a column of raw type ``type_`` records its row's identity or version (``rowguid uuid``)."""
    return bool(UUID_TYPE.match(type_ or "") or _ROW_VERSION_TYPE.match(type_ or ""))


def link_tables(schema: Schema, graph: JoinGraph, col_offsets: np.ndarray, *, min_confidence: float = 0.5) -> np.ndarray:
    """Boolean ``(T,)``: the tables that only link others (``film_category``, ``PlaylistTrack``).

    A link table refers to two tables or more (joins of ``min_confidence`` or more, or declared,
    from its columns to their keys), is named after one of them at least (its name holds all
    the words of theirs: ``film_category``, ``Has_Pet``; not ``rental``, which records events) and
    has no column of its own that describes anything: each column is a key (primary, or on either
    side of such a join), a date or time (``last_update``) or a row's identity or version
    (``rowguid uuid``). What it seems to cover by its name, it holds only as ids of the tables it
    refers to.
    """
    strong = graph.declared | (graph.confidence >= min_confidence)
    keys = np.zeros(int(col_offsets[-1]), dtype=bool)
    keys[graph.a[strong]] = True
    keys[graph.b[strong]] = True
    own = strong & (graph.table_a != graph.table_b)
    pairs = np.unique(np.stack([graph.table_a[own], graph.table_b[own]], axis=1), axis=0)  # sorted by table
    tables = schema.tables
    start = np.searchsorted(pairs[:, 0], np.arange(len(tables) + 1))  # each table's rows of ``pairs``
    link = np.zeros(len(tables), dtype=bool)
    for t in np.flatnonzero(np.diff(start) >= 2):  # refers to two or more
        name = set(words(tables[t].name))
        link[t] = all(
            keys[at] or c.primary_key or c.family is TypeFamily.DATETIME or _bookkeeping(c.type)
            for at, c in enumerate(tables[t].columns, start=int(col_offsets[t]))
        ) and any(set(words(tables[b].name)) <= name for b in pairs[start[t]:start[t + 1], 1].tolist())
    return link
