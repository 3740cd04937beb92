"""jar_core.candidates.vector_store: the first stage over an external vector store, with a store in plain
Python (the LangChain and LlamaIndex stores are in test_langchain_stores / test_llamaindex_stores)."""
from __future__ import annotations

import numpy as np
import pytest

from helpers import SHOP, BagOfWordsEmbedder, assert_same_top_n, lake
from jar_core.candidates.first_stage import BruteForceCandidates, CandidateGenerator
from jar_core.errors import InvalidArgumentError, StaleStoreError
from jar_core.index.schema_index import SchemaIndex
from jar_core.loaders import load_ddl
from jar_core.retriever import TableRetriever
from jar_core.schema import Schema
from jar_core.candidates.vector_store import StoreCandidates, StoreHit, store_records


class DictStore(StoreCandidates):
    """An exact store in a dict: (id -> (text, metadata, vector)); filters on ``database`` unless
    ``honour_filter`` is off; counts its queries."""

    def __init__(self, honour_filter: bool = True, **options) -> None:
        super().__init__(**options)
        self.records: dict[str, tuple[str, dict, np.ndarray]] = {}
        self.honour_filter = honour_filter
        self.calls: list[tuple[int, list[str] | None]] = []

    def add_tables(self, index: SchemaIndex) -> None:
        for batch in store_records(index, batch_size=5):
            for r in batch:
                self.records[r.id] = (r.text, r.metadata, r.vector)

    def _query(self, vector, k, databases, allows):
        self.calls.append((k, databases))
        rows = [(i, t, m, v) for i, (t, m, v) in self.records.items()
                if databases is None or not self.honour_filter or m["database"] in databases]
        q = np.asarray(vector, dtype=np.float32)
        rows.sort(key=lambda row: -float(row[3] @ q))
        return [StoreHit(i, t, m) for i, t, m, _ in rows[:k]]


@pytest.fixture(scope="module")
def index() -> SchemaIndex:
    return SchemaIndex.build(lake(), BagOfWordsEmbedder())


@pytest.mark.parametrize("honour_filter", [True, False])
def test_same_top_n_as_brute_force(index, honour_filter):
    store = DictStore(honour_filter=honour_filter)
    store.add_tables(index)
    assert isinstance(store, CandidateGenerator)
    assert_same_top_n(store, index)


def test_a_database_filter_goes_to_the_store_and_one_query_suffices(index):
    store = DictStore()
    store.add_tables(index)
    q = index.table_vectors[8]
    allowed = np.array([t.database == "shop1" for t in index.schema.tables])
    allowed[index.schema.position("shop1.orders")] = False  # an exclusion
    pos, _ = store.search(index, q, 3, allowed)
    assert store.calls == [(5, ["shop1"])]  # 3 + the excluded table + 1 to see the next score
    assert all(index.schema.tables[p].database == "shop1" and allowed[p] for p in pos)
    store.calls.clear()
    store.filter_databases = 0  # never filter in the store: the results are still filtered
    pos2, _ = store.search(index, q, 3, allowed)
    assert pos2.tolist() == pos.tolist() and store.calls[0][1] is None


def test_ties_at_the_cut_are_broken_by_position_as_brute_force():
    # two databases with the same table texts: every score ties with its copy
    base = load_ddl(SHOP)
    schema = Schema([t.copy_to("same") for t in base.tables] + [t.copy_to("same_") for t in base.tables])
    index = SchemaIndex.build(schema, BagOfWordsEmbedder())
    index.table_vectors[len(base.tables):] = index.table_vectors[: len(base.tables)]
    store = DictStore()
    store.add_tables(index)
    store.records = dict(reversed(list(store.records.items())))  # the store lists the later copy first
    allowed = np.ones(len(schema), dtype=bool)
    for i in range(len(base.tables)):
        for n in (1, 2, 3, 5):
            want, _ = BruteForceCandidates().search(index, index.table_vectors[i], n, allowed)
            got, _ = store.search(index, index.table_vectors[i], n, allowed)
            assert got.tolist() == want.tolist()


def test_stale_stores_are_errors(index):
    q = index.table_vectors[0]
    allowed = np.ones(len(index.schema), dtype=bool)
    with pytest.raises(StaleStoreError, match="returned no tables"):
        DictStore().search(index, q, 3, allowed)

    other = DictStore()  # loaded from another schema: ids unknown to the index
    other.add_tables(SchemaIndex.build(load_ddl(SHOP), BagOfWordsEmbedder()))
    with pytest.raises(StaleStoreError, match="not a table of the index"):
        other.search(index, q, 3, allowed)

    changed = DictStore()  # a table's text changed since it was loaded
    changed.add_tables(index)
    text, meta, vec = changed.records["shop0.customers"]
    changed.records["shop0.customers"] = (text + " email", meta, vec)
    with pytest.raises(StaleStoreError, match="changed since"):
        changed.search(index, q, len(index.schema), allowed)

    model = DictStore()  # loaded with another embedding model
    model.add_tables(index)
    for i, (t, m, v) in model.records.items():
        model.records[i] = (t, {**m, "model": "another-model"}, v)
    with pytest.raises(StaleStoreError, match="another-model"):
        model.search(index, q, 3, allowed)

    partial = DictStore()  # some tables missing
    partial.add_tables(index)
    for key in list(partial.records)[5:]:
        del partial.records[key]
    with pytest.raises(StaleStoreError, match="fewer tables than the index"):
        partial.search(index, q, 10, allowed)


def test_through_table_retriever(index, monkeypatch):
    import jar_core.retriever as retriever_mod

    # BM25 over the first stage's shortlist for both (a store's first stage always has one; the
    # brute force scores the whole corpus below LEXICAL_WHOLE_CORPUS, whose IDF differs)
    monkeypatch.setattr(retriever_mod, "LEXICAL_SHORTLIST", 5)
    monkeypatch.setattr(retriever_mod, "LEXICAL_WHOLE_CORPUS", 0)
    schema = index.schema
    store = DictStore()
    store.add_tables(index)
    question = "Which customers ordered products with five star reviews?"
    for lexical in (0.0, 0.5):
        plain = TableRetriever(schema, embedder=BagOfWordsEmbedder(), index=index, lexical=lexical)
        served = TableRetriever(schema, embedder=BagOfWordsEmbedder(), index=index, lexical=lexical,
                                candidate_generator=store)
        for options in ({}, {"database": "shop2"}, {"exclude": ["shop0.orders", "shop1.customers"]},
                        {"database": "shop1", "exclude": ["shop1.products"], "include": ["shop1.reviews"]}):
            want = plain.retrieve(question, k=3, **options)
            got = served.retrieve(question, k=3, **options)
            assert got.table_ids == want.table_ids
            assert [t.score for t in got.tables] == pytest.approx([t.score for t in want.tables], abs=1e-6)
    assert store.calls


def test_bad_arguments(index):
    with pytest.raises(InvalidArgumentError):
        DictStore(filter_databases=-1)
    with pytest.raises(InvalidArgumentError):
        DictStore().search(index, index.table_vectors[0], 3, np.ones(2, dtype=bool))
    with pytest.raises(InvalidArgumentError):
        next(store_records(index, batch_size=0))
    pos, scores = DictStore().search(index, index.table_vectors[0], 3, np.zeros(len(index.schema), dtype=bool))
    assert len(pos) == len(scores) == 0


def test_the_core_imports_neither_langchain_nor_llama_index():
    import subprocess
    import sys

    code = ("import sys, jar_core, jar_core.candidates.vector_store; "
            "sys.exit(any(m.split('.')[0] in ('langchain', 'langchain_core', 'llama_index') for m in sys.modules))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
