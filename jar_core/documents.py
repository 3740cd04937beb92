"""Framework-neutral documents for a retrieval result: one text + metadata per selected table.

The LangChain and LlamaIndex adapters wrap these in ``Document`` / ``TextNode`` objects, so
both frameworks carry exactly the same content and metadata.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from jar_core.result import RetrievalResult, RetrievedTable
from jar_core.sql import create_table_ddl

__all__ = ["TableDocument", "result_documents", "format_sample_rows"]


@dataclass(frozen=True)
class TableDocument:
    """``text``: the table's ``CREATE TABLE`` DDL (plus sample rows); ``metadata``: see :func:`result_documents`."""

    text: str
    metadata: dict[str, Any]
    score: float


def format_sample_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Rows as a SQL comment block, the way text-to-SQL prompts usually show them."""
    if not rows:
        return ""
    head = "\t".join(columns)
    body = "\n".join("\t".join("" if v is None else str(v) for v in r) for r in rows)
    return f"/*\n{len(rows)} example rows:\n{head}\n{body}\n*/"


def result_documents(
    result: RetrievalResult,
    *,
    dialect: str | None = None,
    sample_rows: Mapping[str, tuple[Sequence[str], Sequence[Sequence[Any]]]] | None = None,
    qualify: bool | None = None,
) -> list[TableDocument]:
    """One :class:`TableDocument` per selected table, in selection order.

    Metadata keys: ``table``, ``database``, ``table_id``, ``rank`` (selection step), ``score``,
    ``coarse``, ``coverage``, ``join`` (gain components), ``pinned``, ``joined``, ``join_keys``
    (edges to other selected tables: ``{"left": "orders.customer_id", "right": "customers.id",
    "score": 0.93}``), ``join_path`` (a ``FROM ... JOIN ... ON ...`` hint over the whole
    selection), ``subqueries`` and ``decomposer``.

    ``sample_rows`` maps a table id to ``(column names, rows)`` appended to the DDL.
    """
    dialect = dialect or result.dialect
    if qualify is None:
        qualify = len({t.database for t in result.tables}) > 1
    path = result.join_clause(dialect)
    docs = []
    for t in result.tables:
        keys = [
            {"left": j.left, "right": j.right, "score": round(j.score, 4), "declared": j.declared}
            for j in result.joins
            if t.id in (j.left_table.id, j.right_table.id)
        ]
        text = create_table_ddl(t.table, dialect, qualify=qualify)
        if sample_rows and t.id in sample_rows:
            cols, rows = sample_rows[t.id]
            extra = format_sample_rows(cols, rows)
            if extra:
                text += "\n" + extra
        docs.append(TableDocument(text=text, metadata=_metadata(t, result, keys, path), score=t.score))
    return docs


def _metadata(t: RetrievedTable, result: RetrievalResult, keys: list[dict[str, Any]], path: str) -> dict[str, Any]:
    return {
        "table": t.name,
        "database": t.database,
        "table_id": t.id,
        "rank": t.step,
        "score": round(t.score, 6),
        "coarse": round(t.coarse, 6),
        "coverage": round(t.coverage, 6),
        "join": round(t.join, 6),
        "pinned": t.pinned,
        "joined": t.joined,
        "join_keys": keys,
        "join_path": path,
        "subqueries": list(result.subqueries),
        "decomposer": result.decomposer,
    }
