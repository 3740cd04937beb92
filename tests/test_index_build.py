"""The index build at lake scale. Name vectors only for the paper's joins,
disk-backed arrays streamed into the saved files, an interrupted build resumed, an index updated
with only the new texts embedded and the join graph inferred again only where tables changed."""
from __future__ import annotations

import dataclasses

import json

import numpy as np
import pytest

import jar_core.joins as joins_package
from jar_core.embed.embedders import CachedEmbedder
from jar_core.errors import EmbeddingError, IndexSaveError, StaleIndexError
from jar_core.index.npz import write_npz as _write_npz
from jar_core.index.schema_index import SchemaIndex, build_index
from jar_core.index.store import partial_dir
from jar_core.index.texts import column_name_text, column_text, table_text
from jar_core.joins import build_join_graph
from jar_core.retriever import TableRetriever
from jar_core.schema import Column, Schema, Table

from helpers import BagOfWordsEmbedder
from test_saved_join_graphs import copies, same_graph


def texts_of(schema: Schema, names: bool = False) -> set[str]:
    out = {table_text(t) for t in schema.tables}
    out |= {column_text(t, i) for t in schema.tables for i in range(len(t.columns))}
    if names:
        out |= {column_name_text(t, i) for t in schema.tables for i in range(len(t.columns))}
    return out


def embedded(emb: BagOfWordsEmbedder) -> list[str]:
    return [t for call in emb.seen for t in call]


def same_vectors(a: SchemaIndex, b: SchemaIndex) -> None:
    for name in ("table_vectors", "column_vectors", "name_vectors"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            np.testing.assert_array_equal(x, y, err_msg=name)


# -- name vectors on demand -------------------------------------------------------------------

def test_the_build_leaves_the_name_vectors_to_the_paper_mode(tmp_path, demo_schema):
    emb = BagOfWordsEmbedder()
    r = TableRetriever(demo_schema, embedder=emb)
    assert r.index.name_vectors is None
    assert sorted(embedded(emb)) == sorted(texts_of(demo_schema))  # no "<db> <table> <column>" text
    r.retrieve("books and their authors", k=2)
    assert r.index.name_vectors is None
    path = r.save_index(tmp_path / "idx")
    assert "name_vectors.npy" not in np.load(path / "vectors.npz").files
    assert json.loads((path / "meta.json").read_text())["name_vectors"] is False

    paper = TableRetriever.from_index(path, embedder=emb, joins="paper")  # an index without them loads
    assert paper.index.name_vectors is not None  # embedded for the paper's pair score
    calls = emb.calls
    res = paper.retrieve("books and their authors", k=2)
    assert emb.calls == calls + 1  # the question only
    fresh = TableRetriever(demo_schema, embedder=BagOfWordsEmbedder(), joins="paper")
    assert res.table_ids == fresh.retrieve("books and their authors", k=2).table_ids
    np.testing.assert_array_equal(paper.index.name_vectors, fresh.index.name_vectors)


def test_a_cached_index_gains_the_name_vectors_the_paper_mode_needs(tmp_path, demo_schema):
    TableRetriever(demo_schema, embedder=BagOfWordsEmbedder()).load_or_build_index(tmp_path / "idx")
    assert SchemaIndex.load(tmp_path / "idx").name_vectors is None
    r = TableRetriever(demo_schema, embedder=BagOfWordsEmbedder(), joins="paper")
    r.load_or_build_index(tmp_path / "idx")  # rewritten with them
    loaded = SchemaIndex.load(tmp_path / "idx")
    np.testing.assert_array_equal(loaded.name_vectors, r.index.name_vectors)
    emb = BagOfWordsEmbedder()
    TableRetriever(demo_schema, embedder=emb, joins="paper").load_or_build_index(tmp_path / "idx")
    assert emb.calls == 0  # nothing embedded again


def test_name_vectors_need_the_index_model(tmp_path, demo_schema):
    path = SchemaIndex.build(demo_schema, BagOfWordsEmbedder()).save(tmp_path / "idx")
    with pytest.raises(EmbeddingError, match="ensure_name_vectors"):
        SchemaIndex.load(path).features  # no embedder of model test-bow at hand
    with pytest.raises(StaleIndexError, match="test-bow"):
        SchemaIndex.load(path).ensure_name_vectors(BagOfWordsEmbedder(name="other"))
    index = SchemaIndex.load(path)
    index.ensure_name_vectors(BagOfWordsEmbedder())
    assert index.features.name_vectors is index.name_vectors


def test_a_cached_embedder_keeps_a_bounded_number_of_texts():
    inner = BagOfWordsEmbedder()
    cached = CachedEmbedder(inner, max_texts=4)
    many = [f"text {i}" for i in range(10)]
    np.testing.assert_array_equal(cached.embed_documents(many), inner.embed_documents(many))
    assert len(cached) == 0  # more new texts than it keeps: passed through
    cached.embed_documents(many[:3])
    cached.embed_documents(many[3:6])
    assert len(cached) == 4 and list(cached._docs) == many[2:6]  # the oldest forgotten first
    calls = inner.calls
    cached.embed_documents(many[2:6])
    assert inner.calls == calls


# -- disk-backed, streamed ----------------------------------------------------------------------

def test_a_build_in_a_work_directory_maps_its_arrays_and_saves_them_streamed(tmp_path, demo_schema):
    in_memory = SchemaIndex.build(demo_schema, BagOfWordsEmbedder())
    on_disk = SchemaIndex.build(demo_schema, BagOfWordsEmbedder(), work_dir=tmp_path / "work", chunk_size=7)
    for name in ("table_vectors", "column_vectors"):
        arr = getattr(on_disk, name)
        assert isinstance(arr, np.memmap) and str(arr.filename).endswith(f"{name}.npy"), name
    same_vectors(on_disk, in_memory)
    a, b = on_disk.save(tmp_path / "a"), in_memory.save(tmp_path / "b")
    assert (a / "vectors.npz").read_bytes() == (b / "vectors.npz").read_bytes()  # file copy = array write
    loaded = SchemaIndex.load(a)
    assert all(x.flags.aligned and not x.flags.owndata for x in (loaded.table_vectors, loaded.column_vectors))
    same_vectors(loaded, in_memory)


def test_streamed_npz_matches_numpy_and_its_checksum(tmp_path):
    import hashlib

    arrays = {"x": np.arange(12, dtype=np.float32).reshape(3, 4), "y": np.arange(5, dtype=np.int64)}
    np.save(tmp_path / "big.npy", np.arange(4000, dtype=np.float32).reshape(1000, 4))
    arrays["z"] = np.load(tmp_path / "big.npy", mmap_mode="r")
    digest = _write_npz(tmp_path / "v.npz", arrays)
    assert digest == hashlib.sha256((tmp_path / "v.npz").read_bytes()).hexdigest()
    with np.load(tmp_path / "v.npz") as z:
        for k, v in arrays.items():
            np.testing.assert_array_equal(z[k], v)


# -- resuming an interrupted build ----------------------------------------------------------------

def test_an_interrupted_build_resumes_from_the_chunks_embedded(tmp_path, demo_schema):
    out = tmp_path / "idx"
    with pytest.raises(KeyboardInterrupt):
        build_index(demo_schema, out, BagOfWordsEmbedder(fail_after=3), chunk_size=5)
    assert not out.exists()
    state = json.loads((partial_dir(out) / "state.json").read_text())
    assert state["done"] == 15

    emb = BagOfWordsEmbedder()
    index = build_index(demo_schema, out, emb, chunk_size=5)
    n = len(texts_of(demo_schema))
    assert len(embedded(emb)) == n - 15 and emb.calls == -(-(n - 15) // 5)  # the rest only
    assert index.report.resumed == 15 and index.report.embedded == n - 15
    assert not partial_dir(out).exists()  # removed once the index is saved
    same_vectors(SchemaIndex.load(out), SchemaIndex.build(demo_schema, BagOfWordsEmbedder()))
    same_vectors(SchemaIndex.load(index.save(tmp_path / "again")), index)  # its files gone, it saves still


def test_a_work_directory_of_other_texts_or_another_model_starts_over(tmp_path, demo_schema):
    out = tmp_path / "idx"
    with pytest.raises(KeyboardInterrupt):
        build_index(demo_schema, out, BagOfWordsEmbedder(fail_after=2), chunk_size=5)
    other = copies(demo_schema, 1)
    emb = BagOfWordsEmbedder()
    build_index(other, out, emb, chunk_size=5)
    assert sorted(embedded(emb)) == sorted(texts_of(other))  # every text: another schema
    with pytest.raises(KeyboardInterrupt):
        build_index(demo_schema, tmp_path / "b", BagOfWordsEmbedder(fail_after=2), chunk_size=5)
    emb = BagOfWordsEmbedder(name="another-model")
    build_index(demo_schema, tmp_path / "b", emb, chunk_size=5)
    assert len(embedded(emb)) == len(texts_of(demo_schema))


def test_two_builds_of_one_index_do_not_share_the_work_directory(tmp_path, demo_schema, monkeypatch):
    import fcntl

    out = tmp_path / "idx"
    work = partial_dir(out)
    work.mkdir()
    with open(work / "lock", "a+b") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        with pytest.raises(IndexSaveError, match="another build"):
            build_index(demo_schema, out, BagOfWordsEmbedder())


# -- updating an index ---------------------------------------------------------------------------

def changed_lake(lake: Schema) -> Schema:
    """``lake`` with a table added (db1), one dropped (db2) and a column renamed (db0); db3 as it was."""
    tables = []
    for t in lake.tables:
        if t.id == "db2_demo.reviews":
            continue
        if t.id == "db0_demo.customers":
            t = Table(t.database, t.name, [Column("loyalty_level" if c.name == "loyalty_tier" else c.name, c.type,
                                                  c.nl_name, c.comment, c.primary_key, c.unique_ratio, c.sample)
                                           for c in t.columns], t.foreign_keys)
        tables.append(t)
        if t.id == "db1_demo.books":
            tables.append(Table("db1_demo", "wishlists", [Column("wishlist_id", "int", primary_key=True),
                                                           Column("customer_id", "int"), Column("book_id", "int")]))
    return Schema(tables)


@pytest.mark.parametrize("names", [False, True])
def test_an_update_equals_a_rebuild_and_embeds_only_new_texts(demo_schema, monkeypatch, names):
    lake = copies(demo_schema, 4)
    old = SchemaIndex.build(lake, BagOfWordsEmbedder())
    if names:
        old.ensure_name_vectors()
    old.join_graph()
    new_schema = changed_lake(lake)
    inferred: list[int] = []
    real = joins_package.build_join_graph
    monkeypatch.setattr(joins_package, "build_join_graph", lambda s, *a, **k: inferred.append(len(s)) or real(s, *a, **k))

    emb = BagOfWordsEmbedder()
    updated = SchemaIndex.update(old, new_schema, emb)
    assert sorted(embedded(emb)) == sorted(texts_of(new_schema, names) - texts_of(lake, names))
    assert updated.report.added == ("db1_demo.wishlists",) and updated.report.dropped == ("db2_demo.reviews",)
    assert updated.report.changed == ("db0_demo.customers",)
    rebuilt = SchemaIndex.build(new_schema, BagOfWordsEmbedder())
    if names:
        rebuilt.ensure_name_vectors()
    same_vectors(updated, rebuilt)
    assert updated.has_join_graph()
    same_graph(updated.join_graph(), real(new_schema))
    assert inferred == [13 + 14 + 12]  # the rules ran on the three changed databases only, db3 was kept


def test_an_update_through_saved_indexes(tmp_path, demo_schema):
    lake = copies(demo_schema, 3)
    build_index(lake, tmp_path / "idx", BagOfWordsEmbedder())
    old = SchemaIndex.load(tmp_path / "idx")
    new_schema = changed_lake(lake)
    emb = BagOfWordsEmbedder()
    build_index(new_schema, tmp_path / "idx", emb, old=old)
    loaded = SchemaIndex.load(tmp_path / "idx", schema=new_schema)
    same_vectors(loaded, SchemaIndex.build(new_schema, BagOfWordsEmbedder()))
    same_graph(loaded.join_graph(), build_join_graph(new_schema))
    assert loaded.has_join_graph()
    with pytest.raises(StaleIndexError, match="model"):
        SchemaIndex.update(loaded, lake, BagOfWordsEmbedder(name="another-model"))


def test_an_update_of_an_index_saved_without_samples_compares_no_samples(tmp_path, demo_schema):
    SchemaIndex.build(demo_schema, BagOfWordsEmbedder()).save(tmp_path / "idx", store_samples=False)
    updated = SchemaIndex.update(SchemaIndex.load(tmp_path / "idx"), demo_schema, BagOfWordsEmbedder())
    assert updated.report.changed == () and updated.report.embedded == 0


def test_an_unchanged_update_embeds_nothing(demo_schema):
    old = SchemaIndex.build(demo_schema, BagOfWordsEmbedder())
    emb = BagOfWordsEmbedder()
    updated = SchemaIndex.update(old, demo_schema, emb)
    assert emb.calls == 0 and updated.report.embedded == 0
    assert updated.report.added == updated.report.dropped == updated.report.changed == ()
    same_vectors(updated, old)


def test_a_declared_key_across_databases_infers_the_whole_graph(demo_schema):
    from jar_core.index.build import merge_database_graphs
    from jar_core.schema import ForeignKey

    a = Table("x", "a", [Column("id", "int", primary_key=True)])
    b = Table("y", "b", [Column("id", "int", primary_key=True), Column("a_id", "int")],
              [ForeignKey(("a_id",), "x.a", ("id",))])
    s = Schema([a, b])
    index = SchemaIndex.build(s, BagOfWordsEmbedder())
    assert merge_database_graphs(s, index.join_graph(), index.col_offsets, s, index.col_offsets, set()) is None


def test_an_update_reinfers_the_other_schemas_of_a_changed_tables_catalog(demo_schema, monkeypatch):
    """Joins cross the schemas of one catalog: a change in one schema runs the rules on the whole
    catalog (the updated graph is the rebuilt one), and on nothing else."""
    def split(lake: Schema) -> Schema:  # db0's tables in two schemas of catalog "shop"; db1 as it is
        return Schema([dataclasses.replace(t, database="sales" if t.name in {"orders", "customers"} else "catalog",
                                           catalog="shop", foreign_keys=[])
                       if t.database == "db0_demo" else dataclasses.replace(t, foreign_keys=[]) for t in lake.tables])

    lake = split(copies(demo_schema, 2))
    old = SchemaIndex.build(lake, BagOfWordsEmbedder())
    old.join_graph()
    new_schema = Schema([t if t.id != "catalog.books" else dataclasses.replace(
        t, columns=[*t.columns, Column("edition", "int")]) for t in lake.tables])
    inferred: list[int] = []
    real = joins_package.build_join_graph
    monkeypatch.setattr(joins_package, "build_join_graph", lambda s, *a, **k: inferred.append(len(s)) or real(s, *a, **k))
    updated = SchemaIndex.update(old, new_schema, BagOfWordsEmbedder())
    assert updated.report.changed == ("catalog.books",)
    same_graph(updated.join_graph(), real(new_schema))
    assert inferred == [sum(t.catalog == "shop" for t in new_schema.tables)]  # the catalog's two schemas, not db1
    names = [(t.database, c.name) for t in new_schema.tables for c in t.columns]
    g = updated.join_graph()
    assert any({names[a][0], names[b][0]} == {"sales", "catalog"} for a, b in zip(g.a, g.b))


# -- the command line ----------------------------------------------------------------------------

def test_index_update_on_the_command_line(tmp_path, capsys):
    from jar_core.cli.main import main

    ddl = tmp_path / "schema.sql"
    ddl.write_text("CREATE TABLE authors (id INT PRIMARY KEY, name TEXT);\n"
                   "CREATE TABLE books (id INT PRIMARY KEY, title TEXT, author_id INT REFERENCES authors(id));\n"
                   "CREATE TABLE shelves (id INT PRIMARY KEY, label TEXT);\n", encoding="utf-8")
    out = tmp_path / "idx"
    assert main(["index", "--ddl", str(ddl), "--out", str(out), "-q"]) == 0
    assert "indexed 3 tables" in capsys.readouterr().out
    ddl.write_text("CREATE TABLE authors (id INT PRIMARY KEY, full_name TEXT);\n"
                   "CREATE TABLE books (id INT PRIMARY KEY, title TEXT, author_id INT REFERENCES authors(id));\n"
                   "CREATE TABLE loans (id INT PRIMARY KEY, book_id INT REFERENCES books(id));\n", encoding="utf-8")
    assert main(["index", "--ddl", str(ddl), "--out", str(out), "--update", "-q"]) == 0
    printed = capsys.readouterr().out
    assert "added 1 table: main.loans" in printed and "dropped 1 table: main.shelves" in printed
    assert "changed 1 table: main.authors" in printed
    # authors' table text and its renamed column; loans' table text and its two columns
    assert "re-embedded 5 texts" in printed and "updated 3 tables" in printed
    assert not partial_dir(out).exists()
    index = SchemaIndex.load(out)
    assert [t.id for t in index.schema.tables] == ["main.authors", "main.books", "main.loans"]


def test_index_update_from_another_source_is_refused_and_keeps_the_index(tmp_path, capsys):
    from jar_core.cli.main import main

    ddl = tmp_path / "library.sql"
    ddl.write_text("CREATE TABLE authors (id INT PRIMARY KEY, name TEXT);\n"
                   "CREATE TABLE books (id INT PRIMARY KEY, author_id INT REFERENCES authors(id));\n", encoding="utf-8")
    out = tmp_path / "idx"
    assert main(["index", "--ddl", str(ddl), "--out", str(out), "-q"]) == 0
    saved = {p.name: p.read_bytes() for p in out.iterdir()}
    capsys.readouterr()
    other = tmp_path / "shop.sql"  # a wrong --ddl: not one table in common
    other.write_text("CREATE TABLE orders (id INT PRIMARY KEY, total REAL);\n", encoding="utf-8")
    assert main(["index", "--ddl", str(other), "--out", str(out), "--update", "-q"]) != 0
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "holds none of the source's tables" in err
    assert "2 tables of main" in err and "1 table of main" in err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == saved  # the saved index is untouched
    # one table in common is an update, not another source
    other.write_text("CREATE TABLE authors (id INT PRIMARY KEY, name TEXT);\n"
                     "CREATE TABLE orders (id INT PRIMARY KEY, total REAL);\n", encoding="utf-8")
    assert main(["index", "--ddl", str(other), "--out", str(out), "--update", "-q"]) == 0
    assert "dropped 1 table: main.books" in capsys.readouterr().out
