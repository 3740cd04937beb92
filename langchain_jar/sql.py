"""Glue for SQL chains: prompt formatting and narrowing a LangChain ``SQLDatabase``.

``SQLDatabase`` (``langchain_community``) is duck-typed, never imported: it is not a
dependency of jar-retrieval.
"""

from __future__ import annotations

from typing import Any, Iterable, Sequence, Union

from langchain_core.documents import Document

from jar_core.output.documents import prompt_text
from jar_core.output.prompt import model_text_from_parts, value_lines
from jar_core.errors import InvalidArgumentError, UnknownDatabaseError
from jar_core.output.result import RetrievalResult

__all__ = ["format_tables", "sql_table_names", "table_info", "narrow_sql_database"]

Selection = Union[RetrievalResult, Sequence[Document], Sequence[str]]


def format_tables(docs: Sequence[Document], *, join_hint: bool = True) -> str:
    """The text a model reads to write SQL (:func:`jar_core.output.prompt.model_text`'s content):
    the needed tables' DDL, the join path and its joins, the values as stored, the optional tables.

    ``retriever | format_tables`` is the usual first step of an LCEL text-to-SQL chain. The
    retrieval's warnings (nothing in the source matches the question...) come first, as SQL comments.
    """
    meta = docs[0].metadata if docs else {}
    if "needed" not in meta:  # documents of another source: their DDL and join hint
        return prompt_text([d.page_content for d in docs], meta.get("join_path") if join_hint else None,
                           meta.get("warnings") or ())
    return model_text_from_parts(
        [d.page_content for d in docs if d.metadata.get("needed", True)],
        meta.get("join_path", "") if join_hint else "", meta.get("join_lines") or [],
        value_lines(meta.get("value_matches") or []), meta.get("optional_tables") or [], meta.get("warnings") or (),
    )


def sql_table_names(selection: Selection) -> list[str]:
    """The selected table names, in selection order, from documents, a result or names.

    This is the list ``SQLDatabase(include_tables=...)`` and
    ``SQLDatabase.get_table_info(table_names=...)`` take.
    """
    if isinstance(selection, RetrievalResult):
        return selection.table_names
    names: list[str] = []
    for item in selection:
        if isinstance(item, str):
            names.append(item)
        elif isinstance(item, Document) and isinstance(item.metadata.get("table"), str):
            names.append(item.metadata["table"])
        else:
            raise InvalidArgumentError(
                f"expected retriever documents, a RetrievalResult or table names, got {type(item).__name__}"
            )
    return list(dict.fromkeys(names))


def _resolve(db: Any, names: Iterable[str]) -> list[str]:
    """``names`` as spelled by ``db`` (case-insensitive fallback), or :class:`UnknownDatabaseError`."""
    usable = list(db.get_usable_table_names())
    lower = {n.lower(): n for n in usable}
    out = []
    for n in names:
        hit = n if n in usable else lower.get(n.lower())
        if hit is None:
            raise UnknownDatabaseError(f"table {n!r} is not a usable table of this SQLDatabase")
        out.append(hit)
    return out


def table_info(db: Any, selection: Selection, **kwargs: Any) -> str:
    """``db.get_table_info(table_names=...)`` restricted to the selected tables (keyword options pass through)."""
    return db.get_table_info(table_names=_resolve(db, sql_table_names(selection)), **kwargs)


def narrow_sql_database(db: Any, selection: Selection) -> Any:
    """A new ``SQLDatabase`` over the same engine that only shows the selected tables.

    Keeps ``db``'s schema, sample-row, index and string-length settings; use it where an
    existing chain takes a ``SQLDatabase`` (``create_sql_query_chain``, SQL agents...).
    """
    names = _resolve(db, sql_table_names(selection))
    custom = getattr(db, "_custom_table_info", None)
    return type(db)(
        engine=db._engine,
        schema=getattr(db, "_schema", None),
        include_tables=names,
        sample_rows_in_table_info=getattr(db, "_sample_rows_in_table_info", 3),
        indexes_in_table_info=getattr(db, "_indexes_in_table_info", False),
        custom_table_info={k: v for k, v in custom.items() if k in names} if custom else None,
        view_support=getattr(db, "_view_support", False),
        max_string_length=getattr(db, "_max_string_length", 300),
    )
