"""Secrets typed in a URL, DSN or ODBC string never shown; reads of a passed engine read-only
whatever its isolation level; one long value bounded by the sample budget; an odd table of a
database named, or skipped with a warning, instead of refusing the database."""
from __future__ import annotations

import pytest

from jar_core.errors import DatabaseConnectionError
from jar_core.loaders.database import load_database, redact_url
from jar_core.redact import scrub, secrets_in

SECRET = "S3cr3tQ"

#: What a user may type where a database URL is expected, each holding SECRET.
TYPED = [
    f"mssql+pyodbc:///?odbc_connect=DRIVER%3D%7BODBC+Driver+18%7D%3BSERVER%3Dh%3BUID%3Dalice%3BPWD%3D{SECRET}",
    f"mssql+pyodbc:///?odbc_connect=DRIVER={{ODBC}};SERVER=h;UID=alice;Pwd={SECRET}",
    f"mssql+pyodbc:///?odbc_connect=DRIVER={{ODBC}};PWD={{{SECRET};x}};UID=alice",
    f"postgresql://alice:{SECRET}/db",
    f"postgresql:/alice:{SECRET}@host/db",
    f"host=h user=alice password={SECRET}",
    f"host=h user=alice password='{SECRET} x'",
    f"DRIVER={{ODBC}};SERVER=h;UID=alice;Pwd={SECRET}",
]


@pytest.mark.parametrize("typed", TYPED)
def test_redact_url_hides_what_the_user_typed(typed: str) -> None:
    assert SECRET not in redact_url(typed) and "***" in redact_url(typed)


@pytest.mark.parametrize("typed", TYPED)
def test_error_messages_never_show_the_secret(typed: str) -> None:
    with pytest.raises(DatabaseConnectionError) as err:
        load_database(typed)
    assert SECRET not in str(err.value) and "***" in str(err.value)
    assert "\n" not in str(err.value)


def test_a_driver_message_quoting_the_secret_is_scrubbed() -> None:
    # make_url's own message: invalid literal for int() with base 10: 'S3cr3tQ'
    with pytest.raises(DatabaseConnectionError, match="invalid literal") as err:
        load_database(f"postgresql://alice:{SECRET}/db")
    assert SECRET not in str(err.value)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("a PWD=p%40ss0;b", {"p%40ss0", "p@ss0", "ss0"}),  # as typed, decoded, its pieces of 3+ characters
        ("Token=abc123&x=1", {"abc123"}),
        ("x=1;Pwd={a;b}}c};y=2", {"{a;b}}c}", "a;b}}c", "a;b}c", "b}}c}", "b}}c", "b}c"}),
        ("sqlite:///file:shop.db?mode=ro&uri=true", set()),  # nothing secret in a file URI
        ("sqlite:///:memory:", set()),
    ],
)
def test_secrets_in_finds_the_secret_values(text: str, found: set[str]) -> None:
    assert set(secrets_in(text)) == found


def test_scrub_hides_url_encoded_forms_too() -> None:
    assert scrub("PWD%3Dp%3Bw%40x", ["p;w@x"]) == "PWD%3D***"


@pytest.mark.parametrize("typed", TYPED[:3])
def test_the_langchain_retriever_and_tool_never_show_an_odbc_password(typed: str) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from jar_core.retriever import TableRetriever
    from langchain_jar import JoinAwareRetriever, JoinAwareTablesTool

    core = TableRetriever.from_ddl("CREATE TABLE books (id INT PRIMARY KEY, title TEXT);",
                                   embedder=DeterministicFakeEmbedding(size=16))
    r = JoinAwareRetriever(retriever=core, engine=typed)
    tool = JoinAwareTablesTool(retriever=r)
    for shown in (repr(r), str(r), repr(r.model_dump()), repr(tool), repr(tool.model_dump())):
        assert SECRET not in shown
    assert "***" in repr(r.model_dump())


# -- item 5: a passed engine in autocommit is read in a read-only transaction -------------------

#: A table whose row-security policy writes on every read (as the reader role, which it applies to),
#: and a plain table.
WRITING_POLICY = """
CREATE TABLE audit (n INTEGER);
CREATE FUNCTION log_read() RETURNS boolean LANGUAGE plpgsql SECURITY DEFINER AS
  $$ BEGIN INSERT INTO public.audit VALUES (1); RETURN true; END $$;
CREATE TABLE watched (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO watched VALUES (1, 'a'), (2, 'b');
ALTER TABLE watched ENABLE ROW LEVEL SECURITY;
CREATE POLICY logged ON watched FOR SELECT USING (log_read());
CREATE TABLE plain (id INTEGER PRIMARY KEY, name TEXT);
INSERT INTO plain VALUES (1, 'Iron Maiden'), (2, 'Daft Punk');
CREATE TABLE long_notes (id INTEGER PRIMARY KEY, body TEXT, raw BYTEA, tags TEXT[]);
INSERT INTO long_notes VALUES (1, repeat('x', 3000000), decode(repeat('00', 3000000), 'hex'), ARRAY['a']);
CREATE ROLE reader LOGIN;
GRANT SELECT ON watched, plain, long_notes TO reader;
"""


@pytest.fixture(scope="module")
def pg():
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'jar-retrieval[postgres]')")
    from pg_server import find_bin_dir, start_or_skip

    srv = start_or_skip(find_bin_dir())
    dsn = f"host=127.0.0.1 port={srv.port} user=postgres dbname=postgres"
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(WRITING_POLICY)

        def audited() -> int:
            with psycopg.connect(dsn) as conn:
                return conn.execute("SELECT count(*) FROM audit").fetchone()[0]

        yield f"postgresql+psycopg://reader@127.0.0.1:{srv.port}/postgres", audited
    finally:
        srv.stop()


@pytest.fixture
def autocommit(pg):
    import sqlalchemy as sa

    engine = sa.create_engine(pg[0], isolation_level="AUTOCOMMIT")
    yield engine
    engine.dispose()


@pytest.mark.integration
def test_sample_rows_of_an_autocommit_engine_write_nothing(pg, autocommit) -> None:
    from jar_core.output.documents import fetch_sample_rows
    from jar_core.errors import SourceError

    schema = load_database(autocommit, include_tables=["watched"], statistics=False)
    with pytest.raises(SourceError, match="read-only transaction"):
        fetch_sample_rows(autocommit, schema.tables, 5)
    assert pg[1]() == 0


@pytest.mark.integration
def test_load_database_of_an_autocommit_engine_reads_samples(autocommit) -> None:
    schema = load_database(autocommit, include_tables=["plain"])
    assert schema.tables[0].column("name").sample == ("Iron Maiden", "Daft Punk")


@pytest.mark.integration
def test_samples_that_cannot_be_read_are_a_warning_naming_the_table(pg, autocommit) -> None:
    with pytest.warns(UserWarning, match="'watched'.*could not be read"):
        schema = load_database(autocommit, include_tables=["watched", "plain"])
    assert schema.find("watched").column("name").sample == ()
    assert pg[1]() == 0


# -- item 8: one long value is cut in SQL, not fetched whole ------------------------------------

LONG = 3 * 2**20  # characters of the long value


@pytest.fixture
def long_value_db(tmp_path):
    import sqlite3

    db = tmp_path / "long.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT, raw BLOB, n)")
        conn.execute("INSERT INTO notes VALUES (1, ?, ?, 7)", ("x" * LONG, b"\0" * 1000))
        conn.execute("INSERT INTO notes VALUES (2, 'short', NULL, 'untyped ' || ?)", ("y" * LONG,))
    return db


def _lengths_of_values_read(monkeypatch) -> list[int]:
    """The length of every value the loader's statistics read from now on (0 for a non-string)."""
    import jar_core.loaders.database.samples as database

    seen: list[int] = []
    real_add = database._ColumnStats.add

    def counting(self, value, *args):
        seen.append(len(value) if isinstance(value, (str, bytes)) else 0)
        return real_add(self, value, *args)

    monkeypatch.setattr(database._ColumnStats, "add", counting)
    return seen


def test_the_loader_reads_a_long_value_cut_within_the_budget(long_value_db, monkeypatch) -> None:
    seen = _lengths_of_values_read(monkeypatch)
    schema = load_database(f"sqlite:///{long_value_db}", sample_bytes=2000)
    assert seen and max(seen) <= 2000  # a 3 MiB value was fetched whole before
    notes = schema["notes"]
    assert notes.column("body").sample == ("x" * 200,)  # the budget is spent by the first row's value
    assert notes.column("n").sample == (7,)  # a short value keeps its type
    assert notes.row_count is None  # its length counts against the budget: not every row was read


def test_long_values_are_told_apart_by_their_length(tmp_path) -> None:
    import sqlite3

    db = tmp_path / "docs.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT)")
        conn.executemany("INSERT INTO docs VALUES (?, ?)", ((i, "h" * (10_000 + i)) for i in range(4)))
    schema = load_database(f"sqlite:///{db}")
    assert schema["docs"].column("body").unique_ratio == 1.0


def test_sample_rows_for_documents_fetch_a_long_value_cut(long_value_db, monkeypatch) -> None:
    import sqlalchemy as sa

    import jar_core.output.documents as documents
    from jar_core.output.documents import fetch_sample_rows

    seen: list[int] = []
    real_short = documents._short

    def counting(value, max_chars):
        seen.append(len(value) if isinstance(value, (str, bytes)) else 0)
        return real_short(value, max_chars)

    monkeypatch.setattr(documents, "_short", counting)
    engine = sa.create_engine(f"sqlite:///{long_value_db}")
    schema = load_database(engine, statistics=False)
    columns, rows = fetch_sample_rows(engine, schema.tables, 5, max_chars=80)["long.notes"]
    engine.dispose()
    assert max(seen) <= 1000  # the blob is whole (shown by its size); the text cut to 81 characters
    assert rows[0] == (1, "x" * 79 + "…", "<1000 bytes>", 7)
    assert rows[1][3] == "untyped " + "y" * 71 + "…"


@pytest.mark.integration
def test_postgres_long_text_and_bytea_are_cut_in_sql(autocommit, monkeypatch) -> None:
    seen = _lengths_of_values_read(monkeypatch)
    schema = load_database(autocommit, include_tables=["long_notes"], sample_bytes=5000)
    assert seen and max(seen) <= 5000
    notes = schema["long_notes"]
    assert notes.column("body").sample == ("x" * 200,) and notes.column("tags").sample == ('["a"]',)


# -- item 14: an odd table is skipped with a warning naming it, not the whole database refused ---


def _sqlite_with(path, *statements: str, virtual_module: str | None = None):
    import sqlite3

    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE ok (id INTEGER PRIMARY KEY, name TEXT)")
        for statement in statements:
            conn.execute(statement)
    if virtual_module is not None:  # a virtual table of a module this process has not loaded
        conn = sqlite3.connect(path)
        conn.execute("CREATE VIRTUAL TABLE docs USING fts5(body)")
        conn.commit()
        conn.execute("PRAGMA writable_schema = ON")
        conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'docs'",
                     (f"CREATE VIRTUAL TABLE docs USING {virtual_module}(body)",))
        conn.commit()
        conn.close()
    return f"sqlite:///{path}"


def test_a_table_with_a_blank_column_name_is_skipped_naming_it(tmp_path) -> None:
    url = _sqlite_with(tmp_path / "blank.db", 'CREATE TABLE blank (id INTEGER PRIMARY KEY, " " TEXT)')
    with pytest.warns(UserWarning, match=r"skipping table 'blank' .*column name.*' '"):
        schema = load_database(url)
    assert [t.name for t in schema.tables] == ["ok"]


def test_a_virtual_table_of_an_unloaded_module_is_skipped_naming_it(tmp_path) -> None:
    url = _sqlite_with(tmp_path / "virtual.db", virtual_module="nosuchmodule")
    with pytest.warns(UserWarning, match=r"skipping table 'docs' .*no such module: nosuchmodule"):
        schema = load_database(url)
    assert "ok" in [t.name for t in schema.tables] and "docs" not in [t.name for t in schema.tables]


def test_a_database_of_odd_tables_only_says_they_were_skipped(tmp_path) -> None:
    from jar_core.errors import SchemaError

    url = _sqlite_with(tmp_path / "odd.db", 'CREATE TABLE blank (" " TEXT)')
    with pytest.warns(UserWarning, match="'blank'"), pytest.raises(SchemaError, match="see the warnings"):
        load_database(url, include_tables=["blank"])
