"""Any LangChain chat model (or LLM) as the question decomposer."""

from __future__ import annotations

import contextvars
from typing import Any

from langchain_core.language_models import BaseLanguageModel

from jar_core.decompose.llm import CONCEPTS_SCHEMA, LLMDecomposer

__all__ = ["ChatModelDecomposer", "message_text"]

#: Callbacks of the retriever run in progress, so the model's run nests under it in traces.
PARENT_CALLBACKS: contextvars.ContextVar[Any] = contextvars.ContextVar("jar_parent_callbacks", default=None)


def message_text(output: Any) -> str:
    """The text of a model's output: a string, or a message whose ``content`` is a string or content blocks."""
    if isinstance(output, str):
        return output
    content = getattr(output, "content", output)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type", "text") == "text" and isinstance(block.get("text"), str):
                parts.append(block["text"])
        return "".join(parts)
    return "" if content is None else str(content)


def _model_label(llm: Any) -> str:
    label = getattr(llm, "_llm_type", None) or type(llm).__name__
    model = getattr(llm, "model_name", None) or getattr(llm, "model", None)
    return f"{label}/{model}" if isinstance(model, str) and model else str(label)


def _structured(llm: Any) -> Any:
    """``llm`` asked for :data:`CONCEPTS_SCHEMA` (a runnable answering a dict), or ``None`` for a
    model without structured output."""
    try:
        return llm.with_structured_output(CONCEPTS_SCHEMA)
    except (NotImplementedError, AttributeError, TypeError, ValueError):
        return None


class ChatModelDecomposer(LLMDecomposer):
    """An :class:`~jar_core.decompose.llm.LLMDecomposer` calling a LangChain chat model / LLM.

    A model with structured output (``with_structured_output``: tool calling) is asked for
    :data:`~jar_core.decompose.llm.CONCEPTS_SCHEMA`; any other gets the prompt with ``llm.invoke``
    (``ainvoke`` for :meth:`adecompose`) and the answer's text content is parsed. The default :attr:`name` is ``"llm:<model type>"`` (for example
    ``"llm:fake-list-chat-model"``), which :attr:`RetrievalResult.decomposer` and the documents'
    ``decomposer`` metadata report. Other keyword arguments (``fallback``, ``timeout``,
    ``cache_size``, ``max_subqueries``, ``max_tables``) are :class:`LLMDecomposer`'s.
    """

    def __init__(self, llm: BaseLanguageModel | Any, *, name: str | None = None, **options: Any) -> None:
        if not callable(getattr(llm, "invoke", None)):
            raise TypeError(f"{type(llm).__name__} is not a LangChain chat model or LLM (it has no invoke method)")
        self.llm = llm
        self.structured = _structured(llm)
        super().__init__(
            self._complete,
            name=name or f"llm:{_model_label(llm)}",
            acomplete=self._acomplete if callable(getattr(llm, "ainvoke", None)) else None,
            **options,
        )

    def _config(self) -> dict[str, Any]:
        config: dict[str, Any] = {"run_name": "jar_decomposition"}
        parent = PARENT_CALLBACKS.get()
        if parent is not None:
            config["callbacks"] = parent
        return config

    def _complete(self, prompt: str) -> Any:
        if self.structured is not None:
            return self.structured.invoke(prompt, config=self._config())
        return message_text(self.llm.invoke(prompt, config=self._config()))

    async def _acomplete(self, prompt: str) -> Any:
        if self.structured is not None:
            return await self.structured.ainvoke(prompt, config=self._config())
        return message_text(await self.llm.ainvoke(prompt, config=self._config()))
