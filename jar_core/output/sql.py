"""SQL text for prompts, generated with sqlglot: ``CREATE TABLE`` DDL and join-clause hints."""
from __future__ import annotations

import re
from collections import deque
from typing import TYPE_CHECKING, Callable, Mapping

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import TokenType

from jar_core.names import one_line
from jar_core.output.tables import join_note
from jar_core.schema import Table

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.output.tables import JoinedTables, JoinEdge, RetrievedTable

__all__ = [
    "create_table_ddl", "join_clause", "key_notes", "optional_comment", "optional_joins", "ALTERNATIVE_NOTE",
    "UNVERIFIED_NOTE", "quote_identifier", "table_qualifier", "qualified_name", "referenced_table",
]


def _ident(name: str) -> exp.Identifier:
    """``name`` as a quoted identifier: sqlglot writes it in the dialect's quotes, its quote
    characters escaped, so that it is one token read back as ``name`` whatever it holds."""
    return exp.to_identifier(name, quoted=True)


def _same(name: str) -> str:
    return name


def quote_identifier(name: str, dialect: str | None = None) -> str:
    """``name`` quoted for ``dialect`` (``"a b"`` in sqlite/postgres, backticks in mysql...)."""
    return _ident(name).sql(dialect=dialect)


def _data_type(raw: str, dialect: str | None) -> exp.DataType:
    """``raw`` as a column type of ``dialect``; a type sqlglot keeps as raw text (user-defined)
    that could end the column list or the statement is written as one quoted name."""
    head = raw.split("(")[0].split()[0] if raw.strip() else "TEXT"
    for text, d in ((raw or "TEXT", dialect), (raw or "TEXT", None), (head, None)):
        try:
            built = exp.DataType.build(text, dialect=d, udt=True)
        except (SqlglotError, ValueError, TypeError):
            continue
        if all(_one_type(t.args.get("kind"), dialect) for t in built.find_all(exp.DataType)
               if t.this == exp.DataType.Type.USERDEFINED):
            return built
        break
    return exp.DataType(this=exp.DataType.Type.USERDEFINED, kind=quote_identifier(raw, dialect))


def _one_type(kind: object, dialect: str | None) -> bool:
    """Whether a user-defined type's raw text stays within its column: no line break, statement
    end or comment, its parentheses balanced (read with sqlglot's tokenizer)."""
    if not isinstance(kind, str):
        return True
    if one_line(kind) != kind:
        return False
    try:
        tokens = Dialect.get_or_raise(dialect).tokenize(kind)
    except SqlglotError:
        return False
    depth = 0
    for t in tokens:
        depth += (t.token_type == TokenType.L_PAREN) - (t.token_type == TokenType.R_PAREN)
        if depth < 0 or t.token_type == TokenType.SEMICOLON or t.comments:
            return False
    return depth == 0


def table_qualifier(table: Table, qualify: bool = False) -> str | None:
    """What SQL puts before the table's name: its :attr:`~Table.sql_schema` when it has one, else its
    database when ``qualify`` (a selection that spans several databases), else nothing."""
    if table.sql_schema:
        return table.sql_schema
    return table.database if qualify else None


def qualified_name(table: Table, dialect: str | None = None, qualify: bool = False) -> str:
    """The table's name as SQL writes it: ``"music"."track"`` (a table of SQL schema ``music``), ``"track"``."""
    return _table_ref(table, qualify).sql(dialect=dialect)


def _table_ref(table: Table, qualify: bool, name: Callable[[str], str] = _same) -> exp.Table:
    db = table_qualifier(table, qualify)
    return exp.Table(this=_ident(name(table.name)), db=_ident(name(db)) if db else None)


def referenced_table(table: Table, ref_id: str, tables: Mapping[str, Table] | None = None) -> tuple[str, str]:
    """The database and name of the table of id ``ref_id`` that a foreign key of ``table`` references.

    Read from that table's fields when ``tables`` (tables by id) holds it, else ``table``'s database
    and the rest of the id when the id starts with it (a name may hold dots: ``sales.order.items``
    is table ``order.items`` of ``sales``); else, a table of another database that nothing here
    describes, the id split at its last dot.
    """
    ref = tables.get(ref_id) if tables else None
    if ref is not None:
        return ref.database, ref.name
    if ref_id.startswith(table.database + "."):
        return table.database, ref_id[len(table.database) + 1 :]
    db, _, name = ref_id.rpartition(".")
    return db, name


def _ref_qualifier(table: Table, ref_db: str, qualify: bool) -> str | None:
    """The qualifier of a table that ``table`` references (its id's database part is ``ref_db``)."""
    if ref_db == table.database:
        return table_qualifier(table, qualify)
    return ref_db if (qualify or table.sql_schema) and ref_db else None


def create_table_ddl(
    table: Table, dialect: str | None = None, *, qualify: bool = False, tables: Mapping[str, Table] | None = None,
    escape_names: bool = False, compact: bool = False,
) -> str:
    """The table's ``CREATE TABLE`` statement in ``dialect``, with primary and foreign keys
    (``compact``: on one line, for a model's prompt).

    Column comments and natural-language names are added as ``--`` comments after the statement
    when present (dialects disagree on inline comment syntax), each on one line (control
    characters escaped: :func:`~jar_core.names.one_line`). ``tables`` (tables by id) names the
    referenced tables (:func:`referenced_table`). ``escape_names``: names written with their control
    characters escaped too, text to show whose every line is a line of the statement (its names
    then are not exact: not SQL to run).
    """
    name = one_line if escape_names else _same
    cols: list[exp.Expression] = [
        exp.ColumnDef(this=_ident(name(c.name)), kind=_data_type(name(c.type), dialect)) for c in table.columns
    ]
    if table.primary_key:
        cols.append(exp.PrimaryKey(expressions=[_ident(name(c)) for c in table.primary_key]))
    for fk in table.foreign_keys:
        ref_db, ref_name = referenced_table(table, fk.ref_table, tables)
        ref_q = _ref_qualifier(table, ref_db, qualify)
        ref = exp.Table(this=_ident(name(ref_name)), db=_ident(name(ref_q)) if ref_q else None)
        cols.append(
            exp.ForeignKey(
                expressions=[_ident(name(c)) for c in fk.columns],
                reference=exp.Reference(
                    this=exp.Schema(this=ref, expressions=[_ident(name(c)) for c in fk.ref_columns])
                ),
            )
        )
    stmt = exp.Create(this=exp.Schema(this=_table_ref(table, qualify, name), expressions=cols), kind="TABLE")
    ddl = stmt.sql(dialect=dialect, pretty=not compact)
    if "\n" not in "".join(i.name for i in stmt.find_all(exp.Identifier)):  # else a name could match
        ddl = re.sub(r"\(\n\s+([^\n()]*)\n\s*\)", r"(\1)", ddl)
    notes = []
    if table.comment or table.nl_name:
        notes.append(one_line(f"-- {table.name}: {table.comment or table.nl_name}"))
    for c in table.columns:
        text = c.comment or (c.nl_name if c.nl_name and c.nl_name != c.name.replace('_', ' ').lower() else None)
        if text:
            notes.append(one_line(f"-- {table.name}.{c.name}: {text}"))
    return ddl + ";" + ("\n" + "\n".join(notes) if notes else "")


def join_clause(result: "JoinedTables", dialect: str | None = None, *, escape_names: bool = False) -> str:
    """``FROM t1 JOIN t2 ON t1.a = t2.b ...`` over the result's join tree, from the first table.

    Tables are qualified with their SQL schema when they have one (:attr:`Table.sql_schema`), else
    with their database when the selection spans several databases.
    Only the needed tables (:attr:`RetrievedTable.needed`) are joined; the optional ones follow as a
    ``-- optional tables ...`` comment with how they would join (:func:`optional_comment`).
    Tables with no join are appended as a ``-- no join found for: ...`` comment, and joins that
    the schema does not declare as a ``-- inferred joins ...`` comment with their evidence and
    calibrated confidence, so a prompt never presents a guess as a fact; the other keys between two
    joined tables and the tables with no known key (an unverified candidate) follow, one comment
    line each (:func:`key_notes`). Identifiers are quoted by sqlglot (one
    token each, read back as the name whatever it holds); comments hold names on one line
    (:func:`~jar_core.names.one_line`). ``escape_names``: the names' control characters escaped
    in the SQL too, text to show (names not exact: not SQL to run).
    """
    if not result.tables:
        return ""
    qualify = len({t.database for t in result.tables}) > 1
    by_id = {t.id: t.table for t in result.tables if getattr(t, "needed", True)}
    # per table: (other table, [(column here, column there), ...]); a composite key joins on all
    adj: dict[str, list[tuple[str, list[tuple[str, str]]]]] = {tid: [] for tid in by_id}
    for e in result.joins:
        pairs = e.column_pairs
        adj[e.left_table.id].append((e.right_table.id, pairs))
        adj[e.right_table.id].append((e.left_table.id, [(b, a) for a, b in pairs]))

    name = one_line if escape_names else _same

    def col(t: Table, c: str) -> exp.Column:
        db = table_qualifier(t, qualify)
        return exp.Column(this=_ident(name(c)), table=_ident(name(t.name)), db=_ident(name(db)) if db else None)

    parts: list[str] = []
    seen: set[str] = set()
    lonely: list[str] = []
    for start in by_id:
        if start in seen:
            continue
        seen.add(start)
        if parts and not adj[start]:
            lonely.append(one_line(by_id[start].name))
            continue
        piece = exp.select("*").from_(_table_ref(by_id[start], qualify, name))
        queue = deque([start])
        while queue:
            cur = queue.popleft()
            for other, pairs in sorted(adj[cur]):
                if other in seen:
                    continue
                seen.add(other)
                on = exp.and_(*(exp.EQ(this=col(by_id[cur], a), expression=col(by_id[other], b)) for a, b in pairs))
                piece = piece.join(_table_ref(by_id[other], qualify, name), on=on)
                queue.append(other)
        sql = piece.sql(dialect=dialect)
        parts.append(sql[sql.index(" FROM ") + 1 :])
    text = "\n".join(parts if len(parts) == 1 else [parts[0]] + [f"-- separately: {one_line(p)}" for p in parts[1:]])
    if lonely:
        text += "\n-- no join found for: " + ", ".join(lonely)
    selfs = [e for e in result.self_joins if e.left_table.id in by_id]
    if selfs:
        text += "\n-- self-joins (the table joined to itself under another alias): " + "; ".join(
            one_line(e.describe()) for e in selfs
        )
    inferred = [e for e in result.joins if not e.declared]
    if inferred:
        text += "\n-- inferred joins (not declared in the schema; check them): " + "; ".join(
            one_line(f"{e} ({e.evidence or 'score'}, {e.confidence:.2f}{', uncertain' if e.uncertain else ''})")
            for e in inferred
        )
    return text + "".join(f"\n-- {line}" for line in key_notes(result)) + optional_comment(result)


#: How :func:`key_notes` lines start: the other keys between two joined tables, and two tables
#: with no known key.
ALTERNATIVE_NOTE, UNVERIFIED_NOTE = "other key between", "no known key between"


def key_notes(result: "JoinedTables") -> list[str]:
    """The other trusted keys between two tables the join path joins (``other key between
    `departments` and `physicians`: departments.department_id = physicians.department_id (inferred:
    same name, 0.97)``) and where two needed tables have no known key (:meth:`JoinEdge.unverified_note`),
    one line each; the optional tables' are in :func:`optional_comment`."""
    lines = [one_line(f"{ALTERNATIVE_NOTE} `{e.left_table.name}` and `{e.right_table.name}`: {e} "
                      f"({join_note(e.declared, e.evidence, e.confidence)})")
             for e in getattr(result, "alternative_joins", ()) if not e.optional]
    return lines + [e.unverified_note() for e in getattr(result, "unverified_joins", ()) if not e.optional]


def optional_comment(result: "JoinedTables") -> str:
    """The optional tables (not needed for the question: extras a larger k added) as a comment
    line, each with how it would join (:attr:`RetrievalResult.optional_joins`); empty without any."""
    optional = [t for t in result.tables if not getattr(t, "needed", True)]
    if not optional:
        return ""
    via, unverified = optional_joins(result), optional_joins(result, unverified=True)

    def how(t: "RetrievedTable") -> str:
        if t.id in via:
            return f" via {one_line(via[t.id].describe())}"
        if t.id in unverified:
            e = unverified[t.id]
            return f" (no known key; unverified candidate: {e}, confidence {e.confidence:.2f})"
        return " (no join found)"

    return "\n-- optional tables (not needed for the question; not in the join path): " + "; ".join(
        one_line(t.name) + how(t) for t in optional
    )


def optional_joins(result: "JoinedTables", *, unverified: bool = False) -> dict[str, "JoinEdge"]:
    """Each optional table's own join to the tables before it, by table id: the first of the
    result's ``optional_joins`` that names it (they come in the optional tables' order);
    ``unverified``: its unverified candidate instead (the ``unverified_joins`` marked optional)."""
    optional = {t.id for t in result.tables if not getattr(t, "needed", True)}
    via: dict[str, JoinEdge] = {}
    edges = [e for e in getattr(result, "unverified_joins", ()) if e.optional] if unverified else \
        getattr(result, "optional_joins", ())
    for e in edges:
        for tid in (e.left_table.id, e.right_table.id):
            if tid in optional:
                via.setdefault(tid, e)
    return via
