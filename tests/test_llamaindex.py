"""The LlamaIndex adapter, offline: MockLLM / MockEmbedding stand in for real models."""
from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import MockEmbedding, Settings, SQLDatabase  # noqa: E402
from llama_index.core.base.llms.types import CompletionResponse  # noqa: E402
from llama_index.core.llms import MockLLM  # noqa: E402
from llama_index.core.objects import ObjectRetriever  # noqa: E402
from llama_index.core.objects.table_node_mapping import SQLTableSchema  # noqa: E402
from llama_index.core.query_engine import SQLTableRetrieverQueryEngine  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode  # noqa: E402
from pydantic import Field  # noqa: E402
from sqlalchemy import create_engine  # noqa: E402

from jar_core.decompose.heuristic import HeuristicDecomposer  # noqa: E402
from jar_core.demo import DEMO_QUESTION, demo_url  # noqa: E402
from jar_core.output.documents import result_documents  # noqa: E402
from jar_core.errors import InvalidArgumentError, SchemaError, UnknownDatabaseError  # noqa: E402
from jar_core.retriever import TableRetriever  # noqa: E402
from llamaindex_jar import JoinAwareRetriever, LlamaIndexEmbeddings, LLMDecomposer  # noqa: E402

OTHER_QUESTION = "How many orders did each customer place?"
CONCEPTS = ["books:title", "authors:birthplace", "countries:name", "book_authors:author"]


class RecordingLLM(MockLLM):
    """MockLLM (echoes the prompt) that keeps every prompt it is given."""

    prompts: list[str] = Field(default_factory=list)

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return super().complete(prompt, formatted=formatted, **kwargs)


class AnswerLLM(MockLLM):
    """Answers every prompt with ``answer``; raises ``error`` instead when set."""

    answer: str = ""
    error: str | None = None
    prompts: list[str] = Field(default_factory=list)

    def __init__(self, answer: str = "", error: str | None = None) -> None:
        super().__init__()
        self.answer, self.error = answer, error

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        if self.error:
            raise RuntimeError(self.error)
        return CompletionResponse(text=self.answer)


@pytest.fixture(scope="module")
def sql_database() -> SQLDatabase:
    return SQLDatabase(create_engine(demo_url()))


@pytest.fixture(scope="module")
def retriever(demo_retriever, sql_database) -> JoinAwareRetriever:
    return JoinAwareRetriever.from_table_retriever(demo_retriever, k=4, sql_database=sql_database)


@pytest.fixture
def no_default_embed_model(monkeypatch):
    """NLSQLRetriever resolves Settings.embed_model (OpenAI by default) even if unused."""
    monkeypatch.setattr(Settings, "_embed_model", MockEmbedding(embed_dim=8))


def names(nodes: list[NodeWithScore]) -> list[str]:
    return [n.node.metadata["table"] for n in nodes]


# -- nodes -------------------------------------------------------------------------------


def test_nodes_carry_the_core_documents(retriever, demo_retriever):
    nodes = retriever.retrieve(DEMO_QUESTION)
    result = demo_retriever.retrieve(DEMO_QUESTION, k=4)
    docs = result_documents(result)
    assert len(nodes) == 4 and all(isinstance(n, NodeWithScore) and isinstance(n.node, TextNode) for n in nodes)
    assert names(nodes) == result.table_names
    for n, doc in zip(nodes, docs):
        md = dict(n.node.metadata)
        assert md.pop("name") == md["table"]
        md.pop("context")
        assert md.pop("description") is None  # no table_descriptions given
        assert md == doc.metadata
        assert n.node.text == doc.text and n.node.text.startswith("CREATE TABLE")
        assert n.score == pytest.approx(doc.score)
    assert [n.node.metadata["rank"] for n in nodes] == [1, 2, 3, 4]
    assert len({n.node.node_id for n in nodes}) == 4


def test_join_hint_in_context(retriever):
    nodes = retriever.retrieve(DEMO_QUESTION)
    md0 = nodes[0].node.metadata
    path = md0["join_path"]
    assert path.startswith("FROM") and " JOIN " in path
    assert path in md0["context"]
    for n in nodes:
        md = n.node.metadata
        for key in md["join_keys"]:
            assert set(key) >= {"left", "right", "score"}
            assert f"{key['left']} = {key['right']}" in md["context"]
    assert all(path not in n.node.metadata["context"] for n in nodes[1:])
    # the LLM sees the DDL and the join hint, not the numeric metadata; embeddings see the DDL only
    llm_text = nodes[0].node.get_content(MetadataMode.LLM)
    assert path in llm_text and "coverage" not in llm_text
    assert nodes[0].node.get_content(MetadataMode.EMBED) == nodes[0].node.text


# -- SQLTableRetrieverQueryEngine ----------------------------------------------------------


def test_object_retriever_maps_to_table_schemas(retriever, sql_database):
    obj = retriever.as_object_retriever()
    assert isinstance(obj, ObjectRetriever)
    tables = obj.retrieve(DEMO_QUESTION)
    assert all(isinstance(t, SQLTableSchema) for t in tables)
    assert [t.table_name for t in tables] == names(retriever.retrieve(DEMO_QUESTION))
    assert "Join path for all retrieved tables: FROM" in tables[0].context_str
    assert asyncio.run(obj.aretrieve(DEMO_QUESTION)) == tables


def test_query_engine_prompt_holds_tables_and_join_hint(retriever, sql_database, no_default_embed_model):
    llm = RecordingLLM()
    engine = SQLTableRetrieverQueryEngine(sql_database, retriever.as_object_retriever(), llm=llm, sql_only=True)
    response = engine.query(DEMO_QUESTION)
    assert "sql_query" in response.metadata
    prompt = next(p for p in llm.prompts if "SQLQuery:" in p and DEMO_QUESTION in p)
    nodes = retriever.retrieve(DEMO_QUESTION)
    for name in names(nodes):
        assert sql_database.get_single_table_info(name) in prompt
    others = set(sql_database.get_usable_table_names()) - set(names(nodes))
    assert others and not any(f"Table '{t}' has columns" in prompt for t in others)
    assert prompt.count("has columns") == len(nodes)
    assert nodes[0].node.metadata["join_path"] in prompt
    assert f"The table description is: {nodes[1].node.metadata['context']}" in prompt


def test_query_engine_async(retriever, sql_database, no_default_embed_model):
    llm = RecordingLLM()
    engine = SQLTableRetrieverQueryEngine(
        sql_database, retriever.with_k(2).as_object_retriever(), llm=llm, sql_only=True, synthesize_response=False
    )
    asyncio.run(engine.aquery(DEMO_QUESTION))
    (prompt,) = llm.prompts
    assert prompt.count("has columns") == 2


def test_as_object_retriever_checks_the_database(demo_retriever, sql_database):
    bare = JoinAwareRetriever.from_table_retriever(demo_retriever)
    with pytest.raises(InvalidArgumentError, match="SQLDatabase"):
        bare.as_object_retriever()
    partial = SQLDatabase(sql_database.engine, include_tables=["books", "authors"])
    with pytest.raises(InvalidArgumentError, match="not usable tables"):
        bare.as_object_retriever(partial)
    assert isinstance(bare.as_object_retriever(sql_database), ObjectRetriever)


def test_from_sql_database_uses_its_tables_and_samples(sql_database):
    db = SQLDatabase(sql_database.engine, include_tables=["books", "authors", "book_authors", "countries"])
    r = JoinAwareRetriever.from_sql_database(db, similarity_top_k=3, sample_rows=2)
    assert sorted(t.name for t in r.table_retriever.schema.tables) == ["authors", "book_authors", "books", "countries"]
    nodes = r.retrieve(DEMO_QUESTION)
    assert len(nodes) == 3
    assert all("2 example rows:" in n.node.text for n in nodes)
    assert r.as_object_retriever().retrieve(DEMO_QUESTION)  # its own SQLDatabase is the default


# -- k, sync / async / batch ---------------------------------------------------------------


def test_k_in_constructor_and_per_call(demo_retriever):
    assert len(JoinAwareRetriever.from_table_retriever(demo_retriever, k=2).retrieve(DEMO_QUESTION)) == 2
    r = JoinAwareRetriever.from_table_retriever(demo_retriever, similarity_top_k=3)
    assert r.k == 3 and len(r.retrieve(DEMO_QUESTION)) == 3
    assert len(r.retrieve_k(DEMO_QUESTION, 1)) == 1
    assert len(asyncio.run(r.aretrieve_k(DEMO_QUESTION, 5))) == 5
    assert len(r.with_k(4).retrieve(QueryBundle(DEMO_QUESTION))) == 4
    assert r.k == 3  # per-call k leaves the retriever alone
    assert JoinAwareRetriever.from_table_retriever(demo_retriever).k == 5
    with pytest.raises(InvalidArgumentError):
        JoinAwareRetriever.from_table_retriever(demo_retriever, k=2, similarity_top_k=3)
    with pytest.raises(InvalidArgumentError):
        JoinAwareRetriever.from_table_retriever(demo_retriever, k=0)
    with pytest.raises(InvalidArgumentError):
        r.retrieve_k(DEMO_QUESTION, -1)


def test_sync_async_and_batch_agree(retriever):
    sync = [names(retriever.retrieve(q)) for q in (DEMO_QUESTION, OTHER_QUESTION)]
    assert sync[0] != sync[1]
    assert names(asyncio.run(retriever.aretrieve(DEMO_QUESTION))) == sync[0]
    assert [names(ns) for ns in retriever.batch_retrieve([DEMO_QUESTION, OTHER_QUESTION])] == sync
    batch = asyncio.run(retriever.abatch_retrieve([DEMO_QUESTION, OTHER_QUESTION, DEMO_QUESTION]))
    assert [names(ns) for ns in batch] == [*sync, sync[0]]
    short = retriever.batch_retrieve([DEMO_QUESTION, OTHER_QUESTION], k=2)
    assert [names(ns) for ns in short] == [s[:2] for s in sync]
    assert asyncio.run(retriever.abatch_retrieve([])) == []


def test_include_exclude(demo_retriever):
    r = JoinAwareRetriever.from_table_retriever(demo_retriever, k=3, include=["countries"], exclude=["books"])
    got = names(r.retrieve(DEMO_QUESTION))
    assert got[0] == "countries" and "books" not in got and len(got) == 3
    assert r.retrieve(DEMO_QUESTION)[0].node.metadata["pinned"] is True
    with pytest.raises(UnknownDatabaseError):
        JoinAwareRetriever.from_table_retriever(demo_retriever, include=["no_such_table"])


def test_bad_inputs_raise_clear_errors(retriever, demo_retriever):
    with pytest.raises(SchemaError, match="no tables"):
        JoinAwareRetriever.from_ddl("SELECT 1; -- a corpus with no tables")
    with pytest.raises(InvalidArgumentError, match="empty"):
        retriever.retrieve("   ")
    with pytest.raises(InvalidArgumentError, match="sample_rows needs a live database"):
        JoinAwareRetriever.from_table_retriever(demo_retriever, sample_rows=3)
    with pytest.raises(InvalidArgumentError):
        JoinAwareRetriever(object())  # type: ignore[arg-type]


def test_from_ddl(embedder):
    ddl = """
    CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, city TEXT);
    CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT REFERENCES customers(id), total DECIMAL(10,2));
    CREATE TABLE warehouses (id INT PRIMARY KEY, location TEXT);
    """
    r = JoinAwareRetriever.from_ddl(ddl, dialect="postgres", k=2, embedder=embedder)
    nodes = r.retrieve("What is the total of the orders of customers in Paris?")
    assert sorted(names(nodes)) == ["customers", "orders"]
    keys = nodes[0].node.metadata["join_keys"]
    assert {(keys[0]["left"], keys[0]["right"])} <= {("orders.customer_id", "customers.id"),
                                                      ("customers.id", "orders.customer_id")}


def test_import_jar_core_does_not_import_llama_index():
    code = "import sys, jar_core; sys.exit(any(m.startswith('llama_index') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


# -- plug-ins ----------------------------------------------------------------------------


def test_llama_index_embed_model(demo_schema):
    r = JoinAwareRetriever.from_table_retriever(
        TableRetriever(demo_schema, embedder=LlamaIndexEmbeddings(MockEmbedding(embed_dim=64))), k=3
    )
    nodes = r.retrieve(DEMO_QUESTION)
    assert len(nodes) == 3
    assert r.table_retriever.index.table_vectors.shape[1] == 64
    assert "MockEmbedding" in r.table_retriever.embedder.name
    with pytest.raises(InvalidArgumentError):
        LlamaIndexEmbeddings(object())  # type: ignore[arg-type]


def test_embed_model_option():
    r = JoinAwareRetriever.from_database(demo_url(), embed_model=MockEmbedding(embed_dim=64), k=2, sample_rows=1)
    nodes = r.retrieve(DEMO_QUESTION)
    assert len(nodes) == 2 and all("1 example rows:" in n.node.text for n in nodes)
    assert r.table_retriever.index.table_vectors.shape[1] == 64
    with pytest.raises(InvalidArgumentError, match="not both"):
        JoinAwareRetriever.from_database(demo_url(), embed_model=MockEmbedding(embed_dim=8), embedder="x")


def _with_llm(demo_schema, demo_retriever, embedder, llm: MockLLM) -> JoinAwareRetriever:
    core = TableRetriever(demo_schema, embedder=embedder, decomposer=LLMDecomposer(llm), index=demo_retriever.index)
    return JoinAwareRetriever.from_table_retriever(core, k=4)


def test_llm_decomposer(demo_schema, demo_retriever, embedder):
    llm = AnswerLLM(answer='Sure! ```json\n["books:title", "authors:birthplace", "countries:name", '
                           '"book_authors:author"]\n```')
    r = _with_llm(demo_schema, demo_retriever, embedder, llm)
    nodes = r.retrieve(DEMO_QUESTION)
    md = nodes[0].node.metadata
    assert md["decomposer"] == "llm:MockLLM"
    assert md["subqueries"] == CONCEPTS
    assert len(llm.prompts) == 1 and DEMO_QUESTION in llm.prompts[0]
    # cached per question; the async path agrees
    assert names(asyncio.run(r.aretrieve(DEMO_QUESTION))) == names(nodes)
    assert len(llm.prompts) == 1
    assert r.retrieve_result(DEMO_QUESTION).subqueries == CONCEPTS


def test_llm_option_on_constructors():
    r = JoinAwareRetriever.from_ddl(
        "CREATE TABLE a (id INT PRIMARY KEY, x TEXT); CREATE TABLE b (id INT, a_id INT REFERENCES a(id));",
        llm=AnswerLLM(answer='["a:x", "b"]'), embed_model=MockEmbedding(embed_dim=16), k=2,
    )
    md = r.retrieve("x of b?")[0].node.metadata
    assert md["decomposer"] == "llm:MockLLM" and md["subqueries"] == ["a:x", "b"]
    with pytest.raises(InvalidArgumentError):
        LLMDecomposer(object())  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("llm", "reason"),
    [
        (AnswerLLM(answer="I'm sorry, I cannot help with that."), "unparseable answer"),
        (AnswerLLM(error="rate limited"), "error: RuntimeError: rate limited"),
    ],
    ids=["junk", "raises"],
)
def test_llm_decomposer_fallback(demo_schema, demo_retriever, embedder, llm, reason, caplog):
    r = _with_llm(demo_schema, demo_retriever, embedder, llm)
    with caplog.at_level(logging.WARNING):
        nodes = r.retrieve(DEMO_QUESTION)
    md = nodes[0].node.metadata
    assert md["decomposer"] == f"heuristic (fallback: {reason})"
    assert md["subqueries"] == list(HeuristicDecomposer().decompose(DEMO_QUESTION, demo_schema).subqueries)
    assert any("falling back" in rec.getMessage() for rec in caplog.records)
    assert names(nodes) == names(JoinAwareRetriever.from_table_retriever(demo_retriever, k=4).retrieve(DEMO_QUESTION))
    # async: acomplete goes through the same fallback
    assert asyncio.run(r.aretrieve(DEMO_QUESTION))[0].node.metadata["decomposer"].startswith("heuristic (fallback")


# -- your table descriptions, similarity_top_k, agent tools, persistence -------------


DESCRIPTIONS = {
    "books": "Every title the shop sells, one row per edition.",
    "book_categories": "Which category each book is filed under.",
}


def test_your_table_descriptions_are_kept_and_the_join_hint_appended(demo_retriever, sql_database,
                                                                     no_default_embed_model):
    objs = [SQLTableSchema(table_name=name, context_str=text) for name, text in DESCRIPTIONS.items()]
    r = JoinAwareRetriever.from_table_retriever(demo_retriever, k=3, sql_database=sql_database)
    llm = RecordingLLM()
    engine = SQLTableRetrieverQueryEngine(sql_database, r.as_object_retriever(table_schema_objs=objs), llm=llm,
                                          sql_only=True)
    engine.query(DEMO_QUESTION)
    prompt = next(p for p in llm.prompts if "SQLQuery:" in p and DEMO_QUESTION in p)
    contexts = {n.node.metadata["table"]: n.node.metadata["context"]
                for n in JoinAwareRetriever.from_table_retriever(demo_retriever, k=3, table_descriptions=DESCRIPTIONS)
                .retrieve(DEMO_QUESTION)}
    assert set(contexts) == {"books", "book_categories", "categories"}
    for table, context in contexts.items():
        assert f"The table description is: {context}" in prompt
    assert contexts["books"].startswith("Every title the shop sells, one row per edition. Joins the other retrieved tables on")
    assert contexts["book_categories"].startswith("Which category each book is filed under. Joins the other")
    # categories has no description of yours: the join hint alone, as before
    assert contexts["categories"].startswith("Joins the other retrieved tables on")
    assert r.table_descriptions == {}  # as_object_retriever(table_schema_objs=...) did not change r

    r2 = JoinAwareRetriever.from_table_retriever(demo_retriever, k=3, table_descriptions=DESCRIPTIONS)
    node = next(n.node for n in r2.retrieve(DEMO_QUESTION) if n.node.metadata["table"] == "books")
    assert node.metadata["description"] == DESCRIPTIONS["books"]
    assert node.metadata["context"].startswith(DESCRIPTIONS["books"] + " Joins the other retrieved tables")
    assert node.get_content(MetadataMode.LLM).startswith(f"context: {DESCRIPTIONS['books']}")


def test_descriptions_of_unknown_tables_are_logged_and_bad_ones_refused(demo_retriever, caplog):
    with caplog.at_level(logging.WARNING):
        r = JoinAwareRetriever(demo_retriever, table_descriptions={"books": "x", "a_view": "y"})
    assert r.table_descriptions == {"books": "x"} and "a_view" in caplog.text
    with pytest.raises(InvalidArgumentError):
        JoinAwareRetriever(demo_retriever, table_descriptions=["books"])


def test_similarity_top_k_is_the_k_alias(demo_retriever):
    r = JoinAwareRetriever.from_table_retriever(demo_retriever, similarity_top_k=2)
    assert r.k == r.similarity_top_k == 2 and len(r.retrieve(DEMO_QUESTION)) == 2
    r.similarity_top_k = 3
    assert len(r.retrieve(DEMO_QUESTION)) == 3
    with pytest.raises(InvalidArgumentError):
        r.similarity_top_k = 0


def test_function_tool_and_retriever_tool(demo_retriever):
    from llama_index.core.tools import RetrieverTool

    r = JoinAwareRetriever.from_table_retriever(demo_retriever, similarity_top_k=3)
    tool = r.as_tool()
    assert tool.metadata.name == "find_tables" and "join path" in tool.metadata.description
    params = tool.metadata.get_parameters_dict()
    assert params["required"] == ["question"] and params["properties"]["question"]["description"]
    out = tool.call(question=DEMO_QUESTION)
    path = r.retrieve_result(DEMO_QUESTION).join_clause()
    assert out.content.count("CREATE TABLE") == 3 and path in out.content
    assert asyncio.run(tool.acall(question=DEMO_QUESTION, k=2)).content.count("CREATE TABLE") == 2
    text = RetrieverTool.from_defaults(retriever=r, name="tables").call(DEMO_QUESTION).content
    assert path in text and text.count("CREATE TABLE") == 3  # nodes show the join hint to LLMs


def test_persist_and_from_persist_dir(demo_retriever, tmp_path):
    from jar_core.errors import IndexLoadError
    from jar_core.strategies import GreedyStrategy

    core = TableRetriever(demo_retriever.schema, embedder=demo_retriever.embedder, index=demo_retriever.index,
                          strategy=GreedyStrategy(1.0, 2.0, 3.0), candidates=10, min_join_score=0.6)
    r = JoinAwareRetriever.from_table_retriever(core, similarity_top_k=3, exclude=["reviews"],
                                                table_descriptions=DESCRIPTIONS)
    assert r.persist(tmp_path / "store") == tmp_path / "store"
    assert sorted(p.name for p in (tmp_path / "store").iterdir()) == ["index", "jar_retriever.json"]
    loaded = JoinAwareRetriever.from_persist_dir(tmp_path / "store", embedder=demo_retriever.embedder)
    assert (loaded.k, loaded.exclude, loaded.table_descriptions) == (3, ["reviews"], DESCRIPTIONS)
    c = loaded.table_retriever
    assert (c.strategy.l_cov, c.strategy.l_join, c.strategy.l_coarse) == (1.0, 2.0, 3.0)
    assert (c.n_candidates, c.min_join_score) == (10, 0.6)
    assert names(loaded.retrieve(DEMO_QUESTION)) == names(r.retrieve(DEMO_QUESTION))
    again = JoinAwareRetriever.from_persist_dir(tmp_path / "store", embedder=demo_retriever.embedder,
                                                similarity_top_k=2, exclude=[])
    assert again.k == 2 and again.exclude == []
    with pytest.raises(IndexLoadError, match="jar_retriever.json is missing"):
        JoinAwareRetriever.from_persist_dir(tmp_path / "nothing")


def test_persist_keeps_the_default_search_s_weights_and_options(demo_retriever, tmp_path):
    # the join-aware search's weights and the search options were not saved: lost on reload
    from jar_core.errors import IndexSaveError
    from jar_core.strategies import JoinAwareStrategy
    from llamaindex_jar.retrievers import _NOT_PERSISTED

    core = TableRetriever(demo_retriever.schema, embedder=demo_retriever.embedder, index=demo_retriever.index,
                          strategy=JoinAwareStrategy(1.0, 2.0, 3.0, l_family=0.1, bridges=False, lookahead=True), expand=3,
                          match_values=False, lexical=0.2, lexical_relevance=0.3, hubness=0.4, expand_seeds=2,
                          collapse_copies=False, candidates=7, min_join_score=0.5, cross_database_joins=True)
    JoinAwareRetriever.from_table_retriever(core).persist(tmp_path / "store")
    c = JoinAwareRetriever.from_persist_dir(tmp_path / "store", embedder=demo_retriever.embedder).table_retriever
    # every option but the objects comes back as set (the saved list is derived from options())
    plain = {key: v for key, v in core.options().items() if key not in _NOT_PERSISTED}
    assert {key: c.options()[key] for key in plain} == plain
    assert (c.n_candidates, c.min_join_score, c.cross_database_joins) == (7, 0.5, True)
    s = c.strategy
    assert (s.name, s.l_cov, s.l_join, s.l_coarse, s.l_family, s.bridges) == ("join-aware", 1.0, 2.0, 3.0, 0.1, False)
    assert s.lookahead is True  # set apart from bridges, kept apart
    assert (c.expand, c.match_values, c.lexical, c.lexical_relevance, c.hubness) == (3, False, 0.2, 0.3, 0.4)
    assert (c.expand_seeds, c.collapse_copies) == (2, False)
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    with pytest.raises(IndexSaveError):
        JoinAwareRetriever.from_table_retriever(core).persist(f)
    assert f.read_text() == "keep me"


def test_agent_and_workflow_example_runs(embedder, monkeypatch):
    import importlib.util
    from pathlib import Path

    import jar_core.embed.embedders as emb

    monkeypatch.setattr(emb, "_DEFAULT", embedder)
    path = Path(__file__).resolve().parents[1] / "examples" / "llamaindex_agent.py"
    spec = importlib.util.spec_from_file_location("example_llamaindex_agent", path)
    example = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = example
    spec.loader.exec_module(example)
    r = JoinAwareRetriever.from_database(demo_url(), similarity_top_k=3)
    gold = example.run_sql(example.DEMO_GOLD_SQL)
    out = asyncio.run(example.run_agent(r))
    assert out["rows"] == gold and "Dune" in out["answer"] and "-- Join path connecting these tables:" in out["tables_text"]
    flow = asyncio.run(example.run_workflow(r))
    assert flow["rows"] == gold and set(flow["tables"]) == {"books", "book_categories", "categories"}
