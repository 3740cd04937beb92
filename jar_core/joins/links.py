"""Link tables: the tables that only link others (``film_category``, ``PlaylistTrack``), read off
the join graph (METHOD.md, the join graph; the signals read them)."""
from __future__ import annotations

import re

import numpy as np

from jar_core.joins.edges import JoinGraph
from jar_core.joins.name_facts import UUID_TYPE
from jar_core.joins.words import words
from jar_core.schema import Schema, TypeFamily

__all__ = ["link_tables"]


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
