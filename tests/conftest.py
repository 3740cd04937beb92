"""Shared fixtures. The embedding model is loaded once per test session."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

ROOT = Path(__file__).resolve().parents[1]
#: ../shared/benchmarks beside the project root (not copied into the repo).
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"


@pytest.fixture(scope="session")
def benchmarks_dir() -> Path:
    if not (BENCHMARKS / "spider" / "dev.json").is_file():
        pytest.skip(f"shared benchmarks not found at {BENCHMARKS} (they live in ../shared/benchmarks)")
    return BENCHMARKS


@pytest.fixture(scope="session")
def embedder():
    """The bundled default embedder (all-MiniLM-L6-v2), loaded once."""
    from jar_core.embed.embedders import get_embedder

    return get_embedder(None)


@pytest.fixture(scope="session")
def demo_schema():
    from jar_core.demo import demo_url
    from jar_core.loaders import load_database

    return load_database(demo_url())


@pytest.fixture(scope="session")
def demo_retriever(demo_schema, embedder):
    """A TableRetriever over the bundled demo database with its index built."""
    from jar_core.retriever import TableRetriever

    r = TableRetriever(demo_schema, embedder=embedder)
    r.index  # build once
    return r


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory, monkeypatch):
    """Keep the CLI's index cache out of the user's home directory."""
    monkeypatch.setenv("JAR_RETRIEVAL_CACHE", str(tmp_path_factory.getbasetemp() / "jar-cache"))
