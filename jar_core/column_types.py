"""Column types: the family a declared type belongs to (text, number, date...), whether it can be a
key, and the class of types that can join (read by the join rules and the index)."""
from __future__ import annotations

import functools
import re
from enum import Enum
from typing import Any, Sequence

__all__ = ["TypeFamily", "normalize_type", "keyless_type", "join_class"]


class TypeFamily(str, Enum):
    """A column type reduced to a family so that dialect spellings compare sensibly."""

    INTEGER = "integer"
    REAL = "real"
    TEXT = "text"
    DATETIME = "date-time"
    BOOLEAN = "boolean"
    OTHER = "other"

    @property
    def join_class(self) -> str:
        """Families that can hold the same key values (integer and real are both numeric)."""
        return "numeric" if self in (TypeFamily.INTEGER, TypeFamily.REAL) else self.value


#: Network address types (PostgreSQL's ``inet``, ``cidr``, ``macaddr``; ClickHouse's ``IPv4``;
#: DuckDB's ``INET``): of no family, but they hold addresses, which no other type holds.
_NETWORK_TYPE = re.compile(r"^\s*(inet[46]?|cidr|macaddr8?|ipv[46]|ipaddress)\b", re.I)


def join_class(raw: str | None, family: TypeFamily) -> str:
    """The class of values a column of declared type ``raw`` (of ``family``) can share with
    another: :attr:`TypeFamily.join_class`, or ``network`` for an address type, which joins only
    its own kind (``inet`` is no ``uuid``); an unknown type (``other``) may hold any."""
    if family is TypeFamily.OTHER and raw and _NETWORK_TYPE.match(raw):
        return "network"
    return family.join_class


_TYPE_HEAD = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_ ]*?)\s*(\([^)]*\))?(?=\s|$|\()", re.S)
_CONSTRAINT_WORDS = re.compile(
    r"\b(not|null|default|primary|unique|references|check|auto_increment|autoincrement|"
    r"identity|generated|collate|constraint|comment|unsigned|signed|zerofill|on)\b.*$",
    re.I | re.S,
)
_KEYWORD_FAMILIES: Sequence[tuple[TypeFamily, tuple[str, ...]]] = (
    (TypeFamily.BOOLEAN, ("bool", "bit")),
    (TypeFamily.DATETIME, ("date", "time", "year", "interval")),
    (TypeFamily.INTEGER, ("int", "serial", "counter")),
    (TypeFamily.REAL, ("real", "float", "double", "decimal", "numeric", "number", "money", "dec")),
    (TypeFamily.TEXT, ("char", "text", "string", "clob", "enum", "uuid", "set", "name", "json", "xml")),
)


@functools.lru_cache(maxsize=1 << 16)
def normalize_type(raw: str | None) -> TypeFamily:
    """Map a free-text column type to its :class:`TypeFamily`.

    Constraints after the type are ignored (``int NOT NULL AUTO_INCREMENT`` is integer,
    ``varchar(255) DEFAULT NULL`` is text). Parsing uses sqlglot's type model and falls back
    on keywords; ``NUMBER``/``NUMERIC``/``DECIMAL`` with a zero scale (``NUMBER(10)``,
    ``NUMERIC(10,0)``) are integers, otherwise real; an unknown or empty type is ``other``.
    Results are cached by the raw string: a schema spells few distinct types, sqlglot parses
    each once.
    """
    if not raw or not raw.strip():
        return TypeFamily.OTHER
    head, params = _type_head(raw)
    family = _family_from_sqlglot(f"{head}{params}")
    if family is None:
        family = _family_from_keywords(head)
    if family is TypeFamily.REAL and head in ("number", "numeric", "decimal", "dec") and params:
        parts = [p.strip() for p in params.strip("()").split(",")]
        if len(parts) == 1 or (len(parts) == 2 and parts[1] in ("0", "")):
            if parts[0].isdigit() or parts[0] == "*":
                family = TypeFamily.INTEGER
    return family


def _type_head(raw: str) -> tuple[str, str]:
    """``("decimal", "(15,2)")`` of ``"DECIMAL(15,2) NOT NULL"``: the type's name (lower case) and
    its parameters, constraints dropped."""
    text = _CONSTRAINT_WORDS.sub("", raw.strip()).strip() or raw.strip()
    m = _TYPE_HEAD.match(text)
    head = (m.group(1) if m else text).strip().lower()
    params = (m.group(2) or "") if m else ""
    if not m and text.endswith("[]"):
        head = text.lower()
    return head, params


#: Words of type names whose values are no key: binary data, documents, geometries, money, text
#: search vectors and queries, ranges (``int4range``, ``tstzmultirange``).
_KEYLESS_WORDS = ("blob", "bytea", "json", "xml", "tsvector", "tsquery", "hstore", "geometry", "geography", "money",
                  "range")
#: Type names whose values are no key: geometric shapes, embeddings (pgvector's ``vector(1536)``),
#: durations, documents of other engines.
_KEYLESS_NAMES = frozenset({"image", "point", "polygon", "linestring", "line", "lseg", "box", "path", "circle",
                            "vector", "halfvec", "sparsevec", "interval", "variant", "object", "map", "struct"})
#: Binary types longer than this hold data, not a key (``BINARY(16)`` is a UUID).
_KEY_BYTES = 64


@functools.lru_cache(maxsize=1 << 12)
def keyless_type(raw: str | None) -> bool:
    """Whether a declared type holds no key: binary data (``bytea``, ``blob``, ``varbinary(max)``;
    not ``binary(16)``), a document (``json``, ``xml``), a geometry, a range, an embedding, a
    duration, an array, money, or a decimal with a fractional scale (``decimal(15,2)``; not
    ``numeric`` or ``number(10)``, which hold keys)."""
    if not raw or not raw.strip():
        return False
    head, params = _type_head(raw)
    if head.endswith("[]") or head.startswith("array") or head in _KEYLESS_NAMES:
        return True
    if any(w in head for w in _KEYLESS_WORDS):
        return True
    parts = [x.strip() for x in params.strip("()").split(",")] if params else []
    if head in ("binary", "varbinary", "binary varying"):
        return not parts or not parts[0].isdigit() or int(parts[0]) > _KEY_BYTES
    if head in ("number", "numeric", "decimal", "dec") and len(parts) == 2:
        return parts[1].isdigit() and int(parts[1]) > 0
    return False


def _family_from_keywords(head: str) -> TypeFamily:
    for fam, words in _KEYWORD_FAMILIES:
        if any(w in head for w in words):
            return fam
    return TypeFamily.OTHER


_SQLGLOT_SETS: list[tuple[TypeFamily, frozenset[Any]]] | None = None


def _family_from_sqlglot(text: str) -> TypeFamily | None:
    global _SQLGLOT_SETS
    try:
        from sqlglot import exp
        from sqlglot.errors import SqlglotError
    except ImportError:  # pragma: no cover - sqlglot is a hard dependency
        return None
    dt = exp.DataType
    if _SQLGLOT_SETS is None:
        T = dt.Type
        _SQLGLOT_SETS = [
            (TypeFamily.BOOLEAN, frozenset({T.BOOLEAN, T.BIT})),
            (TypeFamily.INTEGER, frozenset(dt.INTEGER_TYPES)),
            (TypeFamily.REAL, frozenset(dt.REAL_TYPES)),
            (TypeFamily.DATETIME, frozenset(dt.TEMPORAL_TYPES)),
            (TypeFamily.TEXT, frozenset(dt.TEXT_TYPES) | {T.UUID, T.ENUM, T.SET, T.JSON, T.XML}),
        ]
    try:
        parsed = dt.build(text, udt=True)
    except (SqlglotError, ValueError, TypeError, AttributeError, RecursionError):
        return None
    if parsed is None or parsed.this == dt.Type.USERDEFINED:
        return None
    for fam, types in _SQLGLOT_SETS:
        if parsed.this in types:
            return fam
    return None
