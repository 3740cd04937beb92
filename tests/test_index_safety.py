"""Index folders: a save replaces nothing but an index; a hostile or damaged index folder gives
an IndexLoadError, never a traceback, a hang or a huge allocation; an update keeps a dotted
table's database apart from its name."""
import hashlib
import io
import json
import os
import struct
import threading
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from jar_core.cli.main import main
from jar_core.errors import IndexLoadError, IndexSaveError
from jar_core.index.schema_index import SchemaIndex
from jar_core.retriever import TableRetriever
from jar_core.schema import Column, ForeignKey, Schema, Table

from helpers import BagOfWordsEmbedder

DDL = "CREATE TABLE customers (id INT PRIMARY KEY, name TEXT);\nCREATE TABLE orders (id INT PRIMARY KEY, total REAL);\n"


def _schema() -> Schema:
    return Schema([Table("shop", "customers", [Column("id", "INT", primary_key=True), Column("name", "TEXT")]),
                   Table("shop", "orders", [Column("id", "INT", primary_key=True), Column("total", "REAL")])])


@pytest.fixture()
def saved(tmp_path) -> Path:
    return SchemaIndex.build(_schema(), BagOfWordsEmbedder()).save(tmp_path / "idx")


def _resign(path: Path, name: str) -> None:
    """Give ``name`` its new SHA-256 in meta.json (a file changed on purpose, not by accident)."""
    meta = json.loads((path / "meta.json").read_text())
    meta["sha256"][name] = hashlib.sha256((path / name).read_bytes()).hexdigest()
    (path / "meta.json").write_text(json.dumps(meta))


# -- 1. a save replaces nothing but an index -------------------------------------------------

def _user_folder(tmp_path: Path, meta: str = "{}") -> Path:
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "meta.json").write_text(meta)
    (proj / "thesis.tex").write_text("work")
    return proj


def test_the_index_command_does_not_empty_a_folder_with_a_meta_json(tmp_path, capsys):
    proj = _user_folder(tmp_path)
    (tmp_path / "s.sql").write_text(DDL)
    assert main(["index", "--ddl", str(tmp_path / "s.sql"), "--out", str(proj), "-q"]) != 0
    err = capsys.readouterr().err
    assert "thesis.tex" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert (proj / "thesis.tex").read_text() == "work" and (proj / "meta.json").read_text() == "{}"


@pytest.mark.parametrize("how", ["save", "save_index", "load_or_build_index"])
def test_no_save_replaces_a_user_folder(tmp_path, saved, how):
    # an index's own meta.json beside a user's file: still not the index's folder alone
    proj = _user_folder(tmp_path, (saved / "meta.json").read_text())
    retriever = TableRetriever(_schema(), embedder=BagOfWordsEmbedder())
    if how == "save":
        with pytest.raises(IndexSaveError, match="thesis.tex"):
            retriever.index.save(proj)
    elif how == "save_index":
        with pytest.raises(IndexSaveError, match="thesis.tex"):
            retriever.save_index(proj)
    else:
        with pytest.warns(UserWarning, match="not written"):
            retriever.load_or_build_index(proj)
    assert sorted(p.name for p in proj.iterdir()) == ["meta.json", "thesis.tex"]
    assert (proj / "thesis.tex").read_text() == "work"


def test_only_a_meta_json_of_an_index_is_replaced(tmp_path, saved):
    index = SchemaIndex.build(_schema(), BagOfWordsEmbedder())
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "meta.json").write_text('{"name": "my package"}')
    with pytest.raises(IndexSaveError, match="not an index"):
        index.save(foreign)
    assert (foreign / "meta.json").read_text() == '{"name": "my package"}'
    (saved / "vectors.npz").unlink()
    (saved / "vectors.npz").mkdir()  # a directory of an index's file name: may hold anything
    with pytest.raises(IndexSaveError, match="vectors.npz"):
        index.save(saved)
    (saved / "vectors.npz").rmdir()
    index.save(saved)  # an index (a file missing) is replaced
    SchemaIndex.load(saved)


@pytest.mark.parametrize("out", [".", ".."])
def test_index_out_naming_no_folder_is_a_one_line_error(tmp_path, monkeypatch, capsys, out):
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (tmp_path / "s.sql").write_text(DDL)
    monkeypatch.chdir(work)
    assert main(["index", "--ddl", str(tmp_path / "s.sql"), "--out", out, "-q"]) != 0
    err = capsys.readouterr().err
    assert "names no index directory" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    with pytest.raises(IndexSaveError, match="names no index directory"):
        SchemaIndex.build(_schema(), BagOfWordsEmbedder()).save(out)


# -- 4. an update of a table whose name holds a dot -------------------------------------------

def _dotted(reference: bool, note: bool = False) -> Schema:
    cols = [Column("id", "INT", primary_key=True), Column("placed_in", "INT"), Column("qty", "INT")]
    if note:
        cols.append(Column("note", "TEXT"))
    fks = [ForeignKey(("placed_in",), "sales.orders", ("id",))] if reference else []
    return Schema([Table("sales", "orders", [Column("id", "INT", primary_key=True), Column("total", "REAL")]),
                   Table("sales", "order.items", cols, fks)])


@pytest.mark.parametrize("note", [False, True], ids=["reference-added", "reference-and-column-added"])
def test_an_update_reinfers_the_database_of_a_dotted_table(note):
    emb = BagOfWordsEmbedder()
    old = SchemaIndex.build(_dotted(False), emb)
    assert len(old.join_graph()) == 0
    new = _dotted(True, note)
    updated = SchemaIndex.update(old, new, emb)
    assert updated.report.changed == ("sales.order.items",)
    fresh = SchemaIndex.build(new, emb).join_graph()
    graph = updated.join_graph()
    assert len(graph) == len(fresh) == 1
    np.testing.assert_array_equal(graph.a, fresh.a)
    np.testing.assert_array_equal(graph.b, fresh.b)


# -- 11, 12. damaged and hostile index folders --------------------------------------------------

@pytest.mark.parametrize("name", ["meta.json", "schema.sqlite", "vectors.npz", "joins.npz"])
def test_an_index_file_replaced_by_a_directory(saved, name):
    (saved / name).unlink()
    (saved / name).mkdir()
    with pytest.raises(IndexLoadError, match=f"{name} is not a regular file"):
        SchemaIndex.load(saved)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("name", ["meta.json", "schema.sqlite", "vectors.npz"])
def test_an_index_file_linked_to_a_device(saved, name):
    (saved / name).unlink()
    (saved / name).symlink_to("/dev/zero")
    with pytest.raises(IndexLoadError, match=f"{name} is not a regular file"):
        SchemaIndex.load(saved)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_an_index_file_that_is_a_fifo_does_not_hang(saved):
    (saved / "schema.sqlite").unlink()
    os.mkfifo(saved / "schema.sqlite")
    errors: list[BaseException] = []

    def load() -> None:
        try:
            SchemaIndex.load(saved)
        except BaseException as e:  # noqa: BLE001 - handed to the test
            errors.append(e)

    thread = threading.Thread(target=load, daemon=True)
    thread.start()
    thread.join(120)  # immediate when fixed; generous for a slow machine
    if thread.is_alive():  # release the blocked open, then fail
        os.close(os.open(saved / "schema.sqlite", os.O_WRONLY | os.O_NONBLOCK))
        thread.join(10)
        pytest.fail("loading an index whose schema.json is a FIFO hangs")
    assert len(errors) == 1 and isinstance(errors[0], IndexLoadError), errors
    assert "schema.sqlite is not a regular file" in str(errors[0])


def test_an_oversized_meta_json_is_not_read(saved):
    meta = json.loads((saved / "meta.json").read_text())
    meta["padding"] = " " * (2 << 20)
    (saved / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(IndexLoadError, match="meta.json holds"):
        SchemaIndex.load(saved)


def _bomb(shape: tuple[int, ...], file_size: int | None = None) -> bytes:
    """An .npz of one deflated member whose header declares an array of ``shape`` (float32)
    over a few hundred bytes of data; ``file_size``: the uncompressed size its zip entry declares."""
    head = io.BytesIO()
    np.lib.format.write_array_header_1_0(head, {"descr": "<f4", "fortran_order": False, "shape": shape})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("table_vectors.npy", head.getvalue() + bytes(512))
    data = bytearray(buf.getvalue())
    if file_size is not None:  # the declared size, in the local and the central header
        for sig, at in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
            pos = data.find(sig)
            data[pos + at : pos + at + 4] = struct.pack("<I", file_size)
    return bytes(data)


@pytest.mark.parametrize("shape,file_size", [((1 << 20, 1 << 10), None), ((2, 64), 4_000_000_000)],
                         ids=["header-shape", "declared-size"])
def test_a_compressed_vectors_member_is_bounded_before_it_is_allocated(saved, shape, file_size):
    (saved / "vectors.npz").write_bytes(_bomb(shape, file_size))  # 4 GiB of float32 declared
    _resign(saved, "vectors.npz")
    tracemalloc.start()
    try:
        with pytest.raises(IndexLoadError, match="vectors.npz unreadable"):
            SchemaIndex.load(saved)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 256 << 20, f"{peak} bytes allocated"


def test_a_compressed_vectors_member_of_another_shape(saved):
    index = SchemaIndex.load(saved)
    tv, cv = np.array(index.table_vectors), np.array(index.column_vectors)  # copies: the file is rewritten
    buf = io.BytesIO()
    np.savez_compressed(buf, table_vectors=np.zeros((7, tv.shape[1]), np.float32), column_vectors=cv)
    (saved / "vectors.npz").write_bytes(buf.getvalue())
    _resign(saved, "vectors.npz")
    with pytest.raises(IndexLoadError, match=r"shape \(7, 64\), expected \(2, 64\)"):
        SchemaIndex.load(saved)
    buf = io.BytesIO()  # the index's own arrays, compressed: still read
    np.savez_compressed(buf, table_vectors=tv, column_vectors=cv)
    (saved / "vectors.npz").write_bytes(buf.getvalue())
    _resign(saved, "vectors.npz")
    np.testing.assert_array_equal(SchemaIndex.load(saved).table_vectors, tv)


def test_a_mutated_ann_file_is_a_damaged_index(tmp_path):
    pytest.importorskip("faiss", reason="the approximate first stage needs faiss-cpu")
    from jar_core.index.ann import ann_for

    rng = np.random.default_rng(0)
    n, dim = 1200, 16
    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    tables = [Table(f"db{i // 10}", f"t{i % 10}", [Column("id", "INT")]) for i in range(n)]
    path = SchemaIndex(Schema(tables), "test-model", vecs, vecs.copy()).save(tmp_path / "idx", ann=True)
    data = bytearray((path / "ann.faiss").read_bytes())
    assert 0 <= struct.unpack("<q", data[-8:])[0] < n  # the last id of the last list
    data[-8:] = struct.pack("<q", 10**6)  # a table the index does not have
    (path / "ann.faiss").write_bytes(bytes(data))
    _resign(path, "ann.faiss")
    loaded = SchemaIndex.load(path)
    with pytest.raises(IndexLoadError, match="ann.faiss names table 1000000"):
        for q in vecs[:200]:
            ann_for(loaded).search(q, n, 1 << 20)  # every list: the mutated id is found


def test_a_persisted_retriever_names_no_model(tmp_path):
    pytest.importorskip("llama_index.core")
    from llamaindex_jar import JoinAwareRetriever

    emb = BagOfWordsEmbedder()
    r = JoinAwareRetriever.from_table_retriever(TableRetriever(_schema(), embedder=emb))
    r.persist(tmp_path / "store")
    config_file = tmp_path / "store" / "jar_retriever.json"
    config = json.loads(config_file.read_text())
    assert JoinAwareRetriever.from_persist_dir(tmp_path / "store", embedder=emb).k == r.k
    for key, value in (("embedder", "some-org/some-model"), ("embed_model", "some-org/some-model"),
                       ("candidates", ["not", "plain"])):
        config_file.write_text(json.dumps({**config, "core": {**config["core"], key: value}}))
        with pytest.raises(IndexLoadError, match=repr(key) if key != "candidates" else "not a plain value"):
            JoinAwareRetriever.from_persist_dir(tmp_path / "store")
