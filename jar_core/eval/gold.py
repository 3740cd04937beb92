"""Gold tables of a question: the tables its gold SQL names (METHOD.md, "Metrics").

:func:`extract_gold_tables` parses the SQL with sqlglot and returns the real tables it reads:

* aliases are resolved (``FROM singer AS T1`` gives ``singer``, never ``T1``);
* names bound to a common table expression (``WITH x AS (...) ... FROM x``) are not tables and
  are excluded, with SQL scoping: a CTE name is visible in the statement that carries the
  ``WITH`` (including its subqueries) and in the bodies of the CTEs *defined after it* (or in
  its own body under ``WITH RECURSIVE``); a table with the same name as a CTE referenced where
  that CTE is not visible (for instance ``WITH t AS (SELECT * FROM t)``) is the real table.
  Schema-qualified names (``db.t``) are never CTE references;
* tables inside subqueries (``WHERE``, ``FROM``, scalar), CTE bodies and every branch of
  ``UNION`` / ``INTERSECT`` / ``EXCEPT`` are included;
* quoted identifiers keep their exact text (``"frpm table"``, MySQL ```my table```); a
  schema qualifier is dropped (``dw.T`` gives ``T``);
* order is first appearance in the SQL text, without duplicates. SQL identifiers are
  case-insensitive in the dialects of interest, so duplicates are detected case-insensitively
  and the first spelling is kept.

With ``tables`` (the table names of the question's database) each name is resolved
case-insensitively to the exact spelling in ``tables``, and names that are not tables of that
database are dropped silently (they are views, CTEs the dialect did not recognise, typos...).

Unparseable SQL raises :class:`GoldSQLError`.
"""

from __future__ import annotations

from typing import Iterable

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from jar_core.errors import JarError

__all__ = ["GoldSQLError", "extract_gold_tables"]


class GoldSQLError(JarError):
    """Gold SQL cannot be parsed, so its tables cannot be extracted."""


def _with_of(node: exp.Expression) -> exp.With | None:
    # The arg is ``with_`` in recent sqlglot releases and ``with`` in older ones.
    w = node.args.get("with_")
    if w is None:
        w = node.args.get("with")
    return w if isinstance(w, exp.With) else None


def _refers_to_visible_cte(table: exp.Table) -> bool:
    """True when ``table`` (an unqualified name) refers to a CTE visible at its position."""
    name = table.name.lower()
    child: exp.Expression = table
    node = table.parent
    while node is not None:
        if isinstance(node, exp.With):
            # ``table`` is inside the body of the CTE ``child``: the CTEs defined before it
            # are visible (and itself too under WITH RECURSIVE).
            ctes = list(node.expressions)
            pos = next((i for i, c in enumerate(ctes) if c is child), len(ctes))
            upto = pos + 1 if node.args.get("recursive") else pos
            if any(c.alias_or_name.lower() == name for c in ctes[:upto]):
                return True
        else:
            with_ = _with_of(node)
            # ``table`` is in the body of the statement owning this WITH: all its CTEs are
            # visible. (When ``child`` is the WITH itself, the case above already applied.)
            if with_ is not None and with_ is not child:
                if any(c.alias_or_name.lower() == name for c in with_.expressions):
                    return True
        child, node = node, node.parent
    return False


def _is_cte_reference(table: exp.Table) -> bool:
    if table.args.get("db") is not None or table.args.get("catalog") is not None:
        return False
    return _refers_to_visible_cte(table)


def extract_gold_tables(
    sql: str,
    *,
    dialect: str = "sqlite",
    tables: Iterable[str] | None = None,
) -> list[str]:
    """Return the real tables named in ``sql``, in order of first appearance.

    Args:
        sql: the gold SQL (one statement; a trailing ``;`` is fine).
        dialect: sqlglot's name of the SQL dialect (``"sqlite"``, ``"mysql"``, ...).
        tables: the table names of the question's database. When given, names are resolved
            case-insensitively to these exact spellings and other names are dropped.

    Raises:
        GoldSQLError: the SQL is empty or cannot be parsed.
    """
    if not isinstance(sql, str) or not sql.strip():
        raise GoldSQLError("empty gold SQL")
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError, RecursionError) as err:  # ParseError, TokenError, unknown dialect, deep nesting
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise GoldSQLError(f"cannot parse gold SQL ({dialect}): {first}: {sql!r}") from err
    if tree is None:
        raise GoldSQLError(f"cannot parse gold SQL ({dialect}): {sql!r}")

    lookup: dict[str, str] | None = None
    if tables is not None:
        lookup = {}
        for t in tables:
            lookup.setdefault(str(t).lower(), str(t))

    found: list[tuple[tuple[int, int], int, str]] = []
    for idx, node in enumerate(tree.find_all(exp.Table)):
        ident = node.this
        if not isinstance(ident, exp.Identifier):  # table functions, VALUES, ...
            continue
        name = ident.this
        if not name or _is_cte_reference(node):
            continue
        # Source position of the identifier, for "first appearance" order; the traversal
        # index breaks ties and covers nodes without position metadata.
        meta = ident.meta or {}
        start = meta.get("start")
        key = (0, int(start)) if isinstance(start, int) else (1, idx)
        found.append((key, idx, name))
    found.sort()

    out: list[str] = []
    seen: set[str] = set()
    for _, _, name in found:
        low = name.lower()
        if low in seen:
            continue
        if lookup is not None:
            if low not in lookup:
                continue
            name = lookup[low]
        seen.add(low)
        out.append(name)
    return out
