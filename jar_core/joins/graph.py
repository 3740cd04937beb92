"""The join graph of a schema: every column pair that joins, with its evidence and confidence
(METHOD.md, the join graph).

The rules, in order of trust, each a module of :mod:`jar_core.joins` with its table of evidence,
confidence and examples, and its tunables beside it:

1. :mod:`.declared`: declared foreign keys, confidence 1;
2. :mod:`.naming` (with :mod:`.hierarchy` and :mod:`.people`): naming conventions, and
   :mod:`.inclusion`: value inclusion;
3. :mod:`.value_support`: the sample values confirm or contradict a name;
4. :mod:`.types`: the types must agree, and a column that holds no key joins nothing;
5. :mod:`.across`: joins between two databases, only with ``cross_database``, on the candidate
   pairs of :mod:`.blocking`;
6. :mod:`.preference`: a referencing column references one key, its best;
7. :mod:`.uncertain`: what stays uncertain says so (ties, siblings through a key, values that fit
   any key, polymorphic references);
8. :mod:`.composite`: a reference on every column of a declared key of several columns;
9. :mod:`.copies`: a copy of a table joins as the table it copies;
10. :mod:`.alike`: in a database no other rule joins two tables of, two keys of one name, the
    search's evidence only.

Edges are kept best first; of two tables' sibling keys of one confidence, the finer goes first
(:func:`edge_order`: the one a strict subset of the other's tables hold, an admission's
``HADM_ID`` beside its patient's ``SUBJECT_ID``), so that a pair's shown join is the finer one.

Rules 3 and 4 judge the candidates of rule 2 (:mod:`.checks`); rule 1 then goes first, and the
rules after it rework the edges so far. The graph is sparse (one row per joining column pair,
never all pairs) and computed once per index; :func:`candidate_joins` reads the join matrix of a
candidate set from it.
"""
from __future__ import annotations

import numpy as np

from jar_core._gc import gc_paused
from jar_core.joins.across import MAX_CROSS_KEYS, across
from jar_core.joins.alike import names_alike
from jar_core.joins.checks import checked
from jar_core.joins.composite import composite
from jar_core.joins.copies import copy_joins
from jar_core.joins.declared import declared
from jar_core.joins.edges import EVIDENCE, JoinGraph, best_per_pair, class_code, first_of, is_undirected
from jar_core.joins.hierarchy import self_references
from jar_core.joins.inclusion import inclusion
from jar_core.joins.links import link_tables
from jar_core.joins.naming import naming
from jar_core.joins.people import person_roles
from jar_core.joins.preference import TIE_MARGIN, one_key_per_column
from jar_core.joins.through import siblings_through_keys
from jar_core.joins.profile import ColumnProfile
from jar_core.joins.uncertain import AMBIGUOUS, MAX_VALUE_TIES, THROUGH_KEY, polymorphic_references, uncertain
from jar_core.joins.value_support import VALUE_SUPPORT
from jar_core.schema import Schema

__all__ = ["JoinGraph", "build_join_graph", "candidate_joins", "candidate_join_matrices", "link_tables", "EVIDENCE",
           "VALUE_SUPPORT", "TIE_MARGIN", "AMBIGUOUS", "THROUGH_KEY", "MAX_VALUE_TIES", "MAX_CROSS_KEYS",
           "JOIN_RULES_VERSION", "BLOCK_COLUMNS"]

#: Version of the join rules, saved with the join graphs of an index: a graph saved under another
#: version (or by other rule modules: :func:`jar_core.joins.store.rules_version` adds a digest of
#: their source) is not used but inferred again. Bump it whenever a rule or a constant changes.
JOIN_RULES_VERSION = 58

#: Within databases the rules run on blocks of whole databases of about this many columns, not
#: on the whole schema at once: the same joins (none crosses two databases), without comparing
#: every ``id`` of a lake of 50,000 tables with every other.
BLOCK_COLUMNS = 4096

Edges = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # (f, k, confidence, evidence)


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
    """The rules of the module docstring, in order, over the profiles of ``schema``'s columns."""
    p = profile or ColumnProfile.from_schema(schema, col_offsets)
    edges = _within(p)  # rules 2, 3, 4, 6 and 7's polymorphic references, database by database
    if cross_database:  # rule 5: within databases as they are, and the blocked joins across them
        edges = _joined(edges, across(p, *edges))
    df, dk = declared(p)  # rule 1, first
    edges = best_per_pair(*_joined((df, dk, np.ones(len(df)), np.zeros(len(df), dtype=np.int64)), edges))
    f, k, conf, ev = copy_joins(p, *edges)  # rule 9
    conf = uncertain(p.n, f, k, conf, ev, p.database[f] == p.database[k])  # rule 7
    kept = conf > 0
    f, k, conf, ev = f[kept], k[kept], conf[kept], ev[kept]
    cf, ck, cconf = composite(p, f, k, conf, ev)  # rule 8
    if len(cf):
        evidence = np.full(len(cf), EVIDENCE.index("composite key"), dtype=np.int64)
        f, k, conf, ev = best_per_pair(*_joined((f, k, conf, ev), (cf, ck, cconf, evidence)))
    f, k, conf, ev = _joined((f, k, conf, ev), names_alike(p, f, k))  # rule 10
    order = edge_order(f, k, conf, ev, schema, p.database)
    f, k, conf, ev = f[order], k[order], conf[order], ev[order]
    return JoinGraph(
        a=f, b=k, confidence=conf.astype(np.float32), evidence=ev, table_a=p.table[f], table_b=p.table[k],
    )


def edge_order(
    f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray, schema: Schema, scope: np.ndarray,
) -> np.ndarray:
    """The order of a join graph's edges ``f -> k`` over ``schema``'s columns: best first, then by
    column; where a pair of tables' first edge is a sibling tied with a finer sibling, the finer
    first (:func:`finer_siblings`). ``scope``: per column, a code of its join scope
    (:attr:`Table.join_scope`)."""
    order = np.lexsort((k, f, -conf))
    for at, to in finer_siblings(f[order], k[order], conf[order], ev[order], schema, scope):
        order[[at, to]] = order[[to, at]]
    return order


def finer_siblings(
    f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray, schema: Schema, scope: np.ndarray,
) -> list[tuple[int, int]]:
    """Of edges sorted best first, the swaps ``(first, finer)`` that put a finer sibling first in
    its pair of tables: two sibling keys (two references of one key, one name) of one confidence
    between two tables, the name of one held by a strict subset of the tables of its join scope
    that hold the other's. Such a key is finer (``HADM_ID``, an admission, is in every table
    ``SUBJECT_ID``, its patient, is in but the patients'), and rows joined by it are one
    admission's, not every admission of one patient. Names in tables apart (``driverId`` in
    ``drivers``, ``raceId`` in ``races``) are no such pair: the order stays."""
    sib = np.flatnonzero(ev == EVIDENCE.index("sibling"))
    if len(sib) < 2:
        return []
    n = len(schema.tables)
    table = np.repeat(np.arange(n), [len(t.columns) for t in schema.tables])
    ta, tb = table[f], table[k]
    pair = np.minimum(ta, tb) * n + np.maximum(ta, tb)
    groups: dict[int, list[int]] = {}
    for e, key in zip(sib.tolist(), pair[sib].tolist()):
        groups.setdefault(key, []).append(e)
    groups = {key: es for key, es in groups.items() if len(es) > 1}
    if not groups:
        return []
    first = first_of(pair)
    first_of_pair = dict(zip(pair[first].tolist(), first.tolist()))
    name = [(int(d), c.name.casefold()) for d, c in zip(scope, (c for t in schema.tables for c in t.columns))]
    wanted = {name[f[e]] for es in groups.values() for e in es}
    held: dict[tuple[int, str], set[int]] = {}
    for c, key in enumerate(name):
        if key in wanted:
            held.setdefault(key, set()).add(int(table[c]))
    swaps = []
    for key, es in groups.items():
        top = first_of_pair[key]
        if top != es[0]:  # the pair's first edge is no sibling
            continue
        best = top
        for e in es[1:]:
            if conf[e] == conf[top] and held[name[f[e]]] < held[name[f[best]]]:
                best = e
        if best != top:
            swaps.append((top, best))
    return swaps


def _joined(first: Edges, then: Edges) -> Edges:
    """The edges ``first`` followed by ``then``."""
    return tuple(np.concatenate([x, y]) for x, y in zip(first, then))  # type: ignore[return-value]


def _within(p: ColumnProfile) -> Edges:
    """The inferred joins within databases, on blocks of whole databases of about
    :data:`BLOCK_COLUMNS` columns (:func:`_database_blocks`; the same joins as on the whole schema)."""
    blocks = _database_blocks(p.database, BLOCK_COLUMNS)
    if blocks is None:
        return _inferred(p)
    parts = []
    for rows in blocks:
        bf, bk, bconf, bev = _inferred(p.rows(rows))
        parts.append((rows[bf], rows[bk], bconf, bev))
    f, k = (np.concatenate([x[i] for x in parts]).astype(np.int64) for i in (0, 1))
    conf = np.concatenate([x[2] for x in parts]).astype(np.float64)
    ev = np.concatenate([x[3] for x in parts]).astype(np.int64)
    return f, k, conf, ev


def _inferred(p: ColumnProfile) -> Edges:
    """The inferred (not declared) joins ``(f, k, confidence, evidence)`` among ``p``'s columns
    within databases, one per column pair (positions in ``p``): rules 2, 3, 4, 6 and 7's
    polymorphic references."""
    keyish = p.keyish()
    # self-references (within a table) and people's roles (within a database) beside the names
    names, selfs, people = naming(p, keyish), self_references(p), person_roles(p)
    nf, nk, nconf, nrule = (np.concatenate(parts) for parts in zip(names, selfs, people))
    vf, vk, vconf = inclusion(p, keyish, class_code(p, "numeric"))
    f, k, conf, ev = checked(p, nf, nk, nconf, nrule, vf, vk, vconf)  # rules 3 and 4
    ok = p.database[f] == p.database[k]
    f, k, conf, ev = polymorphic_references(p, f[ok], k[ok], conf[ok], ev[ok])  # rule 7
    # one key per referencing column (siblings are two references, not a reference); a key in
    # a table of the referencing table's family (``FAC_ROOMS`` -> ``FAC_BUILDING``) is nearer
    f, k, conf, ev = one_key_per_column(p, f, k, conf, ev)  # rule 6
    return siblings_through_keys(p, f, k, conf, ev)  # rule 7: two references of one key, named apart


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
    ``i`` refers to ``l``'s rows); a join without a direction both ways (siblings, two references
    of one key, ``LABEVENTS.HADM_ID = PROCEDURES_ICD.HADM_ID``; two keys named alike): neither
    column refers to the other's rows."""
    n = len(tables)
    w = np.zeros((n, n), dtype=np.float32)
    cols = np.full((n, n, 2), -1, dtype=np.int64)
    evidence = np.full((n, n), -1, dtype=np.int64)
    refs = np.zeros((n, n), dtype=bool)
    if n < 2 or len(graph) == 0:
        return w, cols, evidence == 0, evidence, refs
    pos = np.full(n_tables, -1, dtype=np.int64)
    pos[tables] = np.arange(n)
    e = graph.incident(tables, n_tables)  # the candidates' edges only, best first
    ia, ib = pos[graph.table_a[e]], pos[graph.table_b[e]]
    m = (ia >= 0) & (ib >= 0) & (ia != ib)  # a table's join to itself joins no two tables
    ia, ib, e = ia[m], ib[m], e[m]
    a, b, conf, ev = graph.a[e], graph.b[e], graph.confidence[e], graph.evidence[e]
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
    both = is_undirected(ev)  # siblings, names alike: neither column refers to the other's rows
    refs[ib[both], ia[both]] = True
    return w, cols, evidence == 0, evidence, refs
