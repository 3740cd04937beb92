"""What a database's catalog says of its tables, read through SQLAlchemy's inspector: columns and
their types, primary and foreign keys, the columns unique on their own, comments, enumerations.

The input side of METHOD.md: each table T_i with the columns c that are embedded and the declared
keys that the join rules start from (DuckDB's catalog is read by :mod:`.duckdb_catalog` instead).
A dialect that cannot reflect keys or comments gives none (joins are then inferred from names and values).
"""

from __future__ import annotations

import logging
import re
import sys
import warnings
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from sqlalchemy.engine import Connection
from sqlalchemy.engine.interfaces import Dialect
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.types import Enum as SQLEnum
from sqlalchemy.types import NullType, TypeEngine

from jar_core.errors import JarError, SchemaError, SourceError
from jar_core.loaders.database.connect import error_message
from jar_core.loaders.declarations import enum_sample
from jar_core.schema import Column, ForeignKey, Table

logger = logging.getLogger(__name__)


@dataclass
class Catalog:
    """What the catalog says of the tables of one schema, each by its name (reflected entries:
    ``get_multi_*``'s, or DuckDB's catalog rows in their shape)."""

    columns: dict[str, Any]
    primary_keys: dict[str, Any]
    foreign_keys: dict[str, Any]
    comments: dict[str, Any]
    own_schema: str | None  # the schema the tables are in (a foreign key to another is qualified)
    unique: dict[str, set[str]]


def _reflected_columns(
    conn: Connection, insp: Any, schema: str | None, names: Sequence[str], where: str, secrets: Sequence[str],
) -> tuple[dict[str, Any], Sequence[str]]:
    """(the columns of ``names`` by table, ``names``), all read at once, else each table's on its
    own: then the tables whose columns cannot be read are left out of ``names``."""
    try:
        return _by_name(insp.get_multi_columns(schema=schema, filter_names=names)), names
    except SQLAlchemyError as err:
        if conn.in_transaction():
            conn.rollback()
        columns = _columns_one_by_one(conn, insp, schema, names, where, secrets, err)
        return columns, [name for name in names if name in columns]


def _reflected_catalog(
    conn: Connection, insp: Any, schema: str | None, names: Sequence[str], columns: dict[str, Any], where: str,
    secrets: Sequence[str],
) -> Catalog:
    """The keys, comments and unique columns of ``names`` (whose ``columns`` are read) by the inspector."""
    pks = _keys(conn, insp.get_multi_pk_constraint, schema, names, "primary keys", where, secrets)
    fks = _keys(conn, insp.get_multi_foreign_keys, schema, names, "foreign keys", where, secrets)
    try:
        comments = _by_name(_optional(insp.get_multi_table_comment, schema, names))
    except SQLAlchemyError as err:
        logger.info("no table comments for %s: %s", where, error_message(err, secrets))
        conn.rollback()
        comments = {}
    if conn.dialect.name == "sqlite":
        _sqlite_remarks(conn, schema, names, columns, comments)
    own_schema = schema if schema is not None else insp.default_schema_name
    unique = _unique_columns(conn, insp, schema, names, where, secrets)
    return Catalog(columns, pks, fks, comments, own_schema, unique)


def _sqlite_remarks(
    conn: Connection, schema: str | None, names: Sequence[str], columns: dict[str, Any], comments: dict[str, Any],
) -> None:
    """SQLite keeps no comment catalog, but its ``sqlite_master`` keeps each table's ``CREATE TABLE``
    as written: the ``--`` / ``/* */`` comments in it become the table's and its columns' comments
    (as a DDL file's, :mod:`jar_core.loaders.ddl.remarks`), in place, where none is known."""
    from sqlalchemy import text

    from jar_core.loaders.ddl import load_ddl

    master = f'"{schema}".sqlite_master' if schema else "sqlite_master"
    try:
        rows = conn.execute(text(f"SELECT name, sql FROM {master} WHERE type = 'table'")).fetchall()
    except SQLAlchemyError:
        return
    wanted = set(names)
    for name, sql in rows:
        if name not in wanted or not sql or ("--" not in sql and "/*" not in sql):
            continue
        try:
            table = load_ddl(sql, dialect="sqlite").tables[0]
        except (JarError, IndexError):
            continue
        if table.comment and not (comments.get(name) or {}).get("text"):
            comments[name] = {"text": table.comment}
        remarks = {c.name: c.comment for c in table.columns if c.comment}
        for col in columns.get(name) or ():
            if not col.get("comment") and remarks.get(col["name"]):
                col["comment"] = remarks[col["name"]]


def _table(
    name: str, catalog: Catalog, dialect: Dialect, *, database: str, schema: str | None, sample_values: int,
    where: str,
) -> Table | None:
    """The :class:`Table` ``name`` as ``catalog`` describes it; ``None`` (and a warning naming it) for
    a table without columns or with a column the data model refuses (a column named ``' '``)."""
    cols = catalog.columns.get(name) or []
    if not cols:
        logger.warning("skipping table %r of %s: it has no columns", name, where)
        return None
    pk = set((catalog.primary_keys.get(name) or {}).get("constrained_columns") or ())
    alone = catalog.unique.get(name) or set()
    try:
        return Table(
            database=database,
            name=name,
            columns=[
                _reflected_column(c, dialect, primary_key=c["name"] in pk, unique=c["name"] in alone,
                                  sample_values=sample_values)
                for c in cols
            ],
            foreign_keys=[
                _foreign_key(fk, database, catalog.own_schema) for fk in catalog.foreign_keys.get(name) or ()
            ],
            comment=(catalog.comments.get(name) or {}).get("text") or None,
            sql_schema=schema,
        )
    except SchemaError as err:  # a column named ' '...: this table, not the whole database
        warnings.warn(f"skipping table {name!r} of {where}: {err}", stacklevel=3)
        return None


def _columns_one_by_one(
    conn: Connection, insp: Any, schema: str | None, names: Sequence[str], where: str, secrets: Sequence[str],
    failure: SQLAlchemyError,
) -> dict[str, Any]:
    """The columns of each table read on its own, after reading them all at once failed: a table
    whose columns cannot be read (a SQLite virtual table of a module not loaded here) is skipped
    with a warning naming it; :class:`SourceError` when none can be read."""
    columns: dict[str, Any] = {}
    for name in names:
        try:
            columns[name] = insp.get_columns(name, schema=schema)
        except SQLAlchemyError as err:
            if conn.in_transaction():
                conn.rollback()
            warnings.warn(
                f"skipping table {name!r} of {where}: its columns cannot be read ({error_message(err, secrets)})",
                stacklevel=4,
            )
    if not columns:
        raise SourceError(f"cannot read the schema of {where}: {error_message(failure, secrets)}") from failure
    return columns


def _keys(
    conn: Connection, method: Any, schema: str | None, names: Sequence[str], what: str, where: str,
    secrets: Sequence[str],
) -> dict[str, Any]:
    """Reflected keys by table name; a dialect that cannot reflect them gives none and a warning."""
    try:
        return _by_name(_optional(method, schema, names))
    except SQLAlchemyError as err:
        if conn.in_transaction():
            conn.rollback()  # a failed statement aborts a PostgreSQL transaction
        warnings.warn(
            f"the {what} of {where} could not be read ({error_message(err, secrets)}); going on without them "
            "(joins are inferred from names and values)",
            stacklevel=3,
        )
        return {}


def _unique_columns(
    conn: Connection, insp: Any, schema: str | None, names: Sequence[str], where: str, secrets: Sequence[str],
) -> dict[str, set[str]]:
    """By table name, the columns declared unique on their own: a ``UNIQUE`` constraint or a unique
    index on the one column, not partial (``WHERE``). Keys for the join rules, so a dialect that
    cannot reflect them gives none (logged, not warned: the joins are inferred without them)."""
    out: dict[str, set[str]] = {}
    try:
        for name, found in _by_name(_optional(insp.get_multi_unique_constraints, schema, names)).items():
            for u in found or ():
                cols = u.get("column_names") or ()
                if len(cols) == 1:
                    out.setdefault(name, set()).add(cols[0])
        for name, found in _by_name(_optional(insp.get_multi_indexes, schema, names)).items():
            for ix in found or ():
                cols = ix.get("column_names") or ()
                partial = any(k.endswith("_where") and v is not None for k, v in (ix.get("dialect_options") or {}).items())
                if ix.get("unique") and len(cols) == 1 and cols[0] is not None and not partial:
                    out.setdefault(name, set()).add(cols[0])
    except SQLAlchemyError as err:
        if conn.in_transaction():
            conn.rollback()
        logger.info("no unique constraints or indexes for %s: %s", where, error_message(err, secrets))
    return out


def _optional(method: Any, schema: str | None, names: Sequence[str]) -> Mapping[Any, Any]:
    """Call an ``Inspector.get_multi_*`` method; a dialect that lacks the feature gives ``{}``."""
    try:
        return method(schema=schema, filter_names=names)
    except NotImplementedError:
        return {}


def _by_name(multi: Mapping[Any, Any]) -> dict[str, Any]:
    """Re-key a ``get_multi_*`` result (``{(schema, table): value}``) by table name."""
    return {key[1] if isinstance(key, tuple) else key: value for key, value in multi.items()}


def _reflected_column(
    c: Mapping[str, Any], dialect: Dialect, *, primary_key: bool, unique: bool, sample_values: int
) -> Column:
    """The :class:`Column` of a reflected column (SQLAlchemy's ``get_columns`` entry, or DuckDB's
    catalog row with its type as text). An enumeration (:func:`_enum_labels`) gets its type's
    labels as its sample, every one in its order whether rows are read or not."""
    type_ = c["type"]
    column = Column(
        name=c["name"],
        type=type_ if isinstance(type_, str) else _type_text(type_, dialect),
        comment=c.get("comment") or None,
        primary_key=primary_key,
        unique=unique,
        computed=bool(c.get("computed")),
    )
    labels = _enum_labels(type_)
    if labels is not None:
        column.enum, column.sample = True, enum_sample(labels, sample_values)
    return column


#: A DuckDB column type that spells an enumeration's labels: ``duckdb_columns()`` gives
#: ``ENUM('sad', 'ok')`` for a column of ``CREATE TYPE mood AS ENUM ('sad', 'ok')`` (the name is
#: not kept) as for an inline one; ``ENUM(...)[]`` is a list of labels, none.
_DUCKDB_ENUM = re.compile(r"ENUM\s*\(.*\)\s*\Z", re.IGNORECASE | re.DOTALL)


def _enum_labels(type_: Any) -> Sequence[str] | None:
    """The labels of a reflected enumeration type, in their order: SQLAlchemy's ``Enum``
    (PostgreSQL's ``CREATE TYPE ... AS ENUM``, MySQL's ``ENUM('a', 'b')``), MySQL's ``SET('a',
    'b')`` (a set of the labels), DuckDB's type text ``ENUM('a', 'b')``; ``None`` for any other type."""
    if isinstance(type_, SQLEnum):
        return type_.enums
    if isinstance(type_, str):
        if not _DUCKDB_ENUM.match(type_):
            return None
        from sqlglot import exp
        from sqlglot.errors import SqlglotError

        from jar_core.loaders.declarations import inline_enum_labels

        try:
            return inline_enum_labels(exp.DataType.build(type_, dialect="duckdb"))
        except (SqlglotError, ValueError):
            return None
    mysql = sys.modules.get("sqlalchemy.dialects.mysql")  # loaded by whatever reflected a MySQL type
    if mysql is not None and isinstance(type_, mysql.SET):
        return type_.values
    return None


def _type_text(type_: TypeEngine[Any] | None, dialect: Dialect) -> str:
    """The type as the dialect spells it; ``""`` for an untyped column."""
    if type_ is None or isinstance(type_, NullType):
        return ""
    try:
        return str(type_.compile(dialect=dialect))
    except Exception:  # noqa: BLE001 - third-party types may fail in any way
        try:
            return str(type_)
        except Exception:  # noqa: BLE001
            return type(type_).__name__.upper()


def _foreign_key(fk: Mapping[str, Any], database: str, own_schema: str | None) -> ForeignKey:
    """A reflected foreign key; a table of another schema gets that schema as its database."""
    ref_schema = fk.get("referred_schema")
    ref_db = database if ref_schema is None or ref_schema == own_schema else ref_schema
    return ForeignKey(
        tuple(fk.get("constrained_columns") or ()),
        f"{ref_db}.{fk['referred_table']}",
        tuple(fk.get("referred_columns") or ()),
    )
