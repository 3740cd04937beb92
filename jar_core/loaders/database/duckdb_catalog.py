"""What DuckDB's own catalog says of its tables (``duckdb_tables()``, ``duckdb_columns()``,
``duckdb_constraints()``, unique indexes from ``duckdb_indexes()``), in the shape of SQLAlchemy's
reflection: duckdb-engine's reflection goes through an emulated ``pg_catalog`` that lacks what
SQLAlchemy asks for.

The input side of METHOD.md, as :mod:`.reflect` for the other dialects. Keys that cannot be read
are a warning, not an error: the load goes on without them.
"""

from __future__ import annotations

import logging
import re
import warnings
from typing import Any, Mapping, Sequence

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from jar_core.errors import SourceError
from jar_core.loaders.database.connect import error_message
from jar_core.loaders.database.reflect import Catalog, _by_name, _optional

logger = logging.getLogger(__name__)


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
#: A foreign key's target in the text of its constraint (DuckDB before ``referenced_table``).
_DUCKDB_REFERENCES = re.compile(r'REFERENCES\s+((?:"[^"]+"|[^\s(]+))\s*\(([^)]*)\)', re.IGNORECASE)


def _duckdb_catalog(
    conn: Connection, schema: str | None, names: Sequence[str], where: str, secrets: Sequence[str]
) -> Catalog:
    """Columns, primary keys, foreign keys, comments, schema and unique columns of DuckDB tables,
    from DuckDB's catalog functions.

    Keys come from ``duckdb_constraints()``, else from SQLAlchemy's reflection; when neither
    gives them a warning says so and the tables are read without keys.
    """
    own = _duckdb_schema(conn, schema)
    wanted = set(names)
    params = {"schema": own}
    columns, comments = _duckdb_columns(conn, params, wanted, where, secrets)
    unique: dict[str, set[str]] = {}
    try:
        pks, fks = _duckdb_keys(conn, params, wanted, unique)
    except SQLAlchemyError as err:  # an older DuckDB: SQLAlchemy's reflection, if it gives them
        if conn.in_transaction():
            conn.rollback()
        pks, fks = _inspected_keys(conn, schema, names, where, secrets, err)
    for table, column in _duckdb_unique_indexes(conn, params, where, secrets):
        if table in wanted:
            unique.setdefault(table, set()).add(column)
    if not pks and not fks:
        logger.info("%s declares no primary or foreign keys: joins are inferred from names and values", where)
    return Catalog(columns, pks, fks, comments, own, unique)


def _duckdb_columns(
    conn: Connection, params: dict[str, Any], wanted: set[str], where: str, secrets: Sequence[str]
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """(columns, comments) of the ``wanted`` tables by name, as SQLAlchemy's reflection gives them
    (a column's type as DuckDB spells it); :class:`SourceError` when the catalog cannot be read."""
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
        raise SourceError(f"cannot read the schema of {where}: {error_message(err, secrets)}") from err
    return columns, comments


def _duckdb_keys(
    conn: Connection, params: dict[str, Any], wanted: set[str], unique: dict[str, set[str]]
) -> tuple[dict[str, Any], dict[str, list[dict[str, Any]]]]:
    """(primary keys, foreign keys) of the ``wanted`` tables from ``duckdb_constraints()``, and
    into ``unique`` their ``UNIQUE`` constraints on one column. Raises what reading it raises."""
    pks: dict[str, Any] = {}
    fks: dict[str, list[dict[str, Any]]] = {}
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
        fk = _duckdb_foreign_key(row, cols)
        if fk is not None:
            fks.setdefault(table, []).append(fk)
    return pks, fks


def _duckdb_foreign_key(row: Mapping[str, Any], cols: list[str]) -> dict[str, Any] | None:
    """A ``FOREIGN KEY`` row of ``duckdb_constraints()`` as SQLAlchemy reflects a foreign key;
    ``None`` when the table it references cannot be told."""
    ref_table, ref_cols = row.get("referenced_table"), list(row.get("referenced_column_names") or ())
    if not ref_table:  # DuckDB before referenced_table: read the constraint's text
        m = _DUCKDB_REFERENCES.search(str(row.get("constraint_text") or ""))
        if m is None:
            return None
        ref_table = m.group(1).strip('"')
        ref_cols = [c.strip().strip('"') for c in m.group(2).split(",") if c.strip()]
    return {"constrained_columns": cols, "referred_table": ref_table, "referred_columns": ref_cols,
            "referred_schema": None}


def _inspected_keys(
    conn: Connection, schema: str | None, names: Sequence[str], where: str, secrets: Sequence[str],
    failure: SQLAlchemyError,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(primary keys, foreign keys) by SQLAlchemy's reflection, after ``duckdb_constraints()``
    failed (``failure``); none and a warning when that fails too."""
    insp = inspect(conn)
    try:
        pks = _by_name(_optional(insp.get_multi_pk_constraint, schema, names))
        fks = _by_name(_optional(insp.get_multi_foreign_keys, schema, names))
    except SQLAlchemyError as err2:
        if conn.in_transaction():
            conn.rollback()
        warnings.warn(
            f"the primary and foreign keys of {where} could not be read (duckdb_constraints(): "
            f"{error_message(failure, secrets)}; SQLAlchemy: {error_message(err2, secrets)}); going on without them "
            "(joins are inferred from names and values)",
            stacklevel=3,
        )
        return {}, {}
    return pks, fks


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

    from jar_core.loaders.declarations import unique_index_column

    try:
        statements = [row[0] for row in conn.execute(text(_DUCKDB_UNIQUE_INDEXES), params)]
    except SQLAlchemyError as err:
        if conn.in_transaction():
            conn.rollback()
        logger.info("no unique indexes for %s: %s", where, error_message(err, secrets))
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
