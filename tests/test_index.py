"""Index: save/load round trip, stale and corrupt indexes, atomic save."""
import json

import numpy as np
import pytest

from jar_core.errors import IndexLoadError, StaleIndexError
from jar_core.index import SchemaIndex
from jar_core.loaders import load_ddl
from jar_core.embedding import CachedEmbedder

from helpers import BagOfWordsEmbedder

DDL = """
CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT REFERENCES customers(id), total REAL);
"""


@pytest.fixture()
def schema():
    return load_ddl(DDL)


@pytest.fixture()
def index(schema):
    return SchemaIndex.build(schema, BagOfWordsEmbedder())


def test_round_trip(tmp_path, index, schema):
    index.save(tmp_path / "idx")
    loaded = SchemaIndex.load(tmp_path / "idx", schema=schema, model_name="test-bow")
    np.testing.assert_array_equal(loaded.table_vectors, index.table_vectors)
    np.testing.assert_array_equal(loaded.column_vectors, index.column_vectors)
    np.testing.assert_array_equal(loaded.name_vectors, index.name_vectors)
    assert loaded.schema.fingerprint() == schema.fingerprint()
    meta = json.loads((tmp_path / "idx" / "meta.json").read_text())
    assert meta["format_version"] == 1 and meta["model"] == "test-bow" and meta["tables"] == 2
    # loading without a schema restores it from the index
    assert [t.id for t in SchemaIndex.load(tmp_path / "idx").schema] == ["main.customers", "main.orders"]


def test_each_text_is_encoded_once(schema):
    emb = BagOfWordsEmbedder()
    cached = CachedEmbedder(emb)
    SchemaIndex.build(schema, cached)
    n_texts = len(cached)
    assert emb.calls == 1  # one batch for all distinct texts, the three lookups hit the cache
    cached.embed_documents(["customers:name"])
    assert len(cached) == n_texts


def test_other_schema_or_model_is_stale(tmp_path, index):
    index.save(tmp_path / "idx")
    other = load_ddl("CREATE TABLE customers (id INT PRIMARY KEY, name TEXT);")
    with pytest.raises(StaleIndexError, match="another schema"):
        SchemaIndex.load(tmp_path / "idx", schema=other)
    with pytest.raises(StaleIndexError, match="model"):
        SchemaIndex.load(tmp_path / "idx", model_name="other-model")


def test_truncated_or_corrupt_index_fails_clearly(tmp_path, index):
    p = index.save(tmp_path / "idx")
    data = (p / "vectors.npz").read_bytes()
    (p / "vectors.npz").write_bytes(data[: len(data) // 2])
    with pytest.raises(IndexLoadError, match="corrupt or truncated"):
        SchemaIndex.load(p)
    index.save(p)
    (p / "meta.json").write_text("{not json")
    with pytest.raises(IndexLoadError, match="meta.json"):
        SchemaIndex.load(p)
    with pytest.raises(IndexLoadError, match="no index"):
        SchemaIndex.load(tmp_path / "missing")


def test_other_format_version_is_refused(tmp_path, index):
    p = index.save(tmp_path / "idx")
    meta = json.loads((p / "meta.json").read_text())
    meta["format_version"] = 999
    (p / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(IndexLoadError, match="format version 999"):
        SchemaIndex.load(p)


def test_failed_save_keeps_the_old_index(tmp_path, index, monkeypatch):
    p = index.save(tmp_path / "idx")
    before = {f.name: f.read_bytes() for f in p.iterdir()}

    def crash(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez", crash)
    with pytest.raises(OSError, match="disk full"):
        index.save(p)
    assert {f.name: f.read_bytes() for f in p.iterdir()} == before
    assert [f.name for f in tmp_path.iterdir()] == ["idx"]  # no temp directory left behind
    SchemaIndex.load(p)


def test_refuses_to_overwrite_a_non_index_directory(tmp_path, index):
    d = tmp_path / "mydata"
    d.mkdir()
    (d / "precious.txt").write_text("keep me")
    with pytest.raises(IndexLoadError, match="not an index"):
        index.save(d)
    assert (d / "precious.txt").read_text() == "keep me"
