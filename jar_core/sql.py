"""SQL text for prompts, generated with sqlglot: ``CREATE TABLE`` DDL and join-clause hints."""
from __future__ import annotations

import re
from collections import deque
from typing import TYPE_CHECKING

from sqlglot import exp
from sqlglot.errors import SqlglotError

from jar_core.schema import Table

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.result import RetrievalResult

__all__ = ["create_table_ddl", "join_clause", "quote_identifier", "table_qualifier", "qualified_name"]


def _ident(name: str) -> exp.Identifier:
    return exp.to_identifier(name, quoted=True)


def quote_identifier(name: str, dialect: str | None = None) -> str:
    """``name`` quoted for ``dialect`` (``"a b"`` in sqlite/postgres, backticks in mysql...)."""
    return _ident(name).sql(dialect=dialect)


def _data_type(raw: str, dialect: str | None) -> exp.DataType:
    for d in (dialect, None):
        try:
            return exp.DataType.build(raw or "TEXT", dialect=d, udt=True)
        except (SqlglotError, ValueError, TypeError):
            continue
    return exp.DataType.build(raw.split("(")[0].split()[0] if raw.strip() else "TEXT", udt=True)


def table_qualifier(table: Table, qualify: bool = False) -> str | None:
    """What SQL puts before the table's name: its :attr:`~Table.sql_schema` when it has one, else its
    database when ``qualify`` (a selection that spans several databases), else nothing."""
    if table.sql_schema:
        return table.sql_schema
    return table.database if qualify else None


def qualified_name(table: Table, dialect: str | None = None, qualify: bool = False) -> str:
    """The table's name as SQL writes it: ``"music"."track"`` (a table of SQL schema ``music``), ``"track"``."""
    return _table_ref(table, qualify).sql(dialect=dialect)


def _table_ref(table: Table, qualify: bool) -> exp.Table:
    db = table_qualifier(table, qualify)
    return exp.Table(this=_ident(table.name), db=_ident(db) if db else None)


def _ref_qualifier(table: Table, ref_db: str, qualify: bool) -> str | None:
    """The qualifier of a table that ``table`` references (its id's database part is ``ref_db``)."""
    if ref_db == table.database:
        return table_qualifier(table, qualify)
    return ref_db if (qualify or table.sql_schema) and ref_db else None


def create_table_ddl(table: Table, dialect: str | None = None, *, qualify: bool = False) -> str:
    """The table's ``CREATE TABLE`` statement in ``dialect``, with primary and foreign keys.

    Column comments and natural-language names are added as ``--`` comments after the statement
    when present (dialects disagree on inline comment syntax).
    """
    cols: list[exp.Expression] = [
        exp.ColumnDef(this=_ident(c.name), kind=_data_type(c.type, dialect)) for c in table.columns
    ]
    if table.primary_key:
        cols.append(exp.PrimaryKey(expressions=[_ident(c) for c in table.primary_key]))
    for fk in table.foreign_keys:
        ref_db, _, ref_name = fk.ref_table.rpartition(".")
        ref_q = _ref_qualifier(table, ref_db, qualify)
        ref = exp.Table(this=_ident(ref_name), db=_ident(ref_q) if ref_q else None)
        cols.append(
            exp.ForeignKey(
                expressions=[_ident(c) for c in fk.columns],
                reference=exp.Reference(this=exp.Schema(this=ref, expressions=[_ident(c) for c in fk.ref_columns])),
            )
        )
    stmt = exp.Create(this=exp.Schema(this=_table_ref(table, qualify), expressions=cols), kind="TABLE")
    ddl = re.sub(r"\(\n\s+([^\n()]*)\n\s*\)", r"(\1)", stmt.sql(dialect=dialect, pretty=True))
    notes = []
    if table.comment or table.nl_name:
        notes.append(f"-- {table.name}: {table.comment or table.nl_name}")
    for c in table.columns:
        text = c.comment or (c.nl_name if c.nl_name and c.nl_name != c.name.replace('_', ' ').lower() else None)
        if text:
            notes.append(f"-- {table.name}.{c.name}: {text}")
    return ddl + ";" + ("\n" + "\n".join(notes) if notes else "")


def join_clause(result: "RetrievalResult", dialect: str | None = None) -> str:
    """``FROM t1 JOIN t2 ON t1.a = t2.b ...`` over the result's join tree, from the first table.

    Tables are qualified with their SQL schema when they have one (:attr:`Table.sql_schema`), else
    with their database when the selection spans several databases.
    Tables with no join are appended as a ``-- no join found for: ...`` comment, and joins that
    the schema does not declare as a ``-- inferred joins ...`` comment with their evidence and
    confidence, so a prompt never presents a guess as a fact.
    """
    if not result.tables:
        return ""
    qualify = len({t.database for t in result.tables}) > 1
    by_id = {t.id: t.table for t in result.tables}
    # per table: (other table, [(column here, column there), ...]); a composite key joins on all
    adj: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {tid: [] for tid in by_id}
    for e in result.joins:
        pairs = e.column_pairs
        adj[e.left_table.id].append((e.right_table.id, pairs))
        adj[e.right_table.id].append((e.left_table.id, [(b, a) for a, b in pairs]))

    def col(t: Table, c: str) -> exp.Column:
        db = table_qualifier(t, qualify)
        return exp.Column(this=_ident(c), table=_ident(t.name), db=_ident(db) if db else None)

    parts: list[str] = []
    seen: set[str] = set()
    lonely: list[str] = []
    for start in by_id:
        if start in seen:
            continue
        seen.add(start)
        if parts and not adj[start]:
            lonely.append(by_id[start].name)
            continue
        piece = exp.select("*").from_(_table_ref(by_id[start], qualify))
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            for other, pairs in sorted(adj[cur]):
                if other in seen:
                    continue
                seen.add(other)
                on = exp.and_(*(exp.EQ(this=col(by_id[cur], a), expression=col(by_id[other], b)) for a, b in pairs))
                piece = piece.join(_table_ref(by_id[other], qualify), on=on)
                queue.append(other)
        sql = piece.sql(dialect=dialect)
        parts.append(sql[sql.index(" FROM ") + 1 :])
    text = "\n".join(parts if len(parts) == 1 else [parts[0]] + [f"-- separately: {p}" for p in parts[1:]])
    if lonely:
        text += "\n-- no join found for: " + ", ".join(lonely)
    selfs = result.self_joins
    if selfs:
        text += "\n-- self-joins (the table joined to itself under another alias): " + "; ".join(
            e.describe() for e in selfs
        )
    inferred = [e for e in result.joins if not e.declared]
    if inferred:
        text += "\n-- inferred joins (not declared in the schema; check them): " + "; ".join(
            f"{e} ({e.evidence or 'score'}, {e.score:.2f}{', uncertain' if e.uncertain else ''})" for e in inferred
        )
    return text
