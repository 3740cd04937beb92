"""Load a :class:`~jar_core.schema.Schema` from a live database through SQLAlchemy.

SQLAlchemy's dialect-neutral API is used: :func:`sqlalchemy.inspect` for tables, columns,
keys and comments, and one bounded ``SELECT ... LIMIT n`` per table (SQLAlchemy Core, so every
identifier is quoted by the dialect) for the optional column statistics, read as a stream and
cut off at a byte budget (SQLite's values longer than 1 MiB through blob handles, so that none is
held whole: :func:`bounded_rows`). A table whose name or a column's is longer than
:data:`MAX_NAME_CHARS` characters is skipped with a warning. DuckDB (``duckdb:///file.duckdb``
with duckdb-engine, whose reflection goes through an emulated ``pg_catalog`` that lacks what
SQLAlchemy asks for) is read from DuckDB's own catalog instead: ``duckdb_tables()``, ``duckdb_columns()`` and
``duckdb_constraints()`` (unique indexes from ``duckdb_indexes()``). Keys that cannot be read are a warning, not an error: the load goes on
without them (joins are then inferred from names and values). Nothing is written and no query scans a whole table; connections are
read-only where the driver allows it (SQLite ``mode=ro``, PostgreSQL
``default_transaction_read_only``, MySQL read-only transactions). URLs are shown with their
password and secret query values (``password=``, ``sslpassword=``, ``passwd=``...) hidden.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import hashlib
import json
import logging
import math
import re
import sqlite3
import sys
import urllib.parse
import warnings
from contextlib import closing, contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from sqlalchemy import column as sa_column
from sqlalchemy import and_, case, create_engine, event, func, inspect, literal_column, select, text
from sqlalchemy import table as sa_table
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.engine.interfaces import Dialect
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.exc import ArgumentError, DBAPIError, NoSuchModuleError, SQLAlchemyError
from sqlalchemy.types import Enum as SQLEnum
from sqlalchemy.types import NullType, TypeEngine

from jar_core.errors import (
    DatabaseConnectionError,
    InvalidArgumentError,
    SchemaError,
    SourceError,
    UnknownDatabaseError,
)
from jar_core.redact import SECRET_KEY, scrub, secrets_in
from jar_core.schema import MAX_SAMPLE_VALUES, Column, ForeignKey, Schema, Table

__all__ = [
    "load_database", "sql_database_source", "redact_url", "read_only_connection", "bounded_columns", "bounded_rows",
    "DEFAULT_SAMPLE_BYTES", "DEFAULT_SAMPLE_VALUES", "MAX_NAME_CHARS",
]

logger = logging.getLogger(__name__)

#: Longest table or column name read: a table with a longer one is skipped with a warning. No
#: database but SQLite allows one this long (PostgreSQL 63 bytes, MySQL 64, SQL Server and Oracle
#: 128 characters), and SQLAlchemy's SQLite reflection takes minutes over an 80,000-character one.
MAX_NAME_CHARS = 1024

#: Sample strings longer than this are cut to this many characters.
MAX_SAMPLE_CHARS = 200

#: Default budget of the statistics query of one table: reading stops after this many bytes of values.
DEFAULT_SAMPLE_BYTES = 16 * 2**20

#: Distinct values kept per column by default: enough for the names of a small dimension table
#: (artists, genres, countries) to be matched in a question.
DEFAULT_SAMPLE_VALUES = 100

#: Rows fetched at a time by the statistics query (a server-side cursor where the driver has one).
_STREAM_ROWS = 100

#: Query parameters of a URL whose values are secrets.
_SECRET_PARAM = SECRET_KEY

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

#: File name suffixes of DuckDB databases (dropped from the file name to make the database id).
_DUCKDB_SUFFIXES = (".duckdb", ".ddb", ".db")

_SKIP = object()  # marks a value that has no place in a JSON sample (bytes, NaN)


def load_database(
    url_or_engine: str | URL | Engine,
    *,
    database: str | None = None,
    sample_rows: int = 1000,
    sample_values: int = DEFAULT_SAMPLE_VALUES,
    sample_bytes: int = DEFAULT_SAMPLE_BYTES,
    statistics: bool = True,
    schema: str | Sequence[str] | None = None,
    include_tables: Sequence[str] | None = None,
    partitions: bool = False,
) -> Schema:
    """Reflect the tables of a database (views excluded) into a :class:`Schema`: columns, primary
    and foreign keys, the columns declared unique on their own (a ``UNIQUE`` constraint or a unique
    index on one column, not partial: :attr:`~jar_core.schema.Column.unique`) and comments.

    Args:
        url_or_engine: a SQLAlchemy URL (``sqlite:///shop.db``, ``postgresql://u:p@host/db``)
            or an :class:`~sqlalchemy.engine.Engine` (left open; an engine created here is
            disposed before returning).
        database: the id prefix of the tables (``"<database>.<table>"``). Default: ``schema``
            if given, else the file stem of a SQLite or DuckDB database, else for PostgreSQL the
            connection's default schema (usually ``public``), else the URL's database name, else
            ``"main"``. Not allowed with several schemas (each is then its own database).
        sample_rows: with ``statistics``, at most this many rows are read per table.
        sample_values: at most this many distinct non-null values are kept per column
            (default 100, at most :data:`~jar_core.schema.MAX_SAMPLE_VALUES`); strings are cut
            to :data:`MAX_SAMPLE_CHARS` characters. They are what value matching finds a
            question's names in ('Iron Maiden' -> ``artist.name``): a name that is not among
            the first ``sample_values`` distinct values of the rows read (in the order the
            database returns them, not by key: PostgreSQL returns an updated row last) is not found.
            A column of an enumeration (PostgreSQL's ``CREATE TYPE mood AS ENUM (...)``, MySQL's
            ``ENUM('a', 'b')`` and ``SET('a', 'b')``, DuckDB's ``ENUM``) keeps its type's labels
            instead, in their order, read from the catalog with or without ``statistics``:
            :attr:`Column.enum <jar_core.schema.Column.enum>` (text, no join key).
        sample_bytes: with ``statistics``, reading a table's rows stops once its values add up
            to this many bytes (default 16 MiB), so a table of huge values costs no more; a long
            value is read cut (in SQLite, whatever its size, without holding it whole).
        statistics: compute :attr:`Column.unique_ratio` (distinct non-null values / rows read)
            and :attr:`Column.sample` (first-seen order, JSON-friendly) from the first
            ``sample_rows`` rows. :attr:`Table.row_count` is set only when the table has fewer
            rows than that and all were read (it is then exact); no ``COUNT(*)`` is run.
        schema: the SQL schema (PostgreSQL schema, MySQL database, DuckDB schema...) to read, or
            a list of them; default: the connection's default schema. The tables of a schema
            given here are identified as ``"<schema>.<table>"`` (unless ``database`` says
            otherwise) and are qualified with it in SQL (:attr:`Table.sql_schema`): the DDL,
            join clauses and sample-row queries name ``"music"."track"``, not ``"track"``.
            The tables of several schemas have the :attr:`Table.catalog` of the URL's database:
            the joins between the schemas are inferred as within one database.
        include_tables: read only these tables (exact names, case-insensitive fallback; with
            several schemas ``"schema.table"``, or a bare name for that table in every schema).
        partitions: also read PostgreSQL's partitions, and the inheritance children that add no
            column to their parent (Sakila's ``payment_p2007_01`` ... ``INHERITS (payment)``).
            By default they are skipped when their parent is read: a query of the parent reads
            their rows, and a dozen copies of one table would fill the results. A child that adds
            columns is a table of its own and is always read, and so is a partition whose parent is
            not read (``include_tables=["payment_p2007_01"]``).

    A table that cannot be read (a virtual table of a module not loaded here, a name or a column's
    name longer than :data:`MAX_NAME_CHARS` characters...) is skipped with a warning naming it.

    Raises:
        DatabaseConnectionError: malformed URL, missing SQLite file (nothing is created),
            missing driver, unreachable server or unreadable database.
        SchemaError: the database (or ``schema``) has no tables.
        UnknownDatabaseError: a name of ``include_tables`` is not a table.
        SourceError: reflection failed after connecting.
        InvalidArgumentError: ``sample_rows < 1``, ``sample_values`` not in ``0..MAX_SAMPLE_VALUES``
            or ``sample_bytes < 1``.

    A URL is opened read-only (see the module's documentation); an engine you pass is left as
    it was, its connection made read-only for the time of the load where the dialect allows it.
    """
    if statistics and (not isinstance(sample_rows, int) or sample_rows < 1):
        raise InvalidArgumentError(f"sample_rows must be a positive integer, got {sample_rows!r}")
    if isinstance(sample_values, bool) or not isinstance(sample_values, int) or not 0 <= sample_values <= MAX_SAMPLE_VALUES:
        raise InvalidArgumentError(
            f"sample_values must be an integer from 0 to {MAX_SAMPLE_VALUES}, got {sample_values!r}"
        )
    if statistics and (isinstance(sample_bytes, bool) or not isinstance(sample_bytes, int) or sample_bytes < 1):
        raise InvalidArgumentError(f"sample_bytes must be a positive integer, got {sample_bytes!r}")
    schemas = _schema_list(schema)
    if database is not None and len(schemas) > 1:
        raise InvalidArgumentError(
            "database= names the tables of one schema; with several schemas each one is its own database"
        )
    if isinstance(url_or_engine, Engine):
        _check_sqlite_file(url_or_engine.url)
        engine, owned = url_or_engine, False
    else:
        engine, owned = _create_engine(url_or_engine), True
    try:
        return _load(
            engine,
            owned=owned,
            # the URL as the user wrote it, not the read-only form it is opened with
            label=_label(engine.url) if not owned else redact_url(url_or_engine),
            database=database,
            schemas=schemas,
            include_tables=include_tables,
            partitions=partitions,
            sample_rows=sample_rows if statistics else 0,
            sample_values=sample_values,
            sample_bytes=sample_bytes,
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
    from jar_core.options import check_options

    options = check_options(loader_options, load_database, "loader_options")
    if getattr(db, "_schema", None) is not None:
        options.setdefault("schema", db._schema)
    restricted = getattr(db, "_include_tables", None) or getattr(db, "_ignore_tables", None)
    if restricted and "include_tables" not in options:
        views = set(inspect(engine).get_view_names(schema=options.get("schema")))
        options["include_tables"] = [t for t in db.get_usable_table_names() if t not in views]
    return engine, options


# -- connection ---------------------------------------------------------------------


def _one_line(err: BaseException, secrets: Sequence[str] = ()) -> str:
    """The message of ``err`` (of its DB-API cause when wrapped) on one line, ``secrets`` hidden."""
    orig = getattr(err, "orig", None)
    text = str(orig if orig is not None else err)
    text = scrub(text.split("(Background on this error at:")[0], secrets)
    return " ".join(text.split()) or type(err).__name__


def redact_url(url: str | URL | Engine) -> str:
    """``url`` as text with its password and secret query values hidden (SQLAlchemy's rendering).

    Secret query values are those of parameters such as ``password``, ``sslpassword``,
    ``passwd``, ``pwd``, ``token`` or ``secret``. A string SQLAlchemy cannot parse is masked
    from the first ``:`` of its user part to the last ``@`` before the host.
    """
    if isinstance(url, Engine):
        url = url.url
    written = url if isinstance(url, str) else None
    if not isinstance(url, URL):
        try:
            url = make_url(url)
        except (ArgumentError, ValueError, TypeError):
            return _mask_raw(str(url))
    secrets = _secrets(url)
    if written is not None and url.password is None and not any(_SECRET_PARAM.search(k) for k in url.query):
        return scrub(written, secrets)  # as written (a rendering escapes ``sqlite:///:memory:``)
    if url.host and "@" in url.host:  # an unescaped '@' in the password, split at the first one
        return _mask_raw(url.render_as_string(hide_password=False))
    marker = "JARREDACTED"  # rendered as is, then shown as ***
    hidden = {k: marker for k in url.query if _SECRET_PARAM.search(k)}
    if hidden:
        url = url.update_query_dict(hidden)
    return scrub(url.render_as_string(hide_password=True).replace(marker, "***"), secrets)


def _label(url: URL) -> str:
    return redact_url(url)


def _mask_raw(raw: str) -> str:
    """Hide the password and secret query values of a URL string that SQLAlchemy could not parse."""
    scheme, sep, rest = raw.partition("://")
    if not sep:
        return scrub(raw, _secrets(raw))
    head, q, query = rest.partition("?")
    at = head.rfind("@")
    if at > 0 and not head.startswith("/") and ":" in head[:at]:
        head = f"{head[: head.index(':')]}:***{head[at:]}"
    if q:
        parts = []
        for part in query.split("&"):
            key, eq, _ = part.partition("=")
            parts.append(f"{key}=***" if eq and _SECRET_PARAM.search(key) else part)
        query = "&".join(parts)
    return scrub(f"{scheme}{sep}{head}{q}{query}", _secrets(raw))


def _secrets(raw: Any) -> list[str]:
    """The secrets of a URL, DSN or ODBC string as typed (to scrub from messages): its password,
    secret query values and the ``password=`` / ``pwd=``... values inside its query (an
    ``odbc_connect=`` string); for a string that is no URL, what :func:`secrets_in` finds in it."""
    try:
        url = raw if isinstance(raw, URL) else make_url(raw)
    except (ArgumentError, ValueError, TypeError):
        return secrets_in(str(raw))
    found = [url.password or ""]
    if url.host and "@" in url.host:
        found.append(f"{url.password}@{url.host.rpartition('@')[0]}")
    query = []
    for key, value in url.query.items():
        values = [value] if isinstance(value, str) else list(value)
        if _SECRET_PARAM.search(key):
            found.extend(values)
        query.extend(values)
    return secrets_in(" ".join(query), found, userinfo=False)


def parse_url(raw: str | URL) -> URL:
    """``raw`` as a SQLAlchemy URL, or :class:`DatabaseConnectionError` (password hidden in the message)."""
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError, TypeError) as err:
        raise DatabaseConnectionError(
            f"malformed database URL {_mask_raw(str(raw))!r}: {_one_line(err, _secrets(raw))} "
            "(expected e.g. sqlite:///path/to/file.db or postgresql://user:password@host/dbname)"
        ) from err
    if url.host and "@" in url.host:
        raise DatabaseConnectionError(
            f"malformed database URL {_label(url)!r}: write an '@' in the user name or password as %40"
        )
    return url


def _create_engine(raw: str | URL, *, read_only: bool = True) -> Engine:
    """Parse ``raw`` and create an engine (read-only by default), refusing a SQLite file that does not exist."""
    url = parse_url(raw)
    secrets = _secrets(url)
    label = _label(url)
    _check_sqlite_file(url)
    kwargs: dict[str, Any] = {}
    if url.get_backend_name() == "duckdb":
        duckdb_file = _duckdb_file(url)
        if duckdb_file is not None:
            _check_database_file(duckdb_file, "DuckDB", label)
        if read_only and duckdb_file is not None:  # a read-only DuckDB connection also lets others read
            kwargs["connect_args"] = {"read_only": True}
    try:
        engine = create_engine(_read_only_url(url) if read_only else url, **kwargs)
    except NoSuchModuleError as err:
        raise DatabaseConnectionError(
            f"unknown database dialect or driver in {label}: {_one_line(err, secrets)}"
        ) from err
    except ImportError as err:
        module = err.name or "?"
        package = _DRIVER_PACKAGES.get(module.split(".")[0], module)
        raise DatabaseConnectionError(
            f"cannot load the database driver for {label}: Python module {module!r} is not installed "
            f"(pip install '{package}')"
        ) from err
    except (SQLAlchemyError, ValueError, TypeError) as err:
        raise DatabaseConnectionError(f"cannot use database URL {label}: {_one_line(err, secrets)}") from err
    if read_only:
        statements = _READ_ONLY_SESSION.get(engine.dialect.name)
        if statements:
            event.listen(engine, "connect", _session_setter(statements, engine.dialect.name != "sqlite"))
    return engine


#: Statements that make a whole database session read-only, by SQLAlchemy dialect name.
_READ_ONLY_SESSION = {
    "sqlite": ("PRAGMA query_only = ON",),
    "postgresql": ("SET default_transaction_read_only = on",),
    "mysql": ("SET SESSION TRANSACTION READ ONLY",),
    "mariadb": ("SET SESSION TRANSACTION READ ONLY",),
}

#: Statements that make the current (next) transaction read-only, for an engine that is not ours.
_READ_ONLY_TRANSACTION = {
    "postgresql": "SET TRANSACTION READ ONLY",
    "mysql": "SET TRANSACTION READ ONLY",
    "mariadb": "SET TRANSACTION READ ONLY",
}


#: A transactional isolation level, by dialect, for a connection whose server default is unknown.
_TRANSACTIONAL_LEVEL = {"postgresql": "READ COMMITTED", "mysql": "REPEATABLE READ", "mariadb": "REPEATABLE READ"}


def _session_setter(statements: Sequence[str], commit: bool) -> Any:
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        try:
            for statement in statements:
                cursor.execute(statement)
        finally:
            cursor.close()
        if commit:  # a SET inside the driver's implicit transaction is undone by a rollback
            dbapi_connection.commit()

    return on_connect


def _read_only_url(url: URL) -> URL:
    """A file-based SQLite URL as a ``mode=ro`` URI filename; other URLs unchanged."""
    sqlite_file = _sqlite_file(url)
    if sqlite_file is None or url.get_driver_name() not in ("pysqlite", "sqlite"):
        return url
    database = url.database or ""
    if not database.startswith("file:"):
        database = "file:" + urllib.parse.quote(str(sqlite_file), safe="/:\\\\")
    return url.set(database=database).update_query_dict({"mode": "ro", "uri": "true"})


@contextmanager
def read_only_connection(engine: Engine, *, owned: bool = False) -> Iterator[Connection]:
    """A connection of ``engine`` that cannot write where the dialect allows it.

    An engine made here (``owned``) is read-only from its URL and session settings. On another
    engine SQLite's ``query_only`` is switched on for the time of the block and restored, and
    PostgreSQL / MySQL reads run in a transaction that begins with ``SET TRANSACTION READ ONLY``,
    whatever the engine's isolation level: the connection is given a transactional one for the
    block (the server's default; ``AUTOCOMMIT`` would run each statement outside the read-only
    transaction), which the pool resets when it is returned.
    """
    conn = engine.connect()
    with conn:
        name = conn.dialect.name
        if not owned and name in _READ_ONLY_TRANSACTION:
            level = conn.default_isolation_level
            if not level or level.upper() == "AUTOCOMMIT":
                level = _TRANSACTIONAL_LEVEL[name]
            conn.execution_options(isolation_level=level)
        restore: str | None = None
        begin_listener = None
        if not owned and name == "sqlite":
            previous = conn.exec_driver_sql("PRAGMA query_only").scalar()
            if not previous:
                conn.exec_driver_sql("PRAGMA query_only = ON")
                restore = "PRAGMA query_only = OFF"
        elif not owned and name in _READ_ONLY_TRANSACTION:
            statement = _READ_ONLY_TRANSACTION[name]

            def begin_listener(c: Connection) -> None:
                cursor = c.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
                try:
                    cursor.execute(statement)
                finally:
                    cursor.close()

            event.listen(conn, "begin", begin_listener)
        try:
            yield conn
        finally:
            if begin_listener is not None:
                event.remove(conn, "begin", begin_listener)
            if conn.in_transaction():
                conn.rollback()
            if restore is not None:
                conn.exec_driver_sql(restore)
                conn.rollback()

def _sqlite_file(url: URL) -> Path | None:
    """The file of a file-based SQLite URL, ``None`` for other URLs and in-memory databases."""
    if url.get_backend_name() != "sqlite":
        return None
    db = url.database or ""
    if db.startswith("file:"):  # URI filename (``?uri=true``)
        db, _, query = db[len("file:") :].partition("?")
        if "mode=memory" in query:
            return None
        db = urllib.parse.unquote(db)
    if url.query.get("mode") == "memory":
        return None
    if not db or db == ":memory:":
        return None
    return Path(db)


def _check_sqlite_file(url: URL) -> None:
    """Refuse a SQLite file that does not exist (connecting would silently create it) or is a directory."""
    sqlite_file = _sqlite_file(url)
    if sqlite_file is not None:
        _check_database_file(sqlite_file, "SQLite", _label(url))


def _check_database_file(path: Path, kind: str, label: str) -> None:
    """:class:`DatabaseConnectionError` naming ``path`` when it is a directory or does not exist
    (and which folder of it is missing), instead of the driver's 'disk I/O error'."""
    if path.is_dir():
        raise DatabaseConnectionError(
            f"cannot open {label}: {str(path)!r} is a directory, not a {kind} database file"
        )
    if not path.exists():
        parent = path.parent
        missing = ("" if parent.is_dir() else f" ({str(parent)!r} is not a folder)" if parent.exists()
                   else f" (the folder {str(parent)!r} does not exist)")
        raise DatabaseConnectionError(f"cannot open {label}: the {kind} file {str(path)!r} does not exist{missing}")


def _duckdb_file(url: URL) -> Path | None:
    """The file of a file-based DuckDB URL, ``None`` for in-memory and MotherDuck (``md:``) databases."""
    if url.get_backend_name() != "duckdb":
        return None
    db = url.database or ""
    if not db or db.startswith(":memory:") or db.startswith(("md:", "motherduck:")):
        return None
    return Path(db)


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


def _default_database(url: URL, schema: str | None) -> str | None:
    """The id prefix of the tables of ``schema``; ``None``: the connection's default schema (PostgreSQL)."""
    if schema:
        return schema
    sqlite_file = _sqlite_file(url)
    if sqlite_file is not None:
        return sqlite_file.stem or "main"
    backend = url.get_backend_name()
    if backend == "duckdb":
        db = (url.database or "").removeprefix("md:")
        if not db or db.startswith(":memory:"):
            return "memory"
        name = Path(db).name
        for suffix in _DUCKDB_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                return name[: -len(suffix)]
        return name
    if backend == "postgresql":
        return None  # its default schema, read once connected
    if backend != "sqlite" and url.database:
        return url.database
    return "main"


# -- reflection -----------------------------------------------------------------------


def _load(
    engine: Engine,
    *,
    owned: bool,
    label: str,
    database: str | None,
    schemas: Sequence[str | None],
    include_tables: Sequence[str] | None,
    partitions: bool = False,
    sample_rows: int,
    sample_values: int,
    sample_bytes: int,
) -> Schema:
    secrets = _secrets(engine.url)
    where_all = label + (f" (schema {', '.join(map(repr, schemas))})" if schemas != [None] else "")
    tables: list[Table] = []
    try:
        with read_only_connection(engine, owned=owned) as conn:
            duck = conn.dialect.name == "duckdb"
            insp = None if duck else inspect(conn)
            listed: list[tuple[str | None, list[str]]] = []
            for schema in schemas:
                where = label + (f" (schema {schema!r})" if schema else "")
                try:
                    names = _duckdb_table_names(conn, schema) if duck else insp.get_table_names(schema=schema)  # type: ignore[union-attr]
                except SQLAlchemyError as err:
                    hint = ("; a SQLite schema is an attached database: pass an engine that ATTACHes it"
                            if schema and conn.dialect.name == "sqlite" else "")
                    raise DatabaseConnectionError(f"cannot read {where}: {_one_line(err, secrets)}{hint}") from err
                if not names and include_tables is None:
                    if len(schemas) == 1:
                        raise SchemaError(f"database {where} has no tables")
                    logger.warning("schema %r of %s has no tables", schema, label)
                listed.append((schema, list(names)))
            if include_tables is not None:
                listed = _select_in_schemas(listed, include_tables, where_all)
            if not partitions and conn.dialect.name == "postgresql":
                listed = _without_partitions(conn, listed, label)
            for schema, names in listed:
                if not names:
                    continue
                where = label + (f" (schema {schema!r})" if schema else "")
                db_name = database or _default_database(engine.url, schema)
                if db_name is None:  # PostgreSQL without a schema: its default schema
                    db_name = (None if duck else insp.default_schema_name) or "public"  # type: ignore[union-attr]
                tables.extend(
                    _read_tables(
                        conn, insp, names, where=where, secrets=secrets, database=db_name, schema=schema,
                        sample_rows=sample_rows, sample_values=sample_values, sample_bytes=sample_bytes,
                    )
                )
    except SQLAlchemyError as err:
        raise DatabaseConnectionError(f"cannot connect to {where_all}: {_one_line(err, secrets)}") from err
    if not tables:
        skipped = " that can be read (see the warnings)" if any(names for _, names in listed) else "s"
        raise SchemaError(f"database {where_all} has no table{skipped}")
    if len({t.database for t in tables}) > 1:  # several schemas of one database: they join
        catalog = engine.url.database or label
        for t in tables:
            t.catalog = catalog
    dialect = _SQLGLOT_DIALECTS.get(engine.dialect.name, engine.dialect.name)
    return Schema(tables, dialect=dialect)


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
    conn: Connection, listed: list[tuple[str | None, list[str]]], label: str
) -> list[tuple[str | None, list[str]]]:
    """``listed`` without the PostgreSQL partitions and copy-children of which an ancestor is read
    (through copies only: a partition of a partition of a table read is skipped). If the catalog
    cannot be read, nothing is dropped."""
    try:
        default = str(conn.execute(text("SELECT current_schema()")).scalar())
        rows = conn.execute(_PG_CHILDREN).all()
    except SQLAlchemyError as err:
        conn.rollback()
        logger.info("partitions of %s not read (%s); every table is kept", label, _one_line(err))
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


def _select_in_schemas(
    listed: list[tuple[str | None, list[str]]], wanted: Sequence[str], where: str
) -> list[tuple[str | None, list[str]]]:
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


def _read_tables(
    conn: Connection,
    insp: Any,
    names: Sequence[str],
    *,
    where: str,
    secrets: Sequence[str],
    database: str,
    schema: str | None,
    sample_rows: int,
    sample_values: int,
    sample_bytes: int,
) -> list[Table]:
    names = _without_long_names(names, {}, where)
    if not names:
        return []
    if insp is None:  # DuckDB: its own catalog
        columns, pks, fks, comments, own_schema, unique = _duckdb_catalog(conn, schema, names, where, secrets)
        names = _without_long_names(names, columns, where)
    else:
        try:
            columns = _by_name(insp.get_multi_columns(schema=schema, filter_names=names))
        except SQLAlchemyError as err:
            if conn.in_transaction():
                conn.rollback()
            columns = _columns_one_by_one(conn, insp, schema, names, where, secrets, err)
            names = [name for name in names if name in columns]
        names = _without_long_names(names, columns, where)  # before the keys: their reflection is slow
        if not names:
            return []
        pks = _keys(conn, insp.get_multi_pk_constraint, schema, names, "primary keys", where, secrets)
        fks = _keys(conn, insp.get_multi_foreign_keys, schema, names, "foreign keys", where, secrets)
        try:
            comments = _by_name(_optional(insp.get_multi_table_comment, schema, names))
        except SQLAlchemyError as err:
            logger.info("no table comments for %s: %s", where, _one_line(err, secrets))
            conn.rollback()
            comments = {}
        own_schema = schema if schema is not None else insp.default_schema_name
        unique = _unique_columns(conn, insp, schema, names, where, secrets)

    tables: list[Table] = []
    for name in names:
        cols = columns.get(name) or []
        if not cols:
            logger.warning("skipping table %r of %s: it has no columns", name, where)
            continue
        pk = set((pks.get(name) or {}).get("constrained_columns") or ())
        alone = unique.get(name) or set()
        try:
            table = Table(
                database=database,
                name=name,
                columns=[
                    _reflected_column(c, conn.dialect, primary_key=c["name"] in pk, unique=c["name"] in alone,
                                      sample_values=sample_values)
                    for c in cols
                ],
                foreign_keys=[_foreign_key(fk, database, own_schema) for fk in fks.get(name) or ()],
                comment=(comments.get(name) or {}).get("text") or None,
                sql_schema=schema,
            )
        except SchemaError as err:  # a column named ' '...: this table, not the whole database
            warnings.warn(f"skipping table {name!r} of {where}: {err}", stacklevel=2)
            continue
        if sample_rows:
            _add_statistics(conn, table, schema, sample_rows, sample_values, sample_bytes, where, secrets)
        tables.append(table)
    return tables


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
                f"skipping table {name!r} of {where}: its columns cannot be read ({_one_line(err, secrets)})",
                stacklevel=3,
            )
    if not columns:
        raise SourceError(f"cannot read the schema of {where}: {_one_line(failure, secrets)}") from failure
    return columns


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

        from jar_core.loaders.ddl import inline_enum_labels

        try:
            return inline_enum_labels(exp.DataType.build(type_, dialect="duckdb"))
        except (SqlglotError, ValueError):
            return None
    mysql = sys.modules.get("sqlalchemy.dialects.mysql")  # loaded by whatever reflected a MySQL type
    if mysql is not None and isinstance(type_, mysql.SET):
        return type_.values
    return None


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
        logger.info("no unique constraints or indexes for %s: %s", where, _one_line(err, secrets))
    return out


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
            f"the {what} of {where} could not be read ({_one_line(err, secrets)}); going on without them "
            "(joins are inferred from names and values)",
            stacklevel=2,
        )
        return {}


# -- DuckDB -------------------------------------------------------------------------


def _duckdb_schema(conn: Connection, schema: str | None) -> str:
    return schema if schema is not None else str(conn.execute(text("SELECT current_schema()")).scalar())


def _duckdb_table_names(conn: Connection, schema: str | None) -> list[str]:
    """Base tables of one schema of the current DuckDB database (views and temporary tables excluded)."""
    rows = conn.execute(
        text(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() "
            "AND schema_name = :schema AND NOT internal AND NOT temporary ORDER BY table_name"
        ),
        {"schema": _duckdb_schema(conn, schema)},
    )
    return [r[0] for r in rows]


#: The keys of one schema of the current DuckDB database.
_DUCKDB_CONSTRAINTS = (
    "SELECT * FROM duckdb_constraints() WHERE database_name = current_database() "
    "AND schema_name = :schema AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY', 'UNIQUE')"
)
_DUCKDB_REFERENCES = re.compile(r'REFERENCES\s+((?:"[^"]+"|[^\s(]+))\s*\(([^)]*)\)', re.IGNORECASE)


def _duckdb_catalog(
    conn: Connection, schema: str | None, names: Sequence[str], where: str, secrets: Sequence[str]
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any], str, dict[str, set[str]]]:
    """Columns, primary keys, foreign keys, comments, schema and unique columns of DuckDB tables,
    from DuckDB's catalog functions.

    Keys come from ``duckdb_constraints()``, else from SQLAlchemy's reflection; when neither
    gives them a warning says so and the tables are read without keys.
    """
    own = _duckdb_schema(conn, schema)
    wanted = set(names)
    params = {"schema": own}
    try:
        columns: dict[str, list[dict[str, Any]]] = {}
        for table, column, dtype, comment in conn.execute(
            text(
                "SELECT table_name, column_name, data_type, comment FROM duckdb_columns() "
                "WHERE database_name = current_database() AND schema_name = :schema "
                "ORDER BY table_name, column_index"
            ),
            params,
        ):
            if table in wanted:
                columns.setdefault(table, []).append({"name": column, "type": dtype or "", "comment": comment})
        comments = {
            table: {"text": comment}
            for table, comment in conn.execute(
                text(
                    "SELECT table_name, comment FROM duckdb_tables() WHERE database_name = current_database() "
                    "AND schema_name = :schema"
                ),
                params,
            )
            if table in wanted
        }
    except SQLAlchemyError as err:
        raise SourceError(f"cannot read the schema of {where}: {_one_line(err, secrets)}") from err
    pks: dict[str, Any] = {}
    fks: dict[str, list[dict[str, Any]]] = {}
    unique: dict[str, set[str]] = {}
    try:
        result = conn.execute(text(_DUCKDB_CONSTRAINTS), params)
        for row in result.mappings():
            table = row["table_name"]
            if table not in wanted:
                continue
            cols = list(row.get("constraint_column_names") or ())
            if row["constraint_type"] == "PRIMARY KEY":
                pks[table] = {"constrained_columns": cols}
                continue
            if row["constraint_type"] == "UNIQUE":
                if len(cols) == 1:
                    unique.setdefault(table, set()).add(cols[0])
                continue
            ref_table, ref_cols = row.get("referenced_table"), list(row.get("referenced_column_names") or ())
            if not ref_table:  # DuckDB before referenced_table: read the constraint's text
                m = _DUCKDB_REFERENCES.search(str(row.get("constraint_text") or ""))
                if m is None:
                    continue
                ref_table = m.group(1).strip('"')
                ref_cols = [c.strip().strip('"') for c in m.group(2).split(",") if c.strip()]
            fks.setdefault(table, []).append(
                {"constrained_columns": cols, "referred_table": ref_table, "referred_columns": ref_cols,
                 "referred_schema": None}
            )
    except SQLAlchemyError as err:  # an older DuckDB: SQLAlchemy's reflection, if it gives them
        if conn.in_transaction():
            conn.rollback()
        insp = inspect(conn)
        try:
            pks = _by_name(_optional(insp.get_multi_pk_constraint, schema, names))
            fks = _by_name(_optional(insp.get_multi_foreign_keys, schema, names))
        except SQLAlchemyError as err2:
            if conn.in_transaction():
                conn.rollback()
            pks, fks = {}, {}
            warnings.warn(
                f"the primary and foreign keys of {where} could not be read (duckdb_constraints(): "
                f"{_one_line(err, secrets)}; SQLAlchemy: {_one_line(err2, secrets)}); going on without them "
                "(joins are inferred from names and values)",
                stacklevel=2,
            )
    for table, column in _duckdb_unique_indexes(conn, params, where, secrets):
        if table in wanted:
            unique.setdefault(table, set()).add(column)
    if not pks and not fks:
        logger.info("%s declares no primary or foreign keys: joins are inferred from names and values", where)
    return columns, pks, fks, comments, own, unique


#: The unique indexes (not primary keys) of one schema of the current DuckDB database.
_DUCKDB_UNIQUE_INDEXES = (
    "SELECT sql FROM duckdb_indexes() WHERE database_name = current_database() "
    "AND schema_name = :schema AND is_unique AND NOT is_primary"
)


def _duckdb_unique_indexes(
    conn: Connection, params: dict[str, Any], where: str, secrets: Sequence[str]
) -> list[tuple[str, str]]:
    """``(table, column)`` of each unique index on one column of DuckDB (``duckdb_indexes()``, its
    ``CREATE UNIQUE INDEX`` statement read as the DDL loader reads it; an index on several columns,
    on an expression or partial declares none). None where the catalog cannot be read."""
    import sqlglot
    from sqlglot.errors import SqlglotError

    from jar_core.loaders.ddl import unique_index_column

    try:
        statements = [row[0] for row in conn.execute(text(_DUCKDB_UNIQUE_INDEXES), params)]
    except SQLAlchemyError as err:
        if conn.in_transaction():
            conn.rollback()
        logger.info("no unique indexes for %s: %s", where, _one_line(err, secrets))
        return []
    found = []
    for sql in statements:
        try:
            hit = unique_index_column(sqlglot.parse_one(sql or "", read="duckdb"))
        except SqlglotError:
            continue
        if hit is not None:
            found.append((hit[0].name, hit[1]))
    return found


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


#: Characters (bytes of a binary value) of one value the statistics query reads at most: a
#: longer one is cut in SQL and known by this prefix and its length.
_LONG_VALUE_CHARS = 4096

#: Column types cut in SQL: character and binary types, not arrays of them.
_TEXT_TYPE = re.compile(r"char|text|clob|string", re.IGNORECASE)
_BINARY_TYPE = re.compile(r"bytea|blob|binary|image", re.IGNORECASE)
_ARRAY_TYPE = re.compile(r"\[|array", re.IGNORECASE)

#: Dialects whose long values are cut in SQL: (prefix function, length function, cuts binary values).
_CUT_FUNCTIONS = {
    "sqlite": ("substr", "length", True),
    "postgresql": ("substr", "length", True),
    "mysql": ("substr", "length", True),
    "mariadb": ("substr", "length", True),
    "duckdb": ("substr", "length", False),
    "mssql": ("substring", "datalength", False),
}


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


def _add_statistics(
    conn: Connection, table: Table, schema: str | None, sample_rows: int, sample_values: int, sample_bytes: int,
    where: str, secrets: Sequence[str] = (),
) -> None:
    """Fill the column statistics of ``table`` from its first rows (one bounded, streamed query).

    At most ``sample_rows`` rows are read, and no more once the values read add up to
    ``sample_bytes`` (a value counted at its full length); a long value is read as its first
    :data:`_LONG_VALUE_CHARS` characters and its length where the dialect allows
    (:func:`bounded_rows`), and kept only as its first characters and a digest.
    """
    chars = min(_LONG_VALUE_CHARS, max(sample_bytes, MAX_SAMPLE_CHARS))
    stats = [_ColumnStats(sample_values) for _ in table.columns]
    n_rows, budget, complete = 0, sample_bytes, True
    try:
        with closing(bounded_rows(conn, table, schema, sample_rows, chars, stream=True)) as rows:
            for row in rows:
                n_rows += 1
                for column_stats, (value, length) in zip(stats, row):
                    if value is not None:
                        budget -= _size(value) + max(0, (length or 0) - _length(value))
                        column_stats.add(value, length)
                if budget <= 0:
                    complete = False
                    break
    except SQLAlchemyError as err:
        conn.rollback()
        warnings.warn(
            f"the rows of table {table.name!r} of {where} could not be read ({_one_line(err, secrets)}); "
            "it is loaded without sample values (value matching will not find its names)",
            stacklevel=2,
        )
        return
    if budget <= 0:
        logger.info("statistics of table %r of %s from its first %d rows (%d-byte budget)", table.name, where,
                    n_rows, sample_bytes)
    if complete and n_rows < sample_rows:
        table.row_count = n_rows
    for col, column_stats in zip(table.columns, stats):
        col.unique_ratio, sample = column_stats.result(n_rows)
        if not col.enum:  # an enumeration keeps its type's labels
            col.sample = sample


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


class _ColumnStats:
    """Distinct non-null values of a column (long ones by digest) and its first JSON-friendly samples."""

    def __init__(self, sample_values: int) -> None:
        self.sample_values = sample_values
        self.distinct: dict[Any, None] = {}
        self.samples: dict[Any, None] = {}

    def add(self, value: Any, length: int | None = None) -> None:
        """Count ``value`` (the first characters of a value of ``length``, when it was cut)."""
        value = _hashable(value)
        key = _compact(value, length)
        if key in self.distinct:
            return
        self.distinct[key] = None
        if len(self.samples) < self.sample_values:
            converted = _json_value(value)
            if converted is not _SKIP:
                self.samples.setdefault(converted, None)

    def result(self, n_rows: int) -> tuple[float | None, tuple[Any, ...]]:
        """(distinct values / ``n_rows``, samples in first-seen order); ``(None, ())`` for no rows."""
        if n_rows == 0:
            return None, ()
        return len(self.distinct) / n_rows, tuple(self.samples)


def _column_stats(values: Sequence[Any], n_rows: int, sample_values: int) -> tuple[float | None, tuple[Any, ...]]:
    """(distinct non-null values / ``n_rows``, up to ``sample_values`` JSON-friendly values in first-seen order)."""
    stats = _ColumnStats(sample_values)
    for value in values:
        if value is not None:
            stats.add(value)
    return stats.result(n_rows)


def _size(value: Any) -> int:
    """Bytes a value takes in memory (strings and binary values by their length)."""
    if isinstance(value, memoryview):
        return value.nbytes
    return sys.getsizeof(value)


def _length(value: Any) -> int:
    """Characters of a string, bytes of a binary value, 0 for anything else."""
    if isinstance(value, memoryview):
        return value.nbytes
    return len(value) if isinstance(value, (str, bytes, bytearray)) else 0


def _compact(value: Any, length: int | None = None) -> Any:
    """A hashable stand-in for ``value`` that tells distinct values apart without keeping long ones
    (by their ``length``, when given: that of the whole value of which ``value`` is the start)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        return ("\0bytes", length or len(data), hashlib.blake2b(data, digest_size=16).digest())
    if isinstance(value, str) and len(value) > MAX_SAMPLE_CHARS:
        data = value.encode("utf-8", "surrogatepass")
        return ("\0text", length or len(value), hashlib.blake2b(data, digest_size=16).digest())
    return value


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:  # lists, dicts (JSON / ARRAY columns)
        return json.dumps(value, default=str, ensure_ascii=False, sort_keys=True)
    return value


def enum_sample(labels: Iterable[str], limit: int = DEFAULT_SAMPLE_VALUES) -> tuple[str, ...]:
    """An enumeration's labels as its column's :attr:`~jar_core.schema.Column.sample`: distinct, in
    their declared order, at most ``limit``, each cut to :data:`MAX_SAMPLE_CHARS` characters."""
    return tuple(dict.fromkeys(str(label)[:MAX_SAMPLE_CHARS] for label in labels))[:limit]


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
