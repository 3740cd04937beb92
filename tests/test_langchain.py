"""The LangChain adapter, offline: LangChain's fake chat models stand in for real LLMs."""
from __future__ import annotations

import asyncio
import subprocess
import sys
import warnings
from typing import Any

import pytest

pytest.importorskip("langchain_core")

import sqlalchemy as sa  # noqa: E402
from langchain_core.callbacks import BaseCallbackHandler  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings  # noqa: E402
from langchain_core.language_models.fake_chat_models import FakeListChatModel  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate  # noqa: E402
from langchain_core.runnables import RunnableLambda, RunnablePassthrough  # noqa: E402

from jar_core.demo import demo_url  # noqa: E402
from jar_core.errors import InvalidArgumentError, SchemaError  # noqa: E402
from jar_core.output.result import RetrievalResult  # noqa: E402
from langchain_jar import (  # noqa: E402
    ChatModelDecomposer,
    JoinAwareRetriever,
    format_tables,
    narrow_sql_database,
    sql_table_names,
    table_info,
)

# our own question over the bundled demo database (independent of jar_core.demo's QUESTION)
QUESTION = "Which books were written by authors born in Ireland?"
GOLD_SQL = """\
SELECT DISTINCT b.title, a.full_name
FROM books AS b
JOIN book_authors AS ba ON ba.book_id = b.book_id
JOIN authors AS a ON a.author_id = ba.author_id
JOIN countries AS c ON c.country_id = a.birthplace
WHERE c.name = 'Ireland'
ORDER BY a.full_name, b.title"""
CONCEPTS = '["books:title", "authors:birthplace", "countries:name", "book_authors"]'
EXPECTED_ROWS = [
    ("Dracula", "Bram Stoker"),
    ("Dubliners", "James Joyce"),
    ("Ulysses", "James Joyce"),
    ("The Importance of Being Earnest", "Oscar Wilde"),
    ("The Picture of Dorian Gray", "Oscar Wilde"),
    ("Conversations with Friends", "Sally Rooney"),
    ("Normal People", "Sally Rooney"),
    ("Waiting for Godot", "Samuel Beckett"),
]
QUESTIONS = [QUESTION, "Which customers placed orders shipped by each shipper?", "Average rating of reviews per book"]


class Recorder(BaseCallbackHandler):
    """Records retriever runs and what chat models were sent."""

    def __init__(self) -> None:
        self.retriever_starts: list[tuple[str, Any]] = []
        self.retriever_ends: list[list[Document]] = []
        self.chat_starts: list[tuple[list[Any], Any]] = []

    def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self.retriever_starts.append((query, run_id))

    def on_retriever_end(self, documents, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self.retriever_ends.append(list(documents))

    def on_chat_model_start(self, serialized, messages, *, run_id, parent_run_id=None, **kwargs):  # type: ignore[override]
        self.chat_starts.append((messages, parent_run_id))


@pytest.fixture(scope="module")
def lc_retriever(demo_retriever) -> JoinAwareRetriever:
    return JoinAwareRetriever.from_table_retriever(demo_retriever, k=4)


def _names(docs: list[Document]) -> list[str]:
    return [d.metadata["table"] for d in docs]


# -- LCEL ------------------------------------------------------------------------------------


def test_lcel_text_to_sql_chain(lc_retriever: JoinAwareRetriever) -> None:
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "Write one SQLite query answering the question. Use only these tables:\n\n{schema}"),
            ("human", "{question}"),
        ]
    )
    llm = FakeListChatModel(responses=[f"```sql\n{GOLD_SQL}\n```"])
    strip_fence = RunnableLambda(lambda s: s.strip().removeprefix("```sql").removesuffix("```").strip())
    chain = (
        {"schema": lc_retriever | format_tables, "question": RunnablePassthrough()}
        | prompt | llm | StrOutputParser() | strip_fence
    )
    rec = Recorder()
    sql = chain.invoke(QUESTION, config={"callbacks": [rec]})

    engine = sa.create_engine(demo_url())
    try:
        with engine.connect() as conn:
            rows = [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()
    assert rows == EXPECTED_ROWS

    # the model saw exactly the retrieved tables' DDL and the join hint
    assert len(rec.retriever_starts) == 1 and len(rec.chat_starts) == 1
    docs = rec.retriever_ends[0]
    assert len(docs) == 4
    (messages,) = rec.chat_starts[0][0]
    system, human = messages
    assert human.content == QUESTION
    text = system.content
    for d in docs:
        assert d.page_content in text
    assert text.count("CREATE TABLE") == len(docs)
    selected = set(_names(docs))
    for t in lc_retriever.retriever.schema.tables:
        if t.name not in selected:
            assert f'CREATE TABLE "{t.name}"' not in text
    join_path = docs[0].metadata["join_path"]
    assert join_path.startswith("FROM ") and " JOIN " in join_path and join_path in text


def test_documents_and_metadata(lc_retriever: JoinAwareRetriever) -> None:
    docs = lc_retriever.invoke(QUESTION)
    result = lc_retriever.retrieve_result(QUESTION)
    assert _names(docs) == result.table_names  # selection order
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3, 4]
    by_name = {t.name: t for t in result.tables}
    for d in docs:
        m = d.metadata
        assert d.page_content.startswith(f'CREATE TABLE "{m["table"]}"')
        assert m["database"] == "demo" and m["table_id"] == f"demo.{m['table']}" and d.id == m["table_id"]
        t = by_name[m["table"]]
        assert m["score"] == pytest.approx(t.score, abs=1e-5)
        for key in ("coarse", "coverage", "join"):
            assert m[key] == pytest.approx(getattr(t, key), abs=1e-5)
        assert m["join_path"] == result.join_clause()
        for edge in m["join_keys"]:
            assert m["table"] in (edge["left"].split(".")[0], edge["right"].split(".")[0])
            assert set(edge) >= {"left", "right", "score"}
    # every join edge of the result shows up on both of its tables
    edges = {(e.left, e.right) for e in result.joins}
    assert edges and edges == {(k["left"], k["right"]) for d in docs for k in d.metadata["join_keys"]}
    assert lc_retriever.table_names(QUESTION, k=2) == result.table_names[:2]


# -- k, sync / async / batch -------------------------------------------------------------------


def test_k_in_constructor_and_per_call(demo_retriever) -> None:
    r3 = JoinAwareRetriever.from_table_retriever(demo_retriever, k=3)
    three = r3.invoke(QUESTION)
    assert len(three) == 3
    two = r3.invoke(QUESTION, k=2)
    assert _names(two) == _names(three)[:2]
    assert len(r3.invoke(QUESTION)) == 3  # the per-call k did not stick
    assert len(r3.batch(QUESTIONS[:2], k=1)) == 2 and all(len(d) == 1 for d in r3.batch(QUESTIONS[:2], k=1))
    with pytest.raises(InvalidArgumentError, match="k must be >= 1"):
        r3.invoke(QUESTION, k=0)
    with pytest.raises(InvalidArgumentError, match="k must be >= 1"):
        JoinAwareRetriever.from_table_retriever(demo_retriever, k=0)
    with pytest.raises(TypeError, match="unexpected retrieval arguments: top_n"):
        r3.invoke(QUESTION, top_n=2)


def test_include_exclude_per_call(lc_retriever: JoinAwareRetriever) -> None:
    docs = lc_retriever.invoke(QUESTION, include=["countries"], exclude=["publishers"])
    names = _names(docs)
    assert names[0] == "countries" and "publishers" not in names and docs[0].metadata["pinned"] is True


def test_sync_async_batch_agree(lc_retriever: JoinAwareRetriever) -> None:
    sync = [lc_retriever.invoke(q) for q in QUESTIONS]

    async def run() -> tuple[list[Document], list[list[Document]], list[Document]]:
        one = await lc_retriever.ainvoke(QUESTIONS[0])
        many = await lc_retriever.abatch(QUESTIONS)
        small = await lc_retriever.ainvoke(QUESTIONS[1], k=2)
        return one, many, small

    one, many, small = asyncio.run(run())
    assert one == sync[0]
    assert many == sync
    assert lc_retriever.batch(QUESTIONS) == sync
    assert _names(small) == _names(sync[1])[:2]


def test_concurrent_batch_is_safe(lc_retriever: JoinAwareRetriever) -> None:
    # batch runs invoke in a thread pool; the shared embedding model must not be hit concurrently
    questions = [f"{q} ({i})" for i in range(4) for q in QUESTIONS]
    sequential = [lc_retriever.invoke(q) for q in questions]
    assert lc_retriever.batch(questions, config={"max_concurrency": 8}) == sequential


def test_one_retriever_run_per_question(lc_retriever: JoinAwareRetriever) -> None:
    rec = Recorder()
    lc_retriever.invoke(QUESTIONS[0], config={"callbacks": [rec]})
    assert [q for q, _ in rec.retriever_starts] == [QUESTIONS[0]]
    rec = Recorder()
    lc_retriever.batch(QUESTIONS, config={"callbacks": [rec]})
    assert sorted(q for q, _ in rec.retriever_starts) == sorted(QUESTIONS)
    assert len(rec.retriever_ends) == len(QUESTIONS)
    rec = Recorder()
    asyncio.run(lc_retriever.abatch(QUESTIONS[:2], config={"callbacks": [rec]}))
    assert sorted(q for q, _ in rec.retriever_starts) == sorted(QUESTIONS[:2])


def test_empty_question_is_a_clear_error(lc_retriever: JoinAwareRetriever) -> None:
    with pytest.raises(InvalidArgumentError, match="the question is empty"):
        lc_retriever.invoke("   ")


# -- sources -----------------------------------------------------------------------------------


def test_ddl_without_tables_is_a_clear_error(embedder) -> None:
    with pytest.raises(SchemaError, match="no CREATE TABLE"):
        JoinAwareRetriever.from_ddl("-- nothing to see\nSELECT 1;", embedder=embedder)


def test_from_ddl_dialect(embedder) -> None:
    ddl = """
    CREATE TABLE customers (id INT PRIMARY KEY, name VARCHAR(80), city VARCHAR(80));
    CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT REFERENCES customers(id), total DECIMAL(10,2));
    CREATE TABLE products (id INT PRIMARY KEY, label VARCHAR(80));
    """
    r = JoinAwareRetriever.from_ddl(ddl, dialect="mysql", embedder=embedder, k=2)
    docs = r.invoke("Total of the orders of customers living in Paris")
    assert sorted(_names(docs)) == ["customers", "orders"]
    assert all(d.page_content.startswith("CREATE TABLE `") for d in docs)  # MySQL quoting
    assert {(k["left"], k["right"]) for k in docs[0].metadata["join_keys"]} in (
        {("orders.customer_id", "customers.id")}, {("customers.id", "orders.customer_id")})


def test_from_database_with_sample_rows(demo_retriever, embedder) -> None:
    # demo_retriever's caching embedder has seen these tables: the index builds without re-encoding
    r = JoinAwareRetriever.from_database(demo_url(), embedder=demo_retriever.embedder, k=2, sample_rows=2)
    docs = r.invoke(QUESTION)
    assert len(docs) == 2
    for d in docs:
        ddl, _, rows = d.page_content.partition("\n/*\n")
        assert ddl.startswith("CREATE TABLE") and rows.startswith("2 example rows:")
        assert len(rows.strip().removesuffix("*/").strip().splitlines()) == 1 + 1 + 2  # title, header, 2 rows
    with pytest.raises(InvalidArgumentError, match="sample_rows needs a database"):
        JoinAwareRetriever.from_ddl("CREATE TABLE a (id INT);", embedder=embedder, sample_rows=2)


def test_from_index(tmp_path, demo_retriever, embedder) -> None:
    path = demo_retriever.save_index(tmp_path / "demo.idx")
    r = JoinAwareRetriever.from_index(path, embedder=embedder, k=3, engine=demo_url(), sample_rows=1)
    docs = r.invoke(QUESTION)
    assert _names(docs) == demo_retriever.retrieve(QUESTION, k=3).table_names
    assert all("1 example rows:" in d.page_content for d in docs)


# -- plug-ins ----------------------------------------------------------------------------------


class CountingEmbeddings(Embeddings):
    def __init__(self) -> None:
        self.inner = DeterministicFakeEmbedding(size=64)
        self.documents = 0
        self.queries = 0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.documents += len(texts)
        return self.inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        self.queries += 1
        return self.inner.embed_query(text)


def test_langchain_embeddings_plugin(demo_retriever) -> None:
    emb = CountingEmbeddings()
    r = JoinAwareRetriever.from_table_retriever(demo_retriever, embeddings=emb, k=3)
    assert r.retriever is not demo_retriever
    docs = r.invoke(QUESTION)
    assert len(docs) == 3
    assert r.retriever.index.model_name == "CountingEmbeddings"
    assert r.retriever.index.table_vectors.shape[1] == 64
    assert emb.documents > 0 and emb.queries > 0
    assert demo_retriever.index.model_name != "CountingEmbeddings"  # the shared retriever is untouched


def test_chat_model_decomposer_plugin(demo_retriever) -> None:
    llm = FakeListChatModel(responses=[f"Here are the concepts:\n```json\n{CONCEPTS}\n```"])
    r = JoinAwareRetriever.from_table_retriever(demo_retriever, llm=llm, k=5)
    assert demo_retriever.decomposer.name == "heuristic"
    rec = Recorder()
    docs = r.invoke(QUESTION, config={"callbacks": [rec]})
    assert docs[0].metadata["decomposer"] == "llm:fake-list-chat-model"
    assert docs[0].metadata["subqueries"] == ["books:title", "authors:birthplace", "countries:name", "book_authors"]
    assert {"authors", "book_authors", "books", "countries"} <= set(_names(docs))
    # the decomposition is one chat-model run nested under the single retriever run
    assert len(rec.retriever_starts) == 1 and len(rec.chat_starts) == 1
    assert rec.chat_starts[0][1] == rec.retriever_starts[0][1]
    assert QUESTION in rec.chat_starts[0][0][0][0].content
    # cached: the fake model (which would cycle to the same answer) is not asked again
    rec = Recorder()
    r.invoke(QUESTION, config={"callbacks": [rec]})
    assert rec.chat_starts == []


def test_chat_model_decomposer_fallbacks(demo_retriever, caplog: pytest.LogCaptureFixture) -> None:
    junk = JoinAwareRetriever.from_table_retriever(
        demo_retriever, llm=FakeListChatModel(responses=["I'm sorry, I cannot do that."]), k=2)
    with caplog.at_level("WARNING", logger="jar_core.decompose.llm"):
        docs = junk.invoke(QUESTION)
    assert docs[0].metadata["decomposer"] == "heuristic (fallback: unparseable answer)"
    assert docs[0].metadata["subqueries"] == list(demo_retriever.decompose(QUESTION).subqueries)
    assert "llm:fake-list-chat-model" in caplog.text

    slow = ChatModelDecomposer(FakeListChatModel(responses=[CONCEPTS], sleep=1.0), timeout=0.2)
    assert slow.decompose(QUESTION).source == "heuristic (fallback: timeout after 0.2s)"

    def boom(_: Any) -> str:
        raise ConnectionError("no route to host")

    broken = ChatModelDecomposer(RunnableLambda(boom), name="llm:broken")
    r = JoinAwareRetriever.from_table_retriever(demo_retriever, decomposer=broken, k=2)
    assert r.invoke(QUESTION)[0].metadata["decomposer"] == (
        "heuristic (fallback: error: ConnectionError: no route to host)")


def test_chat_model_decomposer_content_blocks() -> None:
    from langchain_core.messages import AIMessage

    blocky = RunnableLambda(lambda _: AIMessage(content=[{"type": "text", "text": '["books", '},
                                                         {"type": "text", "text": '"authors"]'}]))
    dec = ChatModelDecomposer(blocky, name="llm:blocks")
    assert dec.decompose(QUESTION).subqueries == ("books", "authors")
    with pytest.raises(TypeError, match="no invoke method"):
        ChatModelDecomposer(object())
    with pytest.raises(InvalidArgumentError, match="either llm= or decomposer="):
        JoinAwareRetriever.from_ddl("CREATE TABLE a (id INT);", llm=blocky, decomposer=dec)


# -- SQLDatabase -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sql_database():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        sql_db = pytest.importorskip("langchain_community.utilities.sql_database")
    return sql_db.SQLDatabase.from_uri(demo_url())


def test_sql_database_helpers(lc_retriever: JoinAwareRetriever, sql_database) -> None:
    docs = lc_retriever.invoke(QUESTION)
    names = sql_table_names(docs)
    assert names == _names(docs) == sql_table_names(lc_retriever.retrieve_result(QUESTION))
    info = table_info(sql_database, docs)
    assert sorted(line.split()[2] for line in info.splitlines() if line.startswith("CREATE TABLE")) == sorted(names)
    assert info == sql_database.get_table_info(table_names=names)
    narrow = narrow_sql_database(sql_database, docs)
    assert sorted(narrow.get_usable_table_names()) == sorted(names)
    assert len(sql_database.get_usable_table_names()) == 13  # the original is untouched
    with pytest.raises(InvalidArgumentError):
        sql_table_names([42])  # type: ignore[list-item]


def test_from_sql_database(sql_database, demo_retriever) -> None:
    from langchain_community.utilities.sql_database import SQLDatabase

    small = SQLDatabase(sql_database._engine, include_tables=["authors", "books", "book_authors", "countries"])
    r = JoinAwareRetriever.from_sql_database(small, embedder=demo_retriever.embedder, k=4)
    assert {t.name for t in r.retriever.schema.tables} == {"authors", "books", "book_authors", "countries"}
    assert sorted(r.table_names(QUESTION)) == ["authors", "book_authors", "books", "countries"]
    assert isinstance(r.retrieve_result(QUESTION), RetrievalResult)


def test_import_jar_core_imports_no_framework() -> None:
    code = ("import sys, jar_core, jar_core.decompose.llm, jar_core.output.render, jar_core.cli.mcp, jar_core.cli.main; "
            "assert not [m for m in sys.modules if m.startswith(('langchain', 'llama_index', 'mcp', 'duckdb'))]")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- no password in repr / str / model_dump; a string as one table name ---------------


def _tiny_core():
    from jar_core.retriever import TableRetriever

    return TableRetriever.from_ddl(
        "CREATE TABLE books (id INT PRIMARY KEY, title TEXT);"
        "CREATE TABLE authors (id INT PRIMARY KEY, book_id INT REFERENCES books(id), name TEXT);",
        embedder=DeterministicFakeEmbedding(size=16),
    )


@pytest.mark.parametrize("make", [str, sa.engine.make_url, sa.create_engine])
def test_the_retriever_never_shows_the_database_password(make) -> None:
    url = "sqlite:///file:nowhere.db?uri=true&password=s3cretQ&api_key=t0kenQ"
    if make is sa.create_engine:
        # psycopg (3), the driver of the extras; create_engine does not connect
        url = "postgresql+psycopg://user:s3cretQ@db.example:5432/shop?sslpassword=t0kenQ"
        pytest.importorskip("psycopg")
    elif make is str:
        url = "postgresql://user:s3cretQ@db.example:5432/shop?sslpassword=t0kenQ"
    r = JoinAwareRetriever(retriever=_tiny_core(), engine=make(url))
    shown = [repr(r), str(r), repr(r.model_dump())]
    for text in shown:
        assert "s3cretQ" not in text and "t0kenQ" not in text
    assert "***" in shown[0] and "***" in shown[2]


def test_include_takes_one_string_as_one_name() -> None:
    r = JoinAwareRetriever(retriever=_tiny_core(), include="books", k=2)
    assert r.include == ["books"]
    assert r.table_names("authors of books")[0] == "books"
    assert r.table_names("authors of books", include="authors")[0] == "authors"


def test_from_table_retriever_keeps_every_other_core_option():
    from helpers import BagOfWordsEmbedder

    from jar_core.retriever import TableRetriever
    from langchain_jar import JoinAwareRetriever

    core = TableRetriever.from_ddl("CREATE TABLE a (id INT PRIMARY KEY); CREATE TABLE b (a_id INT);",
                                   embedder=BagOfWordsEmbedder(), lexical=0.0, expand=3, min_join_score=0.7,
                                   match_values=False, collapse_copies=False)
    wrapped = JoinAwareRetriever.from_table_retriever(core, candidates=7)
    sib = wrapped.retriever
    assert sib is not core and sib.n_candidates == 7 and sib.index is core.index
    assert (sib.lexical, sib.expand, sib.min_join_score, sib.match_values, sib.collapse_copies) == (0.0, 3, 0.7, False, False)
    with pytest.raises(TypeError, match="unexpected options: nonsense"):
        JoinAwareRetriever.from_table_retriever(core, nonsense=1)
