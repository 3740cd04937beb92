"""Pictures of a retrieval: the selected tables, their join columns, declared and inferred joins
and bridge tables as a Mermaid flowchart (:func:`to_mermaid`) or a Graphviz graph (:func:`to_dot`).

Every name shown is on one line and escaped for the picture's syntax. Reads only the parts of a
result (:mod:`jar_core.output.tables`), so that :class:`~jar_core.output.result.RetrievalResult`
can offer ``to_mermaid()`` / ``to_dot()`` without a circle.
"""
from __future__ import annotations

from jar_core.names import one_line
from jar_core.output.sql import referenced_table
from jar_core.output.tables import JoinedTables, JoinEdge, RetrievedTable
from jar_core.schema import Table

__all__ = ["to_mermaid", "to_dot", "is_bridge"]


def is_bridge(t: RetrievedTable) -> bool:
    """Whether ``t`` was added only to join the others."""
    return getattr(t, "reason", None) == "bridge"


def _join_columns(res: JoinedTables) -> dict[str, list[str]]:
    """Per table id, the columns the joins use (in join order, no repeats)."""
    cols: dict[str, list[str]] = {t.id: [] for t in res.tables}
    for e in res.joins:
        for left, right in e.column_pairs:
            for table, column in ((e.left_table, left), (e.right_table, right)):
                if table.id in cols and column not in cols[table.id]:
                    cols[table.id].append(column)
    return cols


def _column_note(t: RetrievedTable, column: str, selected: dict[str, Table]) -> str:
    notes = []
    if column in t.table.primary_key:
        notes.append("PK")
    for fk in t.table.foreign_keys:
        if column in fk.columns:
            notes.append(f"FK → {referenced_table(t.table, fk.ref_table, selected)[1]}")
            break
    return f"{column} ({', '.join(notes)})" if notes else column


def _edge_label(e: JoinEdge) -> str:
    return e.describe()


def _node_title(t: RetrievedTable) -> str:
    marks = [m for m, on in (("pinned", t.pinned), ("bridge", is_bridge(t)), ("no join", not t.joined)) if on]
    return f"{t.step}. {t.id}" + (f" ({', '.join(marks)})" if marks else "")


def _mermaid_text(text: str) -> str:
    """Text safe inside a quoted Mermaid label (entity codes for quotes and angle brackets), on one line."""
    return one_line(text).replace("#", "#35;").replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;")


def to_mermaid(res: JoinedTables) -> str:
    """A Mermaid flowchart of the selection: one box per table (selection step, id, join columns
    with their keys), one line per join labelled with its columns: solid for a declared foreign
    key, dotted for an inferred join (with its evidence and confidence). Bridge tables are dashed
    boxes, tables with no join red-edged. GitHub and most Markdown viewers render it in a
    ```` ```mermaid ```` block.
    """
    ids = {t.id: f"t{t.step}" for t in res.tables}
    tables = {t.id: t.table for t in res.tables}
    cols = _join_columns(res)
    lines = [
        "flowchart LR",
        f"  %% jar-retrieval: {_mermaid_text(res.question)}",
        "  %% solid line: declared foreign key; dotted line: inferred join; dashed box: bridge table",
    ]
    for t in res.tables:
        notes = (_mermaid_text(_column_note(t, c, tables)) for c in cols[t.id])
        label = "<br/>".join([_mermaid_text(_node_title(t)), *notes])
        lines.append(f'  {ids[t.id]}["{label}"]')
    for e in res.joins:
        a, b = ids.get(e.left_table.id), ids.get(e.right_table.id)
        if a is None or b is None:
            continue
        link = "---" if e.declared else "-.-"
        lines.append(f'  {a} {link}|"{_mermaid_text(_edge_label(e))}"| {b}')
    bridges = [ids[t.id] for t in res.tables if is_bridge(t)]
    lonely = [ids[t.id] for t in res.tables if not t.joined]
    if bridges:
        lines.append("  classDef bridge stroke-dasharray: 5 5")
        lines.append(f"  class {','.join(bridges)} bridge")
    if lonely:
        lines.append("  classDef unjoined stroke:#c00")
        lines.append(f"  class {','.join(lonely)} unjoined")
    return "\n".join(lines)


def _dot_text(text: str) -> str:
    """Text safe inside a quoted DOT string, on one line (a newline in it shows as backslash-n)."""
    return one_line(text).replace("\\", "\\\\").replace('"', '\\"')


def to_dot(res: JoinedTables) -> str:
    """The same picture as :func:`to_mermaid` in Graphviz DOT (``dot -Tsvg``): inferred joins
    dotted, bridge tables dashed, tables with no join red."""
    ids = {t.id: f"t{t.step}" for t in res.tables}
    tables = {t.id: t.table for t in res.tables}
    cols = _join_columns(res)
    lines = [
        "graph joins {",
        f'  label="{_dot_text(res.question)}";',
        '  labelloc=t; rankdir=LR; fontname="Helvetica";',
        '  node [shape=box, style=rounded, fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=10];',
    ]
    for t in res.tables:
        label = "\\n".join([_dot_text(_node_title(t)), *(_dot_text(_column_note(t, c, tables)) for c in cols[t.id])])
        attrs = [f'label="{label}"']
        if is_bridge(t):
            attrs.append('style="rounded,dashed"')
        if not t.joined:
            attrs.append("color=red")
        lines.append(f"  {ids[t.id]} [{', '.join(attrs)}];")
    for e in res.joins:
        a, b = ids.get(e.left_table.id), ids.get(e.right_table.id)
        if a is None or b is None:
            continue
        attrs = [f'label="{_dot_text(_edge_label(e))}"']
        if not e.declared:
            attrs.append("style=dotted")
        lines.append(f"  {a} -- {b} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines)
