"""What a schema declares that the DDL loader and the database loader read alike: an enumeration's
labels (spelled in its type, and kept as its column's sample) and the one column of a unique index.

Part of the input of METHOD.md, "The task": the corpus of tables, whose declared keys and
enumerations the join rules and value matching read. Both loaders import this module; neither
imports the other.
"""

from __future__ import annotations

from typing import Iterable

from sqlglot import exp

__all__ = ["MAX_SAMPLE_CHARS", "DEFAULT_SAMPLE_VALUES", "enum_sample", "inline_enum_labels", "unique_index_column"]

#: Sample strings longer than this are cut to this many characters.
MAX_SAMPLE_CHARS = 200

#: Distinct values kept per column by default: enough for the names of a small dimension table
#: (artists, genres, countries) to be matched in a question.
DEFAULT_SAMPLE_VALUES = 100

#: sqlglot's inline enumeration types: MySQL's ``ENUM('a', 'b')`` and ``SET('a', 'b')`` (a set of
#: the labels), DuckDB's ``ENUM('a', 'b')``, ClickHouse's ``Enum8('a' = 1, 'b' = 2)``.
_INLINE_ENUMS = frozenset({exp.DataType.Type.ENUM, exp.DataType.Type.ENUM8, exp.DataType.Type.ENUM16,
                           exp.DataType.Type.SET})


def enum_sample(labels: Iterable[str], limit: int = DEFAULT_SAMPLE_VALUES) -> tuple[str, ...]:
    """An enumeration's labels as its column's :attr:`~jar_core.schema.Column.sample`: distinct, in
    their declared order, at most ``limit``, each cut to :data:`MAX_SAMPLE_CHARS` characters."""
    return tuple(dict.fromkeys(str(label)[:MAX_SAMPLE_CHARS] for label in labels))[:limit]


def inline_enum_labels(kind: exp.DataType | None) -> list[str] | None:
    """The labels of a column type that spells them (MySQL's ``ENUM('G', 'PG')`` and
    ``SET('Trailers', 'Commentaries')``, DuckDB's ``ENUM('sad', 'ok')``, ClickHouse's ``Enum8('a' =
    1)``), in their order; ``None`` for any other type."""
    if kind is None or kind.this not in _INLINE_ENUMS:
        return None
    labels = (e.this if isinstance(e, exp.EQ) else e for e in kind.expressions)  # ClickHouse's 'a' = 1
    return [e.this for e in labels if isinstance(e, exp.Literal) and e.is_string]


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
