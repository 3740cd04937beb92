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

from typing import Any, Iterable, Mapping, Sequence

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError
from sqlglot.optimizer.scope import Scope, traverse_scope

from jar_core.errors import JarError

__all__ = ["GoldSQLError", "GoldJoin", "extract_gold_tables", "extract_gold_joins"]


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


def _parse(sql: str, dialect: str) -> exp.Expression:
    if not isinstance(sql, str) or not sql.strip():
        raise GoldSQLError("empty gold SQL")
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError, RecursionError) as err:  # ParseError, TokenError, unknown dialect, deep nesting
        first = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise GoldSQLError(f"cannot parse gold SQL ({dialect}): {first}: {sql!r}") from err
    if tree is None:
        raise GoldSQLError(f"cannot parse gold SQL ({dialect}): {sql!r}")
    return tree


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
    tree = _parse(sql, dialect)
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


# -- gold joins --------------------------------------------------------------------------

#: One gold join: two ``(table, column)`` ends, sorted, so ``a.x = b.y`` and ``b.y = a.x`` are equal.
GoldJoin = tuple[tuple[str, str], tuple[str, str]]


class _Resolver:
    """Resolves a column reference of a SELECT scope to ``(real table, column)`` (or ``None``)."""

    def __init__(self, columns: Mapping[str, Sequence[str]] | None) -> None:
        self.lookup: dict[str, tuple[str, dict[str, str]]] | None = None
        if columns is not None:
            self.lookup = {}
            for t, cols in columns.items():
                self.lookup.setdefault(str(t).lower(), (str(t), {str(c).lower(): str(c) for c in cols}))

    def _table(self, name: str) -> tuple[str, dict[str, str]] | None:
        if self.lookup is None:
            return (name, {})
        return self.lookup.get(name.lower())

    def _has(self, table: str, column: str) -> bool | None:
        t = self._table(table)
        if t is None:
            return False
        if self.lookup is None:
            return None  # unknown
        return column.lower() in t[1]

    def real(self, table: str, column: str) -> tuple[str, str] | None:
        t = self._table(table)
        if t is None:
            return None
        if self.lookup is None:
            return (table, column)
        col = t[1].get(column.lower())
        return (t[0], col) if col is not None else None

    def source_end(self, source: Any, column: str, depth: int = 0) -> tuple[str, str] | None:
        """Follow a source (a table, or a derived table / CTE scope) to the real column."""
        if isinstance(source, exp.Table):
            return self.real(source.name, column)
        if isinstance(source, Scope) and depth < 20:
            sel = source.expression
            if not isinstance(sel, exp.Select):
                return None
            for proj in sel.expressions:
                if proj.alias_or_name.lower() != column.lower():
                    continue
                inner = proj.this if isinstance(proj, exp.Alias) else proj
                if isinstance(inner, exp.Column):
                    return self.column_end(source, inner, depth + 1)
                return None
        return None

    def column_end(self, scope: Scope, col: exp.Column, depth: int = 0) -> tuple[str, str] | None:
        name = col.name
        qual = col.table
        s: Scope | None = scope
        while s is not None:  # a correlated reference belongs to an enclosing scope
            if qual:
                src = next((v for k, v in s.sources.items() if k.lower() == qual.lower()), None)
                if src is not None:
                    return self.source_end(src, name, depth)
            else:
                srcs = list(s.sources.values())
                if self.lookup is None:  # no schema: only a lone source is certain
                    hits = srcs if len(srcs) == 1 else []
                else:
                    hits = [v for v in srcs if self._source_has(v, name)]
                if len(hits) == 1:
                    return self.source_end(hits[0], name, depth)
                if len(hits) > 1:
                    return None  # ambiguous
            s = s.parent
        return None

    def _source_has(self, source: Any, column: str) -> bool:
        if isinstance(source, exp.Table):
            return bool(self._has(source.name, column))
        if isinstance(source, Scope) and isinstance(source.expression, exp.Select):
            return any(p.alias_or_name.lower() == column.lower() for p in source.expression.expressions)
        return False


def _using_pairs(select: exp.Select, scope: Scope, res: _Resolver) -> list[tuple[Any, Any, str]]:
    """``JOIN b USING (x)``: ``(left source, right source, x)`` with the left source the earlier one having x."""
    out = []
    from_ = select.args.get("from_") or select.args.get("from")
    earlier: list[str] = []
    if from_ is not None and isinstance(from_.this, (exp.Table, exp.Subquery)):
        earlier.append(from_.this.alias_or_name)
    for j in select.args.get("joins") or []:
        right = j.this.alias_or_name if isinstance(j.this, (exp.Table, exp.Subquery)) else None
        for ident in j.args.get("using") or []:
            col = ident.name if isinstance(ident, (exp.Identifier, exp.Column)) else str(ident)
            if right is None or right not in scope.sources:
                continue
            left = next(
                (e for e in reversed(earlier) if e in scope.sources and res._source_has(scope.sources[e], col)),
                earlier[-1] if earlier and res.lookup is None else None,
            )
            if left is not None and left in scope.sources:
                out.append((scope.sources[left], scope.sources[right], col))
        if right is not None:
            earlier.append(right)
    return out


def extract_gold_joins(
    sql: str,
    *,
    dialect: str = "sqlite",
    columns: Mapping[str, Sequence[str]] | None = None,
) -> list[GoldJoin]:
    """The equality joins ``a.x = b.y`` between columns of two different tables in ``sql``.

    Every SELECT scope is read (ON and WHERE, subqueries, CTE bodies, set operations), and
    ``x [NOT] IN (SELECT y ...)`` counts as ``x = y`` (a semi- or anti-join on those columns);
    aliases, derived tables and CTE columns are followed to the real table's column, a
    correlated reference to the enclosing scope's table, ``JOIN ... USING (x)`` to ``x`` on
    both sides. A self-join (two aliases of one table) is not a join between two tables.

    Args:
        sql: the gold SQL.
        dialect: sqlglot's dialect name.
        columns: the question's database as ``{table: [column, ...]}``. When given, names are
            resolved case-insensitively to these spellings, unqualified columns to the one table
            of the scope that has them, and predicates on anything else are dropped.

    Returns:
        Sorted, distinct joins, each ``((table, column), (table, column))`` with its ends sorted.

    Raises:
        GoldSQLError: the SQL is empty or cannot be parsed.

    Example:
        >>> extract_gold_joins("SELECT * FROM a AS x JOIN b ON x.id = b.a_id")
        [(('a', 'id'), ('b', 'a_id'))]
    """
    tree = _parse(sql, dialect)
    res = _Resolver(columns)
    found: set[GoldJoin] = set()

    def add(e1: tuple[str, str] | None, e2: tuple[str, str] | None) -> None:
        if e1 is None or e2 is None or e1[0].lower() == e2[0].lower():
            return
        a, b = sorted((e1, e2))
        found.add((a, b))

    try:
        scopes = list(traverse_scope(tree))
    except RecursionError as err:
        raise GoldSQLError(f"cannot read gold SQL ({dialect}): maximum recursion depth exceeded: {sql[:200]!r}") from err
    by_select = {id(s.expression): s for s in scopes}
    for scope in scopes:
        sel = scope.expression
        if not isinstance(sel, exp.Select):
            continue
        nodes: list[exp.Expression] = []
        where = sel.args.get("where")
        if where is not None:
            nodes.append(where)
        for j in sel.args.get("joins") or []:
            on = j.args.get("on")
            if on is not None:
                nodes.append(on)
        for node in nodes:
            for eq in node.find_all(exp.EQ):
                if eq.find_ancestor(exp.Select) is not sel:
                    continue  # belongs to a nested scope, read there
                left, right = eq.this, eq.expression
                if isinstance(left, exp.Column) and isinstance(right, exp.Column):
                    add(res.column_end(scope, left), res.column_end(scope, right))
            for node_in in node.find_all(exp.In):  # x [NOT] IN (SELECT y ...): a (semi-/anti-) join on x = y
                if node_in.find_ancestor(exp.Select) is not sel or not isinstance(node_in.this, exp.Column):
                    continue
                sub = node_in.args.get("query")
                inner = sub.this if isinstance(sub, exp.Subquery) else sub
                if not isinstance(inner, exp.Select) or len(inner.expressions) != 1:
                    continue
                proj = inner.expressions[0]
                proj = proj.this if isinstance(proj, exp.Alias) else proj
                inner_scope = by_select.get(id(inner))
                if isinstance(proj, exp.Column) and inner_scope is not None:
                    add(res.column_end(scope, node_in.this), res.column_end(inner_scope, proj))
        for lsrc, rsrc, col in _using_pairs(sel, scope, res):
            add(res.source_end(lsrc, col), res.source_end(rsrc, col))
    return sorted(found)
