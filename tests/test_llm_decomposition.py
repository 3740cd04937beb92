"""LLMDecomposer and parse_concepts: parsing messy answers, caching, fallbacks (no LLM, no model)."""
from __future__ import annotations

import asyncio
import logging
import threading
import time

import pytest

from jar_core.decompose.heuristic import Decomposition, HeuristicDecomposer
from jar_core.decompose.llm import DECOMPOSITION_PROMPT, LLMDecomposer, build_prompt, parse_concepts
from jar_core.schema import Column, Schema, Table

QUESTION = "Which books were written by authors born in Ireland?"


@pytest.mark.parametrize(
    "answer, expected",
    [
        ('["books:title", "authors:birthplace"]', ["books:title", "authors:birthplace"]),
        ('Sure! Here you go:\n```json\n["books:title", "countries:name"]\n```\nAnything else?',
         ["books:title", "countries:name"]),
        ("```\n- books:title\n- authors\n```", ["books:title", "authors"]),
        ('{"concepts": ["books:title", "authors"], "note": "x"}', ["books:title", "authors"]),
        ('{"reasoning": "the books and their authors", "answer": ["books", "authors"]}', ["books", "authors"]),
        ("<concepts>books:title, authors:birthplace</concepts>", ["books:title", "authors:birthplace"]),
        ("<concept>books</concept>\n<concept>authors:birthplace</concept>", ["books", "authors:birthplace"]),
        ("<answer>\n1. books:title\n2. authors\n</answer>", ["books:title", "authors"]),
        ("Concepts:\n- books:title\n- **authors : birthplace** - where the author was born\n* countries:name",
         ["books:title", "authors:birthplace", "countries:name"]),
        ("1. books:title\n2) authors:birthplace\n3. Books:Title", ["books:title", "authors:birthplace"]),
        ("Concepts: books:title, authors:birthplace.", ["books:title", "authors:birthplace"]),
        ("books, authors, countries", ["books", "authors", "countries"]),
        ("['books:title', 'authors']", ["books:title", "authors"]),
        ('Here: ["books", "", "  ", "' + "x" * 81 + '", "authors"]', ["books", "authors"]),
        ('[{"entity": "books", "attribute": "title"}, {"table": "authors"}]', ["books:title", "authors"]),
        ('["“books”", "`authors`", "\'countries\'"]', ["books", "authors", "countries"]),
        ("The list [1, 2] is not it, this is: [\"books\"]", ["books"]),
    ],
)
def test_parse_concepts_messy_answers(answer: str, expected: list[str]) -> None:
    assert parse_concepts(answer) == expected


@pytest.mark.parametrize(
    "junk",
    ["", "   ", "I'm sorry, I can't help with that.", "I don't know.", "Sure, here you go:", "[]", "{}",
     '{"concepts": []}', "```json\n```"],
)
def test_parse_concepts_unparseable(junk: str) -> None:
    assert parse_concepts(junk) == []


def test_prompt_has_examples_and_question() -> None:
    prompt = build_prompt(QUESTION)
    assert prompt.rstrip().endswith(f"Question: {QUESTION}\nConcepts:")
    assert prompt.count("Question:") == 4  # three few-shot examples + the question
    assert '["movies:keyword", "movies:revenue"]' in prompt
    assert "{" not in DECOMPOSITION_PROMPT.replace("{question}", "").replace("{schema_hint}", "").replace(
        "{max_concepts}", "")
    schema = Schema([Table("db", "books", [Column("book_id", "INT"), Column("title", "TEXT")]),
                     Table("db", "authors", [Column("author_id", "INT")])])
    assert "books(book_id, title)" not in build_prompt(QUESTION, schema)  # schema-free by default
    hinted = build_prompt(QUESTION, schema, max_tables=1)
    assert "books(book_id, title)" in hinted and "authors(" not in hinted and "1 more tables" in hinted


def test_success_records_source_and_caches() -> None:
    calls: list[str] = []

    def complete(prompt: str) -> str:
        calls.append(prompt)
        return 'Concepts: ["books:title", "authors:birthplace", "countries:name"]'

    dec = LLMDecomposer(complete, name="llm:test")
    first = dec.decompose(QUESTION)
    assert first == Decomposition(("books:title", "authors:birthplace", "countries:name"), "llm:test")
    assert dec.decompose(QUESTION) == first
    assert dec.decompose("  " + QUESTION + " ") == first  # same question, same cache entry
    assert len(calls) == 1 and QUESTION in calls[0]
    dec.decompose("Which authors were born in France?")
    assert len(calls) == 2
    dec.clear_cache()
    dec.decompose(QUESTION)
    assert len(calls) == 3


def test_cache_is_lru_bounded() -> None:
    calls: list[str] = []
    dec = LLMDecomposer(lambda p: calls.append(p) or '["x"]', cache_size=2)
    for q in ("q one", "q two", "q one", "q three", "q one", "q two"):
        dec.decompose(q)
    # "q two" was evicted by "q three" (q one was used more recently), so it is asked twice
    assert len(calls) == 4


def test_cache_thread_safe() -> None:
    lock = threading.Lock()
    calls = []

    def complete(prompt: str) -> str:
        with lock:
            calls.append(prompt)
        return '["a", "b"]'

    dec = LLMDecomposer(complete, cache_size=8, timeout=None)
    questions = [f"question number {i % 20}" for i in range(200)]
    threads = [threading.Thread(target=lambda qs=questions[i::8]: [dec.decompose(q) for q in qs]) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(dec._cache) <= 8
    assert all(dec.decompose(q).subqueries == ("a", "b") for q in questions[:5])


def test_max_subqueries() -> None:
    dec = LLMDecomposer(lambda p: str([f"t{i}" for i in range(20)]), max_subqueries=3)
    assert dec.decompose(QUESTION).subqueries == ("t0", "t1", "t2")


def test_timeout_falls_back(caplog: pytest.LogCaptureFixture) -> None:
    def slow(prompt: str) -> str:
        time.sleep(1.0)
        return '["books"]'

    dec = LLMDecomposer(slow, timeout=0.2)
    t0 = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="jar_core.decompose.llm"):
        d = dec.decompose(QUESTION)
    assert time.perf_counter() - t0 < 0.9
    assert d.source == "heuristic (fallback: timeout after 0.2s)"
    assert d.subqueries == HeuristicDecomposer().decompose(QUESTION).subqueries
    assert "timeout" in caplog.text and "heuristic" in caplog.text


def test_exception_falls_back_and_is_not_cached(caplog: pytest.LogCaptureFixture) -> None:
    answers = iter([RuntimeError("rate limited"), '["books:title"]'])

    def flaky(prompt: str) -> str:
        a = next(answers)
        if isinstance(a, Exception):
            raise a
        return a

    dec = LLMDecomposer(flaky)
    with caplog.at_level(logging.WARNING, logger="jar_core.decompose.llm"):
        d = dec.decompose(QUESTION)
    assert d.source == "heuristic (fallback: error: RuntimeError: rate limited)"
    assert "rate limited" in caplog.text
    assert dec.decompose(QUESTION) == Decomposition(("books:title",), "llm")  # retried, not cached


def test_unparseable_falls_back_to_given_decomposer(caplog: pytest.LogCaptureFixture) -> None:
    class Fixed:
        name = "fixed"

        def decompose(self, question, schema=None):
            return Decomposition(("fixed one",), self.name)

    dec = LLMDecomposer(lambda p: "I'm sorry, I can't help with that.", fallback=Fixed())
    with caplog.at_level(logging.WARNING, logger="jar_core.decompose.llm"):
        d = dec.decompose(QUESTION)
    assert d == Decomposition(("fixed one",), "fixed (fallback: unparseable answer)")
    assert "unparseable" in caplog.text


def test_non_string_answer_and_empty_question() -> None:
    dec = LLMDecomposer(lambda p: None)  # type: ignore[arg-type, return-value]
    assert dec.decompose(QUESTION).source.endswith("(fallback: unparseable answer)")
    assert dec.decompose("  ").source == "heuristic (fallback: empty question)"


def test_decomposer_drives_the_retriever(demo_retriever) -> None:
    from jar_core.retriever import TableRetriever

    dec = LLMDecomposer(lambda p: '["books:title", "authors:birthplace", "countries:name"]', name="llm:stub")
    r = TableRetriever(demo_retriever.schema, embedder=demo_retriever.embedder, decomposer=dec,
                       index=demo_retriever.index)
    res = r.retrieve(QUESTION, k=3)
    assert res.decomposer == "llm:stub"
    assert res.subqueries == ["books:title", "authors:birthplace", "countries:name"]


def test_async_decompose() -> None:
    async def acomplete(prompt: str) -> str:
        await asyncio.sleep(0)
        return '["books"]'

    async def aslow(prompt: str) -> str:
        await asyncio.sleep(1.0)
        return '["books"]'

    sync_calls = []
    dec = LLMDecomposer(lambda p: sync_calls.append(p) or '["x"]', acomplete=acomplete, name="a")
    assert asyncio.run(dec.adecompose(QUESTION)) == Decomposition(("books",), "a")
    assert dec.decompose(QUESTION) == Decomposition(("books",), "a")  # shares the cache
    assert sync_calls == []
    slow = LLMDecomposer(lambda p: '["x"]', acomplete=aslow, timeout=0.1)
    assert asyncio.run(slow.adecompose(QUESTION)).source == "heuristic (fallback: timeout after 0.1s)"
    plain = LLMDecomposer(lambda p: '["y"]')  # no acomplete: the sync path in a thread
    assert asyncio.run(plain.adecompose(QUESTION)).subqueries == ("y",)


def test_structured_answers_are_read_without_text_parsing() -> None:
    from jar_core.decompose.llm import concepts_model, structured_concepts

    assert structured_concepts({"concepts": ["books : title", "books:title", "authors"]}) == ["books:title", "authors"]
    assert structured_concepts(concepts_model()(concepts=["countries:name"])) == ["countries:name"]
    assert structured_concepts(["a", "b"]) == ["a", "b"] and structured_concepts(None) == []
    dec = LLMDecomposer(lambda p: {"concepts": ["books:title", "authors:birthplace"]}, name="s")
    assert dec.decompose(QUESTION) == Decomposition(("books:title", "authors:birthplace"), "s")


def test_a_langchain_model_with_structured_output_is_asked_through_it() -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.language_models import FakeListChatModel
    from langchain_core.runnables import RunnableLambda

    from jar_core.decompose.llm import CONCEPTS_SCHEMA
    from langchain_jar.decomposers import ChatModelDecomposer

    asked: list[object] = []

    class ToolCallingFake(FakeListChatModel):
        def with_structured_output(self, schema, **kwargs):  # type: ignore[no-untyped-def, override]
            asked.append(schema)
            return RunnableLambda(lambda prompt: {"concepts": ["books:title", "countries:name"]})

    dec = ChatModelDecomposer(ToolCallingFake(responses=["not the text path"]), name="structured")
    assert asked == [CONCEPTS_SCHEMA]
    assert dec.decompose(QUESTION) == Decomposition(("books:title", "countries:name"), "structured")
    assert asyncio.run(dec.adecompose("another question")).subqueries == ("books:title", "countries:name")
    plain = ChatModelDecomposer(FakeListChatModel(responses=['["books"]']), name="text")
    assert plain.structured is None and plain.decompose(QUESTION) == Decomposition(("books",), "text")


def test_a_llamaindex_function_calling_model_is_asked_through_structured_predict() -> None:
    pytest.importorskip("llama_index.core")
    from llama_index.core.llms import LLMMetadata, MockLLM

    from jar_core.decompose.llm import concepts_model
    from llamaindex_jar.decomposers import LLMDecomposer as LlamaDecomposer

    asked: list[tuple[object, str]] = []

    class FunctionCallingMock(MockLLM):
        @property
        def metadata(self) -> LLMMetadata:
            return LLMMetadata(is_function_calling_model=True, model_name="fc-mock")

        def structured_predict(self, output_cls, prompt, **kwargs):  # type: ignore[no-untyped-def, override]
            asked.append((output_cls, prompt.format()))
            return output_cls(concepts=["books:title", "authors"])

        def complete(self, *args, **kwargs):  # type: ignore[no-untyped-def, override]
            raise AssertionError("a function-calling model is not asked for text")

    dec = LlamaDecomposer(FunctionCallingMock())
    assert dec.decompose(QUESTION) == Decomposition(("books:title", "authors"), "llm:fc-mock")
    assert asked[0][0] is concepts_model() and QUESTION in asked[0][1]
