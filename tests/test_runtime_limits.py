"""Runtime limits and failures: the query cache under threads, encoder threads, the
question's length and words, pinned tables against k, ONNX Runtime's telemetry and a broken
ONNX Runtime, a benchmark's unknown dialect, an MCP client that stops reading."""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import jar_core.embed.embedders as emb
from jar_core.embed.embedders import CachedEmbedder, get_embedder
from jar_core.errors import BenchmarkFormatError, EmbeddingError, InvalidArgumentError
from jar_core.loaders import load_benchmark
from jar_core.options import MAX_QUESTION_CHARS

from helpers import BagOfWordsEmbedder, FakeTorchEmbedder

ROOT = Path(__file__).resolve().parents[1]
QUESTION = "Which books were written by authors born in Ireland?"


class _SlowBagOfWords(BagOfWordsEmbedder):
    """Yields the thread while it encodes, as a real model does: other calls run meanwhile."""

    def _encode(self, texts):
        time.sleep(0.001)
        return super()._encode(texts)

    embed_documents = _encode
    embed_queries = _encode


def test_a_full_query_cache_serves_many_threads():
    cache = CachedEmbedder(_SlowBagOfWords(), max_texts=4)
    calls = [[f"question {i % 37}", f"sub-query {i % 11}", "books"] for i in range(600)]
    with ThreadPoolExecutor(16) as pool:  # before: KeyError once evictions raced with lookups
        got = list(pool.map(cache.embed_queries, calls))
    alone = BagOfWordsEmbedder()
    for texts, vecs in zip(calls, got):
        np.testing.assert_array_equal(vecs, alone.embed_queries(texts))
    assert len(cache) <= 4


def test_encoder_threads_are_capped_with_a_warning(monkeypatch, caplog):
    monkeypatch.setenv("JAR_RETRIEVAL_THREADS", "100000")  # before: 100,000 threads, hung past 300 s
    with caplog.at_level(logging.WARNING, logger="jar_core.embed.embedders"):
        assert emb._threads_option(None) == emb.max_threads() == emb.THREADS_PER_CORE * emb.cpu_count()
    assert "100000 encoder threads asked for" in caplog.text
    monkeypatch.delenv("JAR_RETRIEVAL_THREADS")
    assert emb._threads_option(1) == 1


def test_a_question_longer_than_the_maximum_is_refused(demo_retriever):
    with pytest.raises(InvalidArgumentError, match=r"10,001 characters long, more than the 10,000 allowed"):
        demo_retriever.retrieve("books " * (MAX_QUESTION_CHARS // 6) + "x" * (MAX_QUESTION_CHARS % 6 + 1), k=2)
    assert demo_retriever.retrieve(("books " * MAX_QUESTION_CHARS)[:MAX_QUESTION_CHARS], k=2).tables


def test_a_question_of_control_characters_has_no_words(demo_retriever):
    for question in ("\x00\x01\x07", "\x1b[0m\x1b[2J"):
        with pytest.raises(InvalidArgumentError, match="no words: it holds only control characters"):
            demo_retriever.retrieve(question, k=2)
    with pytest.raises(InvalidArgumentError, match="^the question is empty$"):
        demo_retriever.retrieve(" \t\n", k=2)


def test_more_pinned_tables_than_k(demo_retriever):
    names = [t.name for t in demo_retriever.schema.tables]
    assert len(names) > emb_auto_max()
    res = demo_retriever.retrieve(QUESTION, k="auto", include=names)  # the pinned tables, in order
    assert [t.name for t in res.tables] == names and res.k == "auto"
    with pytest.raises(InvalidArgumentError, match=f"include= pins {len(names)} tables, more than k=10 allows"):
        demo_retriever.retrieve(QUESTION, k=10, include=names)


def emb_auto_max() -> int:
    from jar_core.strategies.auto_k import AUTO_K_MAX

    return AUTO_K_MAX


_ENCODE = (
    "from jar_core.embed.embedders import get_embedder\n"
    "print(get_embedder(None, backend='onnx').embed_queries(['books by Irish authors']).shape)\n"
)


def _run(code: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CACHE_HOME", "ORT_DISABLE_TELEMETRY")}
    env.update(HOME=str(home), PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def test_onnx_runtime_writes_nothing_under_home_and_stays_quiet(tmp_path):
    pytest.importorskip("onnxruntime")
    home = tmp_path / "home"
    home.mkdir()
    p = _run(_ENCODE, home)
    assert p.returncode == 0, p.stderr
    assert sorted(str(f.relative_to(home)) for f in home.rglob("*")) == []  # before: .cache/Microsoft/...
    blocked = tmp_path / "not-a-directory"  # a HOME nothing can be written under (even by root)
    blocked.write_text("")
    p = _run(_ENCODE, blocked)
    assert p.returncode == 0, p.stderr
    assert "telemetry" not in p.stderr and "\x1b[" not in p.stderr, p.stderr


@pytest.mark.parametrize("error", ["ImportError('libonnxruntime.so: undefined symbol')",
                                   "OSError('libonnxruntime.so.1: cannot open shared object file')"])
def test_an_onnx_runtime_that_fails_to_import_falls_back_to_torch(error, tmp_path, monkeypatch, caplog):
    fake = tmp_path / "onnxruntime"
    fake.mkdir()
    (fake / "__init__.py").write_text(f"raise {error}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "onnxruntime", raising=False)
    monkeypatch.setattr(emb, "_LOADED", {})
    monkeypatch.setattr(emb, "_DEFAULT", None)

    monkeypatch.setattr(emb, "SentenceTransformerEmbedder", FakeTorchEmbedder)
    with caplog.at_level(logging.WARNING, logger="jar_core.embed.embedders"):
        assert isinstance(get_embedder(None), FakeTorchEmbedder)
    assert "onnxruntime cannot be imported" in caplog.text and error.split("(")[0] in caplog.text
    with pytest.raises(EmbeddingError, match="ONNX backend is unavailable: onnxruntime cannot be imported"):
        get_embedder(None, backend="onnx")


def test_an_unknown_dialect_in_benchmark_json_fails_at_load(tmp_path):
    (tmp_path / "dev_tables.json").write_text(json.dumps(
        {"db#sep#a": {"column_names_original": ["id"], "column_types": ["int"]}}))
    (tmp_path / "dev.json").write_text("[]")
    (tmp_path / "benchmark.json").write_text(json.dumps({"dialect": "sqlitex"}))
    with pytest.raises(BenchmarkFormatError, match=r"benchmark.json: Unknown dialect 'sqlitex'. Did you mean sqlite"):
        load_benchmark(tmp_path)
    (tmp_path / "benchmark.json").write_text(json.dumps({"dialect": "mysql"}))
    assert load_benchmark(tmp_path).dialect == "mysql"


def test_serve_ends_quietly_when_the_client_stops_reading(tmp_path):
    pytest.importorskip("mcp")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "JAR_RETRIEVAL_CACHE": str(tmp_path)}
    p = subprocess.Popen([sys.executable, "-m", "jar_core.cli", "serve"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    p.stdout.close()  # the client's read end: whatever the server writes next has nowhere to go
    assert "serving MCP on stdio" in p.stderr.readline().decode()
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}
    p.stdin.write((json.dumps(init) + "\n").encode())
    p.stdin.flush()
    time.sleep(2)  # the answer is written (and fails) meanwhile; the server then reads the end of its input
    try:
        p.stdin.close()
        rc = p.wait(timeout=120)
    finally:
        p.kill()
    err = p.stderr.read().decode()
    p.stderr.close()
    assert rc == 0 and "Traceback" not in err and len(err.splitlines()) <= 1, err


def test_the_mcp_server_refuses_a_huge_question_readably(tmp_path):
    pytest.importorskip("mcp")
    import asyncio

    from test_mcp_server import _is_error, _session

    huge = "books " * 200_000
    _, (result,) = asyncio.run(_session([], tmp_path, [("find_tables", {"question": huge})]))
    text = result.content[0].text
    assert _is_error(result) and text == (
        f"error: the question is {len(huge):,} characters long, more than the {MAX_QUESTION_CHARS:,} allowed")
