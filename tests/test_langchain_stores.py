"""langchain_jar.VectorStoreCandidates: a LangChain VectorStore as the first stage (PGVector is in
test_pgvector_integration)."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("langchain_core")

from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402

from helpers import SHOP, BagOfWordsEmbedder, assert_same_top_n, lake  # noqa: E402
from jar_core.errors import InvalidArgumentError, StaleStoreError  # noqa: E402
from jar_core.loaders import load_ddl  # noqa: E402
from jar_core.retriever import TableRetriever  # noqa: E402
from langchain_jar import JoinAwareRetriever, TableEmbeddings, VectorStoreCandidates  # noqa: E402

QUESTION = "Which customers ordered products with five star reviews?"


class DictFilterStore(InMemoryVectorStore):
    """An in-memory store that takes vectors (``add_embeddings``) and dict filters, as PGVector does."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.filters: list[Any] = []

    def add_embeddings(self, texts, embeddings, metadatas=None, ids=None, **kwargs):
        for text, vector, meta, id_ in zip(texts, embeddings, metadatas, ids):
            self.store[id_] = {"id": id_, "vector": vector, "text": text, "metadata": meta}
        return list(ids)

    def similarity_search_by_vector(self, embedding, k=4, filter=None, **kwargs):  # noqa: A002
        self.filters.append(filter)
        if filter is None:
            return super().similarity_search_by_vector(embedding, k)
        want = filter["database"]
        names = set(want["$in"]) if isinstance(want, dict) else {want}
        return super().similarity_search_by_vector(embedding, k, filter=lambda d: d.metadata["database"] in names)


@pytest.fixture(scope="module")
def retriever() -> TableRetriever:
    r = TableRetriever(lake(), embedder=BagOfWordsEmbedder(), lexical=0.0)
    r.index
    return r


def test_in_memory_store_holds_the_index_vectors_and_gives_the_brute_force_top_n(retriever):
    store = InMemoryVectorStore(TableEmbeddings(retriever))
    cands = VectorStoreCandidates(store)
    assert cands.add_tables(retriever) == len(retriever.schema)
    index = retriever.index
    record = store.store["shop2.orders"]
    p = index.schema.position("shop2.orders")
    np.testing.assert_array_equal(np.asarray(record["vector"], dtype=np.float32), index.table_vectors[p])
    assert record["metadata"] == {"table_id": "shop2.orders", "database": "shop2", "table": "orders", "position": p,
                                  "model": index.model_name}
    assert cands.filters_tables  # InMemoryVectorStore: the whole mask as its filter function
    assert_same_top_n(cands, index)
    for option in (None, lambda dbs: (lambda doc: doc.metadata["database"] in dbs)):
        assert_same_top_n(VectorStoreCandidates(store, filter=option), index, queries=5)


def test_a_store_taking_vectors_and_dict_filters(retriever):
    store = DictFilterStore(DeterministicFakeEmbedding(size=8))  # never used: the index's vectors go in
    cands = VectorStoreCandidates(store)
    cands.add_tables(retriever)
    assert cands.filter == "dict" and not cands.filters_tables
    assert_same_top_n(cands, retriever.index)
    assert {"database": "shop1"} in store.filters
    assert {"database": {"$in": ["shop0", "shop2"]}} in store.filters
    assert None in store.filters  # no database filter: none in the store


def test_through_table_retriever_and_the_langchain_retriever(retriever):
    store = InMemoryVectorStore(TableEmbeddings(retriever))
    cands = VectorStoreCandidates(store)
    cands.add_tables(retriever)
    served = TableRetriever(retriever.schema, embedder=retriever.embedder, index=retriever.index, lexical=0.0,
                            candidate_generator=cands)
    dict_store = DictFilterStore(TableEmbeddings(retriever))
    dict_cands = VectorStoreCandidates(dict_store)
    dict_cands.add_tables(retriever)
    served_dict = TableRetriever(retriever.schema, embedder=retriever.embedder, index=retriever.index, lexical=0.0,
                                 candidate_generator=dict_cands)
    for options in ({}, {"database": "shop2"}, {"exclude": ["shop0.orders", "shop1.customers"]},
                    {"database": "shop1", "exclude": ["shop1.products"], "include": ["shop1.reviews"]}):
        want = retriever.retrieve(QUESTION, k=3, **options)
        for r in (served, served_dict):
            got = r.retrieve(QUESTION, k=3, **options)
            assert got.table_ids == want.table_ids
            assert [t.score for t in got.tables] == pytest.approx([t.score for t in want.tables], abs=1e-6)
    lc = JoinAwareRetriever.from_table_retriever(served, k=3, database="shop3", exclude=["shop3.customers"])
    assert lc.retriever.candidate_generator is cands
    docs = lc.invoke(QUESTION)
    assert [d.metadata["table_id"] for d in docs] == retriever.retrieve(
        QUESTION, k=3, database="shop3", exclude=["shop3.customers"]).table_ids
    lc2 = JoinAwareRetriever.from_ddl(SHOP, embedder=BagOfWordsEmbedder(), lexical=0.0,
                                      candidate_generator=VectorStoreCandidates(InMemoryVectorStore(DeterministicFakeEmbedding(size=8))))
    assert isinstance(lc2.retriever.candidate_generator, VectorStoreCandidates)


def test_stale_and_empty_stores_are_errors(retriever):
    q = retriever.index.table_vectors[0]
    allowed = np.ones(len(retriever.schema), dtype=bool)
    empty = VectorStoreCandidates(InMemoryVectorStore(TableEmbeddings(retriever)))
    with pytest.raises(StaleStoreError, match="no tables"):
        empty.search(retriever.index, q, 3, allowed)
    served = TableRetriever(retriever.schema, embedder=retriever.embedder, index=retriever.index, lexical=0.0,
                            candidate_generator=empty)
    with pytest.raises(StaleStoreError):
        served.retrieve(QUESTION, k=3)

    other = TableRetriever(load_ddl(SHOP), embedder=BagOfWordsEmbedder())  # tables "main.customers"...
    stale = VectorStoreCandidates(InMemoryVectorStore(TableEmbeddings(other)))
    stale.add_tables(other)
    with pytest.raises(StaleStoreError, match="not a table of the index"):
        stale.search(retriever.index, q, 3, allowed)


def test_a_store_embedding_with_another_model_is_refused(retriever):
    cands = VectorStoreCandidates(InMemoryVectorStore(DeterministicFakeEmbedding(size=64)))
    with pytest.raises(InvalidArgumentError, match="TableEmbeddings"):
        cands.add_tables(retriever)


def test_bad_arguments(retriever):
    with pytest.raises(InvalidArgumentError, match="VectorStore"):
        VectorStoreCandidates(object())
    with pytest.raises(InvalidArgumentError, match="filter"):
        VectorStoreCandidates(InMemoryVectorStore(TableEmbeddings(retriever)), filter="sql")
    with pytest.raises(InvalidArgumentError, match="function"):
        VectorStoreCandidates(InMemoryVectorStore(TableEmbeddings(retriever)), filter="dict")
    with pytest.raises(InvalidArgumentError, match="TableRetriever"):
        VectorStoreCandidates(InMemoryVectorStore(TableEmbeddings(retriever))).add_tables("not an index")
    with pytest.raises(InvalidArgumentError, match="TableRetriever"):
        TableEmbeddings(object())
