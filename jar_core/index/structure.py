"""The structure of a corpus as arrays: which database, join scope and name each table has, which
column names it holds, and which tables are copies of one another (METHOD.md, "Offline
indexing"; the copies' structure of "Copies collapse").

The stages that group or compare every table of the corpus (copies collapse, database scope,
table families, near copies, the decomposer's vocabulary) read these arrays rather than the
tables: a table's names are codes into lists of distinct strings, so a lake of copies holds each
name once. A schema built in memory works them out once (:func:`structure`, kept as long as the
schema lives); an index saved by :mod:`jar_core.index.stored_schema` holds them ready, so a
loaded lake is grouped without reading its tables.

Example:
    >>> from jar_core.schema import Column, Schema, Table
    >>> s = structure(Schema([Table("a", "t", [Column("id")]), Table("b", "t", [Column("ID")])]))
    >>> s.signature.tolist(), s.databases
    ([0, 0], ['a', 'b'])
"""
from __future__ import annotations

import dataclasses
import functools
import json
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.schema import Schema, Table

__all__ = ["TableStructure", "structure", "structure_of_tables"]


@dataclass(frozen=True, eq=False)
class TableStructure:
    """Per table and per column codes into lists of distinct strings (first-seen order).

    ``database`` / ``scope`` / ``name`` / ``label`` (``nl_name`` or ``name``): one code per table
    into :attr:`databases`, :attr:`scopes` (:attr:`Table.join_scope`), :attr:`names`,
    :attr:`labels`; ``signature``: equal codes are copies of one table (same name and column names,
    case-folded). Columns are stacked in table order, table ``t``'s at rows
    ``col_offsets[t]:col_offsets[t + 1]``: ``column`` codes its case-folded name into
    :attr:`column_names`, ``column_label`` its ``nl_name`` or name into :attr:`column_labels`.
    """

    database: np.ndarray
    databases: list[str]
    scope: np.ndarray
    scopes: list[str]
    name: np.ndarray
    names: list[str]
    label: np.ndarray
    labels: list[str]
    signature: np.ndarray
    col_offsets: np.ndarray
    column: np.ndarray
    column_names: list[str]
    column_label: np.ndarray
    column_labels: list[str]

    def __len__(self) -> int:
        return len(self.database)

    @functools.cached_property
    def by_database(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, starts)``: the tables of database code ``d`` are ``order[starts[d]:starts[d + 1]]``,
        in position order (worked out once)."""
        order = np.argsort(self.database, kind="stable")
        starts = np.zeros(len(self.databases) + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.database, minlength=len(self.databases)), out=starts[1:])
        return order, starts

    def to_blobs(self) -> dict[str, bytes]:
        """Each field as bytes: arrays in NumPy's ``.npy`` layout, string lists as JSON."""
        out: dict[str, bytes] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if isinstance(v, np.ndarray):
                out[f.name] = _npy_bytes(v)
            else:
                out[f.name] = json.dumps(v, ensure_ascii=False).encode("utf-8")
        return out

    @classmethod
    def from_blobs(cls, blobs: dict[str, bytes]) -> "TableStructure":
        """The structure of :meth:`to_blobs`; a missing or malformed field raises ``ValueError``."""
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            data = blobs.get(f.name)
            if data is None:
                raise ValueError(f"the structure lacks {f.name}")
            if f.type in ("np.ndarray",):
                values[f.name] = _npy_array(data, f.name)
            else:
                v = json.loads(data.decode("utf-8"))
                if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
                    raise ValueError(f"{f.name} is not a list of strings")
                values[f.name] = v
        s = cls(**values)
        s.check()
        return s

    def check(self) -> None:
        """Raise ``ValueError`` unless the arrays agree in length and every code is in range."""
        n, offsets = len(self.database), self.col_offsets
        if offsets.ndim != 1 or len(offsets) != n + 1 or offsets[0] != 0 or (n and np.any(np.diff(offsets) < 1)):
            raise ValueError("column offsets do not match the tables")
        for codes, strings, rows in (
            (self.database, self.databases, n), (self.scope, self.scopes, n), (self.name, self.names, n),
            (self.label, self.labels, n), (self.column, self.column_names, int(offsets[-1])),
            (self.column_label, self.column_labels, int(offsets[-1])),
        ):
            if codes.ndim != 1 or len(codes) != rows or (rows and (codes.min() < 0 or codes.max() >= len(strings))):
                raise ValueError("a code is out of range")
        if self.signature.shape != (n,) or (n and self.signature.min() < 0):
            raise ValueError("table signatures do not match the tables")


def _npy_bytes(arr: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def _npy_array(data: bytes, name: str) -> np.ndarray:
    import io

    arr = np.load(io.BytesIO(data), allow_pickle=False)
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{name} has dtype {arr.dtype}, expected integers")
    return arr.astype(np.int64, copy=False)


class _Codes:
    """Codes of strings in first-seen order."""

    def __init__(self) -> None:
        self.codes: dict[Any, int] = {}

    def __call__(self, key: Any) -> int:
        return self.codes.setdefault(key, len(self.codes))

    def strings(self) -> list[str]:
        return list(self.codes)


def structure_of_tables(tables: Iterable["Table"], n: int) -> TableStructure:
    """The :class:`TableStructure` of ``n`` tables, read once in order."""
    db, scope, name, label, sig = _Codes(), _Codes(), _Codes(), _Codes(), _Codes()
    col, col_label = _Codes(), _Codes()
    per_table = np.empty((5, n), dtype=np.int64)
    sizes = np.empty(n, dtype=np.int64)
    cols: list[int] = []
    col_labels: list[int] = []
    for i, t in enumerate(tables):
        folded = [c.name.casefold() for c in t.columns]
        per_table[:, i] = (db(t.database), scope(t.join_scope), name(t.name), label(t.nl_name or t.name),
                           sig((t.name.casefold(), *folded)))
        sizes[i] = len(folded)
        cols += [col(f) for f in folded]
        col_labels += [col_label(c.nl_name or c.name) for c in t.columns]
    return TableStructure(
        database=per_table[0], databases=db.strings(), scope=per_table[1], scopes=scope.strings(),
        name=per_table[2], names=name.strings(), label=per_table[3], labels=label.strings(),
        signature=per_table[4], col_offsets=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        column=np.array(cols, dtype=np.int64), column_names=col.strings(),
        column_label=np.array(col_labels, dtype=np.int64), column_labels=col_label.strings(),
    )


#: Structures worked out from schemas held in memory, as long as each schema lives.
_KEPT: "weakref.WeakKeyDictionary[Schema, TableStructure]" = weakref.WeakKeyDictionary()


def structure(schema: "Schema") -> TableStructure:
    """The :class:`TableStructure` of ``schema``: the saved one of an index's schema
    (:class:`~jar_core.index.stored_schema.StoredSchema`), else worked out once and kept."""
    saved = getattr(schema, "saved_structure", None)
    if isinstance(saved, TableStructure):
        return saved
    kept = _KEPT.get(schema)
    if kept is None or len(kept) != len(schema.tables):
        kept = _KEPT[schema] = structure_of_tables(schema.tables, len(schema.tables))
    return kept
