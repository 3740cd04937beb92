"""Load a :class:`~jar_core.schema.Schema` from a live database through SQLAlchemy.

Only SQLAlchemy's dialect-neutral API is used: :func:`sqlalchemy.inspect` for tables, columns,
keys and comments, and one bounded ``SELECT ... LIMIT n`` per table (SQLAlchemy Core, so every
identifier is quoted by the dialect) for the optional column statistics. Nothing is written and
no query scans a whole table.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import math
import re
from decimal import Decimal
from itertools import islice
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from sqlalchemy import column as sa_column
from sqlalchemy import create_engine, inspect, select
from sqlalchemy import table as sa_table
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.engine.interfaces import Dialect
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.types import NullType, TypeEngine

from jar_core.errors import (
    DatabaseConnectionError,
    InvalidArgumentError,
    SchemaError,
    SourceError,
    UnknownDatabaseError,
)
from jar_core.schema import Column, ForeignKey, Schema, Table

__all__ = ["load_database", "sql_database_source"]

logger = logging.getLogger(__name__)

#: Sample strings longer than this are cut to this many characters.
MAX_SAMPLE_CHARS = 200

#: pip package to install for a missing DB-API module (module name -> package).
_DRIVER_PACKAGES = {
    "psycopg": "psycopg[binary]",
    "psycopg2": "psycopg2-binary",
    "asyncpg": "asyncpg",
    "pg8000": "pg8000",
    "MySQLdb": "mysqlclient",
    "pymysql": "PyMySQL",
    "mysql": "mysql-connector-python",
    "mariadb": "mariadb",
    "oracledb": "oracledb",
    "cx_Oracle": "cx_Oracle",
    "pyodbc": "pyodbc",
    "pymssql": "pymssql",
    "aiosqlite": "aiosqlite",
}

#: SQLAlchemy dialect name -> sqlglot dialect name (stored as :attr:`Schema.dialect`).
_SQLGLOT_DIALECTS = {"postgresql": "postgres", "mssql": "tsql", "mariadb": "mysql"}

_SKIP = object()  # marks a value that has no place in a JSON sample (bytes, NaN)


def load_database(
    url_or_engine: str | URL | Engine,
    *,
    database: str | None = None,
    sample_rows: int = 1000,
    sample_values: int = 20,
    statistics: bool = True,
    schema: str | None = None,
    include_tables: Sequence[str] | None = None,
) -> Schema:
    """Reflect the tables of a database (views excluded) into a :class:`Schema`.

    Args:
        url_or_engine: a SQLAlchemy URL (``sqlite:///shop.db``, ``postgresql://u:p@host/db``)
            or an :class:`~sqlalchemy.engine.Engine` (left open; an engine created here is
            disposed before returning).
        database: the id prefix of the tables (``"<database>.<table>"``). Default: ``schema``
            if given, else the file stem of a SQLite database, else the URL's database name,
            else ``"main"``.
        sample_rows: with ``statistics``, at most this many rows are read per table.
        sample_values: at most this many distinct non-null values are kept per column
            (capped by :data:`~jar_core.schema.MAX_SAMPLE_VALUES`).
        statistics: compute :attr:`Column.unique_ratio` (distinct non-null values / rows read)
            and :attr:`Column.sample` (first-seen order, JSON-friendly) from the first
            ``sample_rows`` rows. :attr:`Table.row_count` is set only when the table has fewer
            rows than that (it is then exact); no ``COUNT(*)`` is run.
        schema: the SQLAlchemy schema (PostgreSQL schema, MySQL database...) to read.
        include_tables: read only these tables (exact names, case-insensitive fallback).

    Raises:
        DatabaseConnectionError: malformed URL, missing SQLite file (nothing is created),
            missing driver, unreachable server or unreadable database.
        SchemaError: the database (or ``schema``) has no tables.
        UnknownDatabaseError: a name of ``include_tables`` is not a table.
        SourceError: reflection failed after connecting.
        InvalidArgumentError: ``sample_rows < 1`` or ``sample_values < 0``.
    """
    if statistics and (not isinstance(sample_rows, int) or sample_rows < 1):
        raise InvalidArgumentError(f"sample_rows must be a positive integer, got {sample_rows!r}")
    if statistics and (not isinstance(sample_values, int) or sample_values < 0):
        raise InvalidArgumentError(f"sample_values must be a non-negative integer, got {sample_values!r}")
    if isinstance(url_or_engine, Engine):
        _check_sqlite_file(url_or_engine.url)
        engine, owned = url_or_engine, False
    else:
        engine, owned = _create_engine(url_or_engine), True
    try:
        db_name = database or _default_database(engine.url, schema)
        return _load(
            engine,
            label=_label(engine.url),
            database=db_name,
            schema=schema,
            include_tables=include_tables,
            sample_rows=sample_rows if statistics else 0,
            sample_values=sample_values,
        )
    finally:
        if owned:
            engine.dispose()


def sql_database_source(db: Any, loader_options: Mapping[str, Any] | None = None) -> tuple[Engine, dict[str, Any]]:
    """The engine of a LangChain or LlamaIndex ``SQLDatabase`` and :func:`load_database` options for it.

    Duck-typed (both keep ``_engine``, ``_schema``, ``_include_tables``, ``_ignore_tables`` and
    offer ``get_usable_table_names()``): ``schema`` is its SQL schema and, when it restricts its
    tables, ``include_tables`` its usable tables minus views (which are never loaded). Options
    given in ``loader_options`` win.
    """
    engine = getattr(db, "_engine", None)
    if engine is None:
        raise InvalidArgumentError(f"{type(db).__name__} is not a SQLDatabase (it has no engine)")
    options = dict(loader_options or {})
    if getattr(db, "_schema", None) is not None:
        options.setdefault("schema", db._schema)
    restricted = getattr(db, "_include_tables", None) or getattr(db, "_ignore_tables", None)
    if restricted and "include_tables" not in options:
        views = set(inspect(engine).get_view_names(schema=options.get("schema")))
        options["include_tables"] = [t for t in db.get_usable_table_names() if t not in views]
    return engine, options


# -- connection ---------------------------------------------------------------------


def _one_line(err: BaseException) -> str:
    """The message of ``err`` (of its DB-API cause when wrapped) on one line."""
    orig = getattr(err, "orig", None)
    text = str(orig if orig is not None else err)
    text = text.split("(Background on this error at:")[0]
    return " ".join(text.split()) or type(err).__name__


def _label(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def _mask_raw(raw: str) -> str:
    """Hide the password of a URL string that SQLAlchemy could not parse."""
    return re.sub(r"(://[^:/@\s]*:)[^@\s]*@", r"\1***@", raw)


def _create_engine(raw: str | URL) -> Engine:
    """Parse ``raw`` and create an engine, refusing a SQLite file that does not exist."""
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError, TypeError) as err:
        raise DatabaseConnectionError(
            f"malformed database URL {_mask_raw(str(raw))!r}: {_one_line(err)} "
            "(expected e.g. sqlite:///path/to/file.db or postgresql://user:password@host/dbname)"
        ) from err
    label = _label(url)
    _check_sqlite_file(url)
    try:
        return create_engine(url)
    except NoSuchModuleError as err:
        raise DatabaseConnectionError(f"unknown database dialect or driver in {label}: {_one_line(err)}") from err
    except ImportError as err:
        module = err.name or "?"
        package = _DRIVER_PACKAGES.get(module.split(".")[0], module)
        raise DatabaseConnectionError(
            f"cannot load the database driver for {label}: Python module {module!r} is not installed "
            f"(pip install '{package}')"
        ) from err
    except (SQLAlchemyError, ValueError, TypeError) as err:
        raise DatabaseConnectionError(f"cannot use database URL {label}: {_one_line(err)}") from err


def _sqlite_file(url: URL) -> Path | None:
    """The file of a file-based SQLite URL, ``None`` for other URLs and in-memory databases."""
    if url.get_backend_name() != "sqlite":
        return None
    db = url.database or ""
    if db.startswith("file:"):  # URI filename (``?uri=true``)
        db, _, query = db[len("file:") :].partition("?")
        if "mode=memory" in query:
            return None
    if url.query.get("mode") == "memory":
        return None
    if not db or db == ":memory:":
        return None
    return Path(db)


def _check_sqlite_file(url: URL) -> None:
    """Refuse a SQLite file that does not exist: connecting would silently create it."""
    sqlite_file = _sqlite_file(url)
    if sqlite_file is not None and not sqlite_file.exists():
        raise DatabaseConnectionError(
            f"cannot open {_label(url)}: the SQLite file {str(sqlite_file)!r} does not exist"
        )


def _default_database(url: URL, schema: str | None) -> str:
    if schema:
        return schema
    sqlite_file = _sqlite_file(url)
    if sqlite_file is not None:
        return sqlite_file.stem or "main"
    if url.get_backend_name() != "sqlite" and url.database:
        return url.database
    return "main"


# -- reflection -----------------------------------------------------------------------


def _load(
    engine: Engine,
    *,
    label: str,
    database: str,
    schema: str | None,
    include_tables: Sequence[str] | None,
    sample_rows: int,
    sample_values: int,
) -> Schema:
    where = f"{label}" + (f" (schema {schema!r})" if schema else "")
    try:
        conn = engine.connect()
    except SQLAlchemyError as err:
        raise DatabaseConnectionError(f"cannot connect to {where}: {_one_line(err)}") from err
    with conn:
        insp = inspect(conn)
        try:
            names = insp.get_table_names(schema=schema)
        except SQLAlchemyError as err:
            raise DatabaseConnectionError(f"cannot read {where}: {_one_line(err)}") from err
        if not names:
            raise SchemaError(f"database {where} has no tables")
        if include_tables is not None:
            names = _select_tables(names, include_tables, where)
        try:
            columns = _by_name(insp.get_multi_columns(schema=schema, filter_names=names))
            pks = _by_name(_optional(insp.get_multi_pk_constraint, schema, names))
            fks = _by_name(_optional(insp.get_multi_foreign_keys, schema, names))
            comments = _by_name(_optional(insp.get_multi_table_comment, schema, names))
        except SQLAlchemyError as err:
            raise SourceError(f"cannot read the schema of {where}: {_one_line(err)}") from err
        own_schema = schema if schema is not None else insp.default_schema_name

        tables: list[Table] = []
        for name in names:
            cols = columns.get(name) or []
            if not cols:
                logger.warning("skipping table %r of %s: it has no columns", name, where)
                continue
            pk = set((pks.get(name) or {}).get("constrained_columns") or ())
            table = Table(
                database=database,
                name=name,
                columns=[
                    Column(
                        name=c["name"],
                        type=_type_text(c["type"], engine.dialect),
                        comment=c.get("comment") or None,
                        primary_key=c["name"] in pk,
                    )
                    for c in cols
                ],
                foreign_keys=[_foreign_key(fk, database, own_schema) for fk in fks.get(name) or ()],
                comment=(comments.get(name) or {}).get("text") or None,
            )
            if sample_rows:
                _add_statistics(conn, table, schema, sample_rows, sample_values, where)
            tables.append(table)
    dialect = _SQLGLOT_DIALECTS.get(engine.dialect.name, engine.dialect.name)
    return Schema(tables, dialect=dialect)


def _select_tables(names: Sequence[str], wanted: Sequence[str], where: str) -> list[str]:
    """``wanted`` resolved to the exact table names (exact match first, then case-insensitive)."""
    exact = set(names)
    lower = {n.lower(): n for n in reversed(names)}
    picked = [w if w in exact else lower.get(str(w).lower()) for w in wanted]
    missing = [w for w, p in zip(wanted, picked) if p is None]
    if missing:
        raise UnknownDatabaseError(f"{where} has no table {', '.join(map(repr, missing))}")
    return list(dict.fromkeys(p for p in picked if p is not None))


def _optional(method: Any, schema: str | None, names: Sequence[str]) -> Mapping[Any, Any]:
    """Call an ``Inspector.get_multi_*`` method; a dialect that lacks the feature gives ``{}``."""
    try:
        return method(schema=schema, filter_names=names)
    except NotImplementedError:
        return {}


def _by_name(multi: Mapping[Any, Any]) -> dict[str, Any]:
    """Re-key a ``get_multi_*`` result (``{(schema, table): value}``) by table name."""
    return {key[1] if isinstance(key, tuple) else key: value for key, value in multi.items()}


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


# -- statistics -----------------------------------------------------------------------


def _add_statistics(
    conn: Connection, table: Table, schema: str | None, sample_rows: int, sample_values: int, where: str
) -> None:
    """Fill the column statistics of ``table`` from its first ``sample_rows`` rows (one bounded query)."""
    names = [c.name for c in table.columns]
    lightweight = sa_table(table.name, *map(sa_column, names), schema=schema)
    stmt = select(*lightweight.c).limit(sample_rows)
    try:
        rows = conn.execute(stmt).all()
    except SQLAlchemyError as err:
        logger.warning("no statistics for table %r of %s: %s", table.name, where, _one_line(err))
        conn.rollback()
        return
    if len(rows) < sample_rows:
        table.row_count = len(rows)
    values_by_column: Iterable[Sequence[Any]] = zip(*rows) if rows else [()] * len(names)
    for col, values in zip(table.columns, values_by_column):
        col.unique_ratio, col.sample = _column_stats(values, len(rows), sample_values)


def _column_stats(values: Sequence[Any], n_rows: int, sample_values: int) -> tuple[float | None, tuple[Any, ...]]:
    """(distinct non-null values / ``n_rows``, up to ``sample_values`` JSON-friendly values in first-seen order)."""
    if n_rows == 0:
        return None, ()
    distinct = dict.fromkeys(map(_hashable, (v for v in values if v is not None)))
    converted = dict.fromkeys(map(_json_value, distinct))
    converted.pop(_SKIP, None)
    return len(distinct) / n_rows, tuple(islice(converted, sample_values))


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:  # lists, dicts (JSON / ARRAY columns)
        return json.dumps(value, default=str, ensure_ascii=False, sort_keys=True)
    return value


def _json_value(value: Any) -> Any:
    """``value`` as a JSON-friendly sample: dates as ISO strings, Decimal as float; bytes and NaN skipped."""
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, Decimal):
        return float(value) if value.is_finite() else _SKIP
    if isinstance(value, float):
        return value if math.isfinite(value) else _SKIP
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _SKIP
    if isinstance(value, (_dt.date, _dt.time)):
        text = value.isoformat()
    elif isinstance(value, str):
        text = value
    else:
        text = str(value)
    return text[:MAX_SAMPLE_CHARS]
