"""The schema of a saved index in an SQLite file, read table by table (METHOD.md, "Offline indexing").

``schema.sqlite`` holds one row per table (its :meth:`~jar_core.schema.Table.to_dict` as JSON:
columns, types, keys, descriptions, sample values) keyed by its position, with indexes on its id
and name, and the corpus's :class:`~jar_core.index.structure.TableStructure` (the codes that
group and compare all tables). SQLite comes with Python, reads a row by key without reading the
rest, and its file is one file of the index directory, published and checked as the others.

A loaded index's schema is a :class:`StoredSchema`: the structure is read at load (a few bytes
per table and column), a table is read when a question touches it (a few hundred candidates)
and kept among the last :data:`KEPT_TABLES` read. Iterating all tables reads them all, in
batches, without keeping them.

Measured on the 100,000-table lake (``scripts/lake_bench.py``): see docs/lakes.md.
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Iterator, Sequence, overload

from jar_core.errors import IndexLoadError, SchemaError, UnknownDatabaseError
from jar_core.index.structure import TableStructure, structure
from jar_core.schema import Schema, Table

__all__ = [
    "SCHEMA_FILE", "SCHEMA_CONNECTION", "KEPT_TABLES", "StoredSchema", "write_schema_store", "connect_schema_store",
    "open_schema_store", "connect_at", "open_saved_schema", "close_saved_schema", "read_blocks", "without_samples",
]

#: The file of an index directory holding its schema.
SCHEMA_FILE = "schema.sqlite"
#: Tables kept in memory once read (the most recent), per schema.
KEPT_TABLES = 4096
#: Rows read per query when all tables are iterated.
_BATCH = 2048

_DDL = (
    "CREATE TABLE info (key TEXT PRIMARY KEY, value BLOB NOT NULL)",
    "CREATE TABLE tables (pos INTEGER PRIMARY KEY, id TEXT NOT NULL, id_lower TEXT NOT NULL, "
    "name TEXT NOT NULL, name_lower TEXT NOT NULL, data BLOB NOT NULL)",
)
_INDEXES = (
    "CREATE INDEX tables_id ON tables (id)",
    "CREATE INDEX tables_id_lower ON tables (id_lower)",
    "CREATE INDEX tables_name_lower ON tables (name_lower)",
)


def without_samples(columns: list[dict[str, Any]]) -> None:
    """Drop the sample values (rows of the source) of saved columns; an enumeration's labels,
    which come from the schema and not from rows, stay."""
    for c in columns:
        if not c.get("enum"):
            c.pop("sample", None)


def write_schema_store(path: Path, schema: Schema, *, store_samples: bool = True, extra: dict[str, bytes] | None = None) -> None:
    """Write ``schema`` to a new SQLite file at ``path`` (synced): each table's saved form (sample
    values left out unless ``store_samples``; an enumeration's labels stay), its structure and
    dialect, and the ``extra`` entries of the index (the vectors' block checksums)."""
    path.unlink(missing_ok=True)
    con = sqlite3.connect(path, isolation_level=None)
    try:
        con.execute("PRAGMA journal_mode=OFF")
        con.execute("PRAGMA synchronous=OFF")
        con.execute("PRAGMA page_size=8192")
        con.execute("BEGIN")
        for ddl in _DDL:
            con.execute(ddl)

        def rows() -> Iterator[tuple[Any, ...]]:
            for i, t in enumerate(schema.tables):
                d = t.to_dict()
                if not store_samples:
                    without_samples(d["columns"])
                yield (i, t.id, t.id.lower(), t.name, t.name.lower(),
                       json.dumps(d, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))

        con.executemany("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?)", rows())
        for ddl in _INDEXES:
            con.execute(ddl)
        blobs = {f"structure.{k}": v for k, v in structure(schema).to_blobs().items()}
        blobs["dialect"] = json.dumps(schema.dialect).encode("utf-8")
        # the fingerprint the index's meta.json names: a load that opens this file checks it is the one
        blobs["fingerprint"] = schema.fingerprint().encode("utf-8")
        blobs.update(extra or {})
        con.executemany("INSERT INTO info VALUES (?, ?)", blobs.items())
        con.execute("COMMIT")
    finally:
        con.close()
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: The key of a load's files (:func:`jar_core.index.store.load_directory`) holding the connection to the schema file.
SCHEMA_CONNECTION = f"{SCHEMA_FILE}:connection"


def connect_at(p: Path, name: str, fd: int) -> sqlite3.Connection:
    """A read-only SQLite connection to file ``name`` of the index at ``p``, open as ``fd``: through
    the handle where the system names open files (``/proc/self/fd``), so that it reads the file
    whose bytes were read even if a save replaces the directory meanwhile; else by its path."""
    try:
        proc = f"/proc/self/fd/{fd}"
        return connect_schema_store(proc if os.path.exists(proc) else str(p / name))
    except sqlite3.Error as e:
        raise IndexLoadError(f"cannot read {name} of the index at {p}: {e}") from e


def open_saved_schema(p: Path, files: dict[str, Any], meta: dict[str, Any]) -> "StoredSchema":
    """The schema of the index at ``p`` (its file's checksum already checked), read through the
    connection opened with its files; :class:`IndexLoadError` when it is not a saved schema."""
    con = files.pop(SCHEMA_CONNECTION)
    tables = meta.get("tables")
    if isinstance(tables, bool) or not isinstance(tables, int) or tables < 1:
        con.close()
        raise IndexLoadError(f"index at {p} is corrupt: meta.json has no valid table count (tables={tables!r})")
    try:
        return open_schema_store(con, meta["schema_fingerprint"], tables)
    except (ValueError, KeyError, TypeError, sqlite3.Error) as e:
        raise IndexLoadError(f"index at {p} is corrupt: {SCHEMA_FILE} is not a valid schema ({e})") from e


def close_saved_schema(files: dict[str, Any]) -> None:
    """Close the connection to the schema file among a load's ``files``, if it is still there."""
    con = files.pop(SCHEMA_CONNECTION, None)
    if con is not None:
        con.close()


def read_blocks(con: sqlite3.Connection, name: str) -> tuple[int | None, bytes | None]:
    """The saved ``(rows per block, digests)`` of the index's array ``name``
    (:mod:`jar_core.index.checked`); ``(None, None)`` when missing."""
    try:
        row = con.execute("SELECT value FROM info WHERE key = ?", (f"blocks.{name}",)).fetchone()
    except sqlite3.Error as e:
        raise IndexLoadError(f"the block checksums of the vectors are unreadable ({e})") from e
    value = bytes(row[0]) if row else b""
    return (int.from_bytes(value[:8], "little"), value[8:]) if len(value) >= 8 else (None, None)


def connect_schema_store(path: str) -> sqlite3.Connection:
    """A read-only connection to the SQLite file at ``path`` (which may name an open handle,
    ``/proc/self/fd/N``: the file is opened now, so it stays the one read even if renamed)."""
    uri = "file:" + path.replace("%", "%25").replace("?", "%3f").replace("#", "%23") + "?mode=ro&immutable=1"
    return sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None)


def open_schema_store(con: sqlite3.Connection, fingerprint: str, n_tables: int) -> "StoredSchema":
    """The :class:`StoredSchema` read through ``con`` (:func:`connect_schema_store`), whose
    fingerprint is ``fingerprint``; its structure read and checked. Raises ``ValueError``,
    ``KeyError`` or ``sqlite3.Error`` when the file is not such a store (``con`` is then closed)."""
    try:
        info = dict(con.execute("SELECT key, value FROM info").fetchall())
        # SQLite may open the file by its path again (it reads a handle's link): when a save
        # replaced the directory meanwhile, that is another index's schema
        if "fingerprint" in info and bytes(info["fingerprint"]).decode("utf-8", "replace") != fingerprint:
            raise ValueError("it is the schema of another index (a save replaced it while it was read)")
        blobs = {k.split(".", 1)[1]: bytes(v) for k, v in info.items() if k.startswith("structure.")}
        saved = TableStructure.from_blobs(blobs)
        dialect = json.loads(bytes(info["dialect"]).decode("utf-8"))
        if dialect is not None and not isinstance(dialect, str):
            raise ValueError(f"the dialect is {dialect!r}")
        if len(saved) != n_tables:
            raise ValueError(f"it holds {len(saved)} tables, meta.json says {n_tables}")
        (rows,) = con.execute("SELECT count(*) FROM tables").fetchone()
        if rows != n_tables:
            raise ValueError(f"it holds {rows} table rows, meta.json says {n_tables}")
    except BaseException:
        con.close()
        raise
    return StoredSchema(con, saved, fingerprint, dialect)


class _TableRows(Sequence[Table]):
    """The tables of a :class:`StoredSchema`, read by position when asked for (the last
    :data:`KEPT_TABLES` kept)."""

    def __init__(self, con: sqlite3.Connection, n: int) -> None:
        self._con, self._n = con, n
        self._kept: OrderedDict[int, Table] = OrderedDict()
        self._lock = threading.Lock()
        #: How many table rows were read (parsed) so far.
        self.reads = 0

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Table: ...
    @overload
    def __getitem__(self, i: slice) -> list[Table]: ...
    def __getitem__(self, i: int | slice) -> Table | list[Table]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        i = int(i)
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("table position out of range")
        with self._lock:
            t = self._kept.get(i)
            if t is not None:
                self._kept.move_to_end(i)
                return t
            row = self._con.execute("SELECT data FROM tables WHERE pos = ?", (i,)).fetchone()
            t = self._parse(i, row[0] if row else None)
            self._kept[i] = t
            if len(self._kept) > KEPT_TABLES:
                self._kept.popitem(last=False)
            return t

    def _parse(self, i: int, data: Any) -> Table:
        self.reads += 1
        if data is None:
            raise SchemaError(f"the saved schema has no table at position {i}")
        try:
            return Table.from_dict(json.loads(bytes(data).decode("utf-8")))
        except (ValueError, KeyError, TypeError, AttributeError) as e:
            raise SchemaError(f"the saved schema's table {i} is malformed: {type(e).__name__}: {e}") from e

    def __iter__(self) -> Iterator[Table]:
        for a in range(0, self._n, _BATCH):
            with self._lock:
                kept = {i: self._kept.get(i) for i in range(a, min(a + _BATCH, self._n))}
                if all(t is not None for t in kept.values()):
                    batch: list[Any] = list(kept.values())
                else:
                    cur = self._con.execute("SELECT pos, data FROM tables WHERE pos >= ? AND pos < ? ORDER BY pos",
                                            (a, a + _BATCH))
                    batch = [kept.get(i) or self._parse(i, d) for i, d in cur.fetchall()]
            yield from batch

    def positions(self, sql: str, key: str) -> list[int]:
        with self._lock:
            return [p for (p,) in self._con.execute(sql, (key,)).fetchall()]


class StoredSchema(Schema):
    """A :class:`~jar_core.schema.Schema` whose tables live in the index's SQLite file, read when used.

    Everything a :class:`Schema` offers works the same; what reads every table (``to_dict``,
    :meth:`subset` of a large database, iterating) streams them from the file. Saved schemas were
    validated before they were saved: :meth:`validate` has nothing to do, and the fingerprint is
    the one saved with them.
    """

    def __init__(self, con: sqlite3.Connection, saved: TableStructure, fingerprint: str, dialect: str | None) -> None:
        # no Schema.__init__: nothing is read here but the structure
        self._con = con
        self.tables = _TableRows(con, len(saved))  # type: ignore[assignment]
        self.saved_structure = saved
        self.dialect = dialect
        self._fingerprint = fingerprint
        self._by_id = {}
        self._by_lower_id = {}

    def validate(self) -> None:
        """Nothing to check: a saved schema was validated before it was saved."""

    @property
    def databases(self) -> list[str]:
        """Database names in first-seen order."""
        return list(self.saved_structure.databases)

    def _position(self, name: str) -> int | None:
        rows: _TableRows = self.tables  # type: ignore[assignment]
        for sql, key in (("SELECT pos FROM tables WHERE id = ?", name),
                         ("SELECT pos FROM tables WHERE id_lower = ? ORDER BY pos LIMIT 1", name.lower())):
            found = rows.positions(sql, key)
            if found:
                return found[0]
        named = rows.positions("SELECT pos FROM tables WHERE name_lower = ? ORDER BY pos", name.lower())
        exact = [p for p in named if self.tables[p].name == name]
        matches = exact or named
        if len(matches) > 1:
            ids = ", ".join(self.tables[p].id for p in matches)
            raise UnknownDatabaseError(f"table name {name!r} is ambiguous ({ids}); qualify it as db.table")
        return matches[0] if matches else None

    def find(self, name: str) -> Table | None:
        """The table named ``"db.table"`` or, when unambiguous, ``"table"``; case-insensitive fallback."""
        pos = self._position(name)
        return None if pos is None else self.tables[pos]

    def position(self, table_id: str) -> int:
        """Index of a table in :attr:`tables` (see :meth:`find` for the accepted names)."""
        pos = self._position(table_id)
        if pos is None:
            self[table_id]  # raises UnknownDatabaseError with the closest names
        return int(pos)  # type: ignore[arg-type]

    def subset(self, database: str) -> Schema:
        """The tables of one database (case-insensitive), or :class:`UnknownDatabaseError`."""
        s = self.saved_structure
        codes = [i for i, db in enumerate(s.databases) if db == database] or \
            [i for i, db in enumerate(s.databases) if db.lower() == database.lower()]
        if not codes:
            return super().subset(database)  # the message with the known names
        order, starts = s.by_database  # each database's tables, worked out once
        positions = sorted(int(p) for i in codes for p in order[starts[i]:starts[i + 1]])
        return Schema([self.tables[p] for p in positions], dialect=self.dialect, validate=False)

    def close(self) -> None:
        """Close the file (the schema cannot read tables afterwards)."""
        self._con.close()

