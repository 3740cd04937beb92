"""Reading sqlglot's expressions of a table definition: names, key columns, constraints, comments.

Part of the input of METHOD.md, "The task" (the corpus of tables, read from DDL): the declared
keys that the join rules start from.
"""

from __future__ import annotations

from typing import Sequence

from sqlglot import exp

__all__ = [
    "CLUSTERED", "INLINE_INDEX", "node_name", "node_names", "table_name", "unique_columns", "is_inline_index",
    "constraint_kinds", "literal_text",
]

#: T-SQL's ``[NON]CLUSTERED (a, b)`` after ``PRIMARY KEY`` / ``UNIQUE``: sqlglot keeps the key's
#: columns in it.
CLUSTERED = (exp.ClusteredColumnConstraint, exp.NonClusteredColumnConstraint)
#: Words that start an index defined in a table's column list (T-SQL ``INDEX ix NONCLUSTERED (a)``),
#: never a column's name unless quoted.
INLINE_INDEX = frozenset({"INDEX"})


def node_name(node: exp.Expr | None) -> str:
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


def table_name(table: exp.Table) -> str:
    """The name of a table node, T-SQL's ``#temporary`` / ``##global`` marks kept."""
    ident = table.this
    name = table.name
    if isinstance(ident, exp.Identifier):
        if ident.args.get("global_") or ident.args.get("global"):
            return f"##{name}"
        if ident.args.get("temporary"):
            return f"#{name}"
    return name


def unique_columns(item: exp.UniqueColumnConstraint, *, named: bool = True) -> tuple[str, ...] | None:
    """The columns of ``UNIQUE (a, b)`` (T-SQL's ``UNIQUE [NON]CLUSTERED (a, b)`` too; MySQL's ``UNIQUE
    KEY name (a, b)`` unless not ``named``); ``None`` for a ``UNIQUE`` without a column list (a column's own)."""
    if isinstance(item.this, exp.Schema) and item.this.expressions and (named or item.this.this is None):
        return node_names(item.this.expressions)
    if isinstance(item.this, CLUSTERED) and item.this.this:
        return node_names(item.this.this)
    return None


def is_inline_index(node: exp.ColumnDef) -> bool:
    """Whether ``node`` is T-SQL's ``INDEX ix [UNIQUE] [NON]CLUSTERED (a)`` in a column list, which
    sqlglot reads as a column called ``INDEX``."""
    return isinstance(node.this, exp.Identifier) and not node.this.quoted and node.this.name.upper() in INLINE_INDEX


def constraint_kinds(node: exp.ColumnDef) -> list[exp.Expr]:
    """The constraints of a column definition, each without its ``CONSTRAINT name``."""
    constraints = node.args.get("constraints") or ()
    return [c.args.get("kind") if isinstance(c, exp.ColumnConstraint) else c for c in constraints]


def node_names(nodes: Sequence[exp.Expr] | None) -> tuple[str, ...]:
    return tuple(filter(None, map(node_name, nodes or ())))


def literal_text(node: exp.Expr | None) -> str | None:
    """The string of a literal (``COMMENT 'x'``), ``None`` when absent or empty."""
    if node is None:
        return None
    value = node.this if isinstance(node, exp.Literal) else node.name
    return str(value) if value else None
