"""Connecting to a live database: its URL parsed and shown redacted, a read-only engine and
connection, the database files checked before a driver would create them.

The input side of METHOD.md (the tables T_i are read from here). URLs are shown with their
password and secret query values (``password=``, ``sslpassword=``, ``passwd=``...) hidden.
Connections are read-only where the driver allows it: SQLite ``mode=ro`` and ``query_only``,
PostgreSQL ``default_transaction_read_only``, MySQL read-only transactions, DuckDB ``read_only``.
"""

from __future__ import annotations

import urllib.parse
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

from sqlalchemy import create_engine, event
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

from jar_core.errors import DatabaseConnectionError
from jar_core.redact import SECRET_KEY, scrub, secrets_in

__all__ = ["parse_url", "redact_url", "read_only_connection", "error_message", "url_secrets"]


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


#: Query parameters of a URL whose values are secrets.
_SECRET_PARAM = SECRET_KEY


#: File name suffixes of DuckDB databases (dropped from the file name to make the database id).
_DUCKDB_SUFFIXES = (".duckdb", ".ddb", ".db")


def error_message(err: BaseException, secrets: Sequence[str] = ()) -> str:
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
    secrets = url_secrets(url)
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
        return scrub(raw, url_secrets(raw))
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
    return scrub(f"{scheme}{sep}{head}{q}{query}", url_secrets(raw))


def url_secrets(raw: Any) -> list[str]:
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
            f"malformed database URL {_mask_raw(str(raw))!r}: {error_message(err, url_secrets(raw))} "
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
    secrets = url_secrets(url)
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
            f"unknown database dialect or driver in {label}: {error_message(err, secrets)}"
        ) from err
    except ImportError as err:
        module = err.name or "?"
        package = _DRIVER_PACKAGES.get(module.split(".")[0], module)
        raise DatabaseConnectionError(
            f"cannot load the database driver for {label}: Python module {module!r} is not installed "
            f"(pip install '{package}')"
        ) from err
    except (SQLAlchemyError, ValueError, TypeError) as err:
        raise DatabaseConnectionError(f"cannot use database URL {label}: {error_message(err, secrets)}") from err
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
