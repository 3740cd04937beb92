"""Agent tools of the LlamaIndex adapter: :func:`find_tables_tool` (``JoinAwareRetriever.as_tool()``).

A ``RetrieverTool.from_defaults(retriever=...)`` over :class:`~llamaindex_jar.JoinAwareRetriever`
works too (its text is each node's join hint and DDL); this ``FunctionTool`` gives the model the
DDL once and the join path once, and takes a per-call ``k``.
"""
# No ``from __future__ import annotations``: FunctionTool builds its argument schema from the
# function's real annotations.
import asyncio
from typing import TYPE_CHECKING, Optional

from llama_index.core.tools import FunctionTool
from pydantic import Field
from typing_extensions import Annotated

from jar_core.output.documents import format_tables_text

if TYPE_CHECKING:  # pragma: no cover
    from llamaindex_jar.retrievers import JoinAwareRetriever

__all__ = ["find_tables_tool", "TOOL_DESCRIPTION"]

TOOL_DESCRIPTION = (
    "Find the few database tables that together answer a question, and how to join them. Input: the "
    "user's question. Output: the CREATE TABLE statements of those tables (columns, types, keys) and a "
    "join path (FROM ... JOIN ... ON ...) connecting them. Call it before writing SQL. Joins marked "
    "inferred are not declared in the schema: check them."
)


def find_tables_tool(
    retriever: "JoinAwareRetriever", *, name: str = "find_tables", description: Optional[str] = None
) -> FunctionTool:
    """A ``FunctionTool`` ``find_tables(question, k=None)`` over ``retriever``: the selected tables'
    ``CREATE TABLE`` DDL and the join path connecting them (the LangChain adapter's tool text).
    Bad input (an empty question, ``k < 1``) raises the core's errors, which agents report to
    the model as the tool's error."""
    question_type = Annotated[str, Field(description="The user's question, in natural language.")]
    k_type = Annotated[Optional[int], Field(default=None, description=f"How many tables (default {retriever.k}).")]

    def find_tables(question: question_type, k: k_type = None) -> str:  # type: ignore[valid-type]
        return format_tables_text(retriever.retrieve_result(question, k), dialect=retriever.dialect)

    async def afind_tables(question: question_type, k: k_type = None) -> str:  # type: ignore[valid-type]
        return await asyncio.to_thread(find_tables, question, k)

    return FunctionTool.from_defaults(
        fn=find_tables, async_fn=afind_tables, name=name, description=description or TOOL_DESCRIPTION,
    )
