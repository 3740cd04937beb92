"""The text a model reads to write SQL for a question (:func:`model_text`): what the ``find_tables``
tools of the command's server and the adapters answer.

Each needed table's compact ``CREATE TABLE`` (columns, types, keys), the join path over them with
each join marked declared or inferred (its rule and calibrated confidence; the other keys between
two joined tables; where two tables have no known key, the unverified candidate), the values the question names in
their stored spelling ('penicillin' is stored as 'Penicillin'), then the optional tables, one line
each with how it would join; the search's scores only with ``explain``.
"""
from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

from jar_core.names import one_line
from jar_core.output.result import RetrievalResult, RetrievedTable
from jar_core.output.sql import (
    ALTERNATIVE_NOTE, UNVERIFIED_NOTE, create_table_ddl, join_clause, key_notes, optional_joins,
)
from jar_core.output.tables import join_note

__all__ = ["model_text", "warning_comments", "value_lines", "optional_lines", "join_lines", "model_text_from_parts"]


def warning_comments(warnings: Iterable[Any]) -> str:
    """A result's warnings as SQL comment lines (``-- Warning: ...``), for a prompt's head."""
    return "".join(f"-- Warning: {one_line(' '.join(str(w).split()))}\n" for w in warnings)


def value_lines(matches: Sequence[Mapping[str, Any]]) -> list[str]:
    """The question's values as stored (``'penicillin' is stored as drugs.name = 'Penicillin'``)
    and the hints (a year, a time asked, a trade word, a place, a number), one line each."""
    out = []
    for m in matches:
        where = f"{m['table']}.{m['column']}"
        if m.get("hint"):
            out.append(f"'{m['span']}' points to {where}")
        else:
            note = "" if m.get("exact", True) else " (approximate match)"
            out.append(f"'{m['span']}' is stored as {where} = '{m['value']}'{note}")
    return [one_line(line) for line in out]


def join_lines(result: RetrievalResult) -> list[str]:
    """The needed tables' joins, one line each: declared, or inferred with its rule and calibrated
    confidence; then the other keys between two joined tables and where two needed tables have
    no known key (:func:`jar_core.output.sql.key_notes`)."""
    joins = [one_line(f"{j} ({join_note(j.declared, j.evidence, j.confidence)})") for j in result.joins]
    return joins + key_notes(result)


def optional_lines(result: RetrievalResult) -> list[str]:
    """The optional tables, one line each with how it would join the tables before it (a trusted
    join, else an unverified candidate)."""
    via, unverified = optional_joins(result), optional_joins(result, unverified=True)

    def line(t: RetrievedTable) -> str:
        if t.id in via:
            j = via[t.id]
            return f"{t.name}: joins via {j} ({join_note(j.declared, j.evidence, j.confidence)})"
        if t.id in unverified:
            j = unverified[t.id]
            return f"{t.name}: no known key (unverified candidate: {j}, confidence {j.confidence:.2f})"
        return f"{t.name}: no join found"

    return [one_line(line(t)) for t in result.tables if not t.needed]


def model_text_from_parts(
    ddl: Sequence[str], join_path: str, joins: Sequence[str], values: Sequence[str], optional: Sequence[str],
    warnings: Sequence[Any] = (), scores: Sequence[str] = (),
) -> str:
    """:func:`model_text` from its parts (the LangChain adapter builds it from its Documents)."""
    parts = ["-- Tables the question needs:\n" + "\n".join(ddl)] if ddl else []
    if join_path:  # its optional tables and key notes are in their own parts
        path = join_path.split("\n-- optional tables")[0].split("\n")
        parts.append("-- Join path connecting these tables:\n" + "\n".join(
            line for line in path if not line.startswith((f"-- {ALTERNATIVE_NOTE}", f"-- {UNVERIFIED_NOTE}"))))
    if joins:
        parts.append("-- Joins (declared, or inferred with rule and confidence):\n" + "\n".join(f"--   {j}" for j in joins))
    if values:
        parts.append("-- Values in the question, as stored (use this spelling):\n"
                     + "\n".join(f"--   {v}" for v in values))
    if optional:
        parts.append("-- Optional tables (not needed; add one only if the question asks for more):\n"
                     + "\n".join(f"--   {o}" for o in optional))
    if scores:
        parts.append("-- Scores (step, table, score, coarse, coverage, join, why):\n"
                     + "\n".join(f"--   {s}" for s in scores))
    return warning_comments(warnings) + "\n\n".join(parts)


def model_text(result: RetrievalResult, *, explain: bool = False, dialect: str | None = None) -> str:
    """What a model needs to write SQL for ``result``'s question (module docstring); ``explain``
    adds each table's scores; ``dialect`` (default the source's) quotes the SQL."""
    dialect = dialect or result.dialect
    qualify = len({t.database for t in result.tables}) > 1
    selected = {t.id: t.table for t in result.tables}
    ddl = [create_table_ddl(t.table, dialect, qualify=qualify, tables=selected, compact=True)
           for t in result.tables if t.needed]
    scores = [one_line(f"{t.step} {t.id} {t.score:.3f} {t.coarse:.3f} {t.coverage:.3f} {t.join:.3f} {t.reason or '-'}"
                       + ("" if t.needed else " optional")) for t in result.tables] if explain else []
    return model_text_from_parts(ddl, join_clause(result, dialect), join_lines(result),
                                 value_lines(result.value_matches), optional_lines(result), result.warnings, scores)
