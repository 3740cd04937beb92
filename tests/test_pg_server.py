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
