"""llamaindex_jar.VectorStoreCandidates: a LlamaIndex vector store (SimpleVectorStore) as the first stage."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("llama_index.core")

from llama_index.core.vector_stores import SimpleVectorStore  # noqa: E402
from llama_index.core.vector_stores.types import FilterOperator  # noqa: E402

from helpers import SHOP, BagOfWordsEmbedder, assert_same_top_n, lake  # noqa: E402
from jar_core.errors import InvalidArgumentError, StaleStoreError  # noqa: E402
from jar_core.loaders import load_ddl  # noqa: E402
from jar_core.retriever import TableRetriever  # noqa: E402
from llamaindex_jar import JoinAwareRetriever, VectorStoreCandidates  # noqa: E402

QUESTION = "Which customers ordered products with five star reviews?"


class RecordingStore(SimpleVectorStore):
    """SimpleVectorStore that records the filters it is queried with."""

    def query(self, query, **kwargs):
        self.__dict__.setdefault("_seen", []).append(query.filters)
        return super().query(query, **kwargs)


@pytest.fixture(scope="module")
def retriever() -> TableRetriever:
    r = TableRetriever(lake(), embedder=BagOfWordsEmbedder(), lexical=0.0)
    r.index
    return r


def test_simple_vector_store_holds_the_index_vectors_and_gives_the_brute_force_top_n(retriever):
    store = RecordingStore()
    cands = VectorStoreCandidates(store)
    assert cands.add_tables(retriever) == len(retriever.schema)
    index = retriever.index
    p = index.schema.position("shop2.orders")
    np.testing.assert_array_equal(np.asarray(store.get("shop2.orders"), dtype=np.float32), index.table_vectors[p])
    assert store.data.metadata_dict["shop2.orders"]["database"] == "shop2"
    assert_same_top_n(cands, index)
    seen = [f for f in store.__dict__["_seen"] if f is not None]
    assert any(f.filters[0].operator == FilterOperator.EQ and f.filters[0].value == "shop1" for f in seen)
    assert any(f.filters[0].operator == FilterOperator.IN and f.filters[0].value == ["shop0", "shop2"] for f in seen)
    assert_same_top_n(VectorStoreCandidates(store, filter=False), index, queries=5)


def test_through_table_retriever_and_the_llamaindex_retriever(retriever):
    cands = VectorStoreCandidates(SimpleVectorStore())
    cands.add_tables(retriever)
    served = TableRetriever(retriever.schema, embedder=retriever.embedder, index=retriever.index, lexical=0.0,
                            candidate_generator=cands)
    for options in ({}, {"database": "shop2"}, {"exclude": ["shop0.orders", "shop1.customers"]},
                    {"database": "shop1", "exclude": ["shop1.products"], "include": ["shop1.reviews"]}):
        want = retriever.retrieve(QUESTION, k=3, **options)
        got = served.retrieve(QUESTION, k=3, **options)
        assert got.table_ids == want.table_ids
        assert [t.score for t in got.tables] == pytest.approx([t.score for t in want.tables], abs=1e-6)
    li = JoinAwareRetriever(served, similarity_top_k=3, database="shop3", exclude=["shop3.customers"])
    nodes = li.retrieve(QUESTION)
    assert [n.node.metadata["table_id"] for n in nodes] == retriever.retrieve(
        QUESTION, k=3, database="shop3", exclude=["shop3.customers"]).table_ids
    built = JoinAwareRetriever.from_ddl(SHOP, embedder=BagOfWordsEmbedder(), lexical=0.0,
                                        candidate_generator=VectorStoreCandidates(SimpleVectorStore()))
    built.table_retriever.candidate_generator.add_tables(built)
    assert len(built.retrieve(QUESTION)) > 0


def test_stale_and_empty_stores_are_errors(retriever):
    q = retriever.index.table_vectors[0]
    allowed = np.ones(len(retriever.schema), dtype=bool)
    with pytest.raises(StaleStoreError, match="no tables"):
        VectorStoreCandidates(SimpleVectorStore()).search(retriever.index, q, 3, allowed)
    other = TableRetriever(load_ddl(SHOP), embedder=BagOfWordsEmbedder())
    stale = VectorStoreCandidates(SimpleVectorStore())
    stale.add_tables(other)
    with pytest.raises(StaleStoreError, match="not a table of the index"):
        stale.search(retriever.index, q, 3, allowed)


def test_bad_arguments():
    with pytest.raises(InvalidArgumentError, match="BasePydanticVectorStore"):
        VectorStoreCandidates(object())
    with pytest.raises(InvalidArgumentError, match="TableRetriever"):
        VectorStoreCandidates(SimpleVectorStore()).add_tables(42)
