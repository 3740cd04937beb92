"""Load a :class:`~jar_core.schema.Schema` from a live database through SQLAlchemy, in steps:
connect read-only (:mod:`.connect`), list the tables to read (:mod:`.tables`), read what the
catalog says of them (:mod:`.reflect`, :mod:`.duckdb_catalog`), then their first rows' statistics
and sample values (:mod:`.samples`).

The input side of METHOD.md: the tables T_i, their columns, declared keys and sample values.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from sqlalchemy import inspect
from sqlalchemy.engine import URL, Connection, Engine
from sqlalchemy.exc import SQLAlchemyError

from jar_core.errors import DatabaseConnectionError, InvalidArgumentError, SchemaError
from jar_core.loaders.database.connect import (
    _check_sqlite_file,
    _create_engine,
    _default_database,
    _label,
    error_message,
    url_secrets,
    read_only_connection,
    redact_url,
)
from jar_core.loaders.database.duckdb_catalog import _duckdb_catalog
from jar_core.loaders.database.reflect import _reflected_catalog, _reflected_columns, _table
from jar_core.loaders.database.samples import DEFAULT_SAMPLE_BYTES, DEFAULT_SAMPLE_VALUES, _add_statistics
from jar_core.loaders.database.tables import _schema_list, _tables_to_read, _without_long_names
from jar_core.schema import MAX_SAMPLE_VALUES, Schema, Table

__all__ = ["load_database", "sql_database_source"]

#: SQLAlchemy dialect name -> sqlglot dialect name (stored as :attr:`Schema.dialect`).
_SQLGLOT_DIALECTS = {"postgresql": "postgres", "mssql": "tsql", "mariadb": "mysql"}


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
    A URL is opened read-only (:mod:`jar_core.loaders.database`); an engine you pass is left as it
    was, its connection made read-only for the time of the load where the dialect allows it.

    Args:
        url_or_engine: a SQLAlchemy URL (``sqlite:///shop.db``, ``postgresql://u:p@host/db``) or an
            :class:`~sqlalchemy.engine.Engine` (left open; an engine created here is disposed).
        database: the id prefix of the tables (``"<database>.<table>"``). Default: ``schema``
            if given, else the file stem of a SQLite or DuckDB database, else for PostgreSQL the
            connection's default schema (usually ``public``), else the URL's database name, else
            ``"main"``. Not allowed with several schemas (each is then its own database).
        sample_rows: with ``statistics``, at most this many rows are read per table.
        sample_values: at most this many distinct non-null values are kept per column (default
            100, at most :data:`~jar_core.schema.MAX_SAMPLE_VALUES`), strings cut to
            :data:`MAX_SAMPLE_CHARS` characters: what value matching finds a question's names in
            ('Iron Maiden' -> ``artist.name``). A name not among the first ``sample_values``
            distinct values of the rows read (in the database's order, not by key: PostgreSQL
            returns an updated row last) is not found. A column of an enumeration (PostgreSQL's
            ``CREATE TYPE ... AS ENUM``, MySQL's ``ENUM('a', 'b')`` and ``SET('a', 'b')``, DuckDB's
            ``ENUM``) keeps its type's labels instead, in their order, with or without
            ``statistics``: :attr:`Column.enum <jar_core.schema.Column.enum>` (text, no join key).
        sample_bytes: with ``statistics``, reading a table's rows stops once its values add up to
            this many bytes (default 16 MiB); a long value is read cut (in SQLite, whatever its
            size, without holding it whole).
        statistics: compute :attr:`Column.unique_ratio` (distinct non-null values / rows read)
            and :attr:`Column.sample` (first-seen order, JSON-friendly) from the first
            ``sample_rows`` rows; :attr:`Table.row_count` only when all of fewer rows were read
            (it is then exact; no ``COUNT(*)`` is run).
        schema: the SQL schema (PostgreSQL schema, MySQL database, DuckDB schema...) to read, or a
            list of them; default: the connection's default schema. A schema given here names its
            tables ``"<schema>.<table>"`` (unless ``database`` says otherwise) and qualifies them in
            SQL (:attr:`Table.sql_schema`: ``"music"."track"`` in DDL, join clauses, sample rows).
            The tables of several schemas have the URL's database as :attr:`Table.catalog`: the
            joins between the schemas are inferred as within one database.
        include_tables: read only these tables (exact names, case-insensitive fallback; with
            several schemas ``"schema.table"``, or a bare name for that table in every schema).
        partitions: also read PostgreSQL's partitions, and the inheritance children that add no
            column to their parent (Sakila's ``payment_p2007_01`` ... ``INHERITS (payment)``), by
            default skipped when their parent is read (a query of the parent reads their rows).

    A table that cannot be read (a virtual table of a module not loaded here, a name or a column's
    name longer than :data:`MAX_NAME_CHARS` characters...) is skipped with a warning naming it.

    Raises:
        DatabaseConnectionError: malformed URL, missing SQLite file (nothing is created), missing
            driver, unreachable server or unreadable database.
        SchemaError: the database (or ``schema``) has no tables.
        UnknownDatabaseError: a name of ``include_tables`` is not a table.
        SourceError: reflection failed after connecting.
        InvalidArgumentError: ``sample_rows < 1``, ``sample_values`` not in ``0..MAX_SAMPLE_VALUES``
            or ``sample_bytes < 1``.
    """
    schemas = _checked_schemas(database, schema, statistics, sample_rows, sample_values, sample_bytes)
    engine, owned = _engine_of(url_or_engine)
    try:
        # the URL as the user wrote it, not the read-only form it is opened with
        label = _label(engine.url) if not owned else redact_url(url_or_engine)
        return _load(
            engine, owned=owned, label=label, database=database, schemas=schemas, include_tables=include_tables,
            partitions=partitions, sample_rows=sample_rows if statistics else 0, sample_values=sample_values,
            sample_bytes=sample_bytes,
        )
    finally:
        if owned:
            engine.dispose()


def _checked_schemas(
    database: str | None, schema: str | Sequence[str] | None, statistics: bool, sample_rows: int,
    sample_values: int, sample_bytes: int,
) -> list[str | None]:
    """The schemas to read (:func:`_schema_list`) once the options of :func:`load_database` are
    checked; :class:`InvalidArgumentError` naming the first one out of range."""
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
    return schemas


def _engine_of(url_or_engine: str | URL | Engine) -> tuple[Engine, bool]:
    """The engine to load from, and whether it is made here (read-only, disposed after the load)."""
    if isinstance(url_or_engine, Engine):
        _check_sqlite_file(url_or_engine.url)
        return url_or_engine, False
    return _create_engine(url_or_engine), True


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
    """The :class:`Schema` of the tables to read (:func:`_tables_to_read`) in each schema, read on
    one read-only connection (``label``: the database as messages name it)."""
    secrets = url_secrets(engine.url)
    where_all = label + (f" (schema {', '.join(map(repr, schemas))})" if schemas != [None] else "")
    tables: list[Table] = []
    try:
        with read_only_connection(engine, owned=owned) as conn:
            insp = None if conn.dialect.name == "duckdb" else inspect(conn)
            listed = _tables_to_read(
                conn, insp, schemas, label=label, where_all=where_all, secrets=secrets,
                include_tables=include_tables, partitions=partitions,
            )
            for schema, names in listed:
                if not names:
                    continue
                where = label + (f" (schema {schema!r})" if schema else "")
                db_name = database or _default_database(engine.url, schema)
                if db_name is None:  # PostgreSQL without a schema: its default schema
                    db_name = (None if insp is None else insp.default_schema_name) or "public"
                tables.extend(
                    _read_tables(
                        conn, insp, names, where=where, secrets=secrets, database=db_name, schema=schema,
                        sample_rows=sample_rows, sample_values=sample_values, sample_bytes=sample_bytes,
                    )
                )
    except SQLAlchemyError as err:
        raise DatabaseConnectionError(f"cannot connect to {where_all}: {error_message(err, secrets)}") from err
    if not tables:
        skipped = " that can be read (see the warnings)" if any(names for _, names in listed) else "s"
        raise SchemaError(f"database {where_all} has no table{skipped}")
    if len({t.database for t in tables}) > 1:  # several schemas of one database: they join
        catalog = engine.url.database or label
        for t in tables:
            t.catalog = catalog
    dialect = _SQLGLOT_DIALECTS.get(engine.dialect.name, engine.dialect.name)
    return Schema(tables, dialect=dialect)


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
    """The tables ``names`` of one schema: what the catalog says of them (DuckDB's own when there is
    no inspector ``insp``), then, with ``sample_rows``, the statistics of each from its first rows."""
    names = _without_long_names(names, {}, where)
    if not names:
        return []
    if insp is None:  # DuckDB: its own catalog
        catalog = _duckdb_catalog(conn, schema, names, where, secrets)
        names = _without_long_names(names, catalog.columns, where)
    else:
        columns, names = _reflected_columns(conn, insp, schema, names, where, secrets)
        names = _without_long_names(names, columns, where)  # before the keys: their reflection is slow
        if not names:
            return []
        catalog = _reflected_catalog(conn, insp, schema, names, columns, where, secrets)
    tables: list[Table] = []
    for name in names:
        table = _table(name, catalog, conn.dialect, database=database, schema=schema, sample_values=sample_values,
                       where=where)
        if table is None:
            continue
        if sample_rows:
            _add_statistics(conn, table, schema, sample_rows, sample_values, sample_bytes, where, secrets)
        tables.append(table)
    return tables
