"""LangChain's PGVector on a real PostgreSQL server with pgvector, as the first stage
(``make test-integration``; not in ``make test``).

The server is started for the test on 127.0.0.1 in a temporary directory and stopped by its pid
(tests/pg_server.py): pgserver's PostgreSQL 16 with pgvector (the pgserver package, in the test
extra that ``make install`` installs), or a system server with the vector extension. Without
either, or without langchain-postgres, the tests skip and say why.
"""
from __future__ import annotations

import numpy as np
import pytest

from helpers import SHOP, BagOfWordsEmbedder, assert_same_top_n, lake
from pg_server import PGVECTOR_HOWTO, PostgresServer, find_pgvector_bin_dir, start_or_skip

pytestmark = pytest.mark.integration

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'jar-retrieval[pgvector]')")
pytest.importorskip("langchain_postgres", reason="langchain-postgres is not installed (pip install 'jar-retrieval[pgvector]')")

from langchain_postgres import PGVector  # noqa: E402

from jar_core.errors import StaleStoreError  # noqa: E402
from jar_core.loaders import load_ddl  # noqa: E402
from jar_core.retriever import TableRetriever  # noqa: E402
from langchain_jar import JoinAwareRetriever, TableEmbeddings, VectorStoreCandidates  # noqa: E402

QUESTION = "Which customers ordered products with five star reviews?"


@pytest.fixture(scope="module")
def server():
    srv = start_or_skip(find_pgvector_bin_dir(), PGVECTOR_HOWTO)
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def retriever() -> TableRetriever:
    r = TableRetriever(lake(), embedder=BagOfWordsEmbedder(), lexical=0.0)
    r.index
    return r


class CountingPGVector(PGVector):
    """PGVector that records the k and filter of each search."""

    def similarity_search_by_vector(self, embedding, k=4, filter=None, **kwargs):  # noqa: A002
        self.__dict__.setdefault("seen", []).append((k, filter))
        return super().similarity_search_by_vector(embedding, k=k, filter=filter, **kwargs)


def pgvector(server: PostgresServer, retriever: TableRetriever, collection: str, cls=PGVector) -> PGVector:
    return cls(embeddings=TableEmbeddings(retriever), connection=server.url, collection_name=collection,
               use_jsonb=True, pre_delete_collection=True)


@pytest.fixture(scope="module")
def lake_store(server, retriever) -> CountingPGVector:
    # one collection for the lake: PGVector's document ids are unique across its collections
    store = pgvector(server, retriever, "lake", CountingPGVector)
    assert VectorStoreCandidates(store).add_tables(retriever, batch_size=7) == len(retriever.schema)
    return store


def test_pgvector_gives_the_brute_force_top_n(server, retriever, lake_store):
    store = lake_store
    cands = VectorStoreCandidates(store)
    with psycopg.connect(f"host=127.0.0.1 port={server.port} user=postgres dbname=postgres") as conn:
        version = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()[0]
        stored = conn.execute("SELECT e.id, e.embedding::text FROM langchain_pg_embedding e JOIN langchain_pg_collection c "
                              "ON c.uuid = e.collection_id WHERE c.name = 'lake' ORDER BY e.id").fetchall()
    print(f"pgvector {version}; {len(stored)} tables in the collection")
    assert len(stored) == len(retriever.schema)
    index = retriever.index
    for table_id, text in stored:  # the index's own vectors (float4 in the server: exact for float32)
        vec = np.array([float(x) for x in text.strip("[]").split(",")], dtype=np.float32)
        np.testing.assert_array_equal(vec, index.table_vectors[index.schema.position(table_id)])
    assert_same_top_n(cands, index, queries=10)
    filters = [f for _, f in store.seen]
    assert None in filters
    assert {"database": "shop1"} in filters and {"database": {"$in": ["shop0", "shop2"]}} in filters


def test_pgvector_through_table_retriever_with_a_database_filter_and_exclusions(retriever, lake_store):
    store = lake_store
    cands = VectorStoreCandidates(store)
    served = TableRetriever(retriever.schema, embedder=retriever.embedder, index=retriever.index, lexical=0.0,
                            candidate_generator=cands)
    for options in ({}, {"database": "shop2"}, {"exclude": ["shop0.orders", "shop1.customers"]},
                    {"database": "shop1", "exclude": ["shop1.products", "shop1.orders"]},
                    {"database": "shop3", "exclude": ["shop3.products"], "include": ["shop3.reviews"]}):
        store.seen = []
        want = retriever.retrieve(QUESTION, k=3, **options)
        got = served.retrieve(QUESTION, k=3, **options)
        assert got.table_ids == want.table_ids, options
        assert [t.score for t in got.tables] == pytest.approx([t.score for t in want.tables], abs=1e-6)
        if "database" in options:  # the database filter went to the server, and one query sufficed
            assert store.seen == [(store.seen[0][0], {"database": options["database"]})], store.seen
    lc = JoinAwareRetriever.from_table_retriever(served, k=3, database="shop2", exclude=["shop2.reviews"])
    assert [d.metadata["table_id"] for d in lc.invoke(QUESTION)] == retriever.retrieve(
        QUESTION, k=3, database="shop2", exclude=["shop2.reviews"]).table_ids


def test_pgvector_holding_another_schema_is_an_error(server, retriever):
    other = TableRetriever(load_ddl(SHOP), embedder=BagOfWordsEmbedder())
    stale = VectorStoreCandidates(pgvector(server, other, "other"))
    stale.add_tables(other)
    q = retriever.index.table_vectors[0]
    with pytest.raises(StaleStoreError, match="not a table of the index"):
        stale.search(retriever.index, q, 3, np.ones(len(retriever.schema), dtype=bool))
    empty = VectorStoreCandidates(pgvector(server, retriever, "empty"))
    with pytest.raises(StaleStoreError, match="no tables"):
        empty.search(retriever.index, q, 3, np.ones(len(retriever.schema), dtype=bool))


def test_the_docs_pgvector_example_runs(server, embedder, monkeypatch, capsys):
    """docs/langchain.md's PGVector example, against this server, prints the tables it shows."""
    import re
    from pathlib import Path

    import jar_core.embed.embedders as emb

    page = (Path(__file__).resolve().parents[1] / "docs" / "langchain.md").read_text()
    code = next(c for c in re.findall(r"```python\n(.*?)```", page, re.S) if "PGVector(" in c)
    shown = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
    assert shown in code
    monkeypatch.setattr(emb, "_DEFAULT", embedder)
    exec(compile(code.replace(shown, server.url), "docs/langchain.md PGVector example", "exec"), {"__name__": "docs"})
    printed = capsys.readouterr().out.strip().splitlines()[-1]
    assert printed == re.search(r"print\(result.table_names\)  # (.*)", code).group(1)
