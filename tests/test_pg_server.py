"""The PostgreSQL integration tests' harness (the tests themselves run with make test-integration)."""
import subprocess
import sys
from pathlib import Path

import pg_server

ROOT = Path(__file__).resolve().parents[1]


def test_without_server_binaries_the_skip_reason_says_what_to_install(monkeypatch):
    monkeypatch.setattr(pg_server.shutil, "which", lambda name: None)
    monkeypatch.setattr(pg_server.glob, "glob", lambda pattern: [])
    bin_dir, why = pg_server.find_bin_dir()
    assert bin_dir is None
    assert "initdb, pg_ctl" in why and "apt-get install postgresql" in why


def test_integration_tests_are_deselected_by_default():
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         str(ROOT / "tests" / "test_postgres_integration.py")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert "::test_" not in p.stdout, p.stdout  # nothing collected to run (deselected, or skipped without psycopg)
    assert p.returncode == 5, p.stdout  # pytest: no tests collected


def test_without_pgvector_the_skip_reason_says_how_to_get_it(monkeypatch, tmp_path):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.setattr(pg_server, "find_bin_dir", lambda: (None, "no binaries"))
    bin_dir, why = pg_server.find_pgvector_bin_dir()
    assert bin_dir is None
    assert "pgserver package is not installed" in why and "pip install pgserver" in why and "pgvector" in why
    # a server without the extension (Debian 12's postgresql): said so
    (tmp_path / "15" / "bin").mkdir(parents=True)
    monkeypatch.setattr(pg_server, "find_bin_dir", lambda: (tmp_path / "15" / "bin", ""))
    bin_dir, why = pg_server.find_pgvector_bin_dir()
    assert bin_dir is None and "has no vector extension" in why
    # with vector.so and vector.control beside it (a source build's layout), it is the one
    (tmp_path / "15" / "lib" / "postgresql").mkdir(parents=True)
    (tmp_path / "15" / "lib" / "postgresql" / "vector.so").write_bytes(b"")
    (tmp_path / "15" / "share" / "postgresql" / "extension").mkdir(parents=True)
    (tmp_path / "15" / "share" / "postgresql" / "extension" / "vector.control").write_text("")
    assert pg_server.find_pgvector_bin_dir() == (tmp_path / "15" / "bin", "")


def test_pgvector_integration_tests_are_deselected_by_default():
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
         str(ROOT / "tests" / "test_pgvector_integration.py")],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert "::test_" not in p.stdout, p.stdout
    assert p.returncode == 5, p.stdout
