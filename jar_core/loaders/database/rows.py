"""Bounded reads of a table's first rows: no value longer than a given number of characters
(:func:`bounded_columns`), and in SQLite no value over :data:`_SQLITE_VALUE_BYTES` bytes held in
memory, whatever its size (:func:`bounded_rows`, through incremental blob handles).

The input side of METHOD.md: the rows that sample values (value matching, the join rules'
evidence) and the sample rows of documents are read from. One bounded ``SELECT ... LIMIT n``
(SQLAlchemy Core, so every identifier is quoted by the dialect); no query scans a whole table.
"""

from __future__ import annotations

import codecs
import logging
import re
import sqlite3
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

from sqlalchemy import and_, case, func, literal_column, select
from sqlalchemy import column as sa_column
from sqlalchemy import table as sa_table
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql.elements import ColumnElement

from jar_core.schema import Table

__all__ = ["bounded_columns", "bounded_rows", "Cells"]

logger = logging.getLogger(__name__)


#: Rows fetched at a time by the statistics query (a server-side cursor where the driver has one).
_STREAM_ROWS = 100


#: Dialects whose long values are cut in SQL: (prefix function, length function, cuts binary values).
_CUT_FUNCTIONS = {
    "sqlite": ("substr", "length", True),
    "postgresql": ("substr", "length", True),
    "mysql": ("substr", "length", True),
    "mariadb": ("substr", "length", True),
    "duckdb": ("substr", "length", False),
    "mssql": ("substring", "datalength", False),
}


#: Column types cut in SQL: character and binary types, not arrays of them.
_TEXT_TYPE = re.compile(r"char|text|clob|string", re.IGNORECASE)


_BINARY_TYPE = re.compile(r"bytea|blob|binary|image", re.IGNORECASE)


_ARRAY_TYPE = re.compile(r"\[|array", re.IGNORECASE)


def bounded_columns(
    table: Table, schema: str | None, dialect: str, chars: int, *, binary: bool = True,
) -> list[tuple[ColumnElement[Any], ColumnElement[Any] | None]]:
    """Per column of ``table``, (what to select, its full length or ``None``), so that no value read
    is longer than ``chars`` characters (bytes of a binary value, with ``binary``).

    A character (and binary) column of a dialect of :data:`_CUT_FUNCTIONS` is read as
    ``substr(c, 1, chars)`` with ``length(c)``; SQLite's columns, of any declared type, as ``CASE
    WHEN length(c) > chars THEN substr(c, 1, chars) ELSE c END`` (its values keep their types; a
    blob is read whole without ``binary``). Other columns and dialects are read whole.
    """
    names = [c.name for c in table.columns]
    cols = sa_table(table.name, *map(sa_column, names), schema=schema).c
    cut = _CUT_FUNCTIONS.get(dialect)
    out: list[tuple[ColumnElement[Any], ColumnElement[Any] | None]] = []
    for reflected, col in zip(table.columns, cols):
        kind = reflected.type or ""
        cuts = cut is not None and not reflected.enum and not _ARRAY_TYPE.search(kind) and (
            dialect == "sqlite" or _TEXT_TYPE.search(kind) is not None
            or (binary and cut[2] and _BINARY_TYPE.search(kind) is not None)
        )
        if not cuts:
            out.append((col, None))
            continue
        prefix_fn, length_fn, _ = cut  # type: ignore[misc]
        length = getattr(func, length_fn)(col)
        prefix = getattr(func, prefix_fn)(col, 1, chars)
        if dialect == "sqlite":  # without ``binary`` a blob is read whole
            longer = length > chars if binary else and_(func.typeof(col) == "text", length > chars)
            prefix = case((longer, prefix), else_=col)
        out.append((prefix.label(reflected.name), length))
    return out


#: Bytes of one SQLite value read through SQL at most: SQLite holds a value whole in memory to
#: cut it (``length()``, ``substr()``), so a longer one is read through an incremental blob handle.
_SQLITE_VALUE_BYTES = 2**20


#: The names SQLite's rowid answers to (the first that is not a column's name is used).
_ROWID_NAMES = ("rowid", "_rowid_", "oid")


#: Python codec of each text encoding of a SQLite database (``PRAGMA encoding``).
_SQLITE_CODECS = {"UTF-8": "utf-8", "UTF-16le": "utf-16-le", "UTF-16be": "utf-16-be"}


#: Bytes a character takes at most in any of :data:`_SQLITE_CODECS`.
_MAX_CHAR_BYTES = 4


#: A row as :func:`bounded_rows` gives it: one (value, full length or ``None``) per column.
Cells = list[tuple[Any, int | None]]


def bounded_rows(
    conn: Connection, table: Table, schema: str | None, limit: int, chars: int, *, stream: bool = False,
) -> Iterator[Cells]:
    """Up to ``limit`` rows of ``table``, each as one ``(value, full length or None)`` per column,
    no value longer than ``chars`` characters (bytes of a binary value): :func:`bounded_columns`.

    In SQLite, through Python's ``sqlite3`` module (3.11 or later), this holds no value longer than
    :data:`_SQLITE_VALUE_BYTES` bytes in memory, whatever its size: the query runs under SQLite's
    length limit, and once a value stops it, the rows not read yet are read with their text and
    binary values through incremental blob handles: the first ``4 * chars`` bytes (text decoded,
    a partial last character dropped, cut to ``chars`` characters) and the value's size in bytes as
    its length (its characters when all of it was read). A table without a rowid (``WITHOUT
    ROWID``, a view, a virtual table) or with generated columns is read by SQL only.
    """
    columns = bounded_columns(table, schema, conn.dialect.name, chars)
    selected = [expr for pair in columns for expr in pair if expr is not None]
    if stream:
        conn = conn.execution_options(stream_results=True, max_row_buffer=_STREAM_ROWS)
    raw = _sqlite_blob_connection(conn)
    rowid = _sqlite_rowid(conn, raw, table, schema) if raw is not None else None
    if raw is None or rowid is None:
        positions = _positions(columns, 0)
        with conn.execute(select(*selected).limit(limit)) as result:
            for row in result:
                yield [(row[i], None if j is None else row[j]) for i, j in positions]
        return
    seen: set[int] = set()
    positions = _positions(columns, 1)  # after the rowid
    try:
        with _sqlite_value_limit(raw), conn.execute(select(literal_column(rowid), *selected).limit(limit)) as result:
            for row in result:
                seen.add(row[0])
                yield [(row[i], None if j is None else row[j]) for i, j in positions]
        return
    except DBAPIError as err:
        if getattr(err.orig, "sqlite_errorcode", None) != sqlite3.SQLITE_TOOBIG:
            raise
    logger.info("table %r has a value over %d bytes: its rows are read through blob handles", table.name,
                _SQLITE_VALUE_BYTES)
    yield from _sqlite_blob_rows(conn, raw, table, schema, rowid, limit - len(seen), chars, seen)


def _positions(columns: Sequence[tuple[Any, Any]], start: int) -> list[tuple[int, int | None]]:
    """Where each column's value and length (``None``: not selected) are in a row that selects
    :func:`bounded_columns`'s expressions from ``start`` on."""
    positions: list[tuple[int, int | None]] = []
    for _, length in columns:
        positions.append((start, start + 1 if length is not None else None))
        start += 2 if length is not None else 1
    return positions


def _sqlite_blob_connection(conn: Connection) -> sqlite3.Connection | None:
    """The ``sqlite3`` connection under ``conn`` if it has blob handles (Python 3.11+), else ``None``."""
    if conn.dialect.name != "sqlite":
        return None
    raw = conn.connection.dbapi_connection
    return raw if isinstance(raw, sqlite3.Connection) and hasattr(raw, "blobopen") else None


def _sqlite_rowid(conn: Connection, raw: sqlite3.Connection, table: Table, schema: str | None) -> str | None:
    """The name to read the rowid of ``table`` by, if its values can be read through blob handles: a
    table (not a view or a virtual table) with a rowid and no generated column; else ``None``."""
    taken = {c.name.lower() for c in table.columns}
    rowid = next((name for name in _ROWID_NAMES if name not in taken), None)
    if rowid is None:
        return None
    quote = conn.dialect.identifier_preparer.quote_identifier
    db = quote(schema or "main")
    try:
        found = raw.execute(f"SELECT type, sql FROM {db}.sqlite_master WHERE name = ?", (table.name,)).fetchone()
        if found is None or found[0] != "table" or str(found[1] or "").lstrip()[:14].upper() == "CREATE VIRTUAL":
            return None
        generated = raw.execute("SELECT 1 FROM pragma_table_xinfo(?, ?) WHERE hidden", (table.name, schema or "main"))
        if generated.fetchone():  # a blob handle of a table with generated columns may read the wrong column
            return None
        raw.execute(f"SELECT {rowid} FROM {db}.{quote(table.name)} LIMIT 0").fetchall()  # WITHOUT ROWID fails
    except sqlite3.Error:
        return None
    return rowid


@contextmanager
def _sqlite_value_limit(raw: sqlite3.Connection) -> Iterator[None]:
    """SQLite's length limit at most :data:`_SQLITE_VALUE_BYTES` for the block: a query that would
    read a longer value fails (``SQLITE_TOOBIG``) before holding it."""
    previous = raw.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
    raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, min(previous, _SQLITE_VALUE_BYTES))
    try:
        yield
    finally:
        raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, previous)


def _sqlite_blob_rows(
    conn: Connection, raw: sqlite3.Connection, table: Table, schema: str | None, rowid: str, limit: int,
    chars: int, seen: set[int],
) -> Iterator[Cells]:
    """Up to ``limit`` rows of ``table`` not in ``seen`` (rowids), in rowid order, as
    :func:`bounded_rows` gives them: numbers by SQL, text and binary values through blob handles."""
    cols = sa_table(table.name, *(sa_column(c.name) for c in table.columns), schema=schema).c
    selected: list[ColumnElement[Any]] = [literal_column(rowid)]
    for col in cols:
        stored = func.typeof(col).in_(("text", "blob"))  # typeof() does not read the value
        selected += [func.typeof(col), case((stored, None), else_=col), case((stored, None), else_=func.length(col))]
    db = schema or "main"
    encoding = raw.execute(f"PRAGMA {conn.dialect.identifier_preparer.quote_identifier(db)}.encoding").fetchone()[0]
    codec = _SQLITE_CODECS.get(encoding, "utf-8")
    with conn.execute(select(*selected).limit(limit + len(seen))) as result:
        for row in result:
            if limit <= 0:
                break
            if row[0] in seen:
                continue
            limit -= 1
            out: Cells = []
            for i, col in enumerate(table.columns):
                kind, value, length = row[1 + 3 * i : 4 + 3 * i]
                if kind in ("text", "blob"):
                    text_codec = codec if kind == "text" else None
                    value, length = _blob_prefix(raw, db, table.name, col.name, row[0], chars, text_codec)
                out.append((value, length))
            yield out


def _blob_prefix(
    raw: sqlite3.Connection, db: str, table: str, column: str, rowid: int, chars: int, codec: str | None,
) -> tuple[Any, int | None]:
    """(the first ``chars`` characters, or bytes without ``codec``, of a value, its length) read
    through a blob handle: its characters if all of it was read, else its size in bytes."""
    try:
        with raw.blobopen(table, column, rowid, readonly=True, name=db) as blob:
            size = len(blob)
            data = blob.read(min(size, chars * _MAX_CHAR_BYTES if codec else chars))
    except sqlite3.Error as err:  # the row changed since it was listed
        logger.info("value of %r.%r at rowid %d not read: %s", table, column, rowid, err)
        return None, None
    if codec is None:
        return data, size
    whole = len(data) == size
    value = codecs.getincrementaldecoder(codec)("replace").decode(data, final=whole)
    return value[:chars], len(value) if whole else size
