"""Join compatibility ``w_il`` between candidate tables (METHOD.md, "Input signals").

The column-pair score follows the reference code:
``uniq * (0.5 * value_overlap + 0.5 * (0.5 * semantic_name_sim + 0.5 * exact_name_overlap))``,
zero unless the two columns are of the same type class and at least one is (partly) unique.
A declared foreign key scores 1 (a certain join), and the referencing column of a declared key
gets no inferred join to any other column. ``w_il`` is the best pair between the two tables and
that pair is the join key.

Fallbacks where a source lacks statistics (documented in ``docs/signals.md``):

* no uniqueness ratio: a key-likeness estimate from the schema (:func:`key_likeness`);
* no value samples on either side: the value term is dropped and the name terms carry the
  whole weight (``uniq * (0.5 * semantic + 0.5 * exact)``).

Everything is computed with matrix operations over the candidates' columns. The scores read an
index through :class:`JoinSource` (:class:`~jar_core.index.schema_index.SchemaIndex` is one):
the index imports this module, not the other way round.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, Sequence

import numpy as np
from scipy import sparse

from jar_core.joins.name_facts import flat_name
from jar_core.joins.profile import incidence
from jar_core.schema import Column, Schema, Table, join_class

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.joins.graph import JoinGraph

__all__ = ["ColumnFeatures", "JoinSource", "join_compatibility", "paper_join_compatibility", "key_likeness",
           "pair_scores", "column_positions", "JOIN_MODES"]

#: ``"rules"``: the join graph of :mod:`jar_core.joins` (default); ``"paper"``: the reference pair score.
JOIN_MODES = ("rules", "paper")

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_KEY_SUFFIX = re.compile(r"(^|[_\s])(id|key|code|no|num|number|nr)$|[a-z](Id|ID|Key|Code|No)$|^[A-Z]*(ID|KEY)$", re.I)


def _singular(w: str) -> str:
    if len(w) > 3 and w.endswith("ies"):
        return w[:-3] + "y"
    if len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
        return w[:-1]
    return w


def key_likeness(table: Table, column: Column) -> float:
    """Estimated uniqueness of a column whose distinct/rows ratio is unknown.

    1.0 for a single-column primary key or the table's own id (``id``, ``<table>_id``,
    ``<table>id``, ``<table>_key``, ``<table>_code``); 0.7 for another key-like name
    (``*_id``, ``*_key``, ``*_code``, ``*_no``) or a column of a composite primary key;
    0.2 otherwise (not unique as far as the schema tells).
    """
    pk = table.primary_key
    name = column.name.lower()
    if pk == (column.name,):
        return 1.0
    tname = _singular(flat_name(table.name))
    flat = flat_name(name)
    if name == "id" or flat in {f"{tname}{s}" for s in ("id", "key", "code", "no")}:
        return 1.0
    if column.primary_key or _KEY_SUFFIX.search(column.name):
        return 0.7
    return 0.2


@functools.lru_cache(maxsize=1 << 16)
def _part_words(text: str) -> tuple[str, ...]:
    """Singular words of one humanized name (database, table or column names repeat: cached)."""
    return tuple(_singular(w) for w in _WORD.findall(text))


def _fk_partners(pairs: set[tuple[int, int]], n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)``: column ``a``'s declared partners are ``indices[indptr[a]:indptr[a + 1]]``."""
    arr = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(arr[:, 0], minlength=n), out=indptr[1:])
    return indptr, arr[:, 1].copy()


def _value_key(v: object) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v).strip().lower()


@dataclass
class ColumnFeatures:
    """Per-column inputs of the pair score, stacked like ``SchemaIndex.name_vectors``."""

    type_class: np.ndarray  # int code per column
    uniq: np.ndarray  # distinct/rows ratio, or the key-likeness estimate
    uniq_known: np.ndarray  # bool
    words: sparse.csr_matrix  # column x word incidence of "<db> <table> <column>"
    n_words: np.ndarray
    values: sparse.csr_matrix  # column x distinct sample value incidence
    n_values: np.ndarray
    name_vectors: np.ndarray
    fk_pairs: set[tuple[int, int]]  # global column positions (a, b), both orders
    fk_columns: np.ndarray  # bool: the referencing column of a declared foreign key
    #: ``fk_pairs`` by column, for lookups per query: the partners of column ``a`` are
    #: ``fk_indices[fk_indptr[a]:fk_indptr[a + 1]]`` (derived from ``fk_pairs`` when not given).
    fk_indptr: np.ndarray | None = None
    fk_indices: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.fk_indptr is None or self.fk_indices is None:
            self.fk_indptr, self.fk_indices = _fk_partners(self.fk_pairs, len(self.type_class))

    @classmethod
    def from_schema(cls, schema: Schema, offsets: np.ndarray, name_vectors: np.ndarray) -> "ColumnFeatures":
        """The features of every column of ``schema`` (``offsets[t]``: table ``t``'s first column;
        ``name_vectors``: the embedded ``"<db> <table> <column>"`` texts, stacked alike)."""
        from jar_core._gc import gc_paused

        with gc_paused():  # a few small lists per column
            return cls._from_schema(schema, offsets, name_vectors)

    @classmethod
    def _from_schema(cls, schema: Schema, offsets: np.ndarray, name_vectors: np.ndarray) -> "ColumnFeatures":
        classes: dict[str, int] = {}
        type_class, uniq, known, words, values = [], [], [], [], []
        from jar_core.names import humanize

        for t in schema.tables:
            # the words of column_name_text(t, i), "<db> <table> <column>", part by part
            head = _part_words(humanize(t.database)) + _part_words(humanize(t.name))
            for c in t.columns:
                type_class.append(classes.setdefault(join_class(c.type, c.family), len(classes)))
                known.append(c.unique_ratio is not None)
                uniq.append(c.unique_ratio if c.unique_ratio is not None else key_likeness(t, c))
                words.append(list(head + _part_words(humanize(c.name))))
                values.append([x for x in (_value_key(v) for v in c.sample if v is not None) if x != ""])
        w_m, n_w = incidence(words)
        v_m, n_v = incidence(values)
        fk_pairs: set[tuple[int, int]] = set()
        fk_columns = np.zeros(int(offsets[-1]), dtype=bool)
        from jar_core.joins.declared import declared_columns

        for ga, gb, _ in declared_columns(schema, offsets):
            fk_pairs.add((ga, gb))
            fk_pairs.add((gb, ga))
            fk_columns[ga] = True
        return cls(
            type_class=np.array(type_class, dtype=np.int32),
            uniq=np.array(uniq, dtype=np.float32),
            uniq_known=np.array(known, dtype=bool),
            words=w_m,
            n_words=n_w,
            values=v_m,
            n_values=n_v,
            name_vectors=name_vectors,
            fk_pairs=fk_pairs,
            fk_columns=fk_columns,
        )


class JoinSource(Protocol):
    """What the join scores read of an index (:class:`~jar_core.index.schema_index.SchemaIndex`)."""

    schema: Schema
    #: ``col_offsets[t]``: the position of table ``t``'s first column among all columns
    col_offsets: np.ndarray

    @property
    def features(self) -> ColumnFeatures:
        """The :class:`ColumnFeatures` of every column (the paper's pair score)."""
        ...

    def join_graph(self, *, cross_database: bool = False) -> "JoinGraph":
        """The schema's join graph (the rules)."""
        ...


def column_positions(offsets: np.ndarray, tables: Sequence[int]) -> np.ndarray:
    """Positions of the columns of the tables at positions ``tables``, table after table
    (``offsets[t]`` is table ``t``'s first column)."""
    if not len(tables):
        return np.zeros(0, dtype=np.int64)
    t = np.asarray(tables, dtype=np.int64)
    starts, sizes = offsets[t], offsets[t + 1] - offsets[t]
    return np.repeat(starts - np.cumsum(sizes) + sizes, sizes) + np.arange(int(sizes.sum()))


def pair_scores(f: ColumnFeatures, cols: np.ndarray) -> np.ndarray:
    """The column-pair score matrix over the global column positions ``cols``."""
    tc = f.type_class[cols]
    u = f.uniq[cols]
    uniq = np.maximum(u[:, None], u[None, :])
    same = tc[:, None] == tc[None, :]
    sem = np.clip(f.name_vectors[cols] @ f.name_vectors[cols].T, 0.0, 1.0)
    wm = f.words[cols]
    common = (wm @ wm.T).toarray()
    nw = f.n_words[cols]
    exact = common / np.maximum(np.minimum(nw[:, None], nw[None, :]), 1)
    names = 0.5 * sem + 0.5 * exact
    vm = f.values[cols]
    nv = f.n_values[cols]
    has_values = (nv[:, None] > 0) & (nv[None, :] > 0)
    overlap = (vm @ vm.T).toarray() / np.maximum(np.minimum(nv[:, None], nv[None, :]), 1)
    score = uniq * np.where(has_values, 0.5 * overlap + 0.5 * names, names)
    score = np.where(same & (uniq > 0), score, 0.0)
    return score.astype(np.float32)


def declared_matrix(f: ColumnFeatures, cols: np.ndarray) -> np.ndarray:
    """``m[i, j]``: columns ``cols[i]`` and ``cols[j]`` (distinct global positions) are a declared
    foreign key, in either direction; read from the columns' partner lists, not from every key."""
    m = np.zeros((len(cols), len(cols)), dtype=bool)
    starts = f.fk_indptr[cols]
    counts = f.fk_indptr[cols + 1] - starts
    total = int(counts.sum())
    if total == 0:
        return m
    src = np.repeat(np.arange(len(cols)), counts)
    partners = f.fk_indices[np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(starts, counts)]
    sorter = np.argsort(cols, kind="stable")
    j = np.minimum(np.searchsorted(cols, partners, sorter=sorter), len(cols) - 1)
    hit = cols[sorter[j]] == partners
    m[src[hit], sorter[j[hit]]] = True
    return m


def join_compatibility(
    index: JoinSource, tables: np.ndarray, *, mode: str = "rules", cross_database: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """``(w, join_columns, declared, evidence, references)`` for the tables at positions ``tables``.

    ``mode="rules"`` reads them from the index's join graph (:mod:`jar_core.joins`; ``evidence``
    indexes :data:`jar_core.joins.graph.EVIDENCE`; ``references[i, l]`` where the join goes from
    ``i`` to ``l``'s key); ``mode="paper"`` scores column pairs with the reference formula
    (:func:`paper_join_compatibility`; ``evidence`` is 0 for a declared key, 1 otherwise, -1
    where there is no join; ``references`` is ``None``: the pair score has no direction).
    """
    tables = np.asarray(tables, dtype=np.int64)
    if mode == "paper":
        w, cols, declared = paper_join_compatibility(index, tables)
        evidence = np.where(w > 0, np.where(declared, 0, 1), -1)
        return w, cols, declared, evidence, None
    from jar_core.joins import candidate_join_matrices

    graph = index.join_graph(cross_database=cross_database)
    return candidate_join_matrices(graph, index.col_offsets, tables, len(index.schema.tables))


def paper_join_compatibility(
    index: JoinSource, tables: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(w, join_columns, declared)`` with the reference pair score (see ``Signals``).

    ``w[i, l]`` is the best column-pair score between tables ``i`` and ``l``; ``join_columns[i, l]``
    the column positions (within each table) attaining it, ``-1`` where ``w`` is 0;
    ``declared[i, l]`` whether that pair is a declared foreign key.
    """
    f = index.features
    n = len(tables)
    sizes = index.col_offsets[tables + 1] - index.col_offsets[tables]
    cols = column_positions(index.col_offsets, tables)
    owner = np.repeat(np.arange(n), sizes)
    score = pair_scores(f, cols)
    declared_cols = np.zeros_like(score, dtype=bool)
    if len(f.fk_indices):
        declared_cols = declared_matrix(f, cols)
        # a column whose reference is declared joins that reference only: no inferred joins
        # from it (two surrogate keys 1..n overlap in values without being related)
        fk_side = f.fk_columns[cols]
        score = np.where(declared_cols, 1.0, np.where(fk_side[:, None] | fk_side[None, :], 0.0, score))
    score[owner[:, None] == owner[None, :]] = 0.0  # no joins inside a table
    w = np.zeros((n, n), dtype=np.float32)
    join_columns = np.full((n, n, 2), -1, dtype=np.int64)
    declared = np.zeros((n, n), dtype=bool)
    if n == 0 or score.size == 0:
        return w, join_columns, declared
    row_starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    w = np.maximum.reduceat(np.maximum.reduceat(score, row_starts, axis=0), row_starts, axis=1)
    best = (score == w[owner][:, owner]) & (score > 0)
    ri, ci = np.nonzero(best)  # row-major: the first hit per table pair is deterministic
    keys = owner[ri] * n + owner[ci]
    _, first = np.unique(keys, return_index=True)
    ri, ci = ri[first], ci[first]
    ti, tl = owner[ri], owner[ci]
    join_columns[ti, tl, 0] = ri - row_starts[ti]
    join_columns[ti, tl, 1] = ci - row_starts[tl]
    declared[ti, tl] = declared_cols[ri, ci]
    return w.astype(np.float32), join_columns, declared
