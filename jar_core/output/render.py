"""Ways to show a retrieval: the command's text, its JSON, a picture of the joins, one table described.

* :func:`result_text`: what ``jar-retrieval retrieve`` prints (also the MCP ``find_tables`` text);
* :func:`result_json`: :meth:`RetrievalResult.to_dict` plus the join path (``--format json``);
* :func:`to_mermaid` / :func:`to_dot`: the selected tables, their join columns, declared and
  inferred joins and bridge tables as a Mermaid flowchart or a Graphviz graph;
* :func:`describe_table`: one table of a retriever's schema: its DDL, keys and joins (the MCP
  ``describe_table`` tool and the LangChain ``get_table_schema`` tool).

Every name, comment and value shown is on one line: its control characters are written as
visible escapes (:func:`~jar_core.names.one_line`), so that no name can start a line of the
text; the JSON holds them exactly. No framework is imported here.
"""
from __future__ import annotations

import re
import textwrap
from typing import TYPE_CHECKING, Any, Protocol, Sequence

from jar_core.names import one_line
from jar_core.output.diagram import is_bridge, to_dot, to_mermaid
from jar_core.output.result import RetrievalResult
from jar_core.output.sql import create_table_ddl, join_clause, key_notes
from jar_core.output.tables import join_note
from jar_core.schema import Schema

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = [
    "result_text", "result_json", "explain_legend", "to_mermaid", "to_dot", "describe_table", "FORMATS",
]

#: The output formats of ``jar-retrieval retrieve --format``.
FORMATS = ("text", "json", "mermaid", "dot")

#: Most joins listed by :func:`describe_table`.
MAX_DESCRIBED_JOINS = 50


class JoinSource(Protocol):
    """What :func:`describe_table` reads of a :class:`~jar_core.TableRetriever`: its schema, its
    index (with the join graph) and the join settings."""

    schema: Schema
    cross_database_joins: bool
    min_join_score: float

    @property
    def index(self) -> "SchemaIndex": ...


# -- text -------------------------------------------------------------------------------


def _cells(rows: Sequence[Sequence[Any]], header: Sequence[str]) -> str:
    cells = [[str(h) for h in header]] + [[f"{c:.3f}" if isinstance(c, float) else one_line(str(c)) for c in r]
                                          for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = []
    for n, r in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if n and _numeric(c) else c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _numeric(s: str) -> bool:
    return bool(re.fullmatch(r"-?[\d.]+|-?inf", s))


#: Where the legend of ``--explain`` wraps.
LEGEND_WIDTH = 100


def explain_legend(strategy: Any = None, width: int = LEGEND_WIDTH) -> str:
    """The legend of the result table's columns and the step trace: ``Columns:`` and one entry per
    column, wrapped at ``width`` characters.

    ``strategy``: the search strategy (its weights make the formula of ``score``) or its name.
    """
    name = strategy if isinstance(strategy, str) else getattr(strategy, "name", "greedy")
    join = "its join confidence with the tables chosen before it"
    if hasattr(strategy, "l_cov") or name == "greedy":
        w = [getattr(strategy, attr, default) for attr, default in (("l_cov", 2.0), ("l_join", 1.0), ("l_coarse", 4.0))]
        formula = f"{w[0]:g}*coverage + {w[1]:g}*join + {w[2]:g}*coarse"
        if getattr(strategy, "join_mode", "sum") == "max":  # the connection gain: the best join, not their sum
            join = "its best join confidence with a table chosen before it"
        family = getattr(strategy, "l_family", 0.0)
        if family:
            formula += f" (+ {family:g} for a table of a chosen table's family)"
    elif name == "dense":
        formula = "coarse"
    elif name == "crush":
        formula = "the CRUSH pair score that picked the table"
    else:
        formula = f"the {name} objective's gain"
    why = WHY if not getattr(strategy, "near_copies", False) else WHY.replace(" or pinned", f", {NEAR_COPY_WHY} or pinned")
    entries = (("coarse", "similarity of the table to the question"),
               ("coverage", "how much it adds to covering the sub-queries"), ("join", join),
               ("score", f"{formula}; utility in the trace"), ("why", why))
    lines = ["Columns:"]
    for column, meaning in entries:
        lines += textwrap.wrap(meaning, width, initial_indent=f"  {column:<9} ", subsequent_indent=" " * 12,
                               break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines)


#: What the ``why`` column (:attr:`RetrievedTable.reason`) says, for the legend.
WHY = ("relevance, coverage or join (its largest weighted gain when chosen), bridge (added only to join the "
       "others), reference (k=auto: a chosen table refers to it for a sub-query it answers better) or pinned")
#: The same for a search that replaces near copies (``join-aware``'s ``near_copies``).
NEAR_COPY_WHY = ("near copy (in place of the table named after it, of nearly the same columns, as it joins the "
                 "others more surely)")


def result_text(
    res: RetrievalResult, *, explain: bool = False, strategy: Any = None, candidates: int | None = None,
    source_tables: int | None = None,
) -> str:
    """The text ``jar-retrieval retrieve`` prints: question, sub-queries, tables, joins (the other
    keys between joined tables and where two tables have no known key after them), join path.

    ``explain`` adds a legend of the columns and the step trace. ``candidates`` (the requested
    candidate-set size) and ``source_tables`` (tables searched) say why fewer candidates were
    used when the source has fewer tables.
    """
    out = [one_line(f"Question: {res.question}")]
    subs = ", ".join(res.subqueries) if res.subqueries else "(none)"
    out.append(one_line(f"Sub-queries ({res.decomposer}): {subs}"))
    line = f"Strategy: {res.strategy} over {res.candidates} candidates"
    if candidates is not None and res.candidates < candidates:
        line += f" (every table: fewer than --candidates {candidates})"
    elif candidates is not None and res.candidates > candidates:
        line += f" (the {candidates} tables most similar to the question, and tables joinable to them)"
    elif candidates is not None:
        line += " (the tables most similar to the question)"
    if getattr(res, "k", None) == "auto":
        line += f"; k=auto chose {len(res.tables)} tables"
    out.append(line)
    out.extend(one_line(f"Warning: {w}") for w in getattr(res, "warnings", ()))
    if explain:
        out.append(explain_legend(strategy or res.strategy))
    out.append("")
    with_reason = any(hasattr(t, "reason") for t in res.tables)  # why each table is there, where known
    rows = [
        (t.step, t.id + (" (pinned)" if t.pinned else "") + ("" if getattr(t, "needed", True) else " (optional)")
         + ("" if t.joined else "  [no join]"),
         t.score, t.coarse, t.coverage, t.join,
         *([(getattr(t, "reason", "") or "-") + (f" of {t.replaced}" if getattr(t, "replaced", "") else "")]
           if with_reason else []))
        for t in res.tables
    ]
    out.append(_cells(rows, ("step", "table", "score", "coarse", "coverage", "join", *(["why"] if with_reason else []))))
    matches = getattr(res, "value_matches", None)
    if matches:
        out.append("")
        out.append(one_line("Values found: " + "; ".join(
            f"'{m['span']}' hints {m['table']}.{m['column']}" if m.get("hint") else
            f"'{m['span']}' = {m['table']}.{m['column']}" + ("" if m.get("exact", True) else f" ({m['value']}, approximate)")
            for m in matches
        )))
    out.append("")
    selfs = res.self_joins
    if res.joins or selfs:
        out.append("Joins:")
        for j in res.joins:
            out.append(f"  {j}  ({join_note(j.declared, j.evidence, j.confidence)})")
        for j in selfs:
            out.append(f"  {j}  (self-join, {join_note(j.declared, j.evidence, j.confidence)})")
    else:
        out.append("Joins: none")
    out.extend(f"  {line}" for line in key_notes(res))
    hint = join_clause(res, res.dialect, escape_names=True)  # names on one line: text to read, not to run
    if hint:
        out.append("")
        out.append("Join path:")
        out.extend("  " + line for line in hint.splitlines())
    if explain and res.trace:
        out.append("")
        out.append("Step trace (best candidates per step; * = chosen):")
        for step, entries in enumerate(res.trace, start=1):
            trace_rows = [
                (step if n == 0 else "", ("* " if e.chosen else "  ") + e.table.id, e.coarse, e.coverage, e.join, e.total)
                for n, e in enumerate(entries)
            ]
            out.append(_cells(trace_rows, ("step", "candidate", "coarse", "coverage", "join", "utility")))
    return "\n".join(out)


def result_json(res: RetrievalResult) -> dict[str, Any]:
    """:meth:`RetrievalResult.to_dict` with the join path (``join_path``: the ``FROM ... JOIN ...`` clause)."""
    payload = res.to_dict()
    payload["join_path"] = res.join_clause()
    for entry, t in zip(payload.get("tables", []), res.tables):
        if is_bridge(t):
            entry.setdefault("reason", "bridge")
    return payload


# -- pictures -----------------------------------------------------------------------------


# -- one table ------------------------------------------------------------------------------


def describe_table(retriever: JoinSource, name: str, *, dialect: str | None = None) -> dict[str, Any]:
    """One table of ``retriever``'s schema (``name``: ``"db.table"`` or an unambiguous ``"table"``).

    Returns ``{"id", "name", "database", "sql_schema", "ddl", "primary_key", "foreign_keys",
    "referenced_by", "joins", "text"}``: ``joins`` are the table's joins to any other table of
    the schema (declared keys first, then inferred ones above the retriever's
    ``min_join_score``, the trusted ones first, best calibrated ``confidence`` first, at most
    :data:`MAX_DESCRIBED_JOINS`; ``score`` the rule's, ``trusted`` whether a retrieval would show it
    as a key: the text marks the others ``unverified``), as found by :mod:`jar_core.joins`;
    ``text`` all of it for a prompt. An unknown name raises
    :class:`~jar_core.errors.UnknownDatabaseError` with the closest names.
    """
    t = retriever.schema[str(name)]  # an unknown name: UnknownDatabaseError with the closest names
    schema = retriever.schema
    refs = {fk.ref_table: schema[fk.ref_table] for fk in t.foreign_keys if fk.ref_table in schema}
    dialect = dialect or schema.dialect
    ddl = create_table_ddl(t, dialect, tables=refs)  # qualified when the table has a SQL schema
    fks = [
        {"columns": list(fk.columns), "ref_table": fk.ref_table, "ref_columns": list(fk.ref_columns)}
        for fk in t.foreign_keys
    ]
    referenced_by = [
        {"table": other.id, "columns": list(fk.columns), "ref_columns": list(fk.ref_columns)}
        for other in schema.tables
        for fk in other.foreign_keys
        if fk.ref_table == t.id
    ]
    joins = _table_joins(retriever, schema.position(t.id))
    lines = [create_table_ddl(t, dialect, tables=refs, escape_names=True)]  # names on one line in the text
    if t.primary_key:
        lines.append(f"-- Primary key: {', '.join(t.primary_key)}")
    for fk in fks:
        lines.append(f"-- Foreign key: ({', '.join(fk['columns'])}) references {fk['ref_table']} ({', '.join(fk['ref_columns'])})")
    for ref in referenced_by:
        lines.append(f"-- Referenced by: {ref['table']} ({', '.join(ref['columns'])})")
    if joins:
        lines.append("-- Joins:")
        for j in joins:
            how = join_note(j["kind"] == "declared", j["evidence"], j["confidence"])
            lines.append(f"--   {j['left']} = {j['right']} ({how}{'' if j['trusted'] else ', unverified'})")
    else:
        lines.append("-- Joins: none found")
    return {
        "id": t.id,
        "name": t.name,
        "database": t.database,
        "sql_schema": t.sql_schema,
        "ddl": ddl,
        "primary_key": list(t.primary_key),
        "foreign_keys": fks,
        "referenced_by": referenced_by,
        "joins": joins,
        "text": "\n".join(lines[:1] + [one_line(line) for line in lines[1:]]),
    }


def _table_joins(retriever: JoinSource, pos: int) -> list[dict[str, Any]]:
    """The joins of the table at ``pos`` to other tables, from the index's join graph."""
    from jar_core.joins.calibration import calibrated, trusted
    from jar_core.joins.graph import EVIDENCE

    index = retriever.index
    graph = index.join_graph(cross_database=retriever.cross_database_joins)
    tables = index.schema.tables
    offsets = index.col_offsets
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for e in range(len(graph)):
        ta, tb = int(graph.table_a[e]), int(graph.table_b[e])
        if pos not in (ta, tb) or ta == tb:
            continue
        conf = float(graph.confidence[e])
        ev = EVIDENCE[int(graph.evidence[e])]
        if ev != "declared" and conf < retriever.min_join_score:
            continue
        a_t, b_t = tables[ta], tables[tb]
        a_c = a_t.columns[int(graph.a[e] - offsets[ta])].name
        b_c = b_t.columns[int(graph.b[e] - offsets[tb])].name
        here, other = ((a_t, a_c), (b_t, b_c)) if ta == pos else ((b_t, b_c), (a_t, a_c))
        key = (f"{here[0].name}.{here[1]}", f"{other[0].id}.{other[1]}")
        if key in seen:
            continue
        seen.add(key)
        out.append({
            "left": f"{here[0].name}.{here[1]}",
            "right": f"{other[0].name}.{other[1]}",
            "table": other[0].id,
            "kind": "declared" if ev == "declared" else "inferred",
            "confidence": round(calibrated(conf, ev), 4),
            "score": round(conf, 4),
            "trusted": trusted(conf, ev),
            "evidence": ev,
        })
    out.sort(key=lambda j: (j["kind"] != "declared", not j["trusted"], -j["confidence"], j["table"]))
    return out[:MAX_DESCRIBED_JOINS]
