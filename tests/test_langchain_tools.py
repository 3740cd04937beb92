"""LangChain agent tools: JoinAwareTablesTool, the SQL toolkit, the standard test suites, the agent example."""
from __future__ import annotations

import asyncio
import functools
import importlib.util
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_core")
pytest.importorskip("langchain_tests")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.messages import ToolMessage  # noqa: E402
from langchain_core.tools import BaseTool  # noqa: E402
from langchain_tests.integration_tests import RetrieversIntegrationTests, ToolsIntegrationTests  # noqa: E402
from langchain_tests.unit_tests import ToolsUnitTests  # noqa: E402

from jar_core.demo import DEMO_QUESTION, demo_url  # noqa: E402
from langchain_jar import JoinAwareRetriever, JoinAwareSQLToolkit, JoinAwareTablesTool, TableSchemaTool  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@functools.lru_cache(maxsize=None)
def _core():
    """One core retriever over the demo database for the standard suites (their properties take no fixtures)."""
    from jar_core.embed.embedders import get_embedder
    from jar_core.retriever import TableRetriever

    core = TableRetriever.from_database(demo_url(), embedder=get_embedder(None))
    core.index  # noqa: B018
    return core


@functools.lru_cache(maxsize=None)
def _tool() -> JoinAwareTablesTool:
    return JoinAwareTablesTool.from_retriever(_core(), k=3)


# -- LangChain's standard suites ------------------------------------------------------------------


class TestJoinAwareTablesToolUnit(ToolsUnitTests):
    @property
    def tool_constructor(self) -> BaseTool:
        return _tool()

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"question": DEMO_QUESTION, "k": 3}


class TestJoinAwareTablesToolIntegration(ToolsIntegrationTests):
    @property
    def tool_constructor(self) -> BaseTool:
        return _tool()

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        return {"question": DEMO_QUESTION, "k": 3}


class TestJoinAwareRetrieverStandard(RetrieversIntegrationTests):
    @property
    def retriever_constructor(self) -> type[JoinAwareRetriever]:
        return JoinAwareRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"retriever": _core(), "k": 4}

    @property
    def retriever_query_example(self) -> str:
        return DEMO_QUESTION


# -- the tool ----------------------------------------------------------------------------------


def _tool_call(args: dict[str, Any], name: str = "find_tables") -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "id": "call-1", "args": args}


def test_tool_content_is_ddl_and_join_path_and_artifact_the_documents_and_plan() -> None:
    msg = _tool().invoke(_tool_call({"question": DEMO_QUESTION}))
    assert isinstance(msg, ToolMessage) and msg.status == "success"
    docs = msg.artifact["documents"]
    plan = msg.artifact["join_plan"]
    assert {d.metadata["table"] for d in docs} == {"books", "book_categories", "categories"}
    assert all(isinstance(d, Document) for d in docs)
    assert plan["tables"] == [d.metadata["table_id"] for d in docs]  # selection order
    assert set(plan["tables"]) == {"demo.books", "demo.book_categories", "demo.categories"}
    assert {frozenset((j["left"], j["right"])) for j in plan["joins"]} == {
        frozenset(("books.book_id", "book_categories.book_id")),
        frozenset(("book_categories.category_id", "categories.category_id"))}
    assert all(j["kind"] == "declared" for j in plan["joins"]) and plan["unjoined"] == []
    assert msg.content.count("CREATE TABLE") == 3
    assert plan["join_path"] in msg.content and "-- Join path connecting these tables:" in msg.content
    # per-call k and include
    msg = _tool().invoke(_tool_call({"question": DEMO_QUESTION, "k": 2, "include": ["countries"]}))
    assert msg.artifact["join_plan"]["tables"][0] == "demo.countries" and len(msg.artifact["documents"]) == 2


def test_tool_errors_are_returned_to_the_model() -> None:
    for args, message in (({"question": "  "}, "the question is empty"),
                          ({"question": "x", "include": ["nope"]}, "no table 'nope'")):
        msg = _tool().invoke(_tool_call(args))
        assert msg.status == "error" and message in msg.content and msg.artifact is None
    for bad in (0, 101, "many"):  # the arguments' schema (k from 1 to 100, or "auto"): also told to the model
        msg = _tool().invoke(_tool_call({"question": "x", "k": bad}))
        assert msg.status == "error" and msg.content.startswith("invalid argument k") and repr(bad) in msg.content
        text = _tool().invoke({"question": "x", "k": bad})
        assert isinstance(text, str) and "invalid argument k" in text
    assert "question" in _tool().invoke(_tool_call({"k": 2})).content  # a missing question


def test_tool_k_auto_lets_the_retriever_choose_the_size() -> None:
    msg = _tool().invoke(_tool_call({"question": DEMO_QUESTION, "k": "auto"}))
    tables = msg.artifact["join_plan"]["tables"]
    assert 2 <= len(tables) <= 10 and msg.artifact["join_plan"]["unjoined"] == []
    assert "auto" in str(_tool().tool_call_schema.model_json_schema()["properties"]["k"])


def test_tool_schema_for_models() -> None:
    schema = _tool().tool_call_schema.model_json_schema()
    assert schema["required"] == ["question"]
    assert set(schema["properties"]) == {"question", "k", "include"}
    assert all(p.get("description") for p in schema["properties"].values())


def test_constructors_and_as_tool(demo_retriever) -> None:
    tool = JoinAwareTablesTool.from_database(demo_url(), k=2, name="tables_for", embedder=demo_retriever.embedder)
    assert tool.name == "tables_for" and tool.retriever.k == 2
    lc = JoinAwareRetriever.from_table_retriever(demo_retriever, k=3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # Runnable.as_tool warns that it is in beta; this one does not
        as_tool = lc.as_tool(name="tables")
    assert isinstance(as_tool, JoinAwareTablesTool) and as_tool.name == "tables" and as_tool.retriever is lc
    out = as_tool.invoke({"question": DEMO_QUESTION})
    assert "-- Join path connecting these tables:" in out


def test_create_retriever_tool_drops_the_join_path_ours_keeps_it(demo_retriever) -> None:
    from langchain_core.tools import create_retriever_tool

    lc = JoinAwareRetriever.from_table_retriever(demo_retriever, k=3)
    plain = create_retriever_tool(lc, "tables", "tables for a question").invoke({"query": DEMO_QUESTION})
    ours = lc.as_tool().invoke({"question": DEMO_QUESTION})
    assert "JOIN" not in plain  # page_content only: the documented reason to use the tool instead
    assert 'JOIN "book_categories" ON' in ours


def test_tool_async_and_callbacks() -> None:
    from langchain_core.callbacks import BaseCallbackHandler

    class Rec(BaseCallbackHandler):
        def __init__(self) -> None:
            self.events: list[str] = []

        def on_tool_start(self, *a: Any, **k: Any) -> None:
            self.events.append("tool_start")

        def on_retriever_start(self, *a: Any, **k: Any) -> None:
            self.events.append("retriever_start")

    rec = Rec()
    msg = asyncio.run(_tool().ainvoke(_tool_call({"question": DEMO_QUESTION}), config={"callbacks": [rec]}))
    assert len(msg.artifact["documents"]) == 3
    assert rec.events == ["tool_start", "retriever_start"]  # the retrieval is a child run of the tool


# -- the toolkit -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sql_database():
    pytest.importorskip("langchain_community")
    from langchain_community.utilities import SQLDatabase

    return SQLDatabase.from_uri(demo_url())


def test_toolkit_tools_over_one_database(sql_database) -> None:
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    core_tool = _tool()
    toolkit = JoinAwareSQLToolkit(db=sql_database, retriever=core_tool.retriever)
    names = [t.name for t in toolkit.get_tools()]
    assert names == ["find_tables", "get_table_schema", "sql_db_query"]
    checker = JoinAwareSQLToolkit(db=sql_database, retriever=core_tool.retriever,
                                  llm=FakeListChatModel(responses=["SELECT 1"]))
    assert [t.name for t in checker.get_tools()][-1] == "sql_db_query_checker"
    assert toolkit.get_context() == {"dialect": "sqlite", "table_count": "13"}
    tools = {t.name: t for t in toolkit.get_tools()}
    # any table can be queried, also one find_tables did not return
    assert tools["sql_db_query"].invoke({"query": "SELECT COUNT(*) FROM shippers"}) == "[(4,)]"


def test_get_table_schema_is_the_fallback_for_any_table(sql_database) -> None:
    tool = TableSchemaTool(retriever=_tool().retriever)
    out = tool.invoke({"table_names": "shippers, demo.order_items"})
    assert 'CREATE TABLE "shippers"' in out and 'CREATE TABLE "order_items"' in out
    assert "-- Joins:" in out and "order_items.order_id = orders.order_id (declared)" in out
    out = tool.invoke({"table_names": "shipper"})
    assert out.startswith("Error: no table 'shipper'") and "did you mean" in out and "shippers" in out
    assert tool.invoke({"table_names": " , "}).startswith("Error:")


def test_get_table_schema_returns_bad_arguments_to_the_model() -> None:
    tool = TableSchemaTool(retriever=_tool().retriever)
    either = "input should be a valid string or input should be a valid list"
    for args, message in (({"table_names": 3}, f"{either}, got 3"),
                          ({"table_names": None}, f"{either}, got None"),
                          ({"table_names": [3]}, "input should be a valid string, got [3]"),
                          ({}, "field required")):
        msg = tool.invoke(_tool_call(args, name=tool.name))
        assert isinstance(msg, ToolMessage) and msg.status == "error"
        assert msg.content == f"invalid argument table_names: {message}"
        assert tool.invoke(args) == f"invalid argument table_names: {message}"  # not a ValidationError
        assert asyncio.run(tool.ainvoke(args)) == f"invalid argument table_names: {message}"
    # a list of names, as models often send, is read as the comma-separated string
    listed = tool.invoke(_tool_call({"table_names": ["books", "authors"]}, name=tool.name))
    assert listed.status == "success" and listed.content == tool.invoke({"table_names": "books, authors"})
    assert "CREATE TABLE" in listed.content and "Error" not in listed.content


def test_default_toolkit_retriever_follows_the_database(sql_database, demo_retriever) -> None:
    toolkit = JoinAwareSQLToolkit(db=sql_database, k=2, retriever_options={"embedder": demo_retriever.embedder})
    assert toolkit.retriever.k == 2 and len(toolkit.retriever.retriever.schema) == 13


def test_toolkit_bad_arguments_raise_the_core_errors(sql_database, demo_retriever) -> None:
    from jar_core.errors import InvalidArgumentError, JarError

    options = {"embedder": demo_retriever.embedder}
    for k in (0, -1, "many", True):
        with pytest.raises(InvalidArgumentError, match="k must be"):
            JoinAwareSQLToolkit(db=sql_database, k=k, retriever_options=options)
    with pytest.raises(InvalidArgumentError, match="k must be"):  # also with a retriever given
        JoinAwareSQLToolkit(db=sql_database, k=0, retriever=_tool().retriever)
    for db in (None, "sqlite:///shop.db"):
        with pytest.raises(InvalidArgumentError, match="SQLDatabase"):
            JoinAwareSQLToolkit(db=db, retriever_options=options)
    with pytest.raises(InvalidArgumentError, match="SQLDatabase"):
        JoinAwareSQLToolkit(db=None, retriever=_tool().retriever)
    with pytest.raises(JarError, match="retriever_options"):
        JoinAwareSQLToolkit(db=sql_database, retriever_options=["embedder"])
    with pytest.raises(JarError, match="decomposer"):  # an error of the default retriever is not wrapped either
        JoinAwareSQLToolkit(db=sql_database, retriever_options={**options, "decomposer": "nope"})


def _load_example(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_create_agent_example_runs_end_to_end(embedder, monkeypatch) -> None:
    pytest.importorskip("langchain.agents")
    pytest.importorskip("langchain_community")
    import jar_core.embed.embedders as emb

    monkeypatch.setattr(emb, "_DEFAULT", embedder)  # reuse the session's model
    example = _load_example("langchain_agent")
    out = example.run_agent()
    assert sorted(out["rows"]) == sorted(out["gold"]) and len(out["rows"]) == 8
    assert set(out["find_tables"].artifact["join_plan"]["tables"]) == {"demo.books", "demo.book_categories", "demo.categories"}
    assert out["sql"].count(" JOIN ") == 2
    assert "Dune" in out["messages"][-1].content
    example.main()  # prints the conversation and checks the rows itself
