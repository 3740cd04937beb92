"""Per-question signals over the candidate set (METHOD.md, "Input signals").

* coarse relevance ``r_i = cos(emb(Q), emb(T_i))``;
* fine relevance ``F_ji = max_c cos(emb(q_j), emb(c))`` over the columns ``c`` of ``T_i``;
* join compatibility ``w_il`` with its join columns (:mod:`jar_core.joins.compat`).

All three are matrix products and reductions over the candidates' rows of the index.
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from jar_core.signals.hubness import corrected
from jar_core.signals.kinds import credit_kinds, kinds_among
from jar_core.signals.central import central_tables
from jar_core.signals.near_copies import near_copy_matrix
from jar_core.joins.compat import column_positions
from jar_core.joins.compat import join_compatibility

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["Signals", "coarse_relevance", "lexical_relevance", "fine_relevance", "compute_signals"]


@dataclass
class Signals:
    """The inputs every search strategy works from, for one question.

    Attributes:
        candidates: positions of the candidate tables in ``schema.tables``, shape ``(n,)``,
            ordered by decreasing coarse relevance.
        r: coarse relevance ``r_i``, shape ``(n,)``.
        F: fine relevance ``F_ji`` (sub-queries x candidates), shape ``(m, n)``.
        w: join compatibility ``w_il`` in [0, 1], shape ``(n, n)``, symmetric, zero diagonal.
        join_columns: ``join_columns[i, l] = (a, b)``: column ``a`` of candidate ``i`` joins column
            ``b`` of candidate ``l`` (positions in ``Table.columns``); ``-1`` where ``w_il == 0``.
            Shape ``(n, n, 2)``.
        subqueries: the sub-queries ``q_j`` (``m`` strings).
        declared: boolean ``(n, n)``, True where the join is a declared foreign key.
        segment_sim: optional ``cos(q_j, T_i)`` (sub-queries x candidates), used by CRUSH.
        evidence: optional int ``(n, n)``: the rule behind each join
            (:data:`jar_core.joins.graph.EVIDENCE`), ``-1`` where there is none.
        family: optional boolean ``(n, n)``: two tables of one database whose names share their
            leading word (a module prefix: ``SIS_DEPARTMENT``, ``SIS_SUBJECT_CODE``).
        references: optional boolean ``(n, n)``: ``[i, l]`` where ``i``'s join with ``l`` goes
            from a column of ``i`` to ``l``'s key (``film_actor`` refers to ``actor``), both ways
            for a join without a direction (siblings, two references of one key; keys named
            alike); ``None`` with the paper's pair score, which has no direction.
        links: optional boolean ``(n,)``: tables that only link others (``film_category``:
            keys and dates, no column of their own, :func:`jar_core.joins.graph.link_tables`);
            ``None`` with the paper's pair score.
        near_copies: optional boolean ``(n, n)``: two tables of one database with nearly the same
            columns (:func:`jar_core.signals.near_copies.near_copy_matrix`).
        central: optional boolean ``(n,)``: tables that most of their database's other tables
            reference (:func:`jar_core.signals.central.central_tables`); ``None`` with the paper's
            pair score.
        extends: optional boolean ``(n, n)``: ``[i, l]`` where ``i`` refers to ``l`` by its whole
            declared primary key, one row of ``i`` per row of ``l`` at most (a restaurant's
            ``location`` keyed by ``restaurant_id``): ``i`` extends ``l``. ``None`` with the
            paper's pair score.
    """

    candidates: np.ndarray
    r: np.ndarray
    F: np.ndarray
    w: np.ndarray
    join_columns: np.ndarray
    subqueries: list[str] = field(default_factory=list)
    declared: np.ndarray | None = None
    segment_sim: np.ndarray | None = None
    evidence: np.ndarray | None = None
    value_matches: list = field(default_factory=list)  # jar_core.candidates.values.ValueMatch
    family: np.ndarray | None = None  # bool (n, n): same database and same leading name word
    references: np.ndarray | None = None  # bool (n, n): i's join with l goes to l's key
    links: np.ndarray | None = None  # bool (n,): tables that only link others
    near_copies: np.ndarray | None = None  # bool (n, n): same database, nearly the same columns
    central: np.ndarray | None = None  # bool (n,): most of the database's tables reference it
    extends: np.ndarray | None = None  # bool (n, n): i refers to l by its whole declared primary key

    @property
    def n(self) -> int:
        return int(self.candidates.shape[0])


def coarse_relevance(index: "SchemaIndex", query_vector: np.ndarray) -> np.ndarray:
    """``r`` for every table of the index, shape ``(T,)``."""
    return index.table_vectors @ query_vector


def lexical_relevance(
    r: np.ndarray, candidates: np.ndarray, scored: np.ndarray, bm25: np.ndarray, weight: float,
) -> np.ndarray:
    """Coarse relevance ``r`` of ``candidates`` blended with their normalized BM25 (ours; not in
    METHOD.md): ``(1 - weight) * r + weight * b``, ``b`` read from ``bm25`` over the sorted table
    positions ``scored`` (0 for a table outside them, e.g. outside the scored shortlist)."""
    at = np.minimum(np.searchsorted(scored, candidates), len(scored) - 1)
    b = np.where(scored[at] == candidates, bm25[at], 0.0)
    return ((1.0 - weight) * r + weight * b).astype(np.float32)


def fine_relevance(index: "SchemaIndex", subquery_vectors: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """``F`` (sub-queries x ``tables``): the best column match of each sub-query in each table."""
    m = subquery_vectors.shape[0]
    if m == 0 or len(tables) == 0:
        return np.zeros((m, len(tables)), dtype=np.float32)
    sizes = index.col_offsets[tables + 1] - index.col_offsets[tables]
    cols = column_positions(index.col_offsets, tables)
    sims = subquery_vectors @ index.column_vectors[cols].T
    return np.maximum.reduceat(sims, np.concatenate([[0], np.cumsum(sizes)[:-1]]), axis=1)


def compute_signals(
    index: "SchemaIndex",
    candidates: np.ndarray,
    r: np.ndarray,
    subqueries: list[str],
    subquery_vectors: np.ndarray,
    *,
    segment_sim: bool = False,
    joins: str = "rules",
    cross_database_joins: bool = False,
    min_join_score: float = 0.0,
    hubness: float = 0.0,
    kind_values: float = 0.0,
    resolved: np.ndarray | None = None,
) -> Signals:
    """Assemble :class:`Signals` for ``candidates`` (positions in ``index.schema.tables``) whose
    coarse relevance is ``r``.

    ``hubness`` > 0 corrects fine relevance for hub tables (:mod:`jar_core.signals.hubness`); 0 is the
    paper's ``F``. ``kind_values`` > 0 covers a sub-query no candidate's column matches that well by
    the kinds tables of the strongest candidate's database (:mod:`jar_core.signals.kinds`), except
    the sub-queries ``resolved`` (bool per sub-query: its value was found among a column's samples).

    Joins weaker than ``min_join_score`` are dropped (``w = 0``): a weak join is no join,
    neither for the search nor in the returned join path.
    """
    candidates = np.asarray(candidates, dtype=np.int64)
    w, join_columns, declared, evidence, references = join_compatibility(
        index, candidates, mode=joins, cross_database=cross_database_joins
    )
    if min_join_score > 0:
        weak = w < min_join_score
        w = np.where(weak, 0.0, w).astype(np.float32)
        join_columns = np.where(weak[..., None], -1, join_columns)
        declared = declared & ~weak
        evidence = np.where(weak, -1, evidence)
        references = None if references is None else references & ~weak
    F = corrected(fine_relevance(index, subquery_vectors, candidates).astype(np.float32), index, candidates, hubness)
    if kind_values > 0:
        F = credit_kinds(F, kinds_among(index, candidates, r), kind_values, resolved)
    seg = None
    if segment_sim:
        seg = (subquery_vectors @ index.table_vectors[candidates].T).astype(np.float32)
    return Signals(
        candidates=candidates,
        r=np.asarray(r, dtype=np.float32),
        F=F,
        w=w,
        join_columns=join_columns,
        subqueries=list(subqueries),
        declared=declared,
        segment_sim=seg,
        evidence=evidence,
        family=_family(index, candidates),
        references=references,
        links=None if references is None else index.link_tables(cross_database=cross_database_joins)[candidates],
        near_copies=near_copy_matrix(index, candidates),
        central=None if references is None else central_tables(index, cross_database_joins)[candidates],
        extends=None if references is None else _extends(index, candidates, join_columns, references),
    )


def _extends(
    index: "SchemaIndex", candidates: np.ndarray, join_columns: np.ndarray, references: np.ndarray,
) -> np.ndarray:
    """:attr:`Signals.extends`: the references from a candidate's column that is its table's
    whole declared primary key."""
    out = np.zeros(references.shape, dtype=bool)
    tables = index.schema.tables
    for i, t in enumerate(candidates.tolist()):
        cols = tables[t].columns
        keyed = [c for c, col in enumerate(cols) if col.primary_key]
        if len(keyed) == 1:
            out[i] = references[i] & (join_columns[i, :, 0] == keyed[0])
    return out


#: This stage's state: each index's family keys, for as long as the index lives.
_FAMILY_KEYS: "weakref.WeakKeyDictionary[SchemaIndex, np.ndarray]" = weakref.WeakKeyDictionary()


def _family(index: "SchemaIndex", candidates: np.ndarray) -> np.ndarray:
    """:attr:`Signals.family` of ``candidates``: the tables of one database whose multi-word names
    share their leading word, a module prefix (``SIS_DEPARTMENT``, ``SIS_SUBJECT_CODE``). A leading
    word that is itself a table of the database (``film`` beside ``film_actor``, ``film_category``;
    ``store`` beside ``store_sales``) names an entity, and the tables after it refer to that entity
    rather than share a subject area: no family."""
    keys = _FAMILY_KEYS.get(index)
    if keys is None:
        from jar_core.joins.profile import words  # in the singular: ``films`` is ``film``

        from jar_core.index.structure import structure

        s = structure(index.schema)  # each distinct name split once; no table read
        heads: dict[str, int] = {}
        split = [words(n) for n in s.names]
        n_words = np.array([len(w) for w in split], dtype=np.int64)[s.name]
        head = np.array([heads.setdefault(w[0], len(heads)) if w else -1 for w in split], dtype=np.int64)[s.name]
        head_len = np.array([len(w[0]) if w else 0 for w in split], dtype=np.int64)[s.name]
        pair = s.database * max(len(heads), 1) + head  # (database, leading word)
        entities = np.unique(pair[n_words == 1])
        module = (n_words > 1) & (head_len >= 2) & ~np.isin(pair, entities)
        # equal keys: one database's module; every other table a key of its own (negative)
        keys = _FAMILY_KEYS[index] = np.where(module, pair, -1 - np.arange(len(pair)))
    k = keys[candidates]
    fam = k[:, None] == k[None, :]
    np.fill_diagonal(fam, False)
    return fam
