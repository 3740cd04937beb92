"""Framework-neutral documents for a retrieval result: one text + metadata per selected table.

The LangChain and LlamaIndex adapters wrap these in ``Document`` / ``TextNode`` objects, so
both frameworks carry exactly the same content and metadata.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from jar_core.errors import InvalidArgumentError, SourceError
from jar_core.output.result import JoinEdge, RetrievalResult, RetrievedTable
from jar_core.names import one_line
from jar_core.schema import Table
from jar_core.output.prompt import join_lines, optional_lines, warning_comments
from jar_core.output.sql import create_table_ddl

if TYPE_CHECKING:  # pragma: no cover
    from sqlalchemy.engine import Engine

__all__ = [
    "TableDocument", "result_documents", "format_sample_rows", "fetch_sample_rows", "check_sample_rows",
    "format_tables_text", "prompt_text", "warning_comments",
]


@dataclass(frozen=True)
class TableDocument:
    """``text``: the table's ``CREATE TABLE`` DDL (plus sample rows); ``metadata``: see :func:`result_documents`."""

    text: str
    metadata: dict[str, Any]
    score: float


def format_sample_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """Rows as a SQL comment block, the way text-to-SQL prompts usually show them: one line per row,
    its values separated by tabs; a value's control characters escaped (:func:`~jar_core.names.one_line`)
    and ``*/`` written ``* /``, so that no value can add a row or end the comment."""
    if not rows:
        return ""
    head = "\t".join(_cell(c) for c in columns)
    body = "\n".join("\t".join("" if v is None else _cell(str(v)) for v in r) for r in rows)
    return f"/*\n{len(rows)} example rows:\n{head}\n{body}\n*/"


def _cell(text: str) -> str:
    return one_line(text).replace("*/", "* /")


def check_sample_rows(n: Any) -> int:
    """``n`` (a number of sample rows) as an int >= 0, or :class:`InvalidArgumentError`."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidArgumentError(f"sample_rows must be a non-negative integer, got {n!r}")
    return n


def fetch_sample_rows(
    engine: "Engine", tables: Sequence[Table], n: int, *, schema: str | None = None, max_chars: int = 80
) -> dict[str, tuple[list[str], list[tuple[Any, ...]]]]:
    """Up to ``n`` rows of each table, keyed by table id: the ``sample_rows`` of :func:`result_documents`.

    One bounded ``SELECT <columns> FROM <table> LIMIT n`` per table over a single read-only
    connection of the SQLAlchemy ``engine`` (identifiers quoted by its dialect; a table's
    :attr:`~jar_core.schema.Table.sql_schema`, else ``schema``, is its SQL schema; see
    :func:`~jar_core.loaders.database.read_only_connection`).
    Strings longer than ``max_chars`` are cut (ending in ``…``) and binary values become ``<N bytes>``,
    in SQL where the dialect allows, so a long one is not fetched whole (in SQLite, whatever its
    size: :func:`~jar_core.loaders.database.bounded_rows`). A failed query raises
    :class:`SourceError` naming the table.
    """
    from sqlalchemy.exc import SQLAlchemyError

    from jar_core.loaders.database import bounded_rows, read_only_connection
    from jar_core.loaders.database.connect import error_message, url_secrets

    n = check_sample_rows(n)
    out: dict[str, tuple[list[str], list[tuple[Any, ...]]]] = {}
    if n == 0 or not tables:
        return out
    current = tables[0]
    try:
        with read_only_connection(engine) as conn:
            for current in tables:
                names = [c.name for c in current.columns]
                # strings cut in SQL where the dialect allows, one character past max_chars (for the "…")
                rows = list(bounded_rows(conn, current, current.sql_schema or schema, n, max_chars + 1))
                out[current.id] = (names, [tuple(_shown(v, length, max_chars) for v, length in row) for row in rows])
    except SQLAlchemyError as err:
        raise SourceError(f"cannot read sample rows of {current.id}: {error_message(err, url_secrets(engine.url))}") from err
    return out


def _shown(value: Any, length: int | None, max_chars: int) -> Any:
    """A value as a sample row shows it: a binary one as its size (``length`` when it was cut)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return f"<{length if length is not None else len(value)} bytes>"
    return _short(value, max_chars)


def _short(value: Any, max_chars: int) -> Any:
    if isinstance(value, str) and len(value) > max_chars:
        return value[: max_chars - 1] + "…"
    return value


def result_documents(
    result: RetrievalResult,
    *,
    dialect: str | None = None,
    sample_rows: Mapping[str, tuple[Sequence[str], Sequence[Sequence[Any]]]] | None = None,
    qualify: bool | None = None,
) -> list[TableDocument]:
    """One :class:`TableDocument` per selected table, in selection order.

    Metadata keys: ``table``, ``database``, ``table_id``, ``rank`` (selection step), ``score``,
    ``coarse``, ``coverage``, ``join`` (gain components), ``pinned``, ``joined``, ``reason`` (why
    the table is there, :attr:`RetrievedTable.reason`), ``needed`` (False: an optional extra of a
    larger k), ``value_matches``, ``optional_tables`` and ``join_lines`` (the lines of
    :func:`jar_core.output.prompt.model_text`), ``join_keys`` (the table's trusted joins to other
    selected tables: ``{"left": "orders.customer_id", "right": "customers.id", "columns":
    [["customer_id", "id"]], "score": 0.93, "declared": False, "kind": "inferred", "confidence":
    0.93, "evidence": "entity", "uncertain": False, "trusted": True, "optional": False}``;
    ``score`` the rule's, ``confidence`` calibrated; ``optional``: an optional table's join),
    ``alternative_joins`` (the other trusted keys between it and a table it joins, the same
    entries with ``alternative_to``: the join they are an alternative to), ``unverified_joins``
    (where it has no known key to other selected tables: the unverified candidate, ``trusted``
    False, with ``note``: ``no known key between `a` and `b` (unverified candidate: ...)``),
    ``join_path`` (a ``FROM ... JOIN ... ON ...`` hint over the whole selection), ``subqueries``
    and ``decomposer``.

    ``sample_rows`` maps a table id to ``(column names, rows)`` appended to the DDL.
    """
    dialect = dialect or result.dialect
    if qualify is None:
        qualify = len({t.database for t in result.tables}) > 1
    path = result.join_clause(dialect)
    selected = {t.id: t.table for t in result.tables}
    docs = []
    for t in result.tables:
        joins = tuple(_join_keys(edges, t, result) for edges in (
            [*result.joins, *result.optional_joins], result.alternative_joins, result.unverified_joins))
        text = create_table_ddl(t.table, dialect, qualify=qualify, tables=selected)
        if sample_rows and t.id in sample_rows:
            cols, rows = sample_rows[t.id]
            extra = format_sample_rows(cols, rows)
            if extra:
                text += "\n" + extra
        docs.append(TableDocument(text=text, metadata=_metadata(t, result, joins, path), score=t.score))
    return docs


def _join_keys(edges: Sequence[JoinEdge], t: RetrievedTable, result: RetrievalResult) -> list[dict[str, Any]]:
    """The ``edges`` that join ``t``, as the Documents' metadata lists them."""
    return [_join_key(j, result) for j in edges if t.id in (j.left_table.id, j.right_table.id)]


def _join_key(j: JoinEdge, result: RetrievalResult) -> dict[str, Any]:
    """One join as the Documents' metadata lists it (``alternative_to`` for one of the
    ``alternative_joins``: the join it is an alternative to)."""
    key = {"left": j.left, "right": j.right, "columns": [list(p) for p in j.column_pairs],
           "score": round(j.score, 4), "declared": j.declared, "kind": j.kind, "confidence": round(j.confidence, 4),
           "evidence": j.evidence, "uncertain": j.uncertain, "trusted": j.trusted,
           "optional": j.optional or j in result.optional_joins}
    if j in result.alternative_joins:
        chosen = result.alternative_to(j)
        key["alternative_to"] = str(chosen) if chosen is not None else ""
    if not j.trusted:
        key["note"] = j.unverified_note()
    return key


def _metadata(
    t: RetrievedTable, result: RetrievalResult, joins: tuple[list[dict[str, Any]], ...], path: str,
) -> dict[str, Any]:
    keys, alternatives, unverified = joins
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
        "reason": t.reason,
        "needed": t.needed,
        "join_keys": keys,
        "alternative_joins": alternatives,
        "unverified_joins": unverified,
        "join_path": path,
        "subqueries": list(result.subqueries),
        "decomposer": result.decomposer,
        "warnings": list(result.warnings),
        "value_matches": [dict(m) for m in result.value_matches],
        "optional_tables": optional_lines(result),
        "join_lines": join_lines(result),
    }


def format_tables_text(result: RetrievalResult, *, dialect: str | None = None) -> str:
    """The selected tables' ``CREATE TABLE`` DDL separated by blank lines, then the join path:
    the prompt text of the agent tools (LangChain's ``format_tables`` gives the same). The
    result's warnings come first, as SQL comments (``-- Warning: ...``)."""
    return prompt_text([d.text for d in result_documents(result, dialect=dialect)], result.join_clause(dialect),
                       result.warnings)


def prompt_text(ddl: Sequence[str], join_path: str | None = None, warnings: Iterable[Any] = ()) -> str:
    """The tables' DDL separated by blank lines, then the join path as a hint, the warnings first
    as SQL comments: the text both ``format_tables_text`` and LangChain's ``format_tables`` give."""
    text = "\n\n".join(ddl)
    if join_path and text:
        text += f"\n\n-- Join path connecting these tables:\n{join_path}"
    return warning_comments(warnings) + text
