"""The types a DDL file defines: domains and T-SQL's alias types (by their base type) and
PostgreSQL's enumerations (by their labels), and the lookup of a column's declared type among them.

Part of the input of METHOD.md, "The task" (the corpus of tables, read from DDL): a column declared
with a domain has its base type, as a live database reports it, so that the join rules compare the
base types; a column declared with an enumeration is text whose labels value matching finds.
"""

from __future__ import annotations

from typing import Sequence, TypeVar

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token, TokenType

from jar_core.errors import DDLParseError
from jar_core.loaders.ddl.statements import STRINGS

__all__ = ["UserTypes", "type_name", "user_type"]

_T = TypeVar("_T")
#: Words that end a ``CREATE DOMAIN``'s type (its constraints and default follow).
_DOMAIN_END = frozenset({"NULL", "NOT", "DEFAULT", "CHECK", "CONSTRAINT", "COLLATE"})


def type_name(tokens: Sequence[Token]) -> tuple[str, list[Token]]:
    """The (schema-qualified) type name that ``tokens`` start with, lower case, unquoted
    (``public."Mood"`` -> ``"public.mood"``, ``[dbo].[Phone]`` -> ``"dbo.phone"``), and the tokens
    after the name."""
    rest = list(tokens)
    name = [rest.pop(0)]
    while len(rest) > 1 and rest[0].token_type == TokenType.DOT:
        rest.pop(0)
        name.append(rest.pop(0))
    return ".".join(t.text for t in name).lower(), rest


def _type_key(declared: str) -> str | None:
    """A column's declared type as :func:`type_name` names a domain, an alias type or an
    enumeration (``public."Mood"`` -> ``"public.mood"``, ``[dbo].[Phone]`` -> ``"dbo.phone"``);
    ``None`` for an array of one (``mood[]``), which is neither."""
    if declared.rstrip().endswith("[]"):
        return None
    return ".".join(part.strip().strip('"`[]') for part in declared.split(".")).lower()


def user_type(types: dict[str, _T], declared: str, schema: str | None = None) -> str | None:
    """The key in ``types`` (domains or enumerations by :func:`type_name`) of the type a column
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


class UserTypes:
    """The domains, alias types and enumerations of one DDL file, by name as written (lower case,
    schema-qualified where it is: :func:`type_name`)."""

    def __init__(self, *, dialect: Dialect, origin: str) -> None:
        self.dialect = dialect
        self.origin = origin
        self.domains: dict[str, str] = {}  # CREATE DOMAIN, T-SQL's CREATE TYPE ... FROM: name -> its base type
        self.named_bases: set[str] = set()  # the domains whose base type is a name of no built-in type
        self.enums: dict[str, list[str]] = {}  # CREATE TYPE ... AS ENUM: name -> its labels

    def domain(self, chunk: Sequence[Token], text: str) -> None:
        """``CREATE DOMAIN name [AS] type ...``: columns of type ``name`` get ``type`` (as a
        database reports them), so that the join rules compare the base types. A type sqlglot
        cannot read leaves the domain's columns as they are."""
        name, rest = type_name(chunk[2:])
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

    def base_type(self, declared: str, schema: str | None) -> str:
        """The base type of a column (of a table in ``schema``) declared with a domain's or an alias
        type's name (``"OrderNumber"``, ``public.year``, ``[dbo].[Phone]``), through domains of
        domains, else ``declared``; :class:`DDLParseError` when the domains are defined by one
        another in a circle."""
        key = user_type(self.domains, declared, schema)
        if key is None:
            return declared
        chain = [key]
        while key in self.named_bases and (key := user_type(self.domains, self.domains[key], schema)) is not None:
            if key in chain:
                circle = chain[chain.index(key):] + [key]
                raise DDLParseError(
                    f"{self.origin}: the types {' -> '.join(map(repr, circle))} are defined by one another in a "
                    "circle (CREATE DOMAIN, CREATE TYPE ... FROM): none has a base type"
                )
            chain.append(key)
        return self.domains[chain[-1]]

    def type_statement(self, chunk: Sequence[Token], text: str) -> tuple[str, Token] | None:
        """``CREATE TYPE name AS ENUM ('a', 'b')`` (PostgreSQL): the labels of enumeration ``name``,
        which ``ALTER TYPE name ADD VALUE [IF NOT EXISTS] 'c' [BEFORE | AFTER 'b']`` and ``RENAME
        VALUE 'a' TO 'z'`` change. T-SQL's alias type ``CREATE TYPE name FROM base [NOT NULL]`` is
        read as a domain. Any other type (composite, range, base type; T-SQL's and Oracle's table
        types) is no table and no enumeration: skipped. ``ALTER TYPE name RENAME TO new`` is
        returned, ``(the enumeration's key, new)``, for the tables' builder to rename it
        (:meth:`renamed_enum`, :meth:`rename_enum`): its columns change with it."""
        at = next((i for i, t in enumerate(chunk[:5]) if t.text.upper() == "TYPE"), len(chunk)) + 1
        if at >= len(chunk):
            return None
        name, rest = type_name(chunk[at:])
        words = [t.text.upper() for t in rest if t.token_type not in STRINGS]
        labels = [t.text for t in rest if t.token_type in STRINGS]
        if chunk[0].token_type == TokenType.CREATE:
            if words[:3] == ["AS", "ENUM", "("]:
                self.enums[name] = labels
            elif len(rest) > 1 and rest[0].token_type == TokenType.FROM:  # T-SQL's alias type
                self._base_type(name, rest[1:], text)
            return None
        key = user_type(self.enums, name)
        if key is None:
            return None
        known = self.enums[key]
        if words[:2] == ["RENAME", "TO"] and len(rest) == 3 and not labels:
            return key, rest[2]
        if not labels:
            return None
        if words[:2] == ["ADD", "VALUE"] and labels[0] not in known:
            where = next((w for w in words if w in ("BEFORE", "AFTER")), None)
            anchor = known.index(labels[1]) if where and len(labels) > 1 and labels[1] in known else None
            known.insert(len(known) if anchor is None else anchor + (where == "AFTER"), labels[0])
        elif words[:2] == ["RENAME", "VALUE"] and len(labels) == 2 and labels[0] in known:
            known[known.index(labels[0])] = labels[1]
        return None

    def renamed_enum(self, key: str, new: Token) -> tuple[str, str] | None:
        """For ``ALTER TYPE name RENAME TO new`` of enumeration ``key``: its new key (in its schema)
        and the new name as the dialect spells it in a column's type; ``None`` when an enumeration
        has that name already (the statement is left unread)."""
        schema = key.rpartition(".")[0]
        new_key = f"{schema}.{new.text.lower()}" if schema else new.text.lower()
        if new_key in self.enums:
            return None
        return new_key, exp.to_identifier(new.text, quoted=new.token_type == TokenType.IDENTIFIER).sql(dialect=self.dialect)

    def rename_enum(self, key: str, new_key: str) -> None:
        """Enumeration ``key`` is called ``new_key`` (:meth:`renamed_enum`)."""
        self.enums[new_key] = self.enums.pop(key)

    def enum_key(self, declared: str, schema: str | None) -> str | None:
        """The enumeration a column (of a table in ``schema``) is declared with (:func:`user_type`), or ``None``."""
        return user_type(self.enums, declared, schema)
