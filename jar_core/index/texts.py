"""What the index embeds: the texts of tables and columns (METHOD.md, "Offline indexing").

A table is ``"<db> <table> <col1> <col2> ..."``, a column ``"<table>:<column>"`` (the text
sub-queries are matched against), and for the paper's join mode a column's name
``"<db> <table> <column>"``; natural-language names are used where the schema has them, and
run-together names are read as their words (:func:`jar_core.names.readable`:
``ELEMENTOFFINANCIALSTATEMENT`` is ``element of financial statement``; the paper's join-name text
keeps the names as written, underscores as spaces). A
table's description and its columns' (the sources' comments, ``descriptions=``) follow its
text, a column's description its column text; with none the texts are the paper's. The
BM25 stage (its own reading of run-together names aside), the vector stores and the hub
correction read the same texts.
"""
from __future__ import annotations

from typing import Callable

from jar_core.names import humanize, readable
from jar_core.schema import Schema, Table

__all__ = ["TEXTS_VERSION", "table_text", "column_text", "column_name_text", "name_texts", "rows_by_text"]

#: The version of the embedded texts, saved with an index (``meta.json``): an index whose texts
#: are of another version is stale (its vectors embed other texts). 1: names humanized; 2:
#: run-together names split into words.
TEXTS_VERSION = 2


def _table_name(t: Table) -> str:
    return t.nl_name or readable(t.name)


def table_text(t: Table, *, name: Callable[[str], str] = readable) -> str:
    """``"<db> <table> <col1> <col2> ..."`` (METHOD.md), natural-language names where known,
    then the table's description and its columns' (``"... <table comment> <column>: <comment>"``).
    ``name`` reads an identifier as words (BM25 passes its own:
    :func:`jar_core.candidates.lexical.table_tokens`)."""
    cols = " ".join(c.nl_name or name(c.name) for c in t.columns)
    text = f"{name(t.database)} {t.nl_name or name(t.name)} {cols}".strip()
    notes = [t.comment] if t.comment else []
    notes += [f"{c.nl_name or name(c.name)}: {c.comment}" for c in t.columns if c.comment]
    return f"{text} {'. '.join(notes)}" if notes else text


def column_text(t: Table, i: int) -> str:
    """``"<table>:<column>"`` (METHOD.md), the text that sub-queries are matched against, then
    the column's description if it has one."""
    c = t.columns[i]
    text = f"{_table_name(t)}:{c.nl_name or readable(c.name)}"
    return f"{text} {c.comment}" if c.comment else text


def column_name_text(t: Table, i: int) -> str:
    """``"<db> <table> <column>"``, lower case, underscores as spaces: the join-name text."""
    return f"{humanize(t.database)} {humanize(t.name)} {humanize(t.columns[i].name)}"


def name_texts(schema: Schema) -> list[str]:
    """:func:`column_name_text` of every column, table after table."""
    return [column_name_text(t, i) for t in schema.tables for i in range(len(t.columns))]


def rows_by_text(schema: Schema, *, with_names: bool) -> dict[str, tuple[int, int]]:
    """``text -> (source, row)``: the first row holding that text's vector among the table
    vectors (source 1), the column vectors (2) and, ``with_names``, the name vectors (3) of an
    index of ``schema`` (what an update reuses)."""
    out: dict[str, tuple[int, int]] = {}
    tables = schema.tables
    for i, t in enumerate(tables):
        out.setdefault(table_text(t), (1, i))
    row = 0
    for t in tables:
        for j in range(len(t.columns)):
            out.setdefault(column_text(t, j), (2, row))
            row += 1
    if with_names:
        for row, text in enumerate(name_texts(schema)):
            out.setdefault(text, (3, row))
    return out
