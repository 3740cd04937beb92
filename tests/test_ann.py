"""The approximate first stage (jar_core.candidates.ann): same top-N as brute force, filters, saved with the index."""
from __future__ import annotations

import json
import logging

import numpy as np
import pytest

pytest.importorskip("faiss", reason="the approximate first stage needs faiss-cpu (pip install 'jar-retrieval[ann]')")

from jar_core.index import ann as ann_mod  # noqa: E402
from jar_core.candidates.ann import ApproximateCandidates, choose_generator  # noqa: E402
from jar_core.index.ann import ANN_FILE, AnnIndex  # noqa: E402
from jar_core.candidates.first_stage import BruteForceCandidates  # noqa: E402
from jar_core.errors import IndexLoadError, InvalidArgumentError  # noqa: E402
from jar_core.index.schema_index import SchemaIndex  # noqa: E402
from jar_core.schema import Column, Schema, Table  # noqa: E402

DIM = 32
N_TABLES = 3000
PER_DB = 10


def _corpus(n: int = N_TABLES, seed: int = 0) -> tuple[SchemaIndex, np.ndarray]:
    """``n`` one-column tables in databases of 10, their vectors near-duplicates around 60
    centres (as a lake of copies is), and 40 questions near the centres."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((60, DIM)).astype(np.float32)
    vecs = centres[rng.integers(0, len(centres), n)] + 0.15 * rng.standard_normal((n, DIM)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    tables = [Table(f"db{i // PER_DB}", f"t{i % PER_DB}", [Column("id", "INT")]) for i in range(n)]
    index = SchemaIndex(Schema(tables), "test-model", vecs, vecs.copy(), vecs.copy())
    queries = centres[rng.integers(0, len(centres), 40)] + 0.3 * rng.standard_normal((40, DIM)).astype(np.float32)
    return index, queries / np.linalg.norm(queries, axis=1, keepdims=True)


@pytest.fixture(scope="module")
def corpus():
    return _corpus()


def _same(index, gen, query, n, allowed):
    got = gen.search(index, query, n, allowed)
    want = BruteForceCandidates().search(index, query, n, allowed)
    np.testing.assert_array_equal(got[0], want[0])
    # the same dot products, summed in blocks of another size by the BLAS: equal to the last bit or two
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-6)
    return got


@pytest.mark.parametrize("n", [1, 20, 200])
def test_same_top_n_as_brute_force(corpus, n):
    index, queries = corpus
    gen = ApproximateCandidates(exact_rows=0)
    allowed = np.ones(N_TABLES, dtype=bool)
    for q in queries:
        _same(index, gen, q, n, allowed)
    assert "_ann" in index.__dict__  # the approximate index answered (no brute force below a size)


def test_database_filter_and_exclusions(corpus):
    index, queries = corpus
    gen = ApproximateCandidates(exact_rows=0)
    rng = np.random.default_rng(3)
    for q in queries[:20]:
        one_db = np.zeros(N_TABLES, dtype=bool)
        one_db[PER_DB * 7: PER_DB * 8] = True  # a database filter: its rows scored exactly
        pos, _ = _same(index, gen, q, 20, one_db)
        assert len(pos) == PER_DB
        excl = np.ones(N_TABLES, dtype=bool)
        best = BruteForceCandidates().search(index, q, 3, excl)[0]
        excl[best] = False  # the three best excluded, and two others
        excl[rng.integers(0, N_TABLES, 2)] = False
        pos, _ = _same(index, gen, q, 20, excl)
        assert not set(best) & set(pos.tolist())
        half = np.zeros(N_TABLES, dtype=bool)
        half[rng.permutation(N_TABLES)[: N_TABLES // 2]] = True  # half the databases: oversampled
        _same(index, gen, q, 20, half)


def test_request_grows_until_n_are_found(corpus):
    index, queries = corpus
    q = queries[0]
    scores = index.table_vectors @ q
    far = scores < np.quantile(scores, 0.3)  # only the tables least like the question
    _same(index, ApproximateCandidates(exact_rows=0), q, 20, far)
    # one list probed, no oversampling: the first lists hold none of them; the request grows
    gen = ApproximateCandidates(exact_rows=0, nprobe=1, oversample=1)
    pos, got = gen.search(index, q, 20, far)
    assert len(pos) == 20 and far[pos].all()
    np.testing.assert_allclose(got, scores[pos], atol=1e-6)
    assert (np.diff(got) <= 0).all()
    one = np.zeros(N_TABLES, dtype=bool)
    one[[5, 17, 2999]] = True
    _same(index, gen, q, 20, one)  # fewer allowed than asked: all of them
    assert len(gen.search(index, q, 20, np.zeros(N_TABLES, dtype=bool))[0]) == 0


def test_deterministic():
    a, queries = _corpus(1200, seed=5)
    b, _ = _corpus(1200, seed=5)
    assert ann_mod.ann_for(a).to_bytes() == ann_mod.ann_for(b).to_bytes()
    gen = ApproximateCandidates(exact_rows=0)
    allowed = np.ones(1200, dtype=bool)
    for q in queries:
        first = gen.search(a, q, 20, allowed)
        np.testing.assert_array_equal(first[0], gen.search(a, q, 20, allowed)[0])
        np.testing.assert_array_equal(first[0], gen.search(b, q, 20, allowed)[0])


def test_small_corpus_is_scored_exactly():
    index, queries = _corpus(300, seed=2)
    gen = ApproximateCandidates()  # 300 tables < EXACT_ROWS: no approximate index needed
    _same(index, gen, queries[0], 20, np.ones(300, dtype=bool))
    assert "_ann" not in index.__dict__


# -- saved with the index ------------------------------------------------------------------

def _saved(tmp_path, n=1200, ann=True):
    index, queries = _corpus(n, seed=7)
    path = index.save(tmp_path / "idx", ann=ann)
    return index, queries, path


def test_save_load_round_trip(tmp_path, monkeypatch):
    index, queries, path = _saved(tmp_path)
    meta = json.loads((path / "meta.json").read_text())
    entry = meta["ann"]
    assert entry["library"] == "faiss" and entry["tables"] == 1200 and entry["dim"] == DIM
    assert entry["nlist"] == ann_mod.default_nlist(1200)
    assert entry["vectors_sha256"] == meta["sha256"]["vectors.npz"]
    assert ANN_FILE in meta["sha256"]
    monkeypatch.setattr(AnnIndex, "build", classmethod(lambda *a, **k: pytest.fail("rebuilt, not loaded")))
    loaded = SchemaIndex.load(path)
    assert "_ann" not in loaded.__dict__  # deserialized on first use
    gen = ApproximateCandidates(exact_rows=0)
    allowed = np.ones(1200, dtype=bool)
    for q in queries:
        np.testing.assert_array_equal(gen.search(loaded, q, 20, allowed)[0], gen.search(index, q, 20, allowed)[0])
    # saved again without being deserialized first: the same file
    other = SchemaIndex.load(path)
    again = other.save(tmp_path / "again")
    assert (again / ANN_FILE).read_bytes() == (path / ANN_FILE).read_bytes()


def test_saved_only_when_asked_or_large(tmp_path, monkeypatch):
    index, _ = _corpus(1200, seed=7)
    assert not (index.save(tmp_path / "a") / ANN_FILE).exists()  # below the threshold
    monkeypatch.setattr(ann_mod, "ANN_THRESHOLD", 1000)
    path = index.save(tmp_path / "b")
    assert (path / ANN_FILE).exists() and "ann" in json.loads((path / "meta.json").read_text())
    assert not (index.save(tmp_path / "c", ann=False) / ANN_FILE).exists()


def test_corrupt_or_missing_ann_file_is_an_error(tmp_path):
    _, _, path = _saved(tmp_path)
    data = bytearray((path / ANN_FILE).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (path / ANN_FILE).write_bytes(bytes(data))
    with pytest.raises(IndexLoadError, match="ann.faiss does not match its checksum"):
        SchemaIndex.load(path)
    (path / ANN_FILE).unlink()
    with pytest.raises(IndexLoadError, match="ann.faiss is missing"):
        SchemaIndex.load(path)


def test_stale_ann_file_is_not_used(tmp_path, caplog):
    _, queries, path = _saved(tmp_path)
    # another index's approximate index (other vectors, another count), its checksum updated
    other, _ = _corpus(1500, seed=9)
    blob = ann_mod.ann_for(other).to_bytes()
    (path / ANN_FILE).write_bytes(blob)
    meta = json.loads((path / "meta.json").read_text())
    import hashlib

    meta["sha256"][ANN_FILE] = hashlib.sha256(blob).hexdigest()
    (path / "meta.json").write_text(json.dumps(meta))
    with caplog.at_level(logging.WARNING, logger="jar_core.candidates.ann"):
        loaded = SchemaIndex.load(path)
    assert "stale" in caplog.text and "_ann_saved" not in loaded.__dict__
    # the meta entry says 1200 but the vectors it was built from are others
    meta["ann"]["tables"] = 1500
    (path / "meta.json").write_text(json.dumps(meta))
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="jar_core.candidates.ann"):
        loaded = SchemaIndex.load(path)
    assert "stale" in caplog.text and "_ann_saved" not in loaded.__dict__
    # and a file that lies about its count is refused when deserialized
    with pytest.raises(IndexLoadError, match="holds 1500 vectors"):
        AnnIndex.from_bytes(blob, loaded.table_vectors)
    # built again when needed, and right
    gen = ApproximateCandidates(exact_rows=0)
    _same(loaded, gen, queries[0], 20, np.ones(1200, dtype=bool))


def test_tied_to_the_table_vectors(tmp_path, caplog):
    _, _, path = _saved(tmp_path)
    meta = json.loads((path / "meta.json").read_text())
    meta["ann"]["vectors_sha256"] = "0" * 64  # built from other table vectors
    (path / "meta.json").write_text(json.dumps(meta))
    with caplog.at_level(logging.WARNING, logger="jar_core.candidates.ann"):
        loaded = SchemaIndex.load(path)
    assert "other table vectors" in caplog.text and "_ann_saved" not in loaded.__dict__


# -- the retriever's choice --------------------------------------------------------------

def _schema(n):
    return Schema([Table(f"db{i // PER_DB}", f"t{i % PER_DB}", [Column("id", "INT")]) for i in range(n)])


def test_default_switches_at_the_threshold(monkeypatch, caplog):
    from jar_core.retriever import TableRetriever

    from tests.helpers import BagOfWordsEmbedder

    monkeypatch.setattr(ann_mod, "ANN_THRESHOLD", 50)
    emb = BagOfWordsEmbedder()
    assert isinstance(TableRetriever(_schema(49), embedder=emb).candidate_generator, BruteForceCandidates)
    assert isinstance(TableRetriever(_schema(50), embedder=emb).candidate_generator, ApproximateCandidates)
    assert isinstance(TableRetriever(_schema(50), embedder=emb, candidate_generator="exact").candidate_generator,
                      BruteForceCandidates)
    assert isinstance(TableRetriever(_schema(10), embedder=emb, candidate_generator="ann").candidate_generator,
                      ApproximateCandidates)
    mine = BruteForceCandidates()
    assert TableRetriever(_schema(50), embedder=emb, candidate_generator=mine).candidate_generator is mine
    with pytest.raises(InvalidArgumentError, match="candidate_generator"):
        TableRetriever(_schema(10), embedder=emb, candidate_generator="hnsw")
    monkeypatch.setattr(ann_mod, "available", lambda: False)
    with caplog.at_level(logging.INFO, logger="jar_core.candidates.ann"):
        assert isinstance(choose_generator(None, 50), BruteForceCandidates)
    assert "needs FAISS" in caplog.text


def test_retriever_with_ann_forced_answers_as_brute_force(monkeypatch):
    import jar_core.retriever as retriever_mod
    from jar_core.retriever import TableRetriever

    # both through the BM25 shortlist of their first stage (brute force scores a corpus this
    # small whole otherwise)
    monkeypatch.setattr(retriever_mod, "LEXICAL_WHOLE_CORPUS", 0)

    from tests.helpers import BagOfWordsEmbedder

    schema = Schema([
        Table(f"shop{c}", name, [Column(col, "INT") for col in cols])
        for c in range(400)
        for name, cols in (("customers", ("customer_id", "city")), ("orders", ("order_id", "customer_id", "total")),
                           ("products", ("product_id", "price")), ("suppliers", ("supplier_id", "country")))
    ])
    emb = BagOfWordsEmbedder()
    exact = TableRetriever(schema, embedder=emb, candidate_generator="exact")
    approx = TableRetriever(schema, embedder=emb, index=exact.index,
                            candidate_generator=ApproximateCandidates(exact_rows=0))
    for q in ("orders total per customer city", "supplier country", "product price"):
        a, b = exact.retrieve(q, k=3), approx.retrieve(q, k=3)
        assert a.table_ids == b.table_ids
        assert exact.retrieve(q, k=3, database="shop7").table_ids == approx.retrieve(q, k=3, database="shop7").table_ids


def test_first_stage_option_of_the_commands():
    from jar_core.cli.main import build_parser

    p = build_parser()
    for command in (["retrieve", "q"], ["index", "-o", "out"], ["eval", "folder"]):
        assert p.parse_args(command).first_stage == "auto"
        assert p.parse_args([*command, "--first-stage", "ann"]).first_stage == "ann"
    with pytest.raises(SystemExit):
        p.parse_args(["retrieve", "q", "--first-stage", "hnsw"])


def test_retriever_using_ann_saves_it(tmp_path):
    from jar_core.retriever import TableRetriever

    from tests.helpers import BagOfWordsEmbedder

    r = TableRetriever(_schema(60), embedder=BagOfWordsEmbedder(), candidate_generator="ann")
    assert (r.save_index(tmp_path / "a") / ANN_FILE).exists()
    assert not (r.save_index(tmp_path / "b", ann=False) / ANN_FILE).exists()
    loaded = TableRetriever.from_index(tmp_path / "a", embedder=BagOfWordsEmbedder())
    assert "_ann_saved" in loaded.index.__dict__
