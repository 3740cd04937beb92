"""The schema of a saved index in SQLite, read table by table, and the corpus structure saved with it."""
import dataclasses
import json

import numpy as np
import pytest

from jar_core import TableRetriever
from jar_core.candidates.copies import table_signatures
from jar_core.candidates.scope import DatabaseScope
from jar_core.errors import IndexLoadError, SchemaError, UnknownDatabaseError
from jar_core.index.schema_index import SchemaIndex
from jar_core.index.stored_schema import StoredSchema
from jar_core.index.structure import structure, structure_of_tables
from jar_core.joins.profile import words
from jar_core.schema import Column, ForeignKey, Schema, Table
from jar_core.signals.matrices import _family
from jar_core.signals.near_copies import near_copy_matrix

from helpers import BagOfWordsEmbedder


def _db(name, copy=""):
    """A small database: a module family (sis_*), an entity with tables after it (film, film_actor),
    a link table and near copies (terms, terms_all)."""
    return [
        Table(name, "film", [Column("film_id", "int", primary_key=True), Column("title", "text", nl_name="Title")]),
        Table(name, "film_actor", [Column("film_id", "int"), Column("actor_id", "int")],
              [ForeignKey(("film_id",), f"{name}.film", ("film_id",)), ForeignKey(("actor_id",), f"{name}.actor", ("actor_id",))]),
        Table(name, "actor", [Column("actor_id", "int", primary_key=True), Column("name", "text", sample=("Ann",))]),
        Table(name, "sis_department", [Column("dept_id", "int"), Column("label", "text")], comment="departments"),
        Table(name, "sis_subject_code", [Column("code", "text"), Column("dept_id", "int")]),
        Table(name, f"terms{copy}", [Column("term", "int"), Column("starts", "date"), Column("ends", "date"),
                                     Column("label", "text"), Column("kind", "text")]),
        Table(name, "terms_all", [Column("term", "int"), Column("starts", "date"), Column("ends", "date"),
                                  Column("label", "text"), Column("kind", "text"), Column("Extra", "text")]),
    ]


@pytest.fixture()
def lake():
    return Schema([*_db("shop"), *_db("shop_2"), *_db("Other", copy="_v2"),
                   Table("Other", "Film", [Column("ID", "int")])], dialect="sqlite")


@pytest.fixture()
def saved(tmp_path, lake):
    SchemaIndex.build(lake, BagOfWordsEmbedder()).save(tmp_path / "idx")
    return tmp_path / "idx"


def test_a_loaded_index_reads_no_table_until_a_question_needs_it(saved, lake):
    index = SchemaIndex.load(saved)
    assert isinstance(index.schema, StoredSchema) and index.schema.tables.reads == 0
    r = TableRetriever(index.schema, index=index, embedder=BagOfWordsEmbedder())
    index.join_graph()
    index.link_tables()
    DatabaseScope(index.schema).positions("shop_2")
    table_signatures(index.schema)
    assert index.schema.tables.reads == 0 and len(index.schema) == len(lake)
    assert index.schema.fingerprint() == lake.fingerprint()
    assert r.retrieve("film titles and actor names", k=3).table_ids == \
        TableRetriever(lake, embedder=BagOfWordsEmbedder()).retrieve("film titles and actor names", k=3).table_ids


def test_the_stored_schema_answers_as_the_schema_it_saved(saved, lake):
    stored = SchemaIndex.load(saved).schema
    assert [t.to_dict() for t in stored] == [t.to_dict() for t in lake.tables]
    assert stored.to_dict() == lake.to_dict() and stored.dialect == "sqlite"
    assert stored.databases == lake.databases
    for name in ("shop.film", "SHOP.FILM", "film_actor", "other.film", "Other.Film", "terms_v2", "nothing", "shop"):
        try:
            want = lake.find(name)
        except UnknownDatabaseError as e:
            with pytest.raises(UnknownDatabaseError, match="ambiguous"):
                stored.find(name)
            assert "ambiguous" in str(e)
            continue
        got = stored.find(name)
        assert (got and got.id) == (want and want.id), name
        if want is not None:
            assert stored.position(name) == lake.position(name)
    for db in ("shop", "other", "OTHER"):
        assert stored.subset(db).to_dict() == lake.subset(db).to_dict()
    with pytest.raises(UnknownDatabaseError, match="unknown database"):
        stored.subset("nowhere")
    with pytest.raises(UnknownDatabaseError, match="no table"):
        stored["no_such_table"]
    assert stored.tables[-1].id == "Other.Film" and [t.id for t in stored.tables[1:3]] == ["shop.film_actor", "shop.actor"]


def test_the_saved_structure_is_the_one_worked_out(saved, lake):
    stored, fresh = structure(SchemaIndex.load(saved).schema), structure_of_tables(lake.tables, len(lake.tables))
    for f in dataclasses.fields(fresh):
        a, b = getattr(stored, f.name), getattr(fresh, f.name)
        assert (a.tolist() if isinstance(a, np.ndarray) else a) == (b.tolist() if isinstance(b, np.ndarray) else b)


def _old_family(schema):
    """The table families as worked out from the tables (before the structure was saved)."""
    names = [words(t.name) for t in schema.tables]
    entities = {(t.database, w[0]) for t, w in zip(schema.tables, names) if len(w) == 1}
    return np.array([f"{t.database}\x00{w[0]}" if len(w) > 1 and len(w[0]) >= 2 and (t.database, w[0]) not in entities
                     else f"\x01{t.id}" for t, w in zip(schema.tables, names)], dtype=object)


def test_families_near_copies_and_scopes_from_the_structure_are_those_of_the_tables(saved, lake):
    everything = np.arange(len(lake))
    old = _old_family(lake)
    want = old[:, None] == old[None, :]
    np.fill_diagonal(want, False)
    for index in (SchemaIndex.build(lake, BagOfWordsEmbedder()), SchemaIndex.load(saved)):
        np.testing.assert_array_equal(_family(index, everything), want)
        near = near_copy_matrix(index, everything)
        pairs = {(lake.tables[a].id, lake.tables[b].id) for a, b in zip(*np.nonzero(near)) if a < b}
        assert pairs == {("shop.terms", "shop.terms_all"), ("shop_2.terms", "shop_2.terms_all"),
                         ("Other.terms_v2", "Other.terms_all")}
        scope = DatabaseScope(index.schema)
        assert scope.positions("other").tolist() == [i for i, t in enumerate(lake.tables) if t.database == "Other"]
        assert scope.near_databases(np.array([0, 8])) == {"shop", "shop_2"}
        sig, db = table_signatures(index.schema)
        assert sig[0] == sig[7] == sig[14] != sig[21] and sig[5] != sig[19] and db[0] != db[7] and db[14] == db[21]


def test_an_index_of_the_older_format_asks_to_be_rebuilt_and_can_be_replaced(saved, lake):
    meta = json.loads((saved / "meta.json").read_text())
    (saved / "schema.sqlite").unlink()
    (saved / "schema.json").write_text(json.dumps(lake.to_dict()))
    (saved / "meta.json").write_text(json.dumps({**meta, "format_version": 1}))
    with pytest.raises(IndexLoadError, match=r"format version 1, this version reads 2; rebuild it"):
        SchemaIndex.load(saved)
    SchemaIndex.build(lake, BagOfWordsEmbedder()).save(saved)  # a save replaces it
    assert sorted(p.name for p in saved.iterdir()) == ["joins.npz", "meta.json", "schema.sqlite", "vectors.npz"]
    assert len(SchemaIndex.load(saved).schema) == len(lake)


@pytest.mark.parametrize("damage", [
    "DELETE FROM tables WHERE pos = 3", "UPDATE info SET value = x'00' WHERE key = 'structure.database'",
    "UPDATE tables SET data = x'7b7d' WHERE pos = 0",
])
def test_a_store_that_is_not_the_saved_schema_is_refused(saved, damage):
    import hashlib
    import sqlite3

    con = sqlite3.connect(saved / "schema.sqlite")
    con.execute(damage)
    con.commit()
    con.close()
    meta = json.loads((saved / "meta.json").read_text())
    meta["sha256"]["schema.sqlite"] = hashlib.sha256((saved / "schema.sqlite").read_bytes()).hexdigest()
    (saved / "meta.json").write_text(json.dumps(meta))  # the checksum matches: the content is checked
    try:
        index = SchemaIndex.load(saved)
    except IndexLoadError as e:
        assert "schema.sqlite is not a valid schema" in str(e) and "\n" not in str(e)
        return
    with pytest.raises(SchemaError, match="table 0 is malformed"):
        index.schema.tables[0]


def _large(monkeypatch, block_bytes=64):
    """Every index is 'large': its vectors checked by blocks of a few rows when read."""
    from jar_core.index import checked

    monkeypatch.setattr(checked, "CHECK_WHOLE_BYTES", 0)
    monkeypatch.setattr(checked, "BLOCK_BYTES", block_bytes)


def test_a_large_index_checks_its_vectors_by_block_when_read(tmp_path, lake, monkeypatch):
    from jar_core.index.checked import CheckedRows

    _large(monkeypatch)
    built = SchemaIndex.build(lake, BagOfWordsEmbedder())
    built.save(tmp_path / "idx")
    index = SchemaIndex.load(tmp_path / "idx")
    assert isinstance(index.column_vectors, CheckedRows)
    np.testing.assert_array_equal(index.column_vectors[[3, 1]], built.column_vectors[[3, 1]])
    np.testing.assert_array_equal(index.table_vectors[2:5], built.table_vectors[2:5])
    np.testing.assert_array_equal(index.table_vectors @ built.table_vectors[0], built.table_vectors @ built.table_vectors[0])
    r = TableRetriever(index.schema, index=index, embedder=BagOfWordsEmbedder())
    assert r.retrieve("film titles and actor names", k=3).table_ids == \
        TableRetriever(lake, embedder=BagOfWordsEmbedder()).retrieve("film titles and actor names", k=3).table_ids
    index.save(tmp_path / "again")  # a save checks every block first
    np.testing.assert_array_equal(SchemaIndex.load(tmp_path / "again").column_vectors[:], built.column_vectors)


@pytest.mark.parametrize("value,message", [(b"\x01\x02\x03\x04", "do not match their checksum"), (None, "non-finite")])
def test_a_damaged_block_of_a_large_index_raises_when_read(tmp_path, lake, monkeypatch, value, message):
    import hashlib

    _large(monkeypatch)
    built = SchemaIndex.build(lake, BagOfWordsEmbedder())
    p = built.save(tmp_path / "idx")
    index = SchemaIndex.load(p)
    column = built.column_vectors
    last = bytes(memoryview(np.ascontiguousarray(column[-1])).cast("B"))
    data = (p / "vectors.npz").read_bytes()
    at = data.rindex(last)
    bad = value if value is not None else np.float32(np.nan).tobytes()
    (p / "vectors.npz").write_bytes(data[:at] + bad + data[at + len(bad):])
    if value is None:  # NaN with the right checksums: the values are checked too
        import sqlite3

        con = sqlite3.connect(p / "schema.sqlite")
        (saved,) = con.execute("SELECT value FROM info WHERE key = 'blocks.column_vectors'").fetchone()
        rows = int.from_bytes(saved[:8], "little")
        block = np.ascontiguousarray(column[(len(column) - 1) // rows * rows:]).copy()
        block[-1, 0] = np.nan
        saved = saved[:-32] + hashlib.sha256(block.tobytes()).digest()
        con.execute("UPDATE info SET value = ? WHERE key = 'blocks.column_vectors'", (saved,))
        con.commit()
        con.close()
        meta = json.loads((p / "meta.json").read_text())
        meta["sha256"]["schema.sqlite"] = hashlib.sha256((p / "schema.sqlite").read_bytes()).hexdigest()
        (p / "meta.json").write_text(json.dumps(meta))
    index = SchemaIndex.load(p)  # the damaged rows are not read at load
    np.testing.assert_array_equal(index.column_vectors[:2], column[:2])
    with pytest.raises(IndexLoadError, match=message) as e:
        index.column_vectors[[0, len(column) - 1]]
    assert "\n" not in str(e.value) and "column_vectors" in str(e.value)


def test_a_schema_file_of_another_index_is_refused(tmp_path):
    # SQLite may open a schema file by its path again; when a save replaced the directory in the
    # meantime the file is another index's: its fingerprint says so (a race seen once in ~3,000
    # loads of scripts/stress_index.py)
    from jar_core.index.stored_schema import connect_schema_store, open_schema_store, write_schema_store

    a = Schema([Table("a", "t", [Column("id")])])
    b = Schema([Table("b", "t", [Column("id")])])
    write_schema_store(tmp_path / "b.sqlite", b)
    assert len(open_schema_store(connect_schema_store(str(tmp_path / "b.sqlite")), b.fingerprint(), 1).tables) == 1
    with pytest.raises(ValueError, match="another index"):
        open_schema_store(connect_schema_store(str(tmp_path / "b.sqlite")), a.fingerprint(), 1)
