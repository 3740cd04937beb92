"""Read DDL text or a ``.sql`` file into a :class:`~jar_core.schema.Schema`: :func:`load_ddl`.

Part of the input of METHOD.md, "The task" (the corpus of tables, read from DDL). The steps: read
the source, cut it into statements (:mod:`~jar_core.loaders.ddl.statements`), parse each table
definition (:mod:`~jar_core.loaders.ddl.repair`) and build the tables from them
(:mod:`~jar_core.loaders.ddl.builder`).
"""

from __future__ import annotations

import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.oracle import Oracle
from sqlglot.dialects.tsql import TSQL
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token

from jar_core.errors import DDLParseError, InvalidArgumentError, JarError, SchemaError, SourceError
from jar_core.loaders.ddl.builder import Builder
from jar_core.loaders.ddl.remarks import table_remark
from jar_core.loaders.ddl.repair import parse_statement, quiet_sqlglot
from jar_core.loaders.ddl.statements import (
    ALTER,
    DOMAIN,
    INDEX,
    TYPE,
    first_line,
    inner_create_table,
    schema_elements,
    snippet,
    split_statements,
    statement_kind,
    swallowed_table,
    tokenizable,
    tokenize,
    tsql_statements,
    without_sqlplus,
)
from jar_core.schema import Schema, Table

__all__ = ["load_ddl"]

_CREATE_WORD = re.compile(r"\bcreate\s", re.IGNORECASE)


def load_ddl(
    source: str | os.PathLike[str], *, dialect: str | None = None, database: str = "main", partitions: bool = False,
) -> Schema:
    """Read the tables of DDL text, or of a ``.sql`` file, into a :class:`Schema`.

    Args:
        source: DDL text, or a path to a UTF-8 ``.sql`` file: a path-like object, or a
            one-line string without the word ``CREATE`` that names an existing file or ends
            in ``.sql``.
        dialect: any dialect sqlglot reads (``"mysql"``, ``"postgres"``, ``"tsql"``,
            ``"oracle"``...); ``None`` is sqlglot's default dialect.
        database: the database of tables whose name is not schema-qualified. ``sales.orders``
            is table ``orders`` of database ``sales``, named ``"sales"."orders"`` in the SQL
            printed for it (:attr:`Table.sql_schema`); an unqualified ``REFERENCES t`` resolves
            to the referencing table's database, then to ``database``; a reference without
            columns targets the primary key of the referenced table. A schema-qualified name in
            ``ALTER TABLE`` or ``REFERENCES`` that names no table falls back to the one table of
            that name (TPC-H's ``dss.ri`` adds keys to ``TPCD.NATION``, created as ``NATION``).
            The tables of a file with several schemas have :attr:`Table.catalog` ``database``:
            the joins between its schemas are inferred as within one database. A column declared
            with a ``CREATE DOMAIN`` or a T-SQL alias type (``CREATE TYPE [dbo].[Phone] FROM
            nvarchar(25)``) of the file has its base type (``"OrderNumber"`` -> ``VARCHAR(25)``),
            as a live database reports it. A type name is looked up qualified first
            (``a.status``), then bare: a type defined without a schema, else in the column's
            table's schema, else the one schema's that defines it. A column declared with an
            enumeration of the file (PostgreSQL's ``CREATE TYPE mood AS ENUM ('sad', 'ok')``,
            also ``public.mood``; ``ALTER TYPE mood RENAME TO feeling`` renames the type of its
            columns) or an inline one (MySQL's and DuckDB's ``ENUM('G', 'PG')``,
            MySQL's ``SET('Trailers', 'Commentaries')``) keeps its declared type and is
            :attr:`Column.enum`: text, no join key, its labels (at most
            :data:`~jar_core.loaders.declarations.DEFAULT_SAMPLE_VALUES`) as its sample values, which
            value matching finds in a question.
        partitions: also keep PostgreSQL's partitions (``PARTITION OF``, ``ATTACH PARTITION``)
            and the ``INHERITS`` children that add no column to their parent (Sakila's
            ``payment_p2007_01``). By default they are left out when their parent is defined:
            a query of the parent reads their rows. A child gets its parents' columns before its
            own; one that adds columns is a table of its own and is always kept.

    Raises:
        SourceError: the file does not exist or cannot be read as UTF-8 (or UTF-16 with a byte order mark).
        DDLParseError: a table definition cannot be parsed (the message names the statement).
        SchemaError: no ``CREATE TABLE`` at all, or a table without column definitions.

    Warns (``UserWarning``) on a table or column defined twice, on an ``ALTER TABLE`` that
    names no table created before it and would add to it (not one that only drops or alters, as
    ``pg_dump --clean`` writes before its tables), and on a ``CREATE TABLE`` read as part of a skipped
    statement (a ``;`` missing before it).
        InvalidArgumentError: sqlglot does not know ``dialect``.
    """
    text, origin = _read_source(source)
    reader = _reader(dialect)
    if isinstance(reader, Oracle):
        text = without_sqlplus(text)
    tokens = tokenize(reader, tokenizable(text), origin)
    builder = Builder(database=database, dialect=reader, origin=origin, partitions=partitions)
    swallowed: list[str] = []  # CREATE TABLEs inside a skipped statement: a ';' missing before them
    # warnings wait for the outcome: an ALTER of a table never read is no news when none was
    with quiet_sqlglot(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tables = _read_tables(_Script(text, origin, reader), tokens, builder, swallowed)
    if not tables:
        if swallowed:
            raise SchemaError(f"no table was read: {swallowed[0]}")
        raise SchemaError(f"{origin} has no tables: it contains no CREATE TABLE statement")
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=2)
    for message in swallowed:
        warnings.warn(message, stacklevel=2)
    return Schema(tables, dialect=dialect)


@dataclass(frozen=True)
class _Script:
    """The DDL script being read: its text (which the tokens' offsets point into), where it comes
    from (for messages) and its dialect."""

    text: str
    origin: str
    reader: Dialect


def _reader(dialect: str | None) -> Dialect:
    """sqlglot's reader of ``dialect``; :class:`InvalidArgumentError` for a dialect it does not know."""
    try:
        return Dialect.get_or_raise(dialect)
    except (ValueError, SqlglotError) as err:
        raise InvalidArgumentError(f"unknown SQL dialect {dialect!r}: {first_line(err)}") from err


def _read_tables(script: _Script, tokens: list[Token], builder: Builder, swallowed: list[str]) -> list[Table]:
    """The tables of the script's statements, read in order into ``builder``. Any error but a
    :class:`JarError` is a :class:`DDLParseError` that names the statement being read."""
    number, chunk = 0, list(tokens[:1])
    try:
        if isinstance(script.reader, TSQL):
            statements = tsql_statements(tokens, script.text)
        else:
            statements = split_statements(tokens)
        for number, statement in enumerate(statements, start=1):
            for schema, chunk in schema_elements(statement):
                _read_statement(script, builder, number, chunk, schema, swallowed)
        return builder.build()
    except JarError:
        raise
    except RecursionError as err:
        raise DDLParseError(
            f"{script.origin}: statement {number} nests too deeply to be read: {snippet(script.text, chunk)!r}"
        ) from err
    except Exception as err:  # noqa: BLE001 - sqlglot may fail in other ways on odd input
        raise DDLParseError(
            f"{script.origin}: cannot read statement {number} ({type(err).__name__}: {first_line(err)}): "
            f"{snippet(script.text, chunk)!r}"
        ) from err


def _read_statement(
    script: _Script, builder: Builder, number: int, chunk: list[Token], schema: str | None, swallowed: list[str],
) -> None:
    """Read statement ``number`` into ``builder`` (``schema``: the ``CREATE SCHEMA`` it is an element
    of): a table definition, a comment, a domain, a type or a unique index. Any other statement
    is skipped; a ``CREATE TABLE`` read as part of it is noted in ``swallowed``."""
    kind = statement_kind(chunk)
    if kind is None:
        inner = inner_create_table(chunk)
        if inner is not None:
            swallowed.append(swallowed_table(script.origin, number, chunk, inner, script.text, script.reader))
    elif kind == DOMAIN:
        builder.domain(chunk, script.text)
    elif kind == TYPE:
        builder.type_statement(chunk, script.text)
    elif kind == INDEX:
        builder.unique_index(chunk, script.text)
    else:
        tree = parse_statement(script.reader, chunk, script.text, kind, number, script.origin)
        if isinstance(tree, exp.Create):
            builder.create(tree, number, snippet(script.text, chunk), schema=schema,
                           remark=table_remark(chunk, script.text))
        elif isinstance(tree, exp.Alter):
            builder.alter(tree, number)
        elif isinstance(tree, exp.Command) and kind == ALTER:
            builder.attach_partition(tree)
        elif isinstance(tree, exp.Comment):
            builder.comment(tree)


# -- reading the source -------------------------------------------------------------------


def _read_source(source: str | os.PathLike[str]) -> tuple[str, str]:
    """(DDL text, a description of where it comes from for messages)."""
    if isinstance(source, os.PathLike):
        path: Path | None = Path(source)
    elif isinstance(source, str):
        path = Path(source.strip()) if _looks_like_path(source) else None
    else:
        raise InvalidArgumentError(f"DDL source must be text or a path, got {type(source).__name__}")
    if path is None:
        return str(source), "the DDL text"
    if path.is_dir() or not path.exists():  # a pipe (``--ddl <(pg_dump -s db)``) is read like a file
        what = "is a directory" if path.is_dir() else "does not exist"
        raise SourceError(f"DDL file {str(path)!r} {what}")
    try:
        return path.read_text(encoding="utf-8-sig"), f"DDL file {str(path)!r}"
    except UnicodeDecodeError as err:
        hint = ""
        with open(path, "rb") as f:
            head = f.read(16)
        if head.startswith(b"SQLite format 3"):
            hint = f"; it is a SQLite database: read it with --db sqlite:///{path} (a URL) instead"
        elif head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with its byte order mark (SQL Server's exports)
            try:
                return path.read_text(encoding="utf-16"), f"DDL file {str(path)!r}"
            except UnicodeDecodeError as err16:
                err = err16
        raise SourceError(f"DDL file {str(path)!r} is not UTF-8 text: {err}{hint}") from err
    except OSError as err:
        raise SourceError(f"cannot read DDL file {str(path)!r}: {err.strerror or err}") from err

def _looks_like_path(text: str) -> bool:
    candidate = text.strip()
    if not candidate or "\n" in candidate or _CREATE_WORD.search(candidate):
        return False
    if candidate.lower().endswith(".sql"):
        return True
    try:
        return Path(candidate).is_file()
    except (OSError, ValueError):  # name too long, NUL byte...
        return False
