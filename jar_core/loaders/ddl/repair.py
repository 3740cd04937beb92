"""Parsing one statement with sqlglot, and retrying a table definition it cannot read without what
keys do not need.

Part of the input of METHOD.md, "The task" (the corpus of tables, read from DDL). A table
definition that sqlglot cannot parse raises :class:`DDLParseError` naming the statement, after a
retry without what keys do not need: table options; the ``ASC`` of a key's columns; T-SQL's
``MASKED WITH (...)``, ``ROWGUIDCOL``, a key's ``[NON]CLUSTERED`` and storage (``ON [PRIMARY]``,
``ON [PS_Date] ([Date Key])``, ``WITH (FILLFACTOR = 90)``), an index in the column list but for a
``UNIQUE`` one; DB2's constraint name after ``FOREIGN KEY``; Oracle's constraint states
(``ENABLE NOVALIDATE``) and key index attributes (``USING INDEX ... TABLESPACE``); a column type
that sqlglot reads as a keyword. A T-SQL ``ALTER TABLE`` is retried so too.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator, Sequence

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.oracle import Oracle
from sqlglot.dialects.tsql import TSQL
from sqlglot.errors import ErrorLevel, SqlglotError
from sqlglot.tokens import Token, TokenType

from jar_core.errors import DDLParseError
from jar_core.loaders.ddl.expressions import INLINE_INDEX
from jar_core.loaders.ddl.statements import ALTER, CREATE, STRINGS, first_line, snippet

__all__ = ["parse_statement", "parse_tokens", "quiet_sqlglot", "without_key_names"]


class _UnsupportedSyntax(Exception):
    """sqlglot fell back to an opaque ``Command`` for a CREATE TABLE."""


class _DropUnsupportedWarnings(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "unsupported syntax" not in record.getMessage()


@contextmanager
def quiet_sqlglot() -> Iterator[None]:
    """Silence sqlglot's 'falling back to Command' warnings: unsupported statements are handled here."""
    logger, quiet = logging.getLogger("sqlglot"), _DropUnsupportedWarnings()
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def parse_tokens(reader: Dialect, chunk: list[Token], text: str) -> exp.Expr | None:
    trees = reader.parser(error_level=ErrorLevel.RAISE).parse(chunk, text)
    return trees[0] if trees else None


def parse_statement(
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
    chunk = without_key_names(chunk)
    if isinstance(reader, Oracle):
        chunk = _without_constraint_states(chunk)
    tsql_alter = kind == ALTER and isinstance(reader, TSQL)
    try:
        tree = parse_tokens(reader, chunk, text)
        if kind == CREATE and not isinstance(tree, exp.Create):
            raise _UnsupportedSyntax("unsupported syntax")
        if tsql_alter and isinstance(tree, exp.Command):
            return _without_column_options(reader, chunk, text, alter=True) or tree
        return tree
    except (SqlglotError, _UnsupportedSyntax) as err:  # ParseError mostly
        if kind == CREATE or tsql_alter:
            tree = _with_keyword_types(reader, chunk, text, err) if kind == CREATE else None
            if tree is None:
                tree = _without_column_options(reader, chunk, text, alter=tsql_alter)
            if tree is not None:
                return tree
        short = _without_table_options(chunk) if kind == CREATE else None
        if short is not None:
            try:
                tree = parse_tokens(reader, short, text)
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
            tree = parse_tokens(reader, chunk, text)
        except SqlglotError as again:
            err = again
            continue
        return tree if isinstance(tree, exp.Create) else None
    return None


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
            tree = parse_tokens(reader, tokens, text)
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
        quoted = i >= n or types[i] == TokenType.IDENTIFIER or types[i] in STRINGS
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
            elif w in INLINE_INDEX and prev in (TokenType.L_PAREN, TokenType.COMMA):
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


def without_key_names(chunk: list[Token]) -> list[Token]:
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
        detail = str(first.get("description") or first_line(err))
        if first.get("highlight"):
            detail += f" near {first['highlight']!r}"
    return f"{origin}: cannot parse statement {number} ({where}): {detail}: {snippet(text, chunk)!r}"


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

