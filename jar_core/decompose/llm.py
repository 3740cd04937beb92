"""LLM-backed question decomposition (framework-free; METHOD.md, "Question decomposition").

:class:`LLMDecomposer` asks a language model, through a plain ``complete(prompt)`` callable, for
the concepts a SQL query answering the question would need (short ``entity:attribute`` or
``entity`` phrases), caches them per question, and falls back to another decomposer (the
heuristic by default) with a logged warning when the model raises, times out or answers
something unparseable. The framework adapters (``langchain_jar``, ``llamaindex_jar``) wrap their
chat models / LLMs into such a callable: a model with structured output is asked for
:data:`CONCEPTS_SCHEMA` (LangChain's ``with_structured_output``, LlamaIndex's
``structured_predict`` with :func:`concepts_model`) and its answer read by
:func:`structured_concepts`; any other model answers in text, parsed by :func:`parse_concepts`.
"""

from __future__ import annotations

import ast
import asyncio
import concurrent.futures
import contextvars
import json
import logging
import re
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import Any, Awaitable, Callable, Hashable

from jar_core.decompose.heuristic import Decomposer, Decomposition, HeuristicDecomposer
from jar_core.schema import Schema

__all__ = [
    "DECOMPOSITION_PROMPT", "CONCEPTS_SCHEMA", "build_prompt", "parse_concepts", "structured_concepts", "concepts_model",
    "LLMDecomposer", "MAX_CONCEPT_CHARS",
]

logger = logging.getLogger(__name__)

#: Parsed items longer than this are dropped (they are sentences, not concepts).
MAX_CONCEPT_CHARS = 80

DECOMPOSITION_PROMPT = """\
You help a text-to-SQL system find the database tables it needs.
Given a question, list the concepts a SQL query answering it would have to use: the
entities (tables) and their attributes (columns) that hold the values the question asks
for, filters on, groups by or joins through. Write each concept as a short phrase
"entity:attribute", or just "entity" when no particular attribute is meant. Use plain
nouns, not values from the question (write movies:keyword, not 'civil war'). Name every
entity the question mentions, including the ones only used to link others. Keep the list
short (at most {max_concepts} items) and answer with a JSON list of strings only.

Question: For movies with the keyword 'civil war', calculate the average revenue.
Concepts: ["movies:keyword", "movies:revenue"]

Question: What are the names of the customers who ordered a product in the 'Toys' category?
Concepts: ["customers:name", "orders:customer", "orders:product", "products:category"]

Question: How many employees work in each department located in Berlin?
Concepts: ["employees:department", "departments:name", "departments:location"]
{schema_hint}
Question: {question}
Concepts:"""


def build_prompt(question: str, schema: Schema | None = None, max_tables: int = 0, *, max_concepts: int = 8) -> str:
    """The decomposition prompt for ``question``.

    With ``max_tables > 0`` and a ``schema``, up to that many tables (name and columns) are
    listed as vocabulary hints; the default (0) keeps the prompt independent of the corpus.
    """
    hint = ""
    if schema is not None and max_tables > 0:
        lines = []
        for t in schema.tables[:max_tables]:
            cols = ", ".join(c.name for c in t.columns[:30])
            lines.append(f"- {t.name}({cols})")
        more = len(schema.tables) - max_tables
        if more > 0:
            lines.append(f"- ... and {more} more tables")
        hint = "\nSome tables of the database (use their vocabulary where it fits):\n" + "\n".join(lines) + "\n"
    return DECOMPOSITION_PROMPT.format(question=question.strip(), schema_hint=hint, max_concepts=max_concepts)


# ---------------------------------------------------------------------------------------------
# parsing

_FENCE = re.compile(r"```[ \t]*([\w+-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_TAG_BLOCK = re.compile(r"<([A-Za-z][\w-]*)(?:\s[^>]*)?>(.*?)</\1\s*>", re.DOTALL)
_BULLET = re.compile(r"^\s*(?:[-*•+▪‣◦]|\d{1,3}[.):]|\(\d{1,3}\)|[a-z][.)])\s+(.+?)\s*$")
_LABEL = re.compile(
    r"^\s*(?:\**\s*)?(?:concepts?|answer|output|result|sub-?quer(?:y|ies)|entities|items?|list)\s*\**\s*[:=\-]+\s*",
    re.IGNORECASE,
)
_QUOTES = "\"'`“”‘’«»"
_PREFERRED_KEYS = ("concepts", "concept", "subqueries", "sub_queries", "queries", "items", "entities", "answer")


def _clean(item: str) -> str:
    s = item.strip()
    s = re.sub(r"\*\*|__", "", s)  # markdown bold
    s = _LABEL.sub("", s) if not re.match(r"^\s*[\w ]+:\w", s) else s
    # an explanation after the concept: "movies:revenue - the revenue of a movie", "x (...)"
    s = re.split(r"\s+[—–-]\s+|\s*\(", s, maxsplit=1)[0]
    s = s.strip().strip(_QUOTES + " \t.,;").strip()
    s = re.sub(r"\s*:\s*", ":", s)
    s = re.sub(r"\s+", " ", s)
    return s


def _finish(items: list[str]) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for raw in items:
        s = _clean(raw)
        if not s or len(s) > MAX_CONCEPT_CHARS or not re.search(r"\w", s) or re.search(r"[{}\[\]<>]", s):
            continue
        key = s.casefold()
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def _items_from_json(value: Any) -> list[str] | None:
    """Strings of a parsed JSON value: a list, or the (preferred) list value of an object."""
    if isinstance(value, dict):
        for k in _PREFERRED_KEYS:
            for key in value:
                if isinstance(key, str) and key.lower() == k and isinstance(value[key], list):
                    return _items_from_json(value[key])
        for v in value.values():
            if isinstance(v, list):
                return _items_from_json(v)
        return None
    if not isinstance(value, list):
        return None
    items: list[str] = []
    for x in value:
        if isinstance(x, str):
            items.append(x)
        elif isinstance(x, list) and x and all(isinstance(p, str) for p in x):
            items.append(":".join(p.strip() for p in x))
        elif isinstance(x, dict):
            ent = next((x[k] for k in ("entity", "table") if isinstance(x.get(k), str)), None)
            att = next((x[k] for k in ("attribute", "column") if isinstance(x.get(k), str)), None)
            one = next((x[k] for k in ("concept", "name", "text") if isinstance(x.get(k), str)), None)
            if ent:
                items.append(f"{ent}:{att}" if att else ent)
            elif one:
                items.append(one)
    return items


def _from_json(text: str) -> list[str] | None:
    """The first JSON (or Python-literal) list / object with string items found in ``text``."""
    decoder = json.JSONDecoder()
    for m in re.finditer(r"[\[{]", text):
        start = m.start()
        value: Any = None
        try:
            value, _ = decoder.raw_decode(text, start)
        except ValueError:
            # single-quoted Python-style lists: ['a', 'b']
            close = "]" if text[start] == "[" else "}"
            end = text.find(close, start)
            while end != -1 and value is None:
                try:
                    value = ast.literal_eval(text[start : end + 1])
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    end = text.find(close, end + 1)
        items = _items_from_json(value)
        if items:
            return items
    return None


def _from_tags(text: str) -> list[str] | None:
    blocks = _TAG_BLOCK.findall(text)
    if not blocks:
        return None
    # repeated one-line tags (<concept>a</concept><concept>b</concept>) are one item each
    by_tag: dict[str, list[str]] = {}
    for tag, body in blocks:
        by_tag.setdefault(tag.lower(), []).append(body)
    for bodies in by_tag.values():
        if len(bodies) > 1 and all("\n" not in b.strip() and "," not in b for b in bodies):
            return bodies
    for _, body in blocks:
        inner = _parse(body, allow_tags=False)
        if inner:
            return inner
    return None


def _from_lines(text: str) -> list[str] | None:
    bullets = [m.group(1) for m in map(_BULLET.match, text.splitlines()) if m]
    if bullets:
        return bullets
    for line in text.splitlines():
        line = line.strip()
        if not line or line.endswith(":"):
            continue
        labelled = bool(_LABEL.match(line))
        body = _LABEL.sub("", line).strip().rstrip(".").strip()
        parts = [p.strip() for p in re.split(r"[,;]", body) if p.strip()]
        if not parts:
            continue
        conceptual = all(":" in p for p in parts)
        # prose ("I'm sorry, I can't do that.") is not a list of concepts
        prose = line.rstrip().endswith((".", "?", "!")) and not conceptual
        short = all(len(p.split()) <= 4 for p in parts)
        if short and not prose and (labelled or conceptual or len(parts) > 1):
            return parts
    return None


def _parse(text: str, *, allow_tags: bool = True) -> list[str]:
    for fence_lang, body in _FENCE.findall(text):  # fenced blocks first
        items = _from_json(body) or (_from_lines(body) if fence_lang.lower() not in ("json",) else None)
        if items:
            return _finish(items)
    for step in (_from_json, _from_tags if allow_tags else None, _from_lines):
        if step is None:
            continue
        items = step(text)
        if items:
            out = _finish(items)
            if out:
                return out
    return []


def parse_concepts(text: str) -> list[str]:
    """The concepts in a model's answer, tolerant of the formats models actually produce.

    Tried in order: a JSON list anywhere in the text (also inside a fenced code block, or a
    single-quoted Python list), a JSON object with a list value (``{"concepts": [...]}``),
    ``<tag>...</tag>`` blocks, a bullet / numbered list, a comma-separated line. Items are
    stripped of quotes and markdown, ``"a : b"`` becomes ``"a:b"``, explanations after a dash
    are cut, duplicates (case-insensitive), empties and items over 80 characters are dropped.
    Returns ``[]`` when nothing parseable is found.
    """
    if not isinstance(text, str) or not text.strip():
        return []
    return _parse(text)


# ---------------------------------------------------------------------------------------------
# structured output

#: The structured answer asked of a model that supports it (a JSON schema: LangChain's
#: ``with_structured_output`` takes it as is; :func:`concepts_model` is the same as a pydantic model).
CONCEPTS_SCHEMA: dict[str, Any] = {
    "title": "Concepts",
    "description": "The concepts a SQL query answering the question would use.",
    "type": "object",
    "properties": {
        "concepts": {
            "type": "array",
            "items": {"type": "string"},
            "description": 'Short phrases "entity:attribute", or "entity" when no particular attribute is meant.',
        },
    },
    "required": ["concepts"],
}


@lru_cache(maxsize=1)
def concepts_model() -> type:
    """:data:`CONCEPTS_SCHEMA` as a pydantic model (LlamaIndex's ``structured_predict`` takes one);
    pydantic is imported here, where a framework that needs it brings it."""
    from pydantic import BaseModel, Field

    class Concepts(BaseModel):
        """The concepts a SQL query answering the question would use."""

        concepts: list[str] = Field(description=CONCEPTS_SCHEMA["properties"]["concepts"]["description"])

    return Concepts


def structured_concepts(answer: Any) -> list[str]:
    """The concepts of a model's answer, structured or not: a pydantic model or object with
    ``concepts`` / ``model_dump``, a dict (``{"concepts": [...]}``) or a list are read as JSON
    values (:func:`parse_concepts`' rules for items: cleaned, deduplicated, long ones dropped);
    text is parsed by :func:`parse_concepts`; anything else gives ``[]``."""
    if isinstance(answer, str):
        return parse_concepts(answer)
    if callable(getattr(answer, "model_dump", None)):
        answer = answer.model_dump()
    elif not isinstance(answer, (dict, list)) and isinstance(getattr(answer, "concepts", None), list):
        answer = {"concepts": answer.concepts}
    if isinstance(answer, (dict, list)):
        return _finish(_items_from_json(answer) or [])
    return parse_concepts(str(answer or ""))


# ---------------------------------------------------------------------------------------------
# the decomposer


class LLMDecomposer:
    """A :class:`~jar_core.decompose.heuristic.Decomposer` that asks a language model for the concepts.

    ``complete`` takes the prompt and returns the model's text, or its structured answer (read by
    :func:`structured_concepts`: ``{"concepts": [...]}``, a list, a :func:`concepts_model`). It runs in a worker thread
    bounded by ``timeout`` seconds (``None``: no bound, called in the caller's thread). When it
    raises, times out or returns nothing parseable, a warning is logged and ``fallback``'s
    decomposition is returned with ``source="<fallback> (fallback: <reason>)"``; on success
    ``source`` is :attr:`name`. Successful answers are cached per question (LRU of
    ``cache_size`` entries, thread-safe); failures are not cached, so a later call retries.
    ``acomplete``, if given, is used by :meth:`adecompose`.
    """

    def __init__(
        self,
        complete: Callable[[str], Any],
        *,
        name: str = "llm",
        fallback: Decomposer | None = None,
        timeout: float | None = 30.0,
        cache_size: int = 1024,
        max_subqueries: int = 8,
        acomplete: Callable[[str], Awaitable[Any]] | None = None,
        max_tables: int = 0,
    ) -> None:
        if not callable(complete):
            raise TypeError("complete must be a callable taking a prompt and returning the model's text")
        if timeout is not None and timeout <= 0:
            from jar_core.errors import InvalidArgumentError

            raise InvalidArgumentError(f"timeout must be positive or None, got {timeout!r}")
        self.complete = complete
        self.acomplete = acomplete
        self.name = name
        self.fallback: Decomposer = fallback if fallback is not None else HeuristicDecomposer()
        self.timeout = timeout
        self.cache_size = max(0, int(cache_size))
        self.max_subqueries = max(1, int(max_subqueries))
        self.max_tables = max(0, int(max_tables))
        self._cache: OrderedDict[Hashable, tuple[str, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"LLMDecomposer(name={self.name!r}, fallback={self.fallback.name!r}, timeout={self.timeout!r})"

    # -- cache ------------------------------------------------------------------------------
    def _key(self, question: str, schema: Schema | None) -> Hashable:
        if schema is None or self.max_tables == 0:
            return question.strip()
        return (question.strip(), schema.fingerprint())  # cached by the schema; not keyed by id()

    def _cached(self, key: Hashable) -> tuple[str, ...] | None:
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
            return hit

    def _store(self, key: Hashable, subs: tuple[str, ...]) -> None:
        if self.cache_size == 0:
            return
        with self._lock:
            self._cache[key] = subs
            self._cache.move_to_end(key)
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)

    def clear_cache(self) -> None:
        """Forget every cached answer."""
        with self._lock:
            self._cache.clear()

    # -- decomposition ------------------------------------------------------------------------
    def _call(self, prompt: str) -> str:
        if self.timeout is None:
            return self.complete(prompt)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="jar-llm")
        try:
            # the caller's context (tracing / callback context variables) follows the call
            ctx = contextvars.copy_context()
            return pool.submit(ctx.run, self.complete, prompt).result(timeout=self.timeout)
        finally:
            pool.shutdown(wait=False)  # a timed-out call is abandoned, not awaited

    def _fallback(self, question: str, schema: Schema | None, reason: str) -> Decomposition:
        logger.warning(
            "LLM decomposer %r failed on %r (%s); falling back to the %r decomposer",
            self.name, question, reason, self.fallback.name,
        )
        d = self.fallback.decompose(question, schema)
        return Decomposition(d.subqueries, f"{self.fallback.name} (fallback: {reason})")

    def _accept(self, key: Hashable, answer: Any) -> tuple[str, ...] | None:
        subs = tuple(structured_concepts(answer))[: self.max_subqueries]
        if subs:
            self._store(key, subs)
        return subs or None

    @staticmethod
    def _reason(exc: BaseException) -> str:
        msg = str(exc).strip().splitlines()[0][:120] if str(exc).strip() else ""
        return f"error: {type(exc).__name__}" + (f": {msg}" if msg else "")

    def _begin(self, question: str, schema: Schema | None) -> tuple[Decomposition | None, Hashable, str]:
        """A final answer (blank question, cache hit) or the cache key and prompt of a model call."""
        if not isinstance(question, str) or not question.strip():
            return self._fallback(str(question), schema, "empty question"), None, ""
        key = self._key(question, schema)
        hit = self._cached(key)
        if hit is not None:
            return Decomposition(hit, self.name), key, ""
        return None, key, build_prompt(question, schema, self.max_tables, max_concepts=self.max_subqueries)

    def _finish(self, question: str, schema: Schema | None, key: Hashable, answer: Any) -> Decomposition:
        subs = self._accept(key, answer)
        if subs is None:
            return self._fallback(question, schema, "unparseable answer")
        return Decomposition(subs, self.name)

    def decompose(self, question: str, schema: Schema | None = None) -> Decomposition:
        """The model's concepts for ``question`` (cached), or the fallback's on failure."""
        done, key, prompt = self._begin(question, schema)
        if done is not None:
            return done
        try:
            answer = self._call(prompt)
        except concurrent.futures.TimeoutError:
            return self._fallback(question, schema, f"timeout after {self.timeout:g}s")
        except Exception as exc:  # noqa: BLE001 - any model failure falls back
            return self._fallback(question, schema, self._reason(exc))
        return self._finish(question, schema, key, answer)

    async def adecompose(self, question: str, schema: Schema | None = None) -> Decomposition:
        """Async :meth:`decompose`: awaits ``acomplete`` if given, else runs the sync path in a thread."""
        if self.acomplete is None:
            return await asyncio.to_thread(self.decompose, question, schema)
        done, key, prompt = self._begin(question, schema)
        if done is not None:
            return done
        try:
            answer = await asyncio.wait_for(self.acomplete(prompt), timeout=self.timeout)
        except asyncio.TimeoutError:
            return self._fallback(question, schema, f"timeout after {self.timeout:g}s")
        except Exception as exc:  # noqa: BLE001 - any model failure falls back
            return self._fallback(question, schema, self._reason(exc))
        return self._finish(question, schema, key, answer)
