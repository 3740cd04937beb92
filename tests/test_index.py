"""Index: save/load round trip, stale and corrupt indexes, atomic save."""
import json

import numpy as np
import pytest

from jar_core.errors import IndexLoadError, StaleIndexError
from jar_core.index.schema_index import SchemaIndex
from jar_core.loaders import load_ddl
from jar_core.embed.embedders import CachedEmbedder

from helpers import BagOfWordsEmbedder, saved_schema, saved_schema_text

DDL = """
CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT REFERENCES customers(id), total REAL);
"""


@pytest.fixture()
def schema():
    return load_ddl(DDL)


@pytest.fixture()
def index(schema):
    """An index with every array (the name vectors too, as the paper's join mode saves them)."""
    index = SchemaIndex.build(schema, BagOfWordsEmbedder())
    index.ensure_name_vectors()
    return index


def test_round_trip(tmp_path, schema):
    index = SchemaIndex.build(schema, BagOfWordsEmbedder())
    index.save(tmp_path / "idx")
    loaded = SchemaIndex.load(tmp_path / "idx", schema=schema, model_name="test-bow")
    np.testing.assert_array_equal(loaded.table_vectors, index.table_vectors)
    np.testing.assert_array_equal(loaded.column_vectors, index.column_vectors)
    assert index.name_vectors is None and loaded.name_vectors is None  # embedded only for the paper's joins
    index.ensure_name_vectors()
    index.save(tmp_path / "idx")
    loaded = SchemaIndex.load(tmp_path / "idx", schema=schema, model_name="test-bow")
    np.testing.assert_array_equal(loaded.name_vectors, index.name_vectors)
    assert loaded.schema.fingerprint() == schema.fingerprint()
    meta = json.loads((tmp_path / "idx" / "meta.json").read_text())
    assert meta["format_version"] == 2 and meta["model"] == "test-bow" and meta["tables"] == 2
    # loading without a schema restores it from the index
    assert [t.id for t in SchemaIndex.load(tmp_path / "idx").schema] == ["main.customers", "main.orders"]


def test_each_text_is_encoded_once(schema):
    from jar_core.index.texts import column_text, table_text

    emb = BagOfWordsEmbedder()
    cached = CachedEmbedder(emb)
    SchemaIndex.build(schema, cached)
    assert emb.calls == 1  # one call for all distinct texts
    expected = {table_text(t) for t in schema.tables} | {column_text(t, i) for t in schema.tables
                                                         for i in range(len(t.columns))}
    assert sorted(emb.seen[0]) == sorted(expected)  # each once; the column-name texts not at all
    assert [len(t) for t in emb.seen[0]] == sorted(len(t) for t in expected)  # in order of length
    assert len(cached) == 0  # the build's vectors are kept in the index, not in the cache
    cached.embed_documents(["customers:name"])
    assert len(cached) == 1


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

    monkeypatch.setattr(np.lib.format, "write_array", crash)  # what writes the arrays of vectors.npz
    with pytest.raises(OSError, match="disk full"):
        index.save(p)
    assert {f.name: f.read_bytes() for f in p.iterdir()} == before
    assert [f.name for f in tmp_path.iterdir()] == ["idx"]  # no temp directory left behind
    SchemaIndex.load(p)


def test_refuses_to_overwrite_a_non_index_directory(tmp_path, index):
    d = tmp_path / "mydata"
    d.mkdir()
    (d / "precious.txt").write_text("keep me")
    with pytest.raises(IndexSaveError, match="not an index"):
        index.save(d)
    assert (d / "precious.txt").read_text() == "keep me"


# -- damaged input, and one fingerprint per load --------------------------------

import os
import signal
import subprocess
import sys
from pathlib import Path

import jar_core.index.publish as index_module
from jar_core.errors import IndexSaveError, JarError
from jar_core.retriever import TableRetriever

ROOT = Path(__file__).resolve().parents[1]


def _opened_files(action):
    """Names of the index files opened while ``action()`` runs (audit hook: every kind of open)."""
    seen: list[str] = []
    active = [True]

    def hook(event, args):
        if active[0] and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            name = os.path.basename(os.fsdecode(args[0]))
            if name in ("meta.json", "schema.sqlite", "vectors.npz"):
                seen.append(name)

    sys.addaudithook(hook)
    try:
        action()
    finally:
        active[0] = False
    return seen


def test_load_reads_each_file_once(tmp_path, index):
    p = index.save(tmp_path / "idx")
    opened = _opened_files(lambda: SchemaIndex.load(p))
    assert sorted(opened) == ["meta.json", "schema.sqlite", "vectors.npz"]


def test_a_crash_at_any_step_of_a_save_leaves_a_loadable_index(tmp_path, schema, index, monkeypatch):
    other = SchemaIndex(schema, "test-bow", index.table_vectors[::-1].copy(), index.column_vectors[::-1].copy(),
                        index.name_vectors[::-1].copy())
    for fail_at in range(1, 5):
        p = tmp_path / f"idx{fail_at}"
        index.save(p)
        calls = [0]

        def failing(real):
            def call(*args, **kwargs):
                calls[0] += 1
                if calls[0] == fail_at:
                    raise OSError("simulated crash")
                return real(*args, **kwargs)
            return call

        with monkeypatch.context() as m:
            m.setattr(os, "rename", failing(os.rename))
            m.setattr(os, "replace", failing(os.replace))
            if hasattr(index_module, "_exchange"):
                m.setattr(index_module, "_exchange", failing(index_module._exchange))
            try:
                other.save(p)
            except OSError:
                pass
        loaded = SchemaIndex.load(p)
        assert any(np.array_equal(loaded.table_vectors, x.table_vectors) for x in (index, other)), fail_at
    assert sorted(f.name for f in tmp_path.iterdir()) == [f"idx{i}" for i in range(1, 5)]


KILLED_SAVE = """
import os, sys, time
import numpy as np
from jar_core.index.schema_index import SchemaIndex
from jar_core.loaders import load_ddl
schema = load_ddl("CREATE TABLE t (id INT PRIMARY KEY, name TEXT);")
index = SchemaIndex(schema, "m", np.ones((1, 4), np.float32), np.ones((2, 4), np.float32), np.ones((2, 4), np.float32))
real = os.fsync
def hang(fd):
    real(fd)
    print("writing", flush=True)
    time.sleep(120)
os.fsync = hang
index.save(sys.argv[1])
"""


def test_a_save_killed_outright_leaves_no_temporary_directory_behind(tmp_path, index):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(tmp_path / "idx")], stdout=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout.readline().strip() == "writing"
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert any(f.name.startswith(".idx.tmp-") for f in tmp_path.iterdir())  # what the killed save left
    index.save(tmp_path / "idx")
    assert [f.name for f in tmp_path.iterdir()] == ["idx"]
    SchemaIndex.load(tmp_path / "idx")


def test_saves_and_loads_from_two_processes_never_mix_indexes(tmp_path):
    p = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "stress_index.py"), "--seconds", "2", "--dir", str(tmp_path)],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])},
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert " 0 mismatches, 0 load errors, 0 save errors, 0 leftover" in p.stdout


def test_concurrent_saves_in_threads_end_with_one_valid_index(tmp_path, schema, index):
    import threading

    p = tmp_path / "idx"
    errors = []

    def run():
        try:
            for _ in range(20):
                index.save(p)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert [f.name for f in tmp_path.iterdir()] == ["idx"]
    SchemaIndex.load(p, schema=schema)


def _resign(p, **replace):
    """Rewrite files of the index at ``p`` and put their right checksums into meta.json."""
    import hashlib

    meta = json.loads((p / "meta.json").read_text())
    for name, data in replace.items():
        fname = {"vectors": "vectors.npz", "schema": "schema.sqlite"}[name]
        (p / fname).write_bytes(data)
        meta["sha256"][fname] = hashlib.sha256(data).hexdigest()
    (p / "meta.json").write_text(json.dumps(meta))
    return meta


def _npz(**arrays):
    import io

    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return buf.getvalue()


@pytest.mark.parametrize("damage,message", [
    (lambda m, p, i: m.update(sha256="abc"), "SHA-256"),
    (lambda m, p, i: m.update(sha256={"vectors.npz": 1, "schema.sqlite": 2}), "SHA-256"),
    (lambda m, p, i: m.pop("sha256"), "SHA-256"),
    (lambda m, p, i: m.pop("model"), "names no model"),
    (lambda m, p, i: m.update(dim="384"), "dimension"),
    (lambda m, p, i: m.update(sha256=_resign(p, schema=b'{"tables": 5}')["sha256"]), "not a valid schema"),
    (lambda m, p, i: m.update(sha256=_resign(p, schema=b'{"tables": [{"name": 3}]}')["sha256"]), "not a valid schema"),
    (lambda m, p, i: m.update(sha256=_resign(p, schema=b'\xff\xfe')["sha256"]), "not a valid schema"),
    (lambda m, p, i: m.update(sha256=_resign(p, vectors=_npz(
        table_vectors=i.table_vectors.astype(np.float64), column_vectors=i.column_vectors,
        name_vectors=i.name_vectors))["sha256"]), "dtype float64"),
    (lambda m, p, i: m.update(sha256=_resign(p, vectors=_npz(
        table_vectors=i.table_vectors.astype(np.int64), column_vectors=i.column_vectors,
        name_vectors=i.name_vectors))["sha256"]), "dtype int64"),
    (lambda m, p, i: m.update(sha256=_resign(p, vectors=_npz(
        table_vectors=np.full_like(i.table_vectors, np.nan), column_vectors=i.column_vectors,
        name_vectors=i.name_vectors))["sha256"]), "non-finite"),
    (lambda m, p, i: m.update(sha256=_resign(p, vectors=_npz(
        table_vectors=i.table_vectors[:, :8].copy(), column_vectors=i.column_vectors,
        name_vectors=i.name_vectors))["sha256"]), "dimension"),
])
def test_a_malformed_index_is_an_index_load_error(tmp_path, index, damage, message):
    p = index.save(tmp_path / "idx")
    meta = json.loads((p / "meta.json").read_text())
    damage(meta, p, index)
    (p / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(IndexLoadError, match=message):
        SchemaIndex.load(p)


def test_removing_the_checksums_does_not_switch_the_checks_off(tmp_path, index):
    p = index.save(tmp_path / "idx")
    meta = json.loads((p / "meta.json").read_text())
    del meta["sha256"]
    (p / "meta.json").write_text(json.dumps(meta))
    (p / "vectors.npz").write_bytes(_npz(table_vectors=index.table_vectors[::-1].copy(),
                                         column_vectors=index.column_vectors, name_vectors=index.name_vectors))
    with pytest.raises(IndexLoadError, match="SHA-256"):  # not silently the swapped vectors
        SchemaIndex.load(p)


def test_an_index_of_another_dimension_than_the_model_is_an_error(tmp_path, schema):
    path = SchemaIndex.build(schema, BagOfWordsEmbedder(dim=64)).save(tmp_path / "idx")
    r = TableRetriever.from_index(path, embedder=BagOfWordsEmbedder(dim=32))  # same model name
    with pytest.raises(StaleIndexError, match="dimension 64 .* gives 32"):
        r.retrieve("customers and their orders", k=2)


def test_saving_onto_a_file_is_refused_and_the_file_kept(tmp_path, index):
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    with pytest.raises(IndexSaveError, match="not an index"):
        index.save(f)
    assert f.read_text() == "keep me"


def test_an_unwritable_cache_warns_and_retrieval_goes_on(tmp_path, schema):
    blocker = tmp_path / "file"
    blocker.write_text("")
    r = TableRetriever(schema, embedder=BagOfWordsEmbedder())
    with pytest.warns(UserWarning, match="index cache not written"):
        r.load_or_build_index(blocker / "cache" / "idx")
    assert r.retrieve("customers orders", k=2).table_names


def test_save_failures_are_library_errors_and_os_errors(tmp_path, index, monkeypatch):
    monkeypatch.setattr(os, "fsync", lambda fd: (_ for _ in ()).throw(OSError(28, "No space left on device")))
    with pytest.raises(IndexSaveError, match="No space left") as e:
        index.save(tmp_path / "idx")
    assert isinstance(e.value, JarError) and isinstance(e.value, OSError)
    assert list(tmp_path.iterdir()) == []


def test_store_samples_false_keeps_sample_values_out_of_the_index(tmp_path):
    from jar_core.schema import Column, Schema, Table

    s = Schema([Table("d", "people", [Column("email", "text", sample=("ann@example.com",))])])
    idx = SchemaIndex.build(s, BagOfWordsEmbedder())
    idx.save(tmp_path / "with")
    idx.save(tmp_path / "without", store_samples=False)
    assert "ann@example.com" in saved_schema_text(tmp_path / "with")
    assert "ann@example.com" not in saved_schema_text(tmp_path / "without")
    assert SchemaIndex.load(tmp_path / "without", schema=s).schema.tables[0].columns[0].sample == ("ann@example.com",)
    r = TableRetriever(s, embedder=BagOfWordsEmbedder())
    r.load_or_build_index(tmp_path / "with", store_samples=False)  # a cached index with samples is rewritten
    assert "ann@example.com" not in saved_schema_text(tmp_path / "with")


def test_store_samples_false_keeps_the_labels_of_enumerations_from_ddl_or_catalog(tmp_path):
    # an enumeration's labels come from the schema (DDL, catalog), not from rows: they stay
    from jar_core.schema import Column, Schema, Table

    ddl = load_ddl("CREATE TYPE mood AS ENUM ('sad', 'ok');\nCREATE TABLE person (id int, m mood);", dialect="postgres")
    reflected = Table("d", "people", [Column("email", "text", sample=("ann@example.com",)),
                                      Column("rating", "ENUM('G', 'PG')", sample=("G", "PG"), enum=True)])
    s = Schema([*ddl.tables, reflected])
    idx = SchemaIndex.build(s, BagOfWordsEmbedder())
    idx.save(tmp_path / "without", store_samples=False)
    saved = saved_schema(tmp_path / "without")
    samples = {c["name"]: c.get("sample") for t in saved["tables"] for c in t["columns"]}
    assert samples == {"id": None, "m": ["sad", "ok"], "email": None, "rating": ["G", "PG"]}
    loaded = SchemaIndex.load(tmp_path / "without")
    assert loaded.schema["person"].column("m").sample == ("sad", "ok") and loaded.schema["person"].column("m").enum
    # an update of that index finds no table changed (labels kept on both sides, the e-mail on neither)
    updated = SchemaIndex.update(loaded, s, BagOfWordsEmbedder())
    assert updated.report.changed == () and updated.report.embedded == 0
    r = TableRetriever(s, embedder=BagOfWordsEmbedder())
    r.load_or_build_index(tmp_path / "cache", store_samples=False)
    text = saved_schema_text(tmp_path / "cache")
    assert '"sad"' in text and '"PG"' in text and "ann@example.com" not in text


def test_one_fingerprint_per_load_and_retriever(tmp_path, index, monkeypatch):
    import hashlib

    import jar_core.schema as schema_module

    p = index.save(tmp_path / "idx")
    calls = []

    class CountingHashlib:
        def sha256(self, *args, **kwargs):
            calls.append(1)
            return hashlib.sha256(*args, **kwargs)

    monkeypatch.setattr(schema_module, "hashlib", CountingHashlib())
    r = TableRetriever.from_index(p, embedder=BagOfWordsEmbedder())
    assert len(calls) == 0  # the fingerprint saved with the index: none computed at load
    r.retrieve("customers orders", k=2)
    assert len(calls) == 0  # the decomposer's vocabulary cache reuses it too


def test_a_mapped_index_is_checked_in_released_blocks(tmp_path, monkeypatch):
    """Checksums and finite values read block by block (pages released), same verdicts as whole."""
    import hashlib
    import mmap

    import numpy as np

    import jar_core.index.store as ix

    monkeypatch.setattr(ix, "_CHUNK_BYTES", 4096)
    monkeypatch.setattr(ix, "_HASH_BESIDE_BYTES", 1)
    data = np.arange(50_000, dtype=np.float32).tobytes()
    (tmp_path / "f").write_bytes(data)
    with open(tmp_path / "f", "rb") as f:
        m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    assert ix._sha256_beside(m)() == hashlib.sha256(data).hexdigest()
    arr = np.frombuffer(m, dtype=np.float32).reshape(-1, 10)
    assert ix._all_finite_mapped({"a": arr}, m) is None
    bad = np.frombuffer(data, dtype=np.float32).copy()
    bad[-3] = np.nan
    assert ix._all_finite_mapped({"b": bad.reshape(-1, 10)}, m) == "b"
