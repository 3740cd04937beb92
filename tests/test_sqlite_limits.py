"""SQLite's hostile sizes: one huge value read in bounded memory, through
blob handles, with the same samples as SQL gives; a table or column name of absurd length skipped
before reflection, with a warning naming it."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
import sqlalchemy as sa

import jar_core.loaders.database.rows as database
from jar_core.output.documents import fetch_sample_rows
from jar_core.errors import SchemaError
from jar_core.loaders.database import MAX_NAME_CHARS, load_database

ROOT = Path(__file__).resolve().parents[1]

needs_blob_handles = pytest.mark.skipif(sys.version_info < (3, 11), reason="blob handles need Python 3.11")

#: Loads a database in a process of its own; prints its peak memory before and after, and what it
#: read. The peak is VmHWM: ru_maxrss starts a new process at its parent's memory (pytest's).
_MEASURE = """
import json, re, sys
import sqlalchemy as sa
from jar_core.output.documents import fetch_sample_rows
from jar_core.loaders.database import load_database

def peak():
    with open("/proc/self/status") as status:
        return int(re.search(r"VmHWM:\\s*(\\d+) kB", status.read()).group(1)) * 1024
baseline = peak()
schema = load_database(sys.argv[1])
engine = sa.create_engine(sys.argv[1])
_, rows = fetch_sample_rows(engine, schema.tables, 5)["big.notes"]
print(json.dumps({"baseline": baseline, "peak": peak(), "sample": schema["notes"].column("body").sample,
                  "ratio": schema["notes"].column("body").unique_ratio, "rows": rows}))
"""


@needs_blob_handles
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the peak memory in /proc")
def test_a_huge_value_is_read_in_bounded_memory(tmp_path) -> None:
    db = tmp_path / "big.db"
    with closing(sqlite3.connect(db)) as conn, conn:  # the values made by SQLite, none held here
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, raw BLOB)")
        conn.execute("INSERT INTO notes VALUES (1, printf('%.*c', 60000000, 'x'), zeroblob(20000000))")
        conn.execute("INSERT INTO notes VALUES (2, 'short', x'00')")
    done = subprocess.run([sys.executable, "-c", _MEASURE, f"sqlite:///{db}"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    # before: SQLite held each value whole to cut it, and more than once (+190 MB here)
    assert got["peak"] - got["baseline"] < 40 * 2**20, got
    assert got["sample"] == ["x" * 200] and got["ratio"] == 1.0  # its size spent the reading budget
    assert got["rows"] == [[1, "x" * 79 + "…", "<20000000 bytes>"], [2, "short", "<1 bytes>"]]


#: Every kind of ordinary value SQLite stores, long ones included, in a rowid table.
_ORDINARY = [
    (1, "Iron Maiden", b"\0\1", 3.5, None),
    (2, "é" * 3000, b"\xff" * 5000, 7, ""),
    (3, "h" * 10_000, None, "mixed", "naïve ☃ 😀" * 2),
    (4, "", b"", None, "h" * 10_001),
    (5, "Iron Maiden", b"\0\1", -1, "😀" * 5000),
]


def _ordinary_db(path: Path, *, encoding: str = "UTF-8") -> str:
    with sqlite3.connect(path) as conn:
        conn.execute(f"PRAGMA encoding = '{encoding}'")
        conn.execute("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, data BLOB, n, note TEXT)")
        conn.executemany("INSERT INTO items VALUES (?, ?, ?, ?, ?)", _ORDINARY)
    return f"sqlite:///{path}"


def _read(url: str, sample_bytes: int) -> tuple[list, list]:
    schema = load_database(url, sample_bytes=sample_bytes)
    engine = sa.create_engine(url)
    try:
        rows = fetch_sample_rows(engine, schema.tables, 10)
    finally:
        engine.dispose()
    stats = [(t.name, t.row_count, [(c.name, c.unique_ratio, c.sample) for c in t.columns]) for t in schema.tables]
    return stats, sorted(rows.items())


@needs_blob_handles
# a value partly read counts its size in bytes: 'h' * 10_000 is 20,000 bytes in UTF-16, and its
# budget would end the reading a row earlier than SQL's count of characters
@pytest.mark.parametrize(("encoding", "budget"), [("UTF-8", 30_000), ("UTF-16le", 2**20)])
def test_values_read_through_blob_handles_are_those_sql_gives(tmp_path, monkeypatch, encoding, budget) -> None:
    url = _ordinary_db(tmp_path / "items.db", encoding=encoding)
    by_sql = _read(url, budget)
    monkeypatch.setattr(database, "_SQLITE_VALUE_BYTES", 100)  # every long value through a blob handle
    seen: list[int] = []
    blob_prefix = database._blob_prefix
    monkeypatch.setattr(database, "_blob_prefix", lambda *a: seen.append(1) or blob_prefix(*a))
    assert _read(url, budget) == by_sql
    assert seen  # the blob handles were used


@needs_blob_handles
def test_tables_without_blob_handles_are_read_by_sql(tmp_path, monkeypatch) -> None:
    """A WITHOUT ROWID table has no rowid for a blob handle; a table with generated columns gets
    the wrong column's value from one (SQLite 3.40): both are read by SQL alone, as before."""
    db = tmp_path / "odd.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE keyed (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID")
        conn.execute("CREATE TABLE gen (a INT, b TEXT GENERATED ALWAYS AS (a || 'x') VIRTUAL, c TEXT, d TEXT)")
        conn.execute("INSERT INTO keyed VALUES ('key', ?)", ("v" * 500,))
        conn.execute("INSERT INTO gen (a, c, d) VALUES (1, ?, 'dee')", ("c" * 500,))
    monkeypatch.setattr(database, "_SQLITE_VALUE_BYTES", 100)
    schema = load_database(f"sqlite:///{db}")
    assert schema["keyed"].column("v").sample == ("v" * 200,)
    assert [schema["gen"].column(c).sample for c in "abcd"] == [(1,), ("1x",), ("c" * 200,), ("dee",)]


# -- item 8: names of absurd length ------------------------------------------------------------


def test_a_table_or_column_name_of_absurd_length_is_skipped_before_reflection(tmp_path, monkeypatch) -> None:
    long = MAX_NAME_CHARS + 1
    db = tmp_path / "names.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE ok (id INTEGER PRIMARY KEY, name TEXT)")
        conn.execute(f'CREATE TABLE "{"t" * 80_000}" (id INTEGER PRIMARY KEY)')  # 69 s before
        conn.execute(f'CREATE TABLE wide (id INTEGER PRIMARY KEY, "{"c" * long}" TEXT)')
        conn.execute(f'CREATE TABLE "{"e" * MAX_NAME_CHARS}" ("{"f" * MAX_NAME_CHARS}" TEXT)')  # at the limit
    reflected: list[str] = []  # the tables whose keys were reflected: slow over a long name
    for method in ("get_multi_pk_constraint", "get_multi_foreign_keys", "get_multi_unique_constraints",
                   "get_multi_indexes"):
        real = getattr(sa.engine.reflection.Inspector, method)

        def spy(self, *args, real=real, **kwargs):
            reflected.extend(kwargs.get("filter_names") or ())
            return real(self, *args, **kwargs)

        monkeypatch.setattr(sa.engine.reflection.Inspector, method, spy)
    with pytest.warns(UserWarning) as caught:
        schema = load_database(f"sqlite:///{db}")
    assert sorted(t.name for t in schema.tables) == sorted(["ok", "e" * MAX_NAME_CHARS])
    assert max(map(len, reflected)) == MAX_NAME_CHARS
    messages = [str(w.message) for w in caught]
    assert f"skipping table {'t' * 40!r}... (80000 characters) of sqlite:///{db}: its name is longer than " \
           f"{MAX_NAME_CHARS} characters" in messages
    assert f"skipping table 'wide' of sqlite:///{db}: its column {'c' * 40!r}... ({long} characters) is longer " \
           f"than {MAX_NAME_CHARS} characters" in messages
    assert all(len(m) < 300 for m in messages)
    with pytest.warns(UserWarning, match="'wide'"), pytest.raises(SchemaError, match="see the warnings"):
        load_database(f"sqlite:///{db}", include_tables=["wide"])
