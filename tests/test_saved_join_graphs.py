"""Ready in proportion to what is used: join graphs saved with the index,
the same graphs however they are computed, declared-key lookups per query, vectors mapped."""
from __future__ import annotations

import gc
import hashlib
import json

import numpy as np
import pytest

import jar_core.joins as joins_package
import jar_core.joins.graph as graph_module
import jar_core.joins.store as store
from jar_core._gc import gc_paused
from jar_core.errors import IndexLoadError
from jar_core.index.schema_index import SchemaIndex
from jar_core.joins.compat import ColumnFeatures, declared_matrix, paper_join_compatibility
from jar_core.joins import build_join_graph
from jar_core.retriever import TableRetriever
from jar_core.schema import Column, ForeignKey, Schema, Table, normalize_type

from helpers import BagOfWordsEmbedder


def same_graph(g, h) -> None:
    for x in ("a", "b", "confidence", "evidence", "table_a", "table_b"):
        np.testing.assert_array_equal(getattr(g, x), getattr(h, x), err_msg=x)
        assert getattr(g, x).dtype == getattr(h, x).dtype, x


def copies(schema: Schema, n: int) -> Schema:
    """``n`` copies of every database of ``schema``, renamed ``db0``, ``db1``... (names repeat)."""
    tables = []
    for i in range(n):
        for t in schema.tables:
            db = f"db{i}_{t.database}"
            tables.append(Table(
                db, t.name, [Column(c.name, c.type, c.nl_name, c.comment, c.primary_key, c.unique_ratio, c.sample)
                             for c in t.columns],
                [ForeignKey(fk.columns, f"{db}.{fk.ref_table.split('.', 1)[1]}", fk.ref_columns) for fk in t.foreign_keys],
            ))
    return Schema(tables)


@pytest.fixture()
def index(demo_schema):
    index = SchemaIndex.build(demo_schema, BagOfWordsEmbedder())
    index.ensure_name_vectors()  # every array saved
    return index


def no_inference(monkeypatch):
    """Make inferring a join graph fail: what follows must read the saved one."""
    def fail(*a, **k):
        raise AssertionError("the join graph was inferred again")

    monkeypatch.setattr(joins_package, "build_join_graph", fail)


# -- the graph saved with the index -----------------------------------------------------------

def test_a_loaded_index_has_the_saved_join_graph(tmp_path, index, demo_schema, monkeypatch):
    expected = build_join_graph(demo_schema)
    assert len(expected) > 5
    index.join_graph(cross_database=True)  # a graph at hand is saved too
    p = index.save(tmp_path / "idx")
    meta = json.loads((p / "meta.json").read_text())
    assert meta["joins"]["rules"] == store.rules_version()
    assert set(meta["joins"]["graphs"]) == {"within", "across"} and "joins.npz" in meta["sha256"]
    no_inference(monkeypatch)
    for kwargs in ({}, {"schema": demo_schema}):  # from the saved schema, or the caller's (same samples)
        loaded = SchemaIndex.load(p, **kwargs)
        assert loaded.has_join_graph() and loaded.has_join_graph(cross_database=True)
        same_graph(loaded.join_graph(), expected)
        same_graph(loaded.join_graph(cross_database=True), index.join_graph(cross_database=True))
    r = TableRetriever.from_index(p, embedder=BagOfWordsEmbedder())
    assert r.retrieve("books and their authors", k=3).joins


def test_saving_infers_the_default_graph(tmp_path, index):
    assert index._join_graphs == {}
    p = index.save(tmp_path / "idx")
    assert set(json.loads((p / "meta.json").read_text())["joins"]["graphs"]) == {"within"}
    assert SchemaIndex.load(p).has_join_graph() and not SchemaIndex.load(p).has_join_graph(cross_database=True)


def test_a_graph_of_other_rules_is_inferred_again(tmp_path, index, demo_schema, monkeypatch):
    p = index.save(tmp_path / "idx")
    monkeypatch.setattr(graph_module, "JOIN_RULES_VERSION", graph_module.JOIN_RULES_VERSION + 1)
    store.rules_version.cache_clear()
    try:
        assert store.rules_version().startswith(f"{graph_module.JOIN_RULES_VERSION}-")
        loaded = SchemaIndex.load(p)  # not an error
        assert not loaded.has_join_graph()
        same_graph(loaded.join_graph(), build_join_graph(demo_schema))  # inferred on first use
        loaded.save(p)  # and saved under the rules of now
        assert json.loads((p / "meta.json").read_text())["joins"]["rules"] == store.rules_version()
        assert SchemaIndex.load(p).has_join_graph()
    finally:
        monkeypatch.undo()
        store.rules_version.cache_clear()
    # meta.json carries no checksum of its own: a rules entry edited there only costs an inference
    meta = json.loads((p / "meta.json").read_text())
    meta["joins"]["rules"] = "0-edited"
    (p / "meta.json").write_text(json.dumps(meta))
    assert not SchemaIndex.load(p).has_join_graph()


def test_the_rules_version_follows_the_rule_modules_source(monkeypatch, tmp_path):
    from pathlib import Path

    store.rules_version.cache_clear()
    before = store.rules_version()
    package = Path(store.__file__).resolve().parents[1]
    copy = tmp_path / "jar_core"
    for name in (*store.RULE_SOURCES, "joins/calibration.py"):
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        (copy / name).write_bytes((package / name).read_bytes())
    monkeypatch.setattr(store, "__file__", str(copy / "joins" / "store.py"))

    def version() -> str:
        store.rules_version.cache_clear()
        return store.rules_version()

    copied = version()
    graph_py = copy / "joins" / "graph.py"
    graph_py.write_text(graph_py.read_text().replace("BLOCK_COLUMNS = 4096", "BLOCK_COLUMNS = 4097"))
    changed = version()
    glued = copy / "glued.py"  # the word segmentation the rules read names with
    glued.write_text(glued.read_text() + "\n# changed\n")
    changed_words = version()
    calibration = copy / "joins" / "calibration.py"  # read after a graph is built: no rule
    calibration.write_text(calibration.read_text() + "\n# changed\n")
    recalibrated = version()
    real = store._installed
    monkeypatch.setattr(store, "_installed", lambda p: real(p) + ".post1" if p == "wordsegment" else real(p))
    other_counts = version()  # another release of the segmenter's word counts
    monkeypatch.undo()
    assert version() == before
    assert copied == before
    assert copied != changed and copied.split("-")[0] == changed.split("-")[0]  # a constant changed, no bump
    assert changed_words != changed and recalibrated == changed_words
    assert other_counts != recalibrated and other_counts.split("-")[0] == recalibrated.split("-")[0]


def test_the_checksums_cover_the_join_graph(tmp_path, index):
    p = index.save(tmp_path / "idx")
    good = (p / "joins.npz").read_bytes()
    (p / "joins.npz").write_bytes(good[:-10] + b"0123456789")
    with pytest.raises(IndexLoadError, match="joins.npz does not match its checksum"):
        SchemaIndex.load(p)
    (p / "joins.npz").unlink()
    with pytest.raises(IndexLoadError, match="joins.npz is missing"):
        SchemaIndex.load(p)
    # a well-formed file of a graph that cannot be this index's, with its checksum put in meta.json
    n_cols = int(index.col_offsets[-1])
    bad = {"within_a": np.array([0, n_cols], np.int64), "within_b": np.array([1, 2], np.int64),
           "within_confidence": np.ones(2, np.float32), "within_evidence": np.zeros(2, np.int64)}
    import io

    buf = io.BytesIO()
    np.savez(buf, **bad)
    (p / "joins.npz").write_bytes(buf.getvalue())
    meta = json.loads((p / "meta.json").read_text())
    meta["sha256"]["joins.npz"] = hashlib.sha256(buf.getvalue()).hexdigest()
    meta["joins"]["graphs"]["within"]["edges"] = 2
    (p / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(IndexLoadError, match="joins.npz unreadable .*outside"):
        SchemaIndex.load(p)
    # without its checksum the file is not trusted: ignored, the graph inferred again
    del meta["sha256"]["joins.npz"]
    (p / "meta.json").write_text(json.dumps(meta))
    loaded = SchemaIndex.load(p)
    assert not loaded.has_join_graph()
    same_graph(loaded.join_graph(), index.join_graph())


def test_an_index_saved_before_join_graphs_still_loads(tmp_path, index, monkeypatch):
    p = index.save(tmp_path / "idx")
    meta = json.loads((p / "meta.json").read_text())
    del meta["joins"], meta["sha256"]["joins.npz"]
    (p / "meta.json").write_text(json.dumps(meta))
    (p / "joins.npz").unlink()
    r = TableRetriever(index.schema, embedder=BagOfWordsEmbedder())
    r.load_or_build_index(p)  # loads it, infers the graph, saves it with the graph
    assert (p / "joins.npz").exists() and SchemaIndex.load(p).has_join_graph()
    no_inference(monkeypatch)
    r = TableRetriever(index.schema, embedder=BagOfWordsEmbedder())
    r.load_or_build_index(p)  # nothing to infer now
    assert r.retrieve("books and their authors", k=3).tables


def test_other_sample_values_do_not_use_the_saved_graph(tmp_path, demo_schema):
    schema = copies(demo_schema, 1)
    index = SchemaIndex.build(schema, BagOfWordsEmbedder())
    p = index.save(tmp_path / "idx")
    changed = copies(demo_schema, 1)
    col = next(c for t in changed.tables for c in t.columns if len(c.sample) > 3)
    col.sample = col.sample[:-1] + ("a value never seen",)
    assert changed.fingerprint() == schema.fingerprint()  # sample values are not in the fingerprint
    loaded = SchemaIndex.load(p, schema=changed)
    assert not loaded.has_join_graph()
    same_graph(loaded.join_graph(), build_join_graph(changed))
    assert SchemaIndex.load(p, schema=copies(demo_schema, 1)).has_join_graph()


def test_samples_left_out_of_the_index_keep_the_graph_they_gave(tmp_path, demo_schema, monkeypatch):
    index = SchemaIndex.build(demo_schema, BagOfWordsEmbedder())
    p = index.save(tmp_path / "idx", store_samples=False)
    no_inference(monkeypatch)
    loaded = SchemaIndex.load(p)
    assert not any(c.sample for t in loaded.schema.tables for c in t.columns)
    same_graph(loaded.join_graph(), index.join_graph())  # inferred with the samples, before the save
    loaded.save(tmp_path / "again")  # saved again from the index without samples: still the same graph
    same_graph(SchemaIndex.load(tmp_path / "again").join_graph(), index.join_graph())


# -- the same graph, faster ---------------------------------------------------------------------

def test_blocks_of_databases_give_the_graph_of_the_whole_schema(demo_schema, monkeypatch):
    schema = copies(demo_schema, 7)
    whole = build_join_graph(schema)  # under BLOCK_COLUMNS: one block
    assert int(sum(len(t.columns) for t in schema.tables)) < graph_module.BLOCK_COLUMNS
    for block in (1, 40, 150):
        monkeypatch.setattr(graph_module, "BLOCK_COLUMNS", block)
        assert graph_module._database_blocks(np.repeat(np.arange(7), 60), block) is not None
        same_graph(build_join_graph(schema), whole)
        same_graph(build_join_graph(schema, cross_database=True), build_join_graph(schema, cross_database=True))


def test_blocks_of_databases_on_spider(benchmarks_dir, monkeypatch):
    from jar_core.loaders import load_benchmark

    schema = load_benchmark(benchmarks_dir / "spider").schema
    whole = build_join_graph(schema)
    monkeypatch.setattr(graph_module, "BLOCK_COLUMNS", 32)
    same_graph(build_join_graph(schema), whole)


def test_database_blocks_hold_whole_databases():
    db = np.array([2, 0, 1, 0, 2, 2, 1, 3, 3, 3, 3, 0])
    blocks = graph_module._database_blocks(db, 4)
    assert sorted(np.concatenate(blocks).tolist()) == list(range(len(db)))
    for rows in blocks:
        assert list(rows) == sorted(rows)
        others = np.setdiff1d(np.arange(len(db)), rows)
        assert not set(db[rows]) & set(db[others])  # no database split between two blocks
    assert graph_module._database_blocks(db, 100) is None


def test_normalized_types_are_cached():
    normalize_type.cache_clear()
    for _ in range(3):
        assert normalize_type("varchar(255) NOT NULL").value == "text"
    info = normalize_type.cache_info()
    assert info.misses == 1 and info.hits == 2


def test_gc_paused_nests_and_restores():
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            pass
        assert not gc.isenabled()  # left as it was
    finally:
        gc.enable()


# -- paper mode: declared keys looked up per query ------------------------------------------------

def old_declared(f: ColumnFeatures, cols: np.ndarray) -> np.ndarray:
    """The loop over every declared key that ``paper_join_compatibility`` ran per query before."""
    m = np.zeros((len(cols), len(cols)), dtype=bool)
    pos = {int(g): k for k, g in enumerate(cols)}
    for a, b in f.fk_pairs:
        if a in pos and b in pos:
            m[pos[a], pos[b]] = True
    return m


def test_declared_lookups_equal_the_loop_over_every_key(demo_schema):
    index = SchemaIndex.build(copies(demo_schema, 3), BagOfWordsEmbedder())
    f = index.features
    assert len(f.fk_pairs) > 20 and len(f.fk_indices) == len(f.fk_pairs)
    rng = np.random.default_rng(0)
    n_t = len(index.schema.tables)
    checked = 0
    for _ in range(200):
        tables = rng.choice(n_t, size=int(rng.integers(1, 15)), replace=False)
        starts, ends = index.col_offsets[tables], index.col_offsets[tables + 1]
        cols = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)])
        got = declared_matrix(f, cols)
        np.testing.assert_array_equal(got, old_declared(f, cols))
        checked += int(got.sum())
        paper_join_compatibility(index, tables)
    assert checked > 0
    # every declared key of the demo is one (both directions)
    n = int(index.col_offsets[-1])
    assert declared_matrix(f, np.arange(n)).sum() == len(f.fk_pairs)


def test_features_without_declared_keys(tmp_path):
    schema = Schema([Table("d", "a", [Column("id", "int")]), Table("d", "b", [Column("a_id", "int")])])
    index = SchemaIndex.build(schema, BagOfWordsEmbedder())
    assert len(index.features.fk_indices) == 0
    w, cols, declared = paper_join_compatibility(index, np.array([0, 1]))
    assert not declared.any()


# -- vectors mapped, older files read ------------------------------------------------------------

def test_loaded_vectors_are_mapped_and_aligned(tmp_path, index):
    p = index.save(tmp_path / "idx")
    loaded = SchemaIndex.load(p)
    for name in ("table_vectors", "column_vectors", "name_vectors"):
        arr = getattr(loaded, name)
        assert arr.flags.aligned and not arr.flags.owndata and not arr.flags.writeable, name
        np.testing.assert_array_equal(arr, getattr(index, name))
    with np.load(p / "vectors.npz") as z:  # a plain .npz for numpy as well
        np.testing.assert_array_equal(z["column_vectors"], index.column_vectors)


def test_vectors_written_by_np_savez_still_load(tmp_path, index):
    import io

    p = index.save(tmp_path / "idx")
    buf = io.BytesIO()
    np.savez(buf, table_vectors=index.table_vectors, column_vectors=index.column_vectors,
             name_vectors=index.name_vectors)
    (p / "vectors.npz").write_bytes(buf.getvalue())
    meta = json.loads((p / "meta.json").read_text())
    meta["sha256"]["vectors.npz"] = hashlib.sha256(buf.getvalue()).hexdigest()
    (p / "meta.json").write_text(json.dumps(meta))
    loaded = SchemaIndex.load(p)
    np.testing.assert_array_equal(loaded.name_vectors, index.name_vectors)
    assert loaded.name_vectors.flags.aligned
    buf = io.BytesIO()
    np.savez_compressed(buf, table_vectors=index.table_vectors, column_vectors=index.column_vectors,
                        name_vectors=index.name_vectors)
    (p / "vectors.npz").write_bytes(buf.getvalue())
    meta["sha256"]["vectors.npz"] = hashlib.sha256(buf.getvalue()).hexdigest()
    (p / "meta.json").write_text(json.dumps(meta))
    np.testing.assert_array_equal(SchemaIndex.load(p).column_vectors, index.column_vectors)


def test_a_large_vectors_file_is_checked_beside_the_schema(tmp_path, index, monkeypatch):
    import jar_core.index.store as index_module

    monkeypatch.setattr(index_module, "_HASH_BESIDE_BYTES", 1)  # every file hashed in a thread
    p = index.save(tmp_path / "idx")
    np.testing.assert_array_equal(SchemaIndex.load(p).table_vectors, index.table_vectors)
    data = bytearray((p / "vectors.npz").read_bytes())
    data[-100] ^= 0xFF
    (p / "vectors.npz").write_bytes(bytes(data))
    with pytest.raises(IndexLoadError, match="vectors.npz does not match its checksum"):
        SchemaIndex.load(p)
    (p / "schema.sqlite").write_text("{}")  # both files corrupt: the vectors are reported, as before
    with pytest.raises(IndexLoadError, match="vectors.npz does not match its checksum"):
        SchemaIndex.load(p)


def _jar_core_imports(path, module: str) -> set[str]:
    """The ``jar_core`` modules a source file imports (module level or inside functions)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            if base.startswith("jar_core"):
                out.add(base)
                out.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("jar_core"))
    return out


def test_the_rules_digest_covers_what_builds_a_graph_and_nothing_else():
    from pathlib import Path

    import jar_core

    root = Path(jar_core.__file__).resolve().parent

    def source(module: str) -> Path | None:
        rel = Path(*module.split(".")[1:])
        for p in (root / rel.with_suffix(".py") if rel.parts else None, root / rel / "__init__.py"):
            if p is not None and p.is_file():
                return p
        return None

    reached, todo = set(), ["jar_core.joins.graph"]
    while todo:
        m = todo.pop()
        p = source(m)
        if m in reached or p is None:
            continue
        reached.add(m)
        todo.extend(_jar_core_imports(p, m))
    files = {source(m).relative_to(root).as_posix() for m in reached}
    # the graph's own imports, and the module that saves it; never a stage that only reads a graph
    assert set(store.RULE_SOURCES) == files | {"joins/store.py"}
    assert not {"joins/calibration.py", "joins/compat.py", "joins/path.py"} & set(store.RULE_SOURCES)
