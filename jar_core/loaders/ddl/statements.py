"""A DDL script cut into statements, as the clients that run such scripts cut it.

Part of the input of METHOD.md, "The task" (the corpus of tables, read from DDL). The text is
tokenized once with the dialect's tokenizer and split at ``;``, and at the ``GO`` lines of SQL
Server's tools, read as ``;`` (SSMS and SSDT scripts end each statement with both). T-SQL needs
neither: a ``CREATE`` or ``ALTER TABLE`` that starts a line after a complete statement starts one,
and a T-SQL routine's body runs to the ``GO``. The MySQL client's ``DELIMITER`` blocks
(``mysqldump``'s triggers, procedures and functions) are read at their own delimiter, and only the
table definitions among them are kept. ``pg_dump``'s ``COPY ... FROM stdin`` data rows and psql's
meta-command lines, and for Oracle the SQL*Plus command lines (``REM``, ``PROMPT``, ``SET``,
``@script``; a lone ``/`` ends a statement), are blanked before tokenizing: they are no SQL.
Offsets are kept throughout, so messages name the file's own lines. :func:`statement_kind` tells
the table definitions from the statements that are skipped unread.
"""

from __future__ import annotations

import re
from itertools import groupby
from typing import Sequence

from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.oracle import Oracle
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from jar_core.errors import DDLParseError

__all__ = [
    "CREATE", "ALTER", "COMMENT", "DOMAIN", "INDEX", "TYPE", "STRINGS",
    "without_sqlplus", "tokenizable", "tokenize", "split_statements", "tsql_statements", "schema_elements",
    "statement_kind", "inner_create_table", "swallowed_table", "snippet", "first_line",
]

_SNIPPET_CHARS = 80
#: What a statement that is read defines (:func:`statement_kind`).
CREATE, ALTER, COMMENT, DOMAIN, INDEX, TYPE = "create", "alter", "comment", "domain", "index", "type"
_DELIMITER_LINE = re.compile(r"^[ \t]*DELIMITER[ \t]+(\S+)[ \t]*$", re.IGNORECASE | re.MULTILINE)
#: A batch separator line of SQL Server's tools (``GO``, ``GO 5``), which scripts of SSMS and SSDT
#: put after each statement: no SQL, it ends the statement before it.
_BATCH_LINE = re.compile(r"^([ \t]*)GO([ \t]+\d+)?[ \t\r]*(--[^\n]*)?$", re.IGNORECASE | re.MULTILINE)
_TABLE_STATEMENT = re.compile(
    r"\A(?:\s|--[^\n]*\n|/\*.*?\*/)*(?:CREATE\s+(?:OR\s+REPLACE\s+)?(?:GLOBAL\s+|LOCAL\s+)?"
    r"(?:TEMPORARY\s+|TEMP\s+)?TABLE|ALTER\s+TABLE)\b",
    re.IGNORECASE | re.DOTALL,
)
#: Tokens of quoted strings (PostgreSQL's ``E'...'`` and ``$$...$$`` too): an enumeration's labels.
STRINGS = frozenset({TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.BYTE_STRING, TokenType.HEREDOC_STRING,
                     TokenType.RAW_STRING, TokenType.UNICODE_STRING})


def tokenizable(text: str) -> str:
    """``text`` as the tokenizer reads it: psql's lines and ``COPY`` data blanked, the MySQL client's
    ``DELIMITER`` blocks rewritten, each ``GO`` line read as ``;`` (offsets kept)."""
    return _batches(_client_delimiters(_without_psql(text)))


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


def without_sqlplus(text: str) -> str:
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


def schema_elements(chunk: list[Token]) -> list[tuple[str | None, list[Token]]]:
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

def first_line(err: BaseException) -> str:
    lines = str(err).strip().splitlines()
    return lines[0] if lines else type(err).__name__


def tokenize(reader: Dialect, text: str, origin: str) -> list[Token]:
    try:
        return reader.tokenize(text)
    except TokenError as err:
        # The cause says e.g. "Missing ' from 3:25" (line and offset where the token starts).
        cause = first_line(err.__cause__) if err.__cause__ else first_line(err)
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


def split_statements(tokens: Sequence[Token]) -> list[list[Token]]:
    """The token lists of the statements (separators dropped)."""
    return [list(group) for sep, group in groupby(tokens, key=_is_separator) if not sep]


def tsql_statements(tokens: Sequence[Token], text: str) -> list[list[Token]]:
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


def statement_kind(chunk: Sequence[Token]) -> str | None:
    """Which table-definition statement ``chunk`` is, or ``None`` for a statement to skip."""
    first = chunk[0].token_type
    head = [t.token_type for t in chunk[1:8]]
    if _is_type_statement(chunk):
        return TYPE
    if first == TokenType.CREATE and TokenType.TABLE in head:
        return CREATE
    if first == TokenType.ALTER and head[:1] == [TokenType.TABLE]:
        return ALTER
    if first == TokenType.COMMENT and head[:1] == [TokenType.ON]:
        return COMMENT
    if first == TokenType.CREATE and len(chunk) > 3 and chunk[1].text.upper() == "DOMAIN":
        return DOMAIN
    if first == TokenType.CREATE and len(chunk) > 4 and chunk[1].text.upper() == "UNIQUE" and TokenType.INDEX in head[:3]:
        return INDEX
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


def inner_create_table(chunk: Sequence[Token]) -> int | None:
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


def swallowed_table(origin: str, number: int, chunk: Sequence[Token], inner: int, text: str, reader: Dialect) -> str:
    """What to say of the ``CREATE TABLE`` at ``chunk[inner]``, read as part of skipped statement ``number``."""
    hint = ""
    if not isinstance(reader, Oracle) and chunk[0].text.lower() in _SQLPLUS_WORDS:
        hint = " (an Oracle SQL*Plus script? pass dialect='oracle' / --dialect oracle)"
    return (f"{origin}: the CREATE TABLE at line {chunk[inner].line} is read as part of statement {number} "
            f"(line {chunk[0].line}: {snippet(text, chunk)!r}), which is skipped: is a ';' missing before it?{hint}")


def snippet(text: str, chunk: Sequence[Token]) -> str:
    """The first characters of the statement, on one line."""
    if not chunk:
        return ""
    raw = text[chunk[0].start : min(chunk[-1].end + 1, chunk[0].start + 4 * _SNIPPET_CHARS)]
    return " ".join(raw.split())[:_SNIPPET_CHARS]

