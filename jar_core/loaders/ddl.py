"""Load a :class:`~jar_core.schema.Schema` from DDL text (``CREATE TABLE`` statements) with sqlglot.

The text is tokenized once with the dialect's tokenizer and split into statements at ``;``
(and at the ``GO`` lines of SQL Server's tools, read as ``;``: SSMS and SSDT scripts end each
statement with both; T-SQL needs neither, and a ``CREATE`` or ``ALTER TABLE`` that starts a line
after a complete statement starts one; a T-SQL routine's body runs to the ``GO``, and is skipped).
The MySQL client's ``DELIMITER`` blocks (triggers, procedures and functions in ``mysqldump``
output) are read at their own delimiter, and only the table definitions among them are kept: a
``CREATE TEMPORARY TABLE`` in a procedure's body is no table of the schema. ``pg_dump``'s ``COPY
... FROM stdin`` data rows and psql's meta-command lines (``\\connect``, ``\\copy``) are blanked
before tokenizing: they are no SQL; so are, for Oracle, SQL*Plus command lines (``REM``,
``PROMPT``, ``SET``, ``@script``; a lone ``/`` ends a statement), and Oracle's constraint states
(``ENABLE NOVALIDATE``) and key index attributes (``USING INDEX ... TABLESPACE``) are dropped
before parsing. A ``CREATE TABLE`` swallowed by a
skipped statement that lacks its ``;`` is warned of (or named by the error when no table is read). Only table
definitions are parsed: ``CREATE ... TABLE`` (also as an element of ``CREATE SCHEMA s CREATE
TABLE ...``, in schema ``s``), ``ALTER TABLE`` (added columns, primary and foreign keys, as in
``pg_dump`` output; dropped and renamed columns, renamed tables; ``ATTACH PARTITION``; a column's
new type: ``ALTER [COLUMN] c [SET DATA] TYPE t``, T-SQL's ``ALTER COLUMN c t``, MySQL's ``MODIFY``
and ``CHANGE``, which renames too), ``COMMENT ON TABLE/COLUMN``, ``CREATE UNIQUE INDEX`` on one
column (no ``WHERE``: a key declared as an index, :attr:`Column.unique`, like a ``UNIQUE``
constraint), ``CREATE DOMAIN`` and T-SQL's alias types (``CREATE TYPE dbo.Phone FROM
varchar(20)``), and PostgreSQL's enumerations (``CREATE TYPE ... AS ENUM``, ``ALTER TYPE ... ADD
VALUE``, ``RENAME TO``; MySQL's and DuckDB's are inline, ``ENUM('a', 'b')``, and MySQL's ``SET('a',
'b')`` too); an ``ALTER`` form sqlglot cannot read is skipped like any other statement; every other
statement (``INSERT``, other indexes, other types, ``SET``...) is skipped unread. A table
definition that sqlglot cannot parse raises :class:`DDLParseError` naming the statement, after a
retry without what keys do not need (table options; the ``ASC`` of a key's columns; T-SQL's
``MASKED WITH (...)``, ``ROWGUIDCOL``, a key's ``[NON]CLUSTERED`` and storage, ``ON [PRIMARY]``, ``ON
[PS_Date] ([Date Key])``, ``WITH (FILLFACTOR = 90)``; a T-SQL ``ALTER TABLE`` is retried so too); an
index it cannot parse is skipped, and so is an index in a column list (T-SQL ``INDEX ix NONCLUSTERED
(a)``, ``INDEX ix CLUSTERED COLUMNSTORE``) but for a ``UNIQUE`` one, a key like ``CREATE UNIQUE
INDEX``. A key with a column list after a column's definition, without a comma (T-SQL reads it so),
is the table's key on the listed columns. No statistics are computed: uniqueness ratios stay
empty, and so do samples but for the labels of an enumeration's columns.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import re
import warnings
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import groupby
from pathlib import Path
from typing import Iterator, Sequence, TypeVar

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.oracle import Oracle
from sqlglot.dialects.tsql import TSQL
from sqlglot.errors import ErrorLevel, SqlglotError, TokenError
from sqlglot.tokens import Token, TokenType

from jar_core.errors import DDLParseError, InvalidArgumentError, JarError, SchemaError, SourceError
from jar_core.loaders.database import enum_sample
from jar_core.schema import Column, ForeignKey, Schema, Table

__all__ = ["load_ddl"]

_T = TypeVar("_T")
_SNIPPET_CHARS = 80
_CREATE, _ALTER, _COMMENT, _DOMAIN, _INDEX, _TYPE = "create", "alter", "comment", "domain", "index", "type"
#: Words that end a ``CREATE DOMAIN``'s type (its constraints and default follow).
_DOMAIN_END = frozenset({"NULL", "NOT", "DEFAULT", "CHECK", "CONSTRAINT", "COLLATE"})
_CREATE_WORD = re.compile(r"\bcreate\s", re.IGNORECASE)
_DELIMITER_LINE = re.compile(r"^[ \t]*DELIMITER[ \t]+(\S+)[ \t]*$", re.IGNORECASE | re.MULTILINE)
#: A batch separator line of SQL Server's tools (``GO``, ``GO 5``), which scripts of SSMS and SSDT
#: put after each statement: no SQL, it ends the statement before it.
_BATCH_LINE = re.compile(r"^([ \t]*)GO([ \t]+\d+)?[ \t\r]*(--[^\n]*)?$", re.IGNORECASE | re.MULTILINE)
_ATTACH_PARTITION = re.compile(
    r"\AALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<parent>[^\s(]+)\s+ATTACH\s+PARTITION\s+(?P<child>[^\s(]+)",
    re.IGNORECASE,
)
_TABLE_STATEMENT = re.compile(
    r"\A(?:\s|--[^\n]*\n|/\*.*?\*/)*(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:GLOBAL\s+|LOCAL\s+)?"
    r"(?:TEMPORARY\s+|TEMP\s+)?TABLE|ALTER\s+TABLE)\b",
    re.IGNORECASE | re.DOTALL,
)


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
            :data:`~jar_core.loaders.database.DEFAULT_SAMPLE_VALUES`) as its sample values, which
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
    try:
        reader = Dialect.get_or_raise(dialect)
    except (ValueError, SqlglotError) as err:
        raise InvalidArgumentError(f"unknown SQL dialect {dialect!r}: {_first_line(err)}") from err
    if isinstance(reader, Oracle):
        text = _without_sqlplus(text)
    tokens = _tokenize(reader, _batches(_client_delimiters(_without_psql(text))), origin)
    builder = _Builder(database=database, dialect=reader, origin=origin, partitions=partitions)
    number, chunk = 0, list(tokens[:1])
    swallowed: list[str] = []  # CREATE TABLEs inside a skipped statement: a ';' missing before them
    try:
        # warnings wait for the outcome: an ALTER of a table never read is no news when none was
        with _quiet_sqlglot(), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            statements = _tsql_statements(tokens, text) if isinstance(reader, TSQL) else _split_statements(tokens)
            for number, statement in enumerate(statements, start=1):
                for schema, chunk in _schema_elements(statement):
                    kind = _statement_kind(chunk)
                    if kind is None:
                        inner = _inner_create_table(chunk)
                        if inner is not None:
                            swallowed.append(_swallowed(origin, number, chunk, inner, text, reader))
                        continue
                    if kind == _DOMAIN:
                        builder.domain(chunk, text)
                        continue
                    if kind == _TYPE:
                        builder.type_statement(chunk, text)
                        continue
                    if kind == _INDEX:
                        builder.unique_index(chunk, text)
                        continue
                    tree = _parse_statement(reader, chunk, text, kind, number, origin)
                    if isinstance(tree, exp.Create):
                        builder.create(tree, number, _snippet(text, chunk), schema=schema)
                    elif isinstance(tree, exp.Alter):
                        builder.alter(tree, number)
                    elif isinstance(tree, exp.Command) and kind == _ALTER:
                        builder.attach_partition(tree)
                    elif isinstance(tree, exp.Comment):
                        builder.comment(tree)
            tables = builder.build()
    except JarError:
        raise
    except RecursionError as err:
        raise DDLParseError(
            f"{origin}: statement {number} nests too deeply to be read: {_snippet(text, chunk)!r}"
        ) from err
    except Exception as err:  # noqa: BLE001 - sqlglot may fail in other ways on odd input
        raise DDLParseError(
            f"{origin}: cannot read statement {number} ({type(err).__name__}: {_first_line(err)}): "
            f"{_snippet(text, chunk)!r}"
        ) from err
    if not tables:
        if swallowed:
            raise SchemaError(f"no table was read: {swallowed[0]}")
        raise SchemaError(f"{origin} has no tables: it contains no CREATE TABLE statement")
    for w in caught:
        warnings.warn(w.message, w.category, stacklevel=2)
    for message in swallowed:
        warnings.warn(message, stacklevel=2)
    return Schema(tables, dialect=dialect)


# -- reading and splitting ---------------------------------------------------------------


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


def _blank(text: str) -> str:
    """``text`` with every character but line breaks turned into a space (offsets and line
    numbers of what follows stay those of the file)."""
    return re.sub(r"[^\n]", " ", text)


def _client_delimiters(text: str) -> str:
    """``text`` with the MySQL client's ``DELIMITER x`` blocks rewritten for the tokenizer.

    Between ``DELIMITER x`` (``x`` not ``;``) and the next ``DELIMITER`` line, statements end
    at ``x``; the table definitions among them are kept, ended by ``;``, and everything else
    (trigger, procedure and function bodies, whose ``;`` end their inner statements) is
    blanked. Offsets are kept, so messages name the file's own lines.
    """
    marks = list(_DELIMITER_LINE.finditer(text))
    if not marks:
        return text
    out, pos, delim = [], 0, ";"
    for m in [*marks, None]:
        block = text[pos : m.start() if m else len(text)]
        if delim == ";":
            out.append(block)
        else:
            pieces = block.split(delim)
            for j, piece in enumerate(pieces):
                end = "" if j == len(pieces) - 1 else delim
                if _TABLE_STATEMENT.match(piece):
                    out.append(piece + (";" + " " * (len(end) - 1) if end else ""))
                else:
                    out.append(_blank(piece + end))
        if m is not None:
            out.append(_blank(m.group(0)))
            delim, pos = m.group(1), m.end()
    return "".join(out)


def _batches(text: str) -> str:
    """``text`` with each ``GO`` line of SQL Server's tools read as the end of a statement (``;``,
    offsets kept): sqlglot reads ``GO`` as a command that swallows the text after it, which left
    every table after the first ``GO`` of a script unread."""
    return _BATCH_LINE.sub(lambda m: m.group(1) + ";" + " " * (len(m.group(0)) - len(m.group(1)) - 1), text)


#: ``COPY ... FROM stdin;`` and its data rows up to the ``\\.`` line (``pg_dump`` output with data).
_COPY_DATA = re.compile(r"^([ \t]*COPY\b[^;]*?\bFROM\s+stdin\b[^;]*;[^\n]*\n)(.*?^[ \t]*\\\.[ \t]*$)",
                        re.IGNORECASE | re.MULTILINE | re.DOTALL)
#: A psql meta-command line (``\\connect db``, ``\\copy t FROM 'x.csv'``, ``\\restrict ...``): it ends at the line's end.
_PSQL_LINE = re.compile(r"^[ \t]*\\[A-Za-z!?].*$", re.MULTILINE)


def _without_psql(text: str) -> str:
    """``text`` with ``pg_dump``'s ``COPY ... FROM stdin`` data rows and psql's meta-command lines
    blanked (offsets kept): they are no SQL, and a data row may hold an unbalanced quote."""
    if "\\" not in text:
        return text
    text = _COPY_DATA.sub(lambda m: m.group(1) + _blank(m.group(2)), text)
    return _PSQL_LINE.sub(lambda m: _blank(m.group(0)), text)


#: First words of SQL*Plus / SQLcl command lines (Oracle's client: ``REM``, ``PROMPT``, ``SET``,
#: ``SPOOL``, ``@script``): no SQL, and not ended by ``;``.
_SQLPLUS_WORDS = frozenset({
    "rem", "remark", "pro", "prompt", "set", "spo", "spool", "whenever", "def", "define", "undef", "undefine",
    "conn", "connect", "disc", "disconnect", "exec", "execute", "col", "column", "ttitle", "btitle", "pause",
    "accept", "clear", "sho", "show", "desc", "describe", "var", "variable", "print", "break", "compute", "host",
    "start", "exit", "quit", "timing", "store",
})
_SQLPLUS_LINE = re.compile(r"[ \t]*(@@?\S|(?P<word>[A-Za-z]+)\b)")


def _without_sqlplus(text: str) -> str:
    """``text`` with Oracle's SQL*Plus command lines between statements (``REM``, ``PROMPT``,
    ``SET ECHO OFF``, ``@other.sql``) blanked and a line of a lone ``/``, which runs the
    statement before it, read as ``;`` (offsets kept): sqlglot would read a command line and the
    statement after it, up to the next ``;``, as one command, and so skip that table."""
    lines = text.split("\n")
    between = True  # at the start of a statement: a client command may come
    for i, line in enumerate(lines):
        bare = line.strip()
        if not bare or bare.startswith("--"):
            continue
        if bare == "/":
            lines[i] = line.replace("/", ";", 1)
            between = True
            continue
        if between:
            m = _SQLPLUS_LINE.match(line)
            if m and (m.group("word") is None or m.group("word").lower() in _SQLPLUS_WORDS):
                lines[i] = _blank(line)
                continue
        between = bare.split("--", 1)[0].rstrip().endswith(";")
    return "\n".join(lines)


def _schema_elements(chunk: list[Token]) -> list[tuple[str | None, list[Token]]]:
    """The statements of ``chunk`` with the schema they belong to: PostgreSQL's (and standard
    SQL's) ``CREATE SCHEMA s [AUTHORIZATION r] CREATE TABLE t (...) CREATE VIEW ...`` is one
    statement whose elements are created in ``s``; any other statement is ``[(None, chunk)]``."""
    if len(chunk) < 3 or chunk[0].token_type != TokenType.CREATE or chunk[1].token_type != TokenType.SCHEMA:
        return [(None, chunk)]
    i = 2
    if [t.text.upper() for t in chunk[2:5]] == ["IF", "NOT", "EXISTS"]:
        i = 5
    name = None
    if i < len(chunk) and chunk[i].text.upper() != "AUTHORIZATION":
        name, i = chunk[i].text, i + 1
    if i + 1 < len(chunk) and chunk[i].text.upper() == "AUTHORIZATION":
        name, i = name or chunk[i + 1].text, i + 2  # CREATE SCHEMA AUTHORIZATION r: the schema is r
    starts = [j for j in range(i, len(chunk)) if chunk[j].token_type in (TokenType.CREATE, TokenType.GRANT)]
    if not starts or name is None:
        return [(None, chunk)]
    return [(name, chunk[a:b]) for a, b in zip(starts, [*starts[1:], len(chunk)])]


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


def _first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def _tokenize(reader: Dialect, text: str, origin: str) -> list[Token]:
    try:
        return reader.tokenize(text)
    except TokenError as err:
        # The cause says e.g. "Missing ' from 3:25" (line and offset where the token starts).
        cause = _first_line(err.__cause__) if err.__cause__ else _first_line(err)
        m = re.search(r"from (\d+):(\d+)", cause)
        if m and int(m.group(2)) < len(text):
            line, offset = int(m.group(1)), int(m.group(2))
        else:
            offset = getattr(err, "start", None) or 0
            line = text.count("\n", 0, offset) + 1
        start = text.rfind(";", 0, offset) + 1
        snippet = " ".join(text[start : start + 4 * _SNIPPET_CHARS].split())[:_SNIPPET_CHARS]
        raise DDLParseError(
            f"{origin}: cannot tokenize the statement near line {line} ({snippet!r}): {cause}"
        ) from err


def _is_separator(token: Token) -> bool:
    return token.token_type == TokenType.SEMICOLON or (
        token.token_type == TokenType.COMMAND and token.text.upper() == "GO"
    )


def _split_statements(tokens: Sequence[Token]) -> list[list[Token]]:
    """The token lists of the statements (separators dropped)."""
    return [list(group) for sep, group in groupby(tokens, key=_is_separator) if not sep]


def _tsql_statements(tokens: Sequence[Token], text: str) -> list[list[Token]]:
    """The statements of a T-SQL script: those between ``;`` and ``GO`` lines, each cut where another
    starts without a ``;`` (:func:`_unended_statements`). In a script of batches (with ``GO`` lines),
    a procedure's, function's or trigger's body runs to the end of its batch, as SQL Server reads it:
    the statements after the first ``;`` of its body (``SET NOCOUNT ON; CREATE TABLE #t ...``, an
    ``ALTER TABLE`` that WideWorldImportersDW's load procedure runs) are no statements of the
    script, and are dropped."""
    batched = _BATCH_LINE.search(text) is not None
    out: list[list[Token]] = []
    body = False  # in a routine's body, up to the batch's end
    for sep, group in groupby(tokens, key=_is_separator):
        chunk = list(group)
        if sep:  # _batches wrote the ';' of a GO line where its G is
            body = body and not any(text[t.start : t.start + 2].upper() == "GO" for t in chunk)
        elif not body:
            out.extend(_unended_statements(chunk, text))
            body = batched and _is_routine(out[-1])
    return out


#: What a T-SQL ``CREATE [OR ALTER]`` or ``ALTER`` whose body runs to the batch's end defines.
_ROUTINE_KINDS = frozenset({"PROCEDURE", "PROC", "FUNCTION", "TRIGGER"})


def _is_routine(chunk: Sequence[Token]) -> bool:
    """Whether ``chunk`` is T-SQL's ``CREATE [OR ALTER]`` or ``ALTER`` of a procedure, function or trigger."""
    if chunk[0].token_type not in (TokenType.CREATE, TokenType.ALTER):
        return False
    words = [t.text.upper() for t in chunk[1:4]]
    if words[:2] == ["OR", "ALTER"]:
        words = words[2:]
    return bool(words) and words[0] in _ROUTINE_KINDS


#: First words of a statement whose body a ``CREATE`` on the next line is (T-SQL's ``IF``, ``WHILE``).
_CONTROL_WORDS = frozenset({"IF", "ELSE", "WHILE"})
#: Tokens that are no keyword: a quoted ``[Function]`` is a name (and the rows of an ``INSERT`` go fast).
_NO_WORDS = frozenset({TokenType.IDENTIFIER, TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.NUMBER,
                       TokenType.COMMA, TokenType.L_PAREN, TokenType.R_PAREN, TokenType.DOT})


def _unended_statements(chunk: list[Token], text: str) -> list[list[Token]]:
    """The T-SQL statements of ``chunk``: T-SQL needs no ``;`` between two statements
    (AdventureWorksDW's install script: an ``ALTER TABLE ... REFERENCES ...``, then the next ``ALTER
    TABLE`` on a line of its own, read as one statement that sqlglot cannot read, so both keys were
    lost). A ``CREATE`` (of anything) or ``ALTER TABLE`` starts a statement where it starts a line, at
    parenthesis depth 0, after a complete statement: none ending in ``,`` or ``AS``, no ``IF`` /
    ``ELSE`` / ``WHILE`` (whose body it is), no ``CREATE SCHEMA`` (whose element it is), and no
    routine (``CREATE PROCEDURE p AS BEGIN ... CREATE TABLE #t ...``: its body's tables are no
    tables of the schema)."""
    pieces, start, depth = [], 0, 0
    open_ = False  # the statement runs to the chunk's end: IF, CREATE SCHEMA, a routine
    for i, t in enumerate(chunk):
        kind = t.token_type
        if i > start and depth == 0 and not open_ and _starts_statement(chunk, i, text):
            pieces.append(chunk[start:i])
            start = i
        if i == start:
            open_ = t.text.upper() in _CONTROL_WORDS or (
                kind == TokenType.CREATE and i + 1 < len(chunk) and chunk[i + 1].token_type == TokenType.SCHEMA)
        if not open_ and kind not in _NO_WORDS and (kind == TokenType.PROCEDURE or t.text.upper() in _ROUTINE_WORDS):
            open_ = True  # T-SQL's PROC is a PROCEDURE token
        depth += (kind == TokenType.L_PAREN) - (kind == TokenType.R_PAREN)
    pieces.append(chunk[start:])
    return pieces


def _starts_statement(chunk: Sequence[Token], i: int, text: str) -> bool:
    """Whether ``chunk[i]`` is a ``CREATE`` or ``ALTER TABLE`` that starts its line, after no ``,`` or ``AS``."""
    t = chunk[i]
    if t.token_type == TokenType.ALTER:
        if i + 1 == len(chunk) or chunk[i + 1].token_type != TokenType.TABLE:
            return False  # ALTER COLUMN: a clause of ALTER TABLE
    elif t.token_type != TokenType.CREATE:
        return False
    return (chunk[i - 1].token_type not in (TokenType.COMMA, TokenType.ALIAS)
            and not text[text.rfind("\n", 0, t.start) + 1 : t.start].strip())


def _statement_kind(chunk: Sequence[Token]) -> str | None:
    """Which table-definition statement ``chunk`` is, or ``None`` for a statement to skip."""
    first = chunk[0].token_type
    head = [t.token_type for t in chunk[1:8]]
    if _is_type_statement(chunk):
        return _TYPE
    if first == TokenType.CREATE and TokenType.TABLE in head:
        return _CREATE
    if first == TokenType.ALTER and head[:1] == [TokenType.TABLE]:
        return _ALTER
    if first == TokenType.COMMENT and head[:1] == [TokenType.ON]:
        return _COMMENT
    if first == TokenType.CREATE and len(chunk) > 3 and chunk[1].text.upper() == "DOMAIN":
        return _DOMAIN
    if first == TokenType.CREATE and len(chunk) > 4 and chunk[1].text.upper() == "UNIQUE" and TokenType.INDEX in head[:3]:
        return _INDEX
    return None


#: Words between ``CREATE`` and ``TYPE`` (Oracle's ``CREATE OR REPLACE EDITIONABLE TYPE``).
_TYPE_PREFIX = frozenset({"OR", "REPLACE", "EDITIONABLE", "NONEDITIONABLE"})


def _is_type_statement(chunk: Sequence[Token]) -> bool:
    """Whether ``chunk`` is ``CREATE [OR REPLACE] TYPE`` or ``ALTER TYPE``: a type, never a table
    (T-SQL's ``CREATE TYPE t AS TABLE (...)``, Oracle's ``AS TABLE OF``)."""
    first = chunk[0].token_type
    if first not in (TokenType.CREATE, TokenType.ALTER):
        return False
    for t in chunk[1:5]:
        word = t.text.upper()
        if word == "TYPE":
            return True
        if first != TokenType.CREATE or word not in _TYPE_PREFIX:
            return False
    return False


#: Words of a statement whose body may create tables of its own (a procedure's temporary table).
_ROUTINE_WORDS = frozenset({"PROCEDURE", "FUNCTION", "TRIGGER", "PACKAGE", "BEGIN", "DO", "EXECUTE"})


def _inner_create_table(chunk: Sequence[Token]) -> int | None:
    """Where a ``CREATE TABLE`` starts a line inside ``chunk``, a statement that is no table
    definition and no routine, or ``None``: the statement before it was not ended by ``;``, and
    the table would be skipped with it."""
    lines = {chunk[0].line}
    for i in range(1, len(chunk) - 1):
        t = chunk[i]
        if t.text.upper() in _ROUTINE_WORDS:
            return None
        if (t.token_type == TokenType.CREATE and t.line not in lines
                and TokenType.TABLE in [x.token_type for x in chunk[i + 1 : i + 5]]):
            return i
        lines.add(t.line)
    return None


def _swallowed(origin: str, number: int, chunk: Sequence[Token], inner: int, text: str, reader: Dialect) -> str:
    """What to say of the ``CREATE TABLE`` at ``chunk[inner]``, read as part of skipped statement ``number``."""
    hint = ""
    if not isinstance(reader, Oracle) and chunk[0].text.lower() in _SQLPLUS_WORDS:
        hint = " (an Oracle SQL*Plus script? pass dialect='oracle' / --dialect oracle)"
    return (f"{origin}: the CREATE TABLE at line {chunk[inner].line} is read as part of statement {number} "
            f"(line {chunk[0].line}: {_snippet(text, chunk)!r}), which is skipped: is a ';' missing before it?{hint}")


def _snippet(text: str, chunk: Sequence[Token]) -> str:
    """The first characters of the statement, on one line."""
    if not chunk:
        return ""
    raw = text[chunk[0].start : min(chunk[-1].end + 1, chunk[0].start + 4 * _SNIPPET_CHARS)]
    return " ".join(raw.split())[:_SNIPPET_CHARS]


class _UnsupportedSyntax(Exception):
    """sqlglot fell back to an opaque ``Command`` for a CREATE TABLE."""


class _DropUnsupportedWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "unsupported syntax" not in record.getMessage()


@contextmanager
def _quiet_sqlglot() -> Iterator[None]:
    """Silence sqlglot's 'falling back to Command' warnings: unsupported statements are handled here."""
    logger, quiet = logging.getLogger("sqlglot"), _DropUnsupportedWarnings()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def _parse_tokens(reader: Dialect, chunk: list[Token], text: str) -> exp.Expr | None:
    trees = reader.parser(error_level=ErrorLevel.RAISE).parse(chunk, text)
    return trees[0] if trees else None


def _parse_statement(
    reader: Dialect, chunk: list[Token], text: str, kind: str, number: int, origin: str
) -> exp.Expr | None:
    """Parse one statement; an unparseable table definition raises :class:`DDLParseError`.

    ``ALTER``/``COMMENT`` variants sqlglot does not model come back as an opaque ``Command``
    (ignored by the caller); a ``CREATE TABLE`` must parse into a ``Create``.

    An unparseable ``CREATE TABLE`` is retried without what follows its column list (table
    options sqlglot does not know, such as SQLite's ``WITHOUT ROWID``), and without the column and
    key options keys do not need (:func:`_without_column_options`); so is a T-SQL ``ALTER TABLE``
    that sqlglot cannot read (``ADD CONSTRAINT pk PRIMARY KEY (a) ON [PS_Date] ([b])``).
    """
    chunk = _without_key_names(chunk)
    if isinstance(reader, Oracle):
        chunk = _without_constraint_states(chunk)
    tsql_alter = kind == _ALTER and isinstance(reader, TSQL)
    try:
        tree = _parse_tokens(reader, chunk, text)
        if kind == _CREATE and not isinstance(tree, exp.Create):
            raise _UnsupportedSyntax("unsupported syntax")
        if tsql_alter and isinstance(tree, exp.Command):
            return _without_column_options(reader, chunk, text, alter=True) or tree
        return tree
    except (SqlglotError, _UnsupportedSyntax) as err:  # ParseError mostly
        if kind == _CREATE or tsql_alter:
            tree = _with_keyword_types(reader, chunk, text, err) if kind == _CREATE else None
            if tree is None:
                tree = _without_column_options(reader, chunk, text, alter=tsql_alter)
            if tree is not None:
                return tree
        short = _without_table_options(chunk) if kind == _CREATE else None
        if short is not None:
            try:
                tree = _parse_tokens(reader, short, text)
            except SqlglotError:
                tree = None
            if isinstance(tree, exp.Create):
                return tree
        message = _parse_error_message(err, chunk, text, number, origin)
        if type(reader) is Dialect:  # no dialect given: the likeliest cause
            message += " (written for another SQL dialect? pass it: dialect= / --dialect mysql, postgres, tsql, oracle...)"
        raise DDLParseError(message) from err


#: Retries of a ``CREATE TABLE`` whose column types are keywords to sqlglot (at most this many).
_MAX_KEYWORD_TYPES = 8
_NAME_TOKENS = frozenset({TokenType.VAR, TokenType.IDENTIFIER})


def _with_keyword_types(reader: Dialect, chunk: list[Token], text: str, err: Exception) -> exp.Create | None:
    """A ``CREATE TABLE`` parsed again with each column type that sqlglot reads as a keyword
    (PostgreSQL's ``cube`` extension type: ``toc CUBE``) read as a type name, or ``None``: the token
    the parser stopped at, right after a column name, is taken as a name, up to
    :data:`_MAX_KEYWORD_TYPES` times."""
    for _ in range(_MAX_KEYWORD_TYPES):
        errors = getattr(err, "errors", None) or []
        if not errors:
            return None
        line, col = errors[0].get("line"), errors[0].get("col")
        at = next((i for i, t in enumerate(chunk) if t.line == line and t.col == col), None)
        if (at is None or at < 2 or chunk[at].token_type in _NAME_TOKENS
                or chunk[at - 1].token_type not in _NAME_TOKENS
                or chunk[at - 2].token_type not in (TokenType.L_PAREN, TokenType.COMMA)):
            return None
        t = chunk[at]
        chunk = [*chunk[:at], Token(TokenType.VAR, t.text, t.line, t.col, t.start, t.end, t.comments), *chunk[at + 1:]]
        try:
            tree = _parse_tokens(reader, chunk, text)
        except SqlglotError as again:
            err = again
            continue
        return tree if isinstance(tree, exp.Create) else None
    return None


#: Words that start an index defined in a table's column list (T-SQL ``INDEX ix NONCLUSTERED (a)``),
#: never a column's name unless quoted.
_INLINE_INDEX = frozenset({"INDEX"})
#: Column options of T-SQL that sqlglot does not read and that say nothing of keys:
#: ``MASKED WITH (FUNCTION = 'default()')`` (dynamic data masking).
_MASKED = "MASKED"
#: T-SQL's column flags that sqlglot does not read and that say nothing of keys (AdventureWorks'
#: ``[rowguid] uniqueidentifier ROWGUIDCOL NOT NULL``).
_COLUMN_FLAGS = frozenset({"ROWGUIDCOL", "SPARSE", "FILESTREAM"})
#: T-SQL's index kind after ``PRIMARY KEY`` / ``UNIQUE`` (``NONCLUSTERED HASH`` of a memory-optimized
#: table), which sqlglot reads only before a column list, if at all.
_CLUSTERED_WORDS = frozenset({"CLUSTERED", "NONCLUSTERED", "HASH"})
#: Words of an inline index that declare no key: a columnstore index, a filtered one (``WHERE``).
_NO_KEY_INDEX = frozenset({"COLUMNSTORE", "WHERE"})
#: Tokens after which a T-SQL ``ON`` / ``WITH`` is a key's or an index's storage: its column list's
#: ``)``, or ``PRIMARY KEY`` / ``UNIQUE`` (a column's own key, whose ``[NON]CLUSTERED`` is dropped).
_KEY_ENDS = frozenset({TokenType.R_PAREN, TokenType.PRIMARY_KEY, TokenType.UNIQUE})


def _without_column_options(reader: Dialect, chunk: list[Token], text: str, *, alter: bool = False) -> exp.Expr | None:
    """A ``CREATE TABLE`` (an ``ALTER TABLE`` if ``alter``) parsed again without what sqlglot cannot
    read and keys do not need (:func:`_column_options_dropped`), also without its table options
    when that is not enough, or ``None``."""
    out = _column_options_dropped(chunk, tsql=isinstance(reader, TSQL), depth=0 if alter else 1)
    if out is None:
        return None
    want = exp.Alter if alter else exp.Create
    for tokens in (out, None if alter else _without_table_options(out)):
        if tokens is None:
            continue
        try:
            tree = _parse_tokens(reader, tokens, text)
        except SqlglotError:
            continue
        if isinstance(tree, want):
            return tree
    return None


def _column_options_dropped(chunk: list[Token], *, tsql: bool, depth: int) -> list[Token] | None:
    """``chunk`` without what sqlglot cannot read and keys do not need, or ``None`` when there is
    none: the ``ASC`` / ``DESC`` of a key's columns (``UNIQUE ([CustomerName] ASC)``, which sqlglot
    reads only after ``[NON]CLUSTERED``), T-SQL's ``MASKED WITH (...)`` column option, and, for
    T-SQL, at parenthesis ``depth`` (1: a ``CREATE TABLE``'s column list; 0: an ``ALTER TABLE``'s
    clauses): the column flags :data:`_COLUMN_FLAGS`; the ``[NON]CLUSTERED`` after ``PRIMARY KEY`` /
    ``UNIQUE``; a key's or index's storage after its columns (``ON [PRIMARY]``, a partition scheme
    ``ON [PS_Date] ([Date Key])``, ``WITH (...)``, ``WITH FILLFACTOR = 90``) and an index's
    ``INCLUDE (...)``; an index in the column list (``INDEX ix CLUSTERED COLUMNSTORE``), but for a
    ``UNIQUE`` one that is not filtered (``INDEX ix UNIQUE (a)`` is a key, as ``CREATE UNIQUE INDEX``
    is). A word in a column's place (after ``(`` or ``,``) or quoted is a name and stays."""
    types = [t.token_type for t in chunk]
    n = len(chunk)

    def word(i: int) -> str:  # a quoted name or a string is no word
        quoted = i >= n or types[i] == TokenType.IDENTIFIER or types[i] in _STRINGS
        return "" if quoted else chunk[i].text.upper()

    def group_end(i: int) -> int:
        """The position after the parenthesised group opening at ``i``."""
        close = _closing(types, i)
        return n if close is None else close + 1

    out: list[Token] = []
    held: list[Token] = []  # a column's own [CONSTRAINT c] UNIQUE, moved to the end of its definition
    i, level, changed = 0, 0, False
    while i < n:
        t, w = chunk[i], word(i)
        if held and level == depth and t.token_type in (TokenType.COMMA, TokenType.R_PAREN):
            out.extend(held)
            held.clear()
        nxt = types[i + 1] if i + 1 < n else None
        prev = out[-1].token_type if out else None
        skip = i
        if w == _MASKED and nxt == TokenType.WITH and i + 2 < n and types[i + 2] == TokenType.L_PAREN:
            skip = group_end(i + 2)
        elif t.token_type in (TokenType.ASC, TokenType.DESC) and nxt in (TokenType.COMMA, TokenType.R_PAREN):
            skip = i + 1
        elif tsql and level == depth:
            if w in _COLUMN_FLAGS and prev not in (None, TokenType.L_PAREN, TokenType.COMMA):
                skip = i + 1
            elif w in _CLUSTERED_WORDS and prev in (TokenType.PRIMARY_KEY, TokenType.UNIQUE):
                skip = i + 1
            elif t.token_type == TokenType.UNIQUE:
                after = next((j for j in range(i + 1, n) if word(j) not in _CLUSTERED_WORDS), n)
                if after < n and types[after] not in (TokenType.L_PAREN, TokenType.COMMA, TokenType.R_PAREN):
                    # sqlglot reads the word after T-SQL's UNIQUE as a key's name (AdventureWorks'
                    # Document.rowguid: NOT NULL UNIQUE CONSTRAINT [DF_...] DEFAULT (NEWID())); the
                    # constraints of a column are read in any order
                    start = len(out) - 2 if len(out) > 1 and out[-2].token_type == TokenType.CONSTRAINT else len(out)
                    held.extend([*out[start:], t])
                    del out[start:]
                    skip = after
            elif (t.token_type == TokenType.ON and prev in _KEY_ENDS and nxt is not None
                  and nxt not in (TokenType.DELETE, TokenType.UPDATE, TokenType.L_PAREN)):
                skip = group_end(i + 2) if i + 2 < n and types[i + 2] == TokenType.L_PAREN else i + 2
            elif t.token_type == TokenType.WITH and prev in _KEY_ENDS and nxt == TokenType.L_PAREN:
                skip = group_end(i + 1)
            elif (t.token_type == TokenType.WITH and prev in _KEY_ENDS and word(i + 1) == "FILLFACTOR"
                  and i + 3 < n and types[i + 2] == TokenType.EQ):
                skip = i + 4
            elif w == "INCLUDE" and prev == TokenType.R_PAREN and nxt == TokenType.L_PAREN:
                skip = group_end(i + 1)
            elif w in _INLINE_INDEX and prev in (TokenType.L_PAREN, TokenType.COMMA):
                end = _item_end(types, i)
                words = {word(j) for j in range(i, end)}
                if word(i + 2) != "UNIQUE" or words & _NO_KEY_INDEX:
                    skip = end
                    if prev == TokenType.COMMA:
                        out.pop()
                    elif end < n and types[end] == TokenType.COMMA:
                        skip = end + 1
        if skip > i:
            i, changed = skip, True
            continue
        level += (t.token_type == TokenType.L_PAREN) - (t.token_type == TokenType.R_PAREN)
        out.append(t)
        i += 1
    return [*out, *held] if changed else None


def _item_end(types: Sequence[TokenType], start: int) -> int:
    """The position of the ``,`` or ``)`` that ends the list item starting at ``start``."""
    depth = 0
    for i in range(start, len(types)):
        if types[i] == TokenType.L_PAREN:
            depth += 1
        elif types[i] == TokenType.R_PAREN:
            if depth == 0:
                return i
            depth -= 1
        elif types[i] == TokenType.COMMA and depth == 0:
            return i
    return len(types)


def _without_key_names(chunk: list[Token]) -> list[Token]:
    """``chunk`` without the constraint name DB2 writes after ``FOREIGN KEY`` (TPC-H's ``dss.ri``:
    ``ADD FOREIGN KEY NATION_FK1 (N_REGIONKEY) REFERENCES REGION``), which sqlglot does not read."""
    drop = {
        i + 1 for i in range(len(chunk) - 2)
        if chunk[i].token_type == TokenType.FOREIGN_KEY and chunk[i + 1].token_type == TokenType.VAR
        and chunk[i + 2].token_type == TokenType.L_PAREN
    }
    return [t for i, t in enumerate(chunk) if i not in drop] if drop else chunk


#: Oracle's constraint states (``NOT NULL ENABLE``, ``REFERENCES d (id) ENABLE NOVALIDATE``, ``RELY``),
#: written after every constraint by its own exports (SQL Developer, ``DBMS_METADATA``); sqlglot
#: reads none of them, and they say nothing of which columns are keys.
_CONSTRAINT_STATES = frozenset({"ENABLE", "DISABLE", "VALIDATE", "NOVALIDATE", "RELY", "NORELY"})


def _without_constraint_states(chunk: list[Token]) -> list[Token]:
    """``chunk`` without Oracle's constraint states (:data:`_CONSTRAINT_STATES`) and the physical
    attributes of a key's index (``USING INDEX PCTFREE 10 ... TABLESPACE "USERS"``, up to the
    ``,`` or ``)`` that ends the constraint). A word in a column's place (after ``(`` or ``,``)
    or quoted is a name and stays."""
    out: list[Token] = []
    i, n, types = 0, len(chunk), [t.token_type for t in chunk]
    while i < n:
        t = chunk[i]
        word = t.text.upper() if t.token_type != TokenType.IDENTIFIER else ""
        prev = out[-1].token_type if out else None
        if word in _CONSTRAINT_STATES and prev not in (None, TokenType.L_PAREN, TokenType.COMMA):
            i += 1
            continue
        if word == "USING" and i + 1 < n and chunk[i + 1].text.upper() == "INDEX" and prev != TokenType.COMMA:
            i = _item_end(types, i + 2)
            continue
        out.append(t)
        i += 1
    return out


def _parse_error_message(err: Exception, chunk: Sequence[Token], text: str, number: int, origin: str) -> str:
    where = f"line {chunk[0].line}"
    detail = "syntax sqlglot cannot read (try another dialect=)"
    errors = getattr(err, "errors", None) or []
    if errors:
        first = errors[0]
        where = f"line {first.get('line')}, column {first.get('col')}"
        detail = str(first.get("description") or _first_line(err))
        if first.get("highlight"):
            detail += f" near {first['highlight']!r}"
    return f"{origin}: cannot parse statement {number} ({where}): {detail}: {_snippet(text, chunk)!r}"


def _closing(types: Sequence[TokenType], opening: int) -> int | None:
    """The position of the parenthesis that closes the one at ``opening`` in ``types``, or ``None``."""
    depth = 0
    for i in range(opening, len(types)):
        depth += (types[i] == TokenType.L_PAREN) - (types[i] == TokenType.R_PAREN)
        if depth == 0:
            return i
    return None


def _without_table_options(chunk: list[Token]) -> list[Token] | None:
    """``chunk`` cut after the parenthesis closing its column list, if anything follows it."""
    types = [t.token_type for t in chunk]
    if TokenType.L_PAREN not in types:
        return None
    closing = _closing(types, types.index(TokenType.L_PAREN))
    if closing is None or closing == len(types) - 1 or TokenType.CREATE in types[closing + 1 :]:
        return None
    return chunk[: closing + 1]


# -- building the tables ----------------------------------------------------------------

#: T-SQL's ``[NON]CLUSTERED (a, b)`` after ``PRIMARY KEY`` / ``UNIQUE``: sqlglot keeps the key's
#: columns in it.
_CLUSTERED = (exp.ClusteredColumnConstraint, exp.NonClusteredColumnConstraint)


def unique_index_column(tree: exp.Expr | None) -> tuple[exp.Table, str] | None:
    """``(table, column)`` of a parsed ``CREATE UNIQUE INDEX name ON table (column)``; ``None`` for
    any other statement, an index on several columns or on an expression, or a partial one
    (``WHERE``): none of them declares one column unique."""
    index = tree.this if isinstance(tree, exp.Create) else None
    if not (isinstance(index, exp.Index) and tree.args.get("unique") and isinstance(index.args.get("table"), exp.Table)):
        return None
    params = index.args.get("params")
    columns = (params.args.get("columns") or []) if params is not None else []
    if len(columns) != 1 or params.args.get("where") is not None:
        return None
    column = columns[0].this if isinstance(columns[0], exp.Ordered) else columns[0]
    return (index.args["table"], column.name) if isinstance(column, exp.Column) else None


#: Tokens of quoted strings (PostgreSQL's ``E'...'`` and ``$$...$$`` too): an enumeration's labels.
_STRINGS = frozenset({TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.BYTE_STRING, TokenType.HEREDOC_STRING,
                      TokenType.RAW_STRING, TokenType.UNICODE_STRING})


def _type_name(tokens: Sequence[Token]) -> tuple[str, list[Token]]:
    """The (schema-qualified) type name that ``tokens`` start with, lower case, unquoted
    (``public."Mood"`` -> ``"public.mood"``, ``[dbo].[Phone]`` -> ``"dbo.phone"``), and the tokens
    after the name."""
    rest = list(tokens)
    name = [rest.pop(0)]
    while len(rest) > 1 and rest[0].token_type == TokenType.DOT:
        rest.pop(0)
        name.append(rest.pop(0))
    return ".".join(t.text for t in name).lower(), rest


#: sqlglot's inline enumeration types: MySQL's ``ENUM('a', 'b')`` and ``SET('a', 'b')`` (a set of
#: the labels), DuckDB's ``ENUM('a', 'b')``, ClickHouse's ``Enum8('a' = 1, 'b' = 2)``.
_INLINE_ENUMS = frozenset({exp.DataType.Type.ENUM, exp.DataType.Type.ENUM8, exp.DataType.Type.ENUM16,
                           exp.DataType.Type.SET})


def inline_enum_labels(kind: exp.DataType | None) -> list[str] | None:
    """The labels of a column type that spells them (MySQL's ``ENUM('G', 'PG')`` and
    ``SET('Trailers', 'Commentaries')``, DuckDB's ``ENUM('sad', 'ok')``, ClickHouse's ``Enum8('a' =
    1)``), in their order; ``None`` for any other type."""
    if kind is None or kind.this not in _INLINE_ENUMS:
        return None
    labels = (e.this if isinstance(e, exp.EQ) else e for e in kind.expressions)  # ClickHouse's 'a' = 1
    return [e.this for e in labels if isinstance(e, exp.Literal) and e.is_string]


def _type_key(declared: str) -> str | None:
    """A column's declared type as :func:`_type_name` names a domain, an alias type or an
    enumeration (``public."Mood"`` -> ``"public.mood"``, ``[dbo].[Phone]`` -> ``"dbo.phone"``);
    ``None`` for an array of one (``mood[]``), which is neither."""
    if declared.rstrip().endswith("[]"):
        return None
    return ".".join(part.strip().strip('"`[]') for part in declared.split(".")).lower()


def _user_type(types: dict[str, _T], declared: str, schema: str | None = None) -> str | None:
    """The key in ``types`` (domains or enumerations by :func:`_type_name`) of the type a column
    is declared with: its qualified name first (``a.status``), then its bare name (``status``)
    defined without a schema; a bare name also in ``schema`` (the column's table's), then in the
    one schema that defines it (none when several do). ``None``: no type of the file."""
    key = _type_key(declared)
    if key is None or not types:
        return None
    qualifier, _, bare = key.rpartition(".")
    if key in types or bare in types:
        return key if key in types else bare
    if qualifier:
        return None
    if schema is not None and f"{schema.lower()}.{bare}" in types:
        return f"{schema.lower()}.{bare}"
    found = [k for k in types if k.rpartition(".")[2] == bare]
    return found[0] if len(found) == 1 else None


def _name(node: exp.Expr | None) -> str:
    """The name of a column/identifier node (``Ordered`` and prefix-length wrappers unwrapped)."""
    if node is None:
        return ""
    if isinstance(node, exp.Ordered):
        node = node.this
    if isinstance(node, exp.Identifier):
        return str(node.this)
    if isinstance(node, (exp.Column, exp.Table)) and node.name:
        return node.name
    ident = node.find(exp.Identifier)
    return str(ident.this) if ident is not None else node.name


def _table_name(table: exp.Table) -> str:
    """The name of a table node, T-SQL's ``#temporary`` / ``##global`` marks kept."""
    ident = table.this
    name = table.name
    if isinstance(ident, exp.Identifier):
        if ident.args.get("global_") or ident.args.get("global"):
            return f"##{name}"
        if ident.args.get("temporary"):
            return f"#{name}"
    return name


def _unique_columns(item: exp.UniqueColumnConstraint, *, named: bool = True) -> tuple[str, ...] | None:
    """The columns of ``UNIQUE (a, b)`` (T-SQL's ``UNIQUE [NON]CLUSTERED (a, b)`` too; MySQL's ``UNIQUE
    KEY name (a, b)`` unless not ``named``); ``None`` for a ``UNIQUE`` without a column list (a column's own)."""
    if isinstance(item.this, exp.Schema) and item.this.expressions and (named or item.this.this is None):
        return _names(item.this.expressions)
    if isinstance(item.this, _CLUSTERED) and item.this.this:
        return _names(item.this.this)
    return None


def _inline_index(node: exp.ColumnDef) -> bool:
    """Whether ``node`` is T-SQL's ``INDEX ix [UNIQUE] [NON]CLUSTERED (a)`` in a column list, which
    sqlglot reads as a column called ``INDEX``."""
    return isinstance(node.this, exp.Identifier) and not node.this.quoted and node.this.name.upper() in _INLINE_INDEX


def _constraint_kinds(node: exp.ColumnDef) -> list[exp.Expr]:
    """The constraints of a column definition, each without its ``CONSTRAINT name``."""
    constraints = node.args.get("constraints") or ()
    return [c.args.get("kind") if isinstance(c, exp.ColumnConstraint) else c for c in constraints]


def _names(nodes: Sequence[exp.Expr] | None) -> tuple[str, ...]:
    return tuple(filter(None, map(_name, nodes or ())))


def _text(node: exp.Expr | None) -> str | None:
    """The string of a literal (``COMMENT 'x'``), ``None`` when absent or empty."""
    if node is None:
        return None
    value = node.this if isinstance(node, exp.Literal) else node.name
    return str(value) if value else None


@dataclass
class _RawForeignKey:
    columns: tuple[str, ...]
    ref_database: str | None  # None: unqualified reference
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass
class _TableDef:
    database: str
    name: str
    columns: list[Column] = field(default_factory=list)
    primary_key: list[str] = field(default_factory=list)
    unique: list[str] = field(default_factory=list)  # columns declared unique on their own
    foreign_keys: list[_RawForeignKey] = field(default_factory=list)
    comment: str | None = None
    sql_schema: str | None = None  # the schema the DDL names the table with (``sales.orders``)
    parents: list[exp.Table] = field(default_factory=list)  # INHERITS (a, b)
    partition_of: exp.Table | None = None  # PARTITION OF p, or ALTER TABLE p ATTACH PARTITION this
    # lower-case name -> positions in ``columns``, of its first ``_indexed`` columns (:meth:`column`)
    _at: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _indexed: int = field(default=0, repr=False)

    def column(self, name: str) -> Column | None:
        """The column called ``name`` (exact match first, then case-insensitive), by a map of the
        names that follows appended columns (after any other change: :meth:`reindex`)."""
        if self._indexed > len(self.columns):
            self.reindex()
        for i in range(self._indexed, len(self.columns)):
            self._at.setdefault(self.columns[i].name.lower(), []).append(i)
        self._indexed = len(self.columns)
        spots = self._at.get(name.lower(), [])
        exact = next((self.columns[i] for i in spots if self.columns[i].name == name), None)
        return exact or (self.columns[spots[0]] if spots else None)

    def reindex(self) -> None:
        """Forget where the columns are: after one is removed or renamed, or ``columns`` replaced."""
        self._at, self._indexed = {}, 0


class _Builder:
    """Accumulates table definitions from parsed statements and resolves references at the end."""

    def __init__(self, *, database: str, dialect: Dialect, origin: str, partitions: bool = False) -> None:
        self.database = database
        self.dialect = dialect
        self.origin = origin
        self.partitions = partitions
        self.tables: dict[tuple[str, str], _TableDef] = {}  # changed by _put and _remove only
        # the keys of ``tables`` (in its order) by lower-case (database, name), and by lower-case name
        self._folded: dict[tuple[str, str], dict[tuple[str, str], None]] = {}
        self._named: dict[str, dict[tuple[str, str], None]] = {}
        self.skipped: dict[int, _TableDef] = {}  # id of a partition left out -> the table holding its rows
        # by name as written (lower case, schema-qualified where it is: _type_name)
        self.domains: dict[str, str] = {}  # CREATE DOMAIN, T-SQL's CREATE TYPE ... FROM: name -> its base type
        self.named_bases: set[str] = set()  # the domains whose base type is a name of no built-in type
        self.enums: dict[str, list[str]] = {}  # CREATE TYPE ... AS ENUM: name -> its labels

    # -- lookup -----------------------------------------------------------------------
    def find(self, database: str, name: str) -> _TableDef | None:
        """The table ``database.name``: exact match first, then the first created of those that
        match case-insensitively."""
        if (database, name) in self.tables:
            return self.tables[(database, name)]
        keys = self._folded.get((database.lower(), name.lower()))
        return self.tables[next(iter(keys))] if keys else None

    def _put(self, tdef: _TableDef) -> None:
        """Add ``tdef`` to :attr:`tables` under its name, and to the case-insensitive maps."""
        key = (tdef.database, tdef.name)
        self.tables[key] = tdef
        self._folded.setdefault((key[0].lower(), key[1].lower()), {})[key] = None
        self._named.setdefault(key[1].lower(), {})[key] = None

    def _remove(self, tdef: _TableDef) -> None:
        """Take ``tdef`` out of :attr:`tables` and of the case-insensitive maps."""
        key = (tdef.database, tdef.name)
        del self.tables[key]
        for index, folded in ((self._folded, (key[0].lower(), key[1].lower())), (self._named, key[1].lower())):
            del index[folded][key]
            if not index[folded]:
                del index[folded]

    def _qualified(self, table: exp.Table) -> tuple[str, str]:
        return (table.db or self.database, _table_name(table))

    def _unqualified(self, name: str) -> _TableDef | None:
        """The one table called ``name`` in any database, when a schema-qualified name finds none
        (``ALTER TABLE TPCD.NATION`` after ``CREATE TABLE NATION``: the script's schema was the
        connection's default); ``None`` when there is none or several."""
        keys = self._named.get(name.lower(), {})
        return self.tables[next(iter(keys))] if len(keys) == 1 else None

    # -- statements ---------------------------------------------------------------------
    def create(self, tree: exp.Create, number: int, snippet: str, *, schema: str | None = None) -> None:
        if str(tree.args.get("kind") or "").upper() != "TABLE":
            return
        target = tree.this
        table_node = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(table_node, exp.Table):
            return
        database, name = self._qualified(table_node)
        if schema is not None and not table_node.db:  # an element of CREATE SCHEMA s
            database = schema
        # An untyped column (SQLite ``CREATE TABLE t (a, b)``) is a bare identifier.
        items = [
            exp.ColumnDef(this=i.copy()) if isinstance(i, exp.Identifier) else i
            for i in (target.expressions if isinstance(target, exp.Schema) else [])
        ]
        properties = tree.args.get("properties")
        partition_of = properties.find(exp.PartitionedOfProperty) if properties is not None else None
        inherits = properties.find(exp.InheritsProperty) if properties is not None else None
        parents = [t for t in (inherits.expressions if inherits is not None else ()) if isinstance(t, exp.Table)]
        if not any(isinstance(i, exp.ColumnDef) for i in items) and partition_of is None and not parents:
            raise SchemaError(
                f"table {f'{database}.{name}'!r} has no columns: {self.origin}, statement {number} "
                f"({snippet!r}) defines none"
            )
        tdef = _TableDef(database=database, name=name, sql_schema=table_node.db or schema, parents=parents)
        if partition_of is not None and isinstance(partition_of.this, exp.Table):
            tdef.partition_of = partition_of.this
            tdef.parents.insert(0, partition_of.this)  # its columns are the parent's
        for item in items:
            self._add_item(tdef, item)
        defined = [_name(i.this) for i in items if isinstance(i, exp.ColumnDef) and not _inline_index(i)]
        times = Counter(n.lower() for n in defined)
        twice = sorted({n for n in defined if times[n.lower()] > 1}, key=str.lower)
        if twice:
            warnings.warn(
                f"{self.origin}: table {name!r} (statement {number}) defines column(s) "
                f"{', '.join(map(repr, twice))} more than once; the first definition is kept",
                stacklevel=3,
            )
        comment = properties.find(exp.SchemaCommentProperty) if properties is not None else None
        tdef.comment = _text(comment.this) if comment is not None else None
        earlier = self.find(database, name)
        if earlier is not None:
            keep_first = bool(tree.args.get("exists"))  # CREATE TABLE IF NOT EXISTS
            warnings.warn(
                f"{self.origin}: table {f'{database}.{name}'!r} is created twice (statement {number} again); "
                + ("the earlier definition is kept (IF NOT EXISTS)" if keep_first else "the later definition replaces it"),
                stacklevel=3,
            )
            if keep_first:
                return
            self._remove(earlier)
        self._put(tdef)

    def alter(self, tree: exp.Alter, number: int) -> None:
        if not isinstance(tree.this, exp.Table):
            return
        database, name = self._qualified(tree.this)
        tdef = self.find(database, name) or self._unqualified(name)
        if tdef is None:
            # a statement that only drops or alters (pg_dump --clean's DROP CONSTRAINT IF EXISTS
            # before the tables it drops and creates again) loses nothing: no warning
            altering = (exp.Drop, exp.AlterColumn, exp.ModifyColumn)
            if all(isinstance(a, altering) for a in tree.args.get("actions") or ()):
                return
            warnings.warn(
                f"{self.origin}: ALTER TABLE {f'{database}.{name}'!r} (statement {number}) names no table "
                "created before it; its columns and keys are ignored",
                stacklevel=3,
            )
            return
        for action in tree.args.get("actions") or ():
            if isinstance(action, exp.Drop) and str(action.args.get("kind") or "").upper() == "COLUMN":
                for col in action.args.get("tables") or ():
                    self._drop_column(tdef, _name(col))
            elif isinstance(action, exp.RenameColumn):
                self._rename_column(tdef, _name(action.this), _name(action.args.get("to")))
            elif isinstance(action, exp.AlterRename) and isinstance(action.this, exp.Table):
                self._rename_table(tdef, _table_name(action.this))
            elif isinstance(action, exp.AlterColumn):  # SET DEFAULT, DROP NOT NULL...: only a new type counts
                if isinstance(action.args.get("dtype"), exp.DataType):
                    self._retype_column(tdef, _name(action.this), action.args["dtype"])
            elif isinstance(action, exp.ModifyColumn) and isinstance(action.this, exp.ColumnDef):
                self._modify_column(tdef, action.this, _name(action.args.get("rename_from")))
            else:
                # Oracle's ADD (CONSTRAINT ..., col type) comes as a Schema of the added items
                added = isinstance(action, (exp.AddConstraint, exp.Schema)) and not isinstance(action.this, exp.Table)
                for item in action.expressions if added else [action]:
                    self._add_item(tdef, item)

    @staticmethod
    def _drop_column(tdef: _TableDef, name: str) -> None:
        """``ALTER TABLE ... DROP COLUMN name``: the column, and the keys it is part of, go."""
        col = tdef.column(name)
        if col is None:
            return
        tdef.columns.remove(col)
        tdef.reindex()
        tdef.primary_key = [c for c in tdef.primary_key if c.lower() != col.name.lower()]
        tdef.unique = [c for c in tdef.unique if c.lower() != col.name.lower()]
        tdef.foreign_keys = [fk for fk in tdef.foreign_keys if col.name.lower() not in (c.lower() for c in fk.columns)]

    def _rename_column(self, tdef: _TableDef, old: str, new: str) -> None:
        """``ALTER TABLE ... RENAME COLUMN old TO new``, in the table's keys and in the references
        to it too."""
        col = tdef.column(old)
        if col is None or not new:
            return
        tdef.columns[tdef.columns.index(col)] = dataclasses.replace(col, name=new)
        tdef.reindex()

        def renamed(names: Sequence[str]) -> tuple[str, ...]:
            return tuple(new if n.lower() == col.name.lower() else n for n in names)

        tdef.primary_key = list(renamed(tdef.primary_key))
        tdef.unique = list(renamed(tdef.unique))
        for fk in tdef.foreign_keys:
            fk.columns = renamed(fk.columns)
        for owner in self.tables.values():
            for fk in owner.foreign_keys:
                if fk.ref_columns and self._lookup(owner, fk.ref_database, fk.ref_table) is tdef:
                    fk.ref_columns = renamed(fk.ref_columns)

    def _rename_table(self, tdef: _TableDef, new: str) -> None:
        """``ALTER TABLE ... RENAME TO new`` (in the table's own schema)."""
        if not new or self.find(tdef.database, new) is not None:
            return
        self._remove(tdef)
        tdef.name = new
        self._put(tdef)

    def attach_partition(self, tree: exp.Command) -> None:
        """``ALTER TABLE [ONLY] parent ATTACH PARTITION child ...`` (``pg_dump`` output), which
        sqlglot reads as an opaque command: ``child`` is a partition of ``parent``."""
        m = _ATTACH_PARTITION.match(tree.sql(dialect=self.dialect))
        if m is None:
            return
        try:
            parent, child = (exp.to_table(m.group(g), dialect=self.dialect) for g in ("parent", "child"))
        except SqlglotError:
            return
        tdef = self.find(*self._qualified(child)) or self._unqualified(child.name)
        if tdef is not None:
            tdef.partition_of = parent

    def comment(self, tree: exp.Comment) -> None:
        kind = str(tree.args.get("kind") or "").upper()
        target, text = tree.this, _text(tree.args.get("expression"))
        if kind == "TABLE" and isinstance(target, exp.Table):
            tdef = self.find(*self._qualified(target))
            if tdef is not None:
                tdef.comment = text
        elif kind == "COLUMN" and isinstance(target, exp.Column):
            tdef = self.find(target.db or self.database, target.table)
            col = tdef.column(target.name) if tdef is not None else None
            if col is not None:
                col.comment = text

    # -- table items ----------------------------------------------------------------------
    def _add_item(self, tdef: _TableDef, item: exp.Expr) -> None:
        if isinstance(item, exp.ColumnDef):
            self._add_column(tdef, item)
        elif isinstance(item, exp.PrimaryKey):
            tdef.primary_key.extend(_names(item.expressions))
        elif isinstance(item, exp.ForeignKey):
            self._add_reference(tdef, _names(item.expressions), item.args.get("reference"))
        elif isinstance(item, exp.UniqueColumnConstraint):  # UNIQUE (a): a key of one column
            cols = _unique_columns(item) or ()
            if len(cols) == 1:
                tdef.unique.append(cols[0])
        elif isinstance(item, exp.Constraint):  # CONSTRAINT name <PRIMARY KEY | FOREIGN KEY ...>
            parts = item.expressions
            if any(isinstance(p, exp.PrimaryKeyColumnConstraint) for p in parts):
                # T-SQL: CONSTRAINT pk PRIMARY KEY [NON]CLUSTERED (a, b)
                indexed = [p for p in parts if isinstance(p, _CLUSTERED)]
                tdef.primary_key.extend(name for p in indexed for name in _names(p.this))
            for part in parts:
                self._add_item(tdef, part)

    def unique_index(self, chunk: list[Token], text: str) -> None:
        """``CREATE UNIQUE INDEX name ON t (a)``: column ``a`` of ``t`` is declared unique. An index
        on several columns or on an expression, a partial one (``WHERE``), an index sqlglot cannot
        parse or one on a table not created before it declares no key of one column: skipped."""
        try:
            tree = _parse_tokens(self.dialect, _without_key_names(chunk), text)
        except SqlglotError:
            return
        found = unique_index_column(tree)
        if found is None:
            return
        table, column = found
        tdef = self.find(*self._qualified(table)) or self._unqualified(table.name)
        if tdef is not None and tdef.column(column) is not None:
            tdef.unique.append(column)

    def domain(self, chunk: Sequence[Token], text: str) -> None:
        """``CREATE DOMAIN name [AS] type ...``: columns of type ``name`` get ``type`` (as a
        database reports them), so that the join rules compare the base types. A type sqlglot
        cannot read leaves the domain's columns as they are."""
        name, rest = _type_name(chunk[2:])
        if rest and rest[0].token_type == TokenType.ALIAS:  # AS
            rest.pop(0)
        self._base_type(name, rest, text)

    def _base_type(self, name: str, tokens: Sequence[Token], text: str) -> None:
        """Record ``tokens`` (up to a constraint or ``[NOT] NULL``) as the base type of domain or
        alias type ``name``; a type sqlglot cannot read records nothing."""
        end = next((i for i, t in enumerate(tokens) if t.text.upper() in _DOMAIN_END), len(tokens))
        if not end:
            return
        spelled = text[tokens[0].start : tokens[end - 1].end + 1]
        try:
            base = exp.DataType.build(spelled, dialect=self.dialect)
        except (SqlglotError, ValueError):
            try:  # T-SQL's bracketed [varchar](20), which sqlglot reads in a CAST only
                cast = self.dialect.parse(f"CAST(NULL AS {spelled})")[0]
            except (SqlglotError, ValueError, IndexError):
                return
            if not isinstance(cast, exp.Cast) or cast.to.is_type(exp.DataType.Type.USERDEFINED):
                return
            base = cast.to
        self.domains[name] = base.sql(dialect=self.dialect)
        if base.this == exp.DataType.Type.USERDEFINED:  # perhaps another domain (is_type() says no to it)
            self.named_bases.add(name)
        else:
            self.named_bases.discard(name)

    def _domain_type(self, declared: str, tdef: _TableDef | None = None) -> str:
        """The base type of a column (of ``tdef``) declared with a domain's or an alias type's name
        (``"OrderNumber"``, ``public.year``, ``[dbo].[Phone]``), through domains of domains, else
        ``declared``; :class:`DDLParseError` when the domains are defined by one another in a circle."""
        schema = (tdef.sql_schema or tdef.database) if tdef else None
        key = _user_type(self.domains, declared, schema)
        if key is None:
            return declared
        chain = [key]
        while key in self.named_bases and (key := _user_type(self.domains, self.domains[key], schema)) is not None:
            if key in chain:
                circle = chain[chain.index(key):] + [key]
                raise DDLParseError(
                    f"{self.origin}: the types {' -> '.join(map(repr, circle))} are defined by one another in a "
                    "circle (CREATE DOMAIN, CREATE TYPE ... FROM): none has a base type"
                )
            chain.append(key)
        return self.domains[chain[-1]]

    def type_statement(self, chunk: Sequence[Token], text: str) -> None:
        """``CREATE TYPE name AS ENUM ('a', 'b')`` (PostgreSQL): the labels of enumeration ``name``,
        which ``ALTER TYPE name ADD VALUE [IF NOT EXISTS] 'c' [BEFORE | AFTER 'b']`` and ``RENAME
        VALUE 'a' TO 'z'`` change and ``ALTER TYPE name RENAME TO new`` renames. T-SQL's alias type
        ``CREATE TYPE name FROM base [NOT NULL]`` is read as a domain. Any other type (composite,
        range, base type; T-SQL's and Oracle's table types) is no table and no enumeration: skipped."""
        at = next((i for i, t in enumerate(chunk[:5]) if t.text.upper() == "TYPE"), len(chunk)) + 1
        if at >= len(chunk):
            return
        name, rest = _type_name(chunk[at:])
        words = [t.text.upper() for t in rest if t.token_type not in _STRINGS]
        labels = [t.text for t in rest if t.token_type in _STRINGS]
        if chunk[0].token_type == TokenType.CREATE:
            if words[:3] == ["AS", "ENUM", "("]:
                self.enums[name] = labels
            elif len(rest) > 1 and rest[0].token_type == TokenType.FROM:  # T-SQL's alias type
                self._base_type(name, rest[1:], text)
            return
        key = _user_type(self.enums, name)
        if key is None:
            return
        known = self.enums[key]
        if words[:2] == ["RENAME", "TO"] and len(rest) == 3 and not labels:
            self._rename_enum(key, rest[2])
        elif not labels:
            return
        elif words[:2] == ["ADD", "VALUE"] and labels[0] not in known:
            where = next((w for w in words if w in ("BEFORE", "AFTER")), None)
            anchor = known.index(labels[1]) if where and len(labels) > 1 and labels[1] in known else None
            known.insert(len(known) if anchor is None else anchor + (where == "AFTER"), labels[0])
        elif words[:2] == ["RENAME", "VALUE"] and len(labels) == 2 and labels[0] in known:
            known[known.index(labels[0])] = labels[1]

    def _rename_enum(self, key: str, new: Token) -> None:
        """``ALTER TYPE name RENAME TO new``: enumeration ``key`` is called ``new`` in its schema,
        and so is the type of the columns declared with it before (as a database reports them)."""
        schema = key.rpartition(".")[0]
        new_key = f"{schema}.{new.text.lower()}" if schema else new.text.lower()
        if new_key in self.enums:
            return
        spelled = exp.to_identifier(new.text, quoted=new.token_type == TokenType.IDENTIFIER).sql(dialect=self.dialect)
        for tdef in self.tables.values():
            for i, col in enumerate(tdef.columns):
                if _user_type(self.enums, col.type, tdef.sql_schema or tdef.database) == key:
                    qualifier = col.type.rpartition(".")[0]
                    tdef.columns[i] = dataclasses.replace(col, type=f"{qualifier}.{spelled}" if qualifier else spelled)
        self.enums[new_key] = self.enums.pop(key)

    def _enumerations(self, tdef: _TableDef) -> None:
        """Mark the columns of ``tdef`` declared with an enumeration's name (``mood``,
        ``public.mood``, ``"Mood"``; :func:`_user_type`) as such, its labels as their sample."""
        for col in tdef.columns:
            key = _user_type(self.enums, col.type, tdef.sql_schema or tdef.database)
            if key is not None:
                col.enum, col.sample = True, enum_sample(self.enums[key])

    def _add_column(self, tdef: _TableDef, node: exp.ColumnDef) -> None:
        name = _name(node.this)
        if _inline_index(node):  # no column; a UNIQUE one is a key, as CREATE UNIQUE INDEX is
            for spec in _constraint_kinds(node):
                if isinstance(spec, exp.UniqueColumnConstraint):
                    self._add_item(tdef, spec)
            return
        if not name or tdef.column(name) is not None:  # ALTER ... MODIFY of a known column
            return
        tdef.columns.append(self._column(tdef, node, name))

    def _typed(self, tdef: _TableDef, column: Column, kind: exp.DataType | None) -> Column:
        """``column`` of ``tdef`` with type ``kind``: a domain's or alias type's base type, an inline
        enumeration's labels as its sample (MySQL's ``ENUM('G', 'PG')`` and ``SET(...)``, DuckDB's
        ``ENUM(...)``); a named enumeration is marked when the tables are built."""
        labels = inline_enum_labels(kind)
        return dataclasses.replace(
            column, type=self._domain_type(kind.sql(dialect=self.dialect), tdef) if kind is not None else "",
            enum=labels is not None, sample=enum_sample(labels) if labels is not None else (),
        )

    def _column(self, tdef: _TableDef, node: exp.ColumnDef, name: str) -> Column:
        """The column ``node`` defines in ``tdef``; its key constraints are added to ``tdef``."""
        column = self._typed(tdef, Column(name=name), node.args.get("kind"))
        specs = _constraint_kinds(node)
        for i, spec in enumerate(specs):
            # a key with a column list after a column, without a comma (T-SQL reads WideWorldImportersDW's
            # [ISO Week Number] INT NOT NULL CONSTRAINT pk PRIMARY KEY CLUSTERED ([Date] ASC)), is the
            # table's key on the listed columns, as it is after a comma; sqlglot reads the list of
            # PRIMARY KEY [NON]CLUSTERED (a) as the next constraint
            listed = specs[i + 1] if i + 1 < len(specs) and isinstance(specs[i + 1], _CLUSTERED) else None
            if isinstance(spec, exp.PrimaryKeyColumnConstraint):
                tdef.primary_key.extend(_names(listed.this) if listed is not None and listed.this else (name,))
            elif isinstance(spec, exp.UniqueColumnConstraint) and _unique_columns(spec, named=False) is not None:
                self._add_item(tdef, spec)  # UNIQUE [NON]CLUSTERED (a)
            elif isinstance(spec, exp.UniqueColumnConstraint):
                tdef.unique.append(name)
            elif isinstance(spec, (exp.PrimaryKey, exp.ForeignKey)):  # PRIMARY KEY (a), FOREIGN KEY (a) REFERENCES
                self._add_item(tdef, spec)
            elif isinstance(spec, exp.Reference):
                self._add_reference(tdef, (name,), spec)
            elif isinstance(spec, exp.CommentColumnConstraint):
                column.comment = _text(spec.this)
            elif isinstance(spec, exp.ComputedColumnConstraint):  # AS (expr), GENERATED ALWAYS AS (expr)
                column.computed = True
        return column

    def _retype_column(self, tdef: _TableDef, name: str, kind: exp.DataType) -> None:
        """``ALTER TABLE ... ALTER [COLUMN] name [SET DATA] TYPE kind`` (PostgreSQL, T-SQL's
        ``ALTER COLUMN name kind``): the column has type ``kind``."""
        col = tdef.column(name)
        if col is not None:
            tdef.columns[tdef.columns.index(col)] = self._typed(tdef, col, kind)

    def _modify_column(self, tdef: _TableDef, node: exp.ColumnDef, old: str) -> None:
        """MySQL's ``ALTER TABLE ... MODIFY [COLUMN] name definition`` and ``CHANGE [COLUMN] old name
        definition``: the column (renamed, in the table's keys too) has the new definition; its
        comment stays unless the definition gives one."""
        name = _name(node.this)
        col = tdef.column(old or name)
        if col is None or not name:
            return
        if name != col.name:
            other = tdef.column(name)
            if other is not None and other is not col:
                return  # CHANGE a b where b exists: an error to the database
            self._rename_column(tdef, col.name, name)
            col = tdef.column(name)
        fresh = self._column(tdef, node, name)
        tdef.columns[tdef.columns.index(col)] = dataclasses.replace(fresh, comment=fresh.comment or col.comment)

    def _add_reference(self, tdef: _TableDef, columns: tuple[str, ...], reference: exp.Expr | None) -> None:
        if not isinstance(reference, exp.Reference) or not columns:
            return
        target = reference.this
        table_node = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(table_node, exp.Table):
            return
        ref_columns = _names(target.expressions) if isinstance(target, exp.Schema) else ()
        tdef.foreign_keys.append(_RawForeignKey(columns, table_node.db or None, _table_name(table_node), ref_columns))

    # -- result ---------------------------------------------------------------------------
    def _lookup(self, owner: _TableDef, database: str | None, name: str) -> _TableDef | None:
        """The table ``owner`` names ``database.name``: an unqualified name in ``owner``'s database,
        then in the default one; a qualified name that names no table, the one table of that name."""
        candidates = [database] if database is not None else list(dict.fromkeys([owner.database, self.database]))
        found = next(filter(None, (self.find(db, name) for db in candidates)), None)
        if found is None and database is not None:
            found = self._unqualified(name)
        return found

    def _table_of(self, owner: _TableDef, node: exp.Table) -> _TableDef | None:
        return self._lookup(owner, node.db or None, _table_name(node))

    def _inherit(self) -> None:
        """Give each ``INHERITS`` child its parents' columns before its own (parents first, so
        that a grandchild gets its grandparent's too); mark the children that add no column."""
        done: set[int] = set()

        def columns(tdef: _TableDef, path: tuple[int, ...] = ()) -> list[Column]:
            if id(tdef) in done:
                return tdef.columns
            if id(tdef) in path:  # PostgreSQL refuses it: "circular inheritance is not allowed"
                by_id = {id(t): t for t in self.tables.values()}
                circle = [by_id[i] for i in path[path.index(id(tdef)):]] + [tdef]
                raise DDLParseError(
                    f"{self.origin}: the inheritance of tables "
                    f"{' -> '.join(repr(f'{t.database}.{t.name}') for t in circle)} is circular "
                    "(INHERITS, PARTITION OF): a table cannot inherit its own columns"
                )
            inherited: list[Column] = []
            names: set[str] = set()  # theirs, lower case
            for node in tdef.parents:
                parent = self._table_of(tdef, node)
                if parent is None:
                    if not tdef.columns:
                        raise SchemaError(
                            f"table {f'{tdef.database}.{tdef.name}'!r} has no columns: {self.origin} defines none "
                            f"and it takes them from {node.sql()!r}, which it does not define"
                        )
                    warnings.warn(f"{self.origin}: table {tdef.name!r} inherits from {node.sql()!r}, which is not "
                                  "defined; its columns are missing", stacklevel=4)
                    continue
                for col in columns(parent, (*path, id(tdef))):
                    if col.name.lower() not in names:
                        names.add(col.name.lower())
                        # what a column is, not its table's constraints (keys are not inherited)
                        inherited.append(Column(name=col.name, type=col.type, nl_name=col.nl_name,
                                                comment=col.comment, computed=col.computed))
            own = [c for c in tdef.columns if c.name.lower() not in names]
            if tdef.parents and not own and tdef.partition_of is None:
                tdef.partition_of = tdef.parents[0]  # a copy of its parent, like a partition
            tdef.columns = inherited + own
            tdef.reindex()
            done.add(id(tdef))
            return tdef.columns

        for tdef in list(self.tables.values()):
            columns(tdef)

    def _root(self, tdef: _TableDef) -> _TableDef | None:
        """The defined table whose rows ``tdef``'s are (through partitions and copies), or ``None``."""
        seen = {id(tdef)}
        root = None
        while tdef.partition_of is not None:
            parent = self._table_of(tdef, tdef.partition_of)
            if parent is None or id(parent) in seen:
                break
            seen.add(id(parent))
            root = tdef = parent
        return root

    def build(self) -> list[Table]:
        self._inherit()
        for tdef in self.tables.values():
            for name in tdef.primary_key:
                col = tdef.column(name)
                if col is not None:
                    col.primary_key = True
            for name in tdef.unique:
                col = tdef.column(name)
                if col is not None:
                    col.unique = True
            if self.enums:
                self._enumerations(tdef)
        roots = {} if self.partitions else {id(t): self._root(t) for t in self.tables.values()}
        self.skipped = {k: r for k, r in roots.items() if r is not None}
        kept = [t for t in self.tables.values() if id(t) not in self.skipped]
        # the schemas of one file are one database's: joins between them are inferred
        catalog = self.database if len({t.database for t in kept}) > 1 else None
        return [
            Table(
                database=t.database,
                name=t.name,
                columns=t.columns,
                foreign_keys=[self._resolve(t, fk) for fk in t.foreign_keys],
                comment=t.comment,
                sql_schema=t.sql_schema,
                catalog=catalog,
            )
            for t in kept
        ]

    def _resolve(self, owner: _TableDef, fk: _RawForeignKey) -> ForeignKey:
        """Qualify the referenced table; a reference without columns targets its primary key."""
        found = self._lookup(owner, fk.ref_database, fk.ref_table)
        if found is not None and id(found) in self.skipped:  # a partition: its parent holds the rows
            found = self.skipped[id(found)]
        ref_id = f"{found.database}.{found.name}" if found else f"{fk.ref_database or owner.database}.{fk.ref_table}"
        ref_columns = fk.ref_columns
        if not ref_columns and found is not None:
            ref_columns = tuple(c.name for c in found.columns if c.primary_key)
        return ForeignKey(fk.columns, ref_id, ref_columns)
