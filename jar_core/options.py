"""The options of a retrieval: their defaults and their checks, in one place.

Every entry point (:class:`~jar_core.retriever.TableRetriever`, the command, the MCP server, the
LangChain and LlamaIndex adapters, ``eval``) reads the defaults and checks from here.
"""
from __future__ import annotations

import inspect
import re
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from jar_core.errors import InvalidArgumentError

__all__ = [
    "DEFAULT_LEXICAL", "DEFAULT_EXPAND", "DEFAULT_MIN_JOIN_SCORE", "MAX_QUESTION_CHARS",
    "check_question", "check_subqueries", "check_k", "check_k_or_auto", "check_table_names", "check_options",
    "convert_option", "check_weight",
]

#: Default ``lexical``: weight of BM25 fused with dense similarity for the candidate set.
DEFAULT_LEXICAL = 0.7

#: Default ``expand``: tables joinable to the strongest candidates added to the candidate set.
DEFAULT_EXPAND = 10

#: Default ``min_join_score``: joins below it are not shown or used (chosen by measurement, docs/results.md).
DEFAULT_MIN_JOIN_SCORE = 0.5


def check_subqueries(subqueries: Any) -> tuple[str, ...]:
    """Given sub-queries as a tuple of non-blank strings (one string is one sub-query), or
    :class:`InvalidArgumentError`."""
    items = [subqueries] if isinstance(subqueries, str) else subqueries
    try:
        items = list(items)
    except TypeError:
        raise InvalidArgumentError(f"subqueries must be a string or a list of strings, got {subqueries!r}") from None
    bad = [s for s in items if not isinstance(s, str)]
    if bad:
        raise InvalidArgumentError(f"subqueries must be strings, got {bad[0]!r}")
    return tuple(s for s in items if s.strip())


def check_weight(name: str, value: Any, top: float) -> float:
    """``value`` as a float weight in ``[0, top]``, or :class:`InvalidArgumentError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= top:
        raise InvalidArgumentError(f"{name} must be a weight in [0, {top:g}], got {value!r}")
    return float(value)


#: Terminal escape sequences (``\x1b[31m``) and control characters other than white space: no
#: words of a question, and their remains (``31m``) would become sub-queries.
_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[@-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


#: The longest question, in characters (the command, the MCP server and the agent tools all
#: check it here): a question is a sentence or a paragraph, and a 10 MB one took 23 s of CPU.
MAX_QUESTION_CHARS = 10_000


def check_question(question: Any) -> str:
    """The stripped question without terminal escape sequences and control characters, or
    :class:`InvalidArgumentError` if it is not a string with words or is longer than
    :data:`MAX_QUESTION_CHARS` characters."""
    if not isinstance(question, str):
        raise InvalidArgumentError(f"the question must be a string, got {type(question).__name__}")
    if len(question) > MAX_QUESTION_CHARS:
        raise InvalidArgumentError(
            f"the question is {len(question):,} characters long, more than the {MAX_QUESTION_CHARS:,} allowed"
        )
    if not question.strip():
        raise InvalidArgumentError("the question is empty")
    question = _CONTROL.sub(" ", _ESCAPE.sub("", question))
    if not question.strip():
        raise InvalidArgumentError(
            "the question has no words: it holds only control characters or terminal escape sequences, "
            "and is empty without them"
        )
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as e:
        raise InvalidArgumentError(
            f"the question is not valid text: {question[e.start]!r} at position {e.start} is an unpaired "
            "surrogate (invalid UTF-8 on the command line?)"
        ) from None
    return question.strip()


def check_table_names(names: str | Iterable[str] | None, what: str = "include") -> list[str]:
    """Table names as a list: one string is one name (``include="books"``), ``None`` is none."""
    if names is None:
        return []
    if isinstance(names, str):
        return [names]
    try:
        out = list(names)
    except TypeError:
        raise InvalidArgumentError(f"{what} takes a table name or a list of them, got {type(names).__name__}") from None
    for n in out:
        if not isinstance(n, str):
            raise InvalidArgumentError(f"{what} takes table names (strings), got {n!r}")
    return out


def check_k(k: Any, name: str = "k") -> int:
    """``k`` as an int >= 1, or :class:`InvalidArgumentError`."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InvalidArgumentError(f"{name} must be a positive integer, got {k!r}")
    if k <= 0:
        raise InvalidArgumentError(f"{name} must be >= 1, got {k}")
    return int(k)


def check_k_or_auto(k: Any, name: str = "k") -> int | str:
    """``k`` as an int >= 1 or the string ``"auto"``, or :class:`InvalidArgumentError`."""
    if isinstance(k, str) and k.strip().lower() == "auto":
        return "auto"
    return check_k(k, name)


def check_options(options: Any, func: Callable[..., Any], what: str) -> dict[str, Any]:
    """``options`` (a mapping of keyword options of ``func``, or ``None``) as a dict, or
    :class:`InvalidArgumentError` naming the unknown ones and listing those ``func`` accepts."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise InvalidArgumentError(f"{what} must be a dict of options of {func.__name__}, got {type(options).__name__}")
    accepted = [p.name for p in inspect.signature(func).parameters.values() if p.kind is p.KEYWORD_ONLY]
    unknown = [key for key in options if key not in accepted]
    if unknown:
        raise InvalidArgumentError(
            f"unknown {what} {', '.join(map(repr, unknown))} (options of {func.__name__}: {', '.join(accepted)})"
        )
    return dict(options)


def check_part(value: Any, method: str, what: str, accepted: str) -> None:
    """:class:`InvalidArgumentError` unless ``value`` has a callable ``method`` (a decomposer, a strategy)."""
    if not callable(getattr(value, method, None)):
        raise InvalidArgumentError(f"{what} must be {accepted}, got {value!r:.100}")


def convert_option(
    options: dict[str, Any], key: str, core_key: str, convert: Callable[[Any], Any] | None = None
) -> None:
    """Replace ``options[key]`` (a framework's model) by ``options[core_key] = convert(value)``, in place.

    The adapters map their ``llm=`` / ``embeddings=`` options onto :class:`TableRetriever`'s
    ``decomposer`` / ``embedder`` this way; passing both raises :class:`InvalidArgumentError`.
    """
    value = options.pop(key, None)
    if value is None:
        return
    if options.get(core_key) is not None:
        raise InvalidArgumentError(f"pass either {key}= or {core_key}=, not both")
    options[core_key] = convert(value) if convert is not None else value
