"""Any LlamaIndex ``LLM`` as the question decomposer of a jar-retrieval retriever."""
from __future__ import annotations

from typing import Any

from llama_index.core.llms import LLM

from jar_core.errors import InvalidArgumentError
from jar_core.decompose.llm import LLMDecomposer as _CoreLLMDecomposer
from jar_core.decompose.llm import concepts_model

__all__ = ["LLMDecomposer"]


def _template(prompt: str) -> Any:
    """``prompt`` as a LlamaIndex prompt template, formatted with no variables: its text is sent as
    it is (LlamaIndex leaves a ``{name}`` it is not given in place)."""
    from llama_index.core.prompts import PromptTemplate

    return PromptTemplate(prompt)


class LLMDecomposer(_CoreLLMDecomposer):
    """Asks a LlamaIndex ``LLM`` (``complete`` / ``acomplete``) for the concepts of a question.

    A function-calling model (``llm.metadata.is_function_calling_model``) is asked through
    ``structured_predict`` for :func:`~jar_core.decompose.llm.concepts_model`; any other answers in
    text. Prompting, parsing, per-question caching and the fallback are those of
    :class:`jar_core.decompose.llm.LLMDecomposer`: when the model raises, times out or answers
    something unparseable, a warning is logged and ``fallback`` (the heuristic by default) is used;
    the retrieval's ``decomposer`` field then reads ``"heuristic (fallback: <reason>)"``.

    Args:
        llm: any LlamaIndex LLM (chat models work too: ``complete`` is adapted by LlamaIndex).
        name: recorded as the decomposition source (default ``"llm:<model name or class>"``).
        options: ``fallback``, ``timeout``, ``cache_size``, ``max_subqueries``, ``max_tables``
            (see the core class).

    Example:
        >>> from llama_index.core.llms import MockLLM
        >>> LLMDecomposer(MockLLM()).name
        'llm:MockLLM'
    """

    def __init__(self, llm: LLM, *, name: str | None = None, **options: Any) -> None:
        if not isinstance(llm, LLM):
            raise InvalidArgumentError(f"llm must be a llama_index LLM, got {type(llm).__name__}")
        self.llm = llm

        structured = bool(getattr(llm.metadata, "is_function_calling_model", False))

        def complete(prompt: str) -> Any:
            if structured:
                return llm.structured_predict(concepts_model(), _template(prompt))
            return llm.complete(prompt).text or ""

        async def acomplete(prompt: str) -> Any:
            if structured:
                return await llm.astructured_predict(concepts_model(), _template(prompt))
            return (await llm.acomplete(prompt)).text or ""

        if name is None:
            model = getattr(llm.metadata, "model_name", None)
            name = f"llm:{model if model and model != 'unknown' else llm.class_name()}"
        super().__init__(complete, name=name, acomplete=acomplete, **options)
