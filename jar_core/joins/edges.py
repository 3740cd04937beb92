"""Edges of the join graph while the rules build it: ``(f, k, confidence, evidence)`` arrays,
``f`` the referencing column and ``k`` the key (METHOD.md, the join graph), and their evidence
names.

Every rule of :mod:`.graph`'s pipeline takes and gives such arrays; :data:`EVIDENCE` names each
rule's evidence in the order the saved graphs index it (never reorder it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jar_core.joins.naming import RULES
from jar_core.joins.profile import ColumnProfile

__all__ = ["JoinGraph", "EVIDENCE", "SIBLINGS", "UNDIRECTED", "is_sibling", "is_undirected", "best_per_pair", "first_of", "class_code", "table_index"]


#: Evidence names, indexed by :attr:`JoinGraph.evidence` (``sibling apart``: two references of one
#: key named apart, :mod:`.through`; ``names alike``: two keys of one name in a database nothing
#: else joins, :mod:`.alike`).
EVIDENCE = ("declared", *RULES, "inclusion", "composite key", "copy", "sibling apart", "names alike")
#: The evidence of two references of one key (named alike, or apart): siblings, no reference.
SIBLINGS = (EVIDENCE.index("sibling"), EVIDENCE.index("sibling apart"))
#: The evidence of joins without a direction: siblings, and two keys of one name (``names alike``).
UNDIRECTED = (*SIBLINGS, EVIDENCE.index("names alike"))


def is_sibling(evidence: np.ndarray) -> np.ndarray:
    """bool per edge: its ``evidence`` (indices into :data:`EVIDENCE`) is a sibling's (:data:`SIBLINGS`)."""
    return np.isin(evidence, SIBLINGS)


def is_undirected(evidence: np.ndarray) -> np.ndarray:
    """bool per edge: its ``evidence`` gives it no direction (:data:`UNDIRECTED`): neither column
    refers to the other's rows."""
    return np.isin(evidence, UNDIRECTED)


@dataclass(eq=False)  # compared by identity: a graph keys the caches of the stages that read it
class JoinGraph:
    """Joining column pairs ``a[e] = b[e]`` (global column positions, ``a`` the referencing side),
    sorted by decreasing confidence; ``table_a`` / ``table_b`` their tables."""

    a: np.ndarray
    b: np.ndarray
    confidence: np.ndarray
    evidence: np.ndarray  # index into EVIDENCE
    table_a: np.ndarray
    table_b: np.ndarray

    #: Per table, the numbers of the edges with an end in it: ``(offsets, edges)``, table ``t``'s
    #: edges ``edges[offsets[t]:offsets[t + 1]]`` in the graph's order (:meth:`by_table`).
    table_index: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def declared(self) -> np.ndarray:
        return self.evidence == 0

    def __len__(self) -> int:
        return int(self.a.shape[0])

    def by_table(self, n_tables: int) -> tuple[np.ndarray, np.ndarray]:
        """``(offsets, edges)``: :attr:`table_index`, built once from the edges where the graph was
        not saved with it (a join of a table to itself listed once)."""
        if self.table_index is None or len(self.table_index[0]) != n_tables + 1:
            self.table_index = table_index(self.table_a, self.table_b, n_tables)
        return self.table_index

    def incident(self, tables: np.ndarray, n_tables: int) -> np.ndarray:
        """The numbers of the edges with an end in one of ``tables``, each once, in the graph's
        order (best first): read from :meth:`by_table`, a question's candidates' edges only."""
        offsets, edges = self.by_table(n_tables)
        t = np.asarray(tables, dtype=np.int64)
        starts, lens = offsets[t], offsets[t + 1] - offsets[t]
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        shift = np.repeat(starts - (np.cumsum(lens) - lens), lens)
        return np.unique(edges[shift + np.arange(total)]).astype(np.int64, copy=False)


def table_index(table_a: np.ndarray, table_b: np.ndarray, n_tables: int) -> tuple[np.ndarray, np.ndarray]:
    """:attr:`JoinGraph.table_index` of edges between tables ``table_a[e]`` and ``table_b[e]``."""
    n = len(table_a)
    ids = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
    other = table_b != table_a  # a self-join is listed under its table once
    ends = np.concatenate([table_a, table_b[other]]).astype(np.int64, copy=False)
    ids = np.concatenate([ids, ids[other]])
    order = np.argsort(ends, kind="stable")
    offsets = np.zeros(n_tables + 1, dtype=np.int64)
    np.cumsum(np.bincount(ends, minlength=n_tables), out=offsets[1:])
    return offsets, ids[order]


def best_per_pair(f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray) -> tuple[np.ndarray, ...]:
    lo, hi = np.minimum(f, k), np.maximum(f, k)
    order = np.lexsort((ev, -conf, hi, lo))
    f, k, conf, ev, lo, hi = f[order], k[order], conf[order], ev[order], lo[order], hi[order]
    first = np.ones(len(f), dtype=bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    return f[first], k[first], conf[first], ev[first]


def first_of(values: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each distinct value of ``values``."""
    return np.unique(values, return_index=True)[1]


def class_code(p: ColumnProfile, name: str) -> int | None:
    return p.class_codes.get(name)
