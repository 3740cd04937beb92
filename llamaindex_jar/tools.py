"""Agent tools of the LlamaIndex adapter: :func:`find_tables_tool` (``JoinAwareRetriever.as_tool()``).

A ``RetrieverTool.from_defaults(retriever=...)`` over :class:`~llamaindex_jar.JoinAwareRetriever`
works too (its text is each node's join hint and DDL); this ``FunctionTool`` gives the model the
DDL once and the join path once, and takes a per-call ``k``.
"""
# No ``from __future__ import annotations``: FunctionTool builds its argument schema from the
# function's real annotations.
import asyncio
from typing import Any, Literal, Optional, Protocol, Union

from llama_index.core.tools import FunctionTool
from pydantic import Field
from typing_extensions import Annotated

from jar_core.options import FIND_TABLES_DESCRIPTION, QUESTION_HELP
from jar_core.output.prompt import model_text

__all__ = ["find_tables_tool", "TOOL_DESCRIPTION", "TablesRetriever"]

#: What the tool tells the model it does (the one description of ``find_tables``).
TOOL_DESCRIPTION = FIND_TABLES_DESCRIPTION


class TablesRetriever(Protocol):
    """What the tool needs of a retriever (:class:`llamaindex_jar.JoinAwareRetriever`)."""

    k: Union[int, str]
    dialect: Optional[str]

    def retrieve_result(self, query: Any, k: Optional[Union[int, str]] = None) -> Any: ...


def find_tables_tool(
    retriever: TablesRetriever, *, name: str = "find_tables", description: Optional[str] = None
) -> FunctionTool:
    """A ``FunctionTool`` ``find_tables(question, k=None)`` over ``retriever`` (``k``: a number or
    ``"auto"``): :func:`jar_core.output.prompt.model_text`, the needed tables' DDL, the join path,
    the values as stored and the optional tables (the LangChain adapter's tool text).
    Bad input (an empty question, ``k < 1``) raises the core's errors, which agents report to
    the model as the tool's error."""
    question_type = Annotated[str, Field(description=QUESTION_HELP)]
    k_type = Annotated[Optional[Union[int, Literal["auto"]]], Field(
        default=None, description=f"How many tables, or 'auto': the tables the question needs (default {retriever.k}).")]

    def find_tables(question: question_type, k: k_type = None) -> str:  # type: ignore[valid-type]
        return model_text(retriever.retrieve_result(question, k), dialect=retriever.dialect)

    async def afind_tables(question: question_type, k: k_type = None) -> str:  # type: ignore[valid-type]
        return await asyncio.to_thread(find_tables, question, k)

    return FunctionTool.from_defaults(
        fn=find_tables, async_fn=afind_tables, name=name, description=description or TOOL_DESCRIPTION,
    )
