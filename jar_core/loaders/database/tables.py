"""Which tables of a live database are read: those of each schema asked for, narrowed to
``include_tables``, without PostgreSQL's partitions of a table read, without names too long to reflect.

The input side of METHOD.md: the candidate tables T_i are these (views are never read).
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Mapping, Sequence

from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from jar_core.errors import DatabaseConnectionError, InvalidArgumentError, SchemaError, UnknownDatabaseError
from jar_core.loaders.database.connect import error_message
from jar_core.loaders.database.duckdb_catalog import _duckdb_table_names

__all__ = ["MAX_NAME_CHARS"]

logger = logging.getLogger(__name__)

#: Longest table or column name read: a table with a longer one is skipped with a warning. No
#: database but SQLite allows one this long (PostgreSQL 63 bytes, MySQL 64, SQL Server and Oracle
#: 128 characters), and SQLAlchemy's SQLite reflection takes minutes over an 80,000-character one.
MAX_NAME_CHARS = 1024


def _schema_list(schema: str | Sequence[str] | None) -> list[str | None]:
    """``schema`` of :func:`load_database` as a list: ``[None]`` for the connection's default schema."""
    if schema is None:
        return [None]
    items = [schema] if isinstance(schema, str) else list(schema)
    if not items:
        return [None]
    for item in items:
        if not isinstance(item, str) or not item.strip():
            raise InvalidArgumentError(f"a schema name must be a non-empty string, got {item!r}")
    return list(dict.fromkeys(items))


#: The tables of each schema to read: ``(schema, table names)``, ``None`` the connection's default schema.
Listed = list[tuple[str | None, list[str]]]


def _tables_to_read(
    conn: Connection,
    insp: Any,
    schemas: Sequence[str | None],
    *,
    label: str,
    where_all: str,
    secrets: Sequence[str],
    include_tables: Sequence[str] | None,
    partitions: bool,
) -> Listed:
    """The base tables of each of ``schemas`` (``insp``: SQLAlchemy's inspector, ``None`` for DuckDB's
    own catalog), narrowed to ``include_tables`` (``where_all``: the database as messages name it),
    without the partitions of a table read unless ``partitions``. :class:`SchemaError` when the one
    schema asked for has no tables."""
    listed: Listed = []
    for schema in schemas:
        where = label + (f" (schema {schema!r})" if schema else "")
        try:
            names = _duckdb_table_names(conn, schema) if insp is None else insp.get_table_names(schema=schema)
        except SQLAlchemyError as err:
            hint = ("; a SQLite schema is an attached database: pass an engine that ATTACHes it"
                    if schema and conn.dialect.name == "sqlite" else "")
            raise DatabaseConnectionError(f"cannot read {where}: {error_message(err, secrets)}{hint}") from err
        others = (_other_schemas(conn, insp) if schema is None and len(schemas) == 1 and len(names) <= 1
                  and include_tables is None else [])
        if not names and include_tables is None:
            if len(schemas) == 1:
                raise SchemaError(f"database {where} has no tables" + (f"; {_schemas_hint(others)}" if others else ""))
            logger.warning("schema %r of %s has no tables", schema, label)
        elif others:
            warnings.warn(f"the default schema of {label} holds {len(names)} table ({names[0]}); "
                          f"{_schemas_hint(others)}", stacklevel=2)
        listed.append((schema, list(names)))
    if include_tables is not None:
        listed = _select_in_schemas(listed, include_tables, where_all)
    if not partitions and conn.dialect.name == "postgresql":
        listed = _without_partitions(conn, listed, label)
    return listed



#: Schemas of the database's own catalog, never named in :func:`_other_schemas`.
_SYSTEM_SCHEMAS = frozenset({"information_schema", "pg_catalog", "pg_toast", "mysql", "performance_schema", "sys"})
#: Most other schemas looked into for :func:`_other_schemas` (one query each).
MAX_HINTED_SCHEMAS = 50


def _other_schemas(conn: Connection, insp: Any) -> list[tuple[str, int]]:
    """The PostgreSQL schemas other than the connection's default one that hold tables, with their
    number of tables (at most :data:`MAX_HINTED_SCHEMAS` looked into); ``[]`` for other databases
    or when the catalog cannot be read."""
    if insp is None or conn.dialect.name != "postgresql":
        return []
    try:
        default = insp.default_schema_name
        names = [n for n in insp.get_schema_names()
                 if n != default and n not in _SYSTEM_SCHEMAS and not n.startswith(("pg_temp", "pg_toast"))]
        counts = [(n, len(insp.get_table_names(schema=n))) for n in names[:MAX_HINTED_SCHEMAS]]
    except SQLAlchemyError as err:  # a hint only: no right to read the catalog, no hint
        logger.info("could not list the other schemas: %s", err)
        return []
    return [(n, c) for n, c in counts if c]


def _schemas_hint(others: Sequence[tuple[str, int]]) -> str:
    """Which schemas hold tables and how to read one."""
    shown = ", ".join(f"{n} ({c} table{'s' if c != 1 else ''})" for n, c in others[:10])
    return (f"other schemas hold tables: {shown}{' ...' if len(others) > 10 else ''}; read one with --schema NAME "
            f"(schema=NAME in Python), e.g. --schema {others[0][0]}")


def _select_in_schemas(
    listed: Listed, wanted: Sequence[str], where: str
) -> Listed:
    """``include_tables`` resolved per schema: ``"schema.table"`` in that schema, a bare name in each one."""
    if len(listed) == 1:
        schema, names = listed[0]
        if schema is not None:  # "music.track" names a table of the one schema too
            prefix = schema + "."
            exact = set(names)
            wanted = [
                w[len(prefix):] if isinstance(w, str) and w not in exact and w.lower().startswith(prefix.lower()) else w
                for w in wanted
            ]
        return [(schema, _select_tables(names, wanted, where))]
    picked: dict[str | None, list[str]] = {schema: [] for schema, _ in listed}
    by_schema = dict(listed)
    lower = {str(s).lower(): s for s in by_schema}
    missing = []
    for w in wanted:
        w = str(w)
        head, dot, tail = w.partition(".")
        if dot and head.lower() in lower:
            schema = lower[head.lower()]
            found = _find_name(by_schema[schema], tail)
            if found is None:
                missing.append(w)
            else:
                picked[schema].append(found)
            continue
        hits = [(schema, _find_name(names, w)) for schema, names in listed]
        hits = [(schema, name) for schema, name in hits if name is not None]
        if not hits:
            missing.append(w)
        for schema, name in hits:
            picked[schema].append(name)  # type: ignore[arg-type]
    if missing:
        raise UnknownDatabaseError(f"{where} has no table {', '.join(map(repr, missing))}")
    return [(schema, list(dict.fromkeys(picked[schema]))) for schema, _ in listed]


def _find_name(names: Sequence[str], wanted: str) -> str | None:
    if wanted in names:
        return wanted
    low = wanted.lower()
    return next((n for n in names if n.lower() == low), None)


def _select_tables(names: Sequence[str], wanted: Sequence[str], where: str) -> list[str]:
    """``wanted`` resolved to the exact table names (exact match first, then case-insensitive)."""
    exact = set(names)
    lower = {n.lower(): n for n in reversed(names)}
    picked = [w if w in exact else lower.get(str(w).lower()) for w in wanted]
    missing = [w for w, p in zip(wanted, picked) if p is None]
    if missing:
        raise UnknownDatabaseError(f"{where} has no table {', '.join(map(repr, missing))}")
    return list(dict.fromkeys(p for p in picked if p is not None))


#: PostgreSQL's inheritance pairs (child, parent), and whether the child is a copy of
#: its parent: a partition, or a child none of whose columns is its own (``INHERITS`` only).
_PG_CHILDREN = text(
    """
    SELECT cn.nspname, c.relname, pn.nspname, p.relname,
           c.relispartition OR NOT EXISTS (
               SELECT 1 FROM pg_attribute a
               WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
                 AND NOT EXISTS (
                     SELECT 1 FROM pg_attribute b
                     WHERE b.attrelid = p.oid AND b.attnum > 0 AND NOT b.attisdropped AND b.attname = a.attname))
    FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
    JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = p.relnamespace
    """
)


def _without_partitions(
    conn: Connection, listed: Listed, label: str
) -> Listed:
    """``listed`` without the PostgreSQL partitions and copy-children of which an ancestor is read
    (through copies only: a partition of a partition of a table read is skipped). If the catalog
    cannot be read, nothing is dropped."""
    try:
        default = str(conn.execute(text("SELECT current_schema()")).scalar())
        rows = conn.execute(_PG_CHILDREN).all()
    except SQLAlchemyError as err:
        conn.rollback()
        logger.info("partitions of %s not read (%s); every table is kept", label, error_message(err))
        return listed
    nsp = {schema: schema if schema is not None else default for schema, _ in listed}
    read = {(nsp[schema], name) for schema, names in listed for name in names}
    parents: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for cs, c, ps, p, copy in rows:
        if copy:
            parents.setdefault((cs, c), []).append((ps, p))

    def copies_a_table_read(child: tuple[str, str]) -> bool:
        seen, todo = {child}, list(parents.get(child, ()))
        while todo:
            t = todo.pop()
            if t in read:
                return True
            if t not in seen:
                seen.add(t)
                todo.extend(parents.get(t, ()))
        return False

    skipped = {c for c in parents if c in read and copies_a_table_read(c)}
    if not skipped:
        return listed
    out = []
    for schema, names in listed:
        kept = [n for n in names if (nsp[schema], n) not in skipped]
        dropped = len(names) - len(kept)
        if dropped:
            logger.info("%d partition(s) of %s skipped: their parent table reads their rows", dropped,
                        label + (f" (schema {schema!r})" if schema else ""))
        out.append((schema, kept))
    return out


def _without_long_names(names: Sequence[str], columns: Mapping[str, Any], where: str) -> list[str]:
    """``names`` without the tables whose name or one of whose ``columns``' (by table, as
    reflected) is longer than :data:`MAX_NAME_CHARS` (SQLAlchemy's SQLite reflection takes
    minutes over such a name), each skipped with a warning naming it by its first characters."""
    kept = []
    for name in names:
        long = next((str(c["name"]) for c in columns.get(name) or () if len(str(c["name"])) > MAX_NAME_CHARS), None)
        if len(name) <= MAX_NAME_CHARS and long is None:
            kept.append(name)
            continue
        what = "its name" if long is None else f"its column {_shortened(long)}"
        warnings.warn(
            f"skipping table {_shortened(name)} of {where}: {what} is longer than {MAX_NAME_CHARS} characters",
            stacklevel=3,
        )
    return kept


def _shortened(name: str) -> str:
    """A name as a message shows it: quoted, its first 40 characters and its length when longer."""
    return repr(name) if len(name) <= 40 else f"{name[:40]!r}... ({len(name)} characters)"
