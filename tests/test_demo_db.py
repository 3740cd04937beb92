"""Tests of the bundled demo database (jar_core/data/demo.sqlite) and jar_core.demo."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from jar_core import demo
from jar_core.demo import (
    DEMO_DB_PATH,
    DEMO_GOLD_SQL,
    DEMO_GOLD_TABLES,
    DEMO_QUESTION,
    demo_url,
    ensure_demo_db,
)
from jar_core.errors import SourceError

BUILD_SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "build_demo_db.py"


@pytest.fixture(scope="module")
def con() -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(f"{DEMO_DB_PATH.as_uri()}?mode=ro", uri=True)
    try:
        yield connection
    finally:
        connection.close()


def _tables(con: sqlite3.Connection) -> list[str]:
    rows = con.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY name"
    )
    return [r[0] for r in rows]


def _pk_columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in con.execute(f'PRAGMA table_info("{table}")') if r[5] > 0}


def _foreign_keys(con: sqlite3.Connection, table: str) -> list[tuple[str, str, str]]:
    """(column, referenced table, referenced column) for every declared foreign key."""
    return [(r[3], r[2], r[4]) for r in con.execute(f'PRAGMA foreign_key_list("{table}")')]


def _dump(path: Path) -> list[str]:
    connection = sqlite3.connect(path)
    try:
        return list(connection.iterdump())
    finally:
        connection.close()


def test_packaged_file_exists() -> None:
    assert DEMO_DB_PATH.is_file()
    assert DEMO_DB_PATH.parent.name == "data"
    assert ensure_demo_db() == DEMO_DB_PATH


def test_ensure_demo_db_raises_source_error_when_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(demo, "DEMO_DB_PATH", tmp_path / "nope.sqlite")
    with pytest.raises(SourceError, match="demo database is missing"):
        demo.ensure_demo_db()
    with pytest.raises(SourceError):
        demo.demo_url()


def test_table_count(con: sqlite3.Connection) -> None:
    assert 12 <= len(_tables(con)) <= 14


def test_every_table_has_a_primary_key(con: sqlite3.Connection) -> None:
    for table in _tables(con):
        assert _pk_columns(con, table), f"{table} has no primary key"


def test_foreign_keys_are_consistent_and_connect_every_table(con: sqlite3.Connection) -> None:
    assert con.execute("PRAGMA foreign_key_check").fetchall() == []
    tables = _tables(con)
    referenced = {ref for t in tables for _, ref, _ in _foreign_keys(con, t)}
    assert referenced <= set(tables)
    for table in tables:
        assert _foreign_keys(con, table) or table in referenced, f"{table} is isolated"


def test_at_least_two_junction_tables(con: sqlite3.Connection) -> None:
    junctions = []
    for table in _tables(con):
        pk = _pk_columns(con, table)
        key_fks = [(col, ref) for col, ref, _ in _foreign_keys(con, table) if col in pk]
        # the key is made of foreign-key columns pointing at two (or more) different tables
        if pk == {col for col, _ in key_fks} and len({ref for _, ref in key_fks}) >= 2:
            junctions.append(table)
    assert len(junctions) >= 2, junctions
    assert {"book_authors", "book_categories"} <= set(junctions)


def test_row_count_in_range(con: sqlite3.Connection) -> None:
    counts = {t: con.execute(f'SELECT COUNT(*) FROM "{t}"').fetchone()[0] for t in _tables(con)}
    assert all(n > 0 for n in counts.values()), counts
    assert 300 <= sum(counts.values()) <= 800, counts


def test_demo_url_is_read_only() -> None:
    url = demo_url()
    assert url.startswith("sqlite:///")
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT COUNT(*) FROM books")).scalar_one() > 0
            with pytest.raises(sa.exc.OperationalError):
                conn.execute(sa.text("DELETE FROM reviews"))
    finally:
        engine.dispose()


def test_gold_sql_runs_and_returns_rows(con: sqlite3.Connection) -> None:
    assert DEMO_QUESTION.strip().endswith("?")
    tables = set(_tables(con))
    assert 3 <= len(DEMO_GOLD_TABLES) <= 4
    assert set(DEMO_GOLD_TABLES) <= tables
    assert "book_categories" in DEMO_GOLD_TABLES  # answered through a junction table
    for table in DEMO_GOLD_TABLES:
        assert f" {table} " in f" {DEMO_GOLD_SQL} ".replace("\n", " ")
    engine = sa.create_engine(demo_url())
    try:
        with engine.connect() as conn:
            rows = conn.execute(sa.text(DEMO_GOLD_SQL)).all()
    finally:
        engine.dispose()
    assert rows
    assert ("Dune",) in [tuple(r) for r in rows]


def test_build_script_is_deterministic(tmp_path: Path) -> None:
    out = tmp_path / "demo.sqlite"
    result = subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), "--out", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert out.is_file()
    assert _dump(out) == _dump(DEMO_DB_PATH)
