"""Against a real PostgreSQL server started for the test (``make test-integration``; not in ``make test``).

A ``music`` schema (beside a ``public`` table of the same name as one of its tables) is read
with ``--schema music``: the tables are ``music.*``, and the join path, DDL and sample-row
queries are qualified, so that the SQL runs against the server exactly as printed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from pg_server import PostgresServer, find_bin_dir, start_or_skip

pytestmark = pytest.mark.integration

psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'jar-retrieval[postgres]')")

MUSIC = """
CREATE SCHEMA music;
CREATE TABLE music.artist (artist_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE music.album (album_id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                          artist_id INTEGER NOT NULL REFERENCES music.artist (artist_id));
CREATE TABLE music.genre (genre_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE music.track (track_id INTEGER PRIMARY KEY, name TEXT NOT NULL,
                          album_id INTEGER REFERENCES music.album (album_id),
                          genre_id INTEGER REFERENCES music.genre (genre_id), milliseconds INTEGER);
CREATE TABLE music.playlist (playlist_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE music.playlist_track (playlist_id INTEGER REFERENCES music.playlist (playlist_id),
                                   track_id INTEGER REFERENCES music.track (track_id),
                                   PRIMARY KEY (playlist_id, track_id));
COMMENT ON TABLE music.playlist_track IS 'Which tracks are on which playlist';
-- a decoy: the same table name in the default schema, with other columns
CREATE TABLE public.playlist (id INTEGER PRIMARY KEY, title TEXT);
INSERT INTO music.artist VALUES (1, 'Miles Davis'), (2, 'Daft Punk');
INSERT INTO music.album VALUES (1, 'Kind of Blue', 1), (2, 'Discovery', 2);
INSERT INTO music.genre VALUES (1, 'Jazz'), (2, 'Electronic');
INSERT INTO music.track VALUES (1, 'So What', 1, 1, 562000), (2, 'Blue in Green', 1, 1, 337000),
                               (3, 'One More Time', 2, 2, 320000), (4, 'Digital Love', 2, 2, 301000);
INSERT INTO music.playlist VALUES (1, 'Workout'), (2, 'Evening');
INSERT INTO music.playlist_track VALUES (1, 3), (1, 4), (2, 1), (2, 2), (2, 4);
INSERT INTO public.playlist VALUES (1, 'not this one');
-- a label's catalogue: 300 artists, the one asked about the 90th row read (value matching keeps the
-- first 100 values of a column; an UPDATE would move the row to the heap's end, past them)
CREATE SCHEMA label;
CREATE TABLE label.artist (artist_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE label.album (album_id INTEGER PRIMARY KEY, title TEXT NOT NULL,
                          artist_id INTEGER NOT NULL REFERENCES label.artist (artist_id));
INSERT INTO label.artist
  SELECT i, CASE WHEN i = 90 THEN 'Iron Maiden' ELSE 'Band number ' || i END FROM generate_series(1, 300) AS i;
INSERT INTO label.album SELECT i, 'Record ' || i, 1 + i % 300 FROM generate_series(1, 600) AS i;
-- partitions: declarative ones (one of them partitioned again), Sakila's INHERITS children that
-- add no column, a child that adds one, and a partition kept in another schema
CREATE SCHEMA shop;
CREATE TABLE shop.customer (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE shop.payment (payment_id INTEGER, customer_id INTEGER REFERENCES shop.customer (customer_id),
                           amount NUMERIC, paid_on DATE NOT NULL) PARTITION BY RANGE (paid_on);
CREATE TABLE shop.payment_2024 PARTITION OF shop.payment FOR VALUES FROM ('2024-01-01') TO ('2025-01-01');
CREATE TABLE shop.payment_2025 PARTITION OF shop.payment FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')
  PARTITION BY RANGE (paid_on);
CREATE TABLE shop.payment_2025_h1 PARTITION OF shop.payment_2025 FOR VALUES FROM ('2025-01-01') TO ('2025-07-01');
CREATE SCHEMA archive;
CREATE TABLE archive.payment_2023 PARTITION OF shop.payment FOR VALUES FROM ('2023-01-01') TO ('2024-01-01');
CREATE TABLE shop.rental (rental_id INTEGER, customer_id INTEGER, rented_on DATE);
CREATE TABLE shop.rental_2024 (CHECK (rented_on >= '2024-01-01')) INHERITS (shop.rental);
CREATE TABLE shop.rental_late (late_fee NUMERIC) INHERITS (shop.rental);
INSERT INTO shop.customer VALUES (1, 'Mary Smith');
INSERT INTO shop.payment VALUES (1, 1, 9.99, '2024-03-01'), (2, 1, 4.99, '2025-02-01'), (3, 1, 1.99, '2023-05-01');
INSERT INTO shop.rental_2024 VALUES (1, 1, '2024-03-01');
-- a schema whose table references shop's customers without a declared key
CREATE SCHEMA crm;
CREATE TABLE crm.review (review_id INTEGER PRIMARY KEY, customer_id INTEGER, stars INTEGER);
INSERT INTO crm.review VALUES (1, 1, 5);
-- MIMIC-III's keys: a row number keys every table, the entities are declared unique
CREATE SCHEMA mimic;
CREATE TABLE mimic.admissions (row_id INT PRIMARY KEY, subject_id INT NOT NULL, hadm_id INT NOT NULL,
  admittime TIMESTAMP, CONSTRAINT adm_hadm_unique UNIQUE (hadm_id));
CREATE TABLE mimic.icustays (row_id INT PRIMARY KEY, hadm_id INT NOT NULL, icustay_id INT NOT NULL, los FLOAT);
CREATE UNIQUE INDEX icustays_icustay_id ON mimic.icustays (icustay_id);
CREATE UNIQUE INDEX icustays_partial ON mimic.icustays (los) WHERE los > 0;
CREATE TABLE mimic.chartevents (row_id INT PRIMARY KEY, hadm_id INT, icustay_id INT, valuenum FLOAT);
INSERT INTO mimic.admissions VALUES (1, 7, 100, '2101-01-01'), (2, 8, 101, '2101-02-01');
INSERT INTO mimic.icustays VALUES (1, 100, 500, 1.5), (2, 101, 501, 2.0);
INSERT INTO mimic.chartevents VALUES (1, 100, 500, 80), (2, 101, 501, 75), (3, 101, 501, 70);
"""
QUESTION = "Which tracks are on the playlist named Workout?"


@pytest.fixture(scope="module")
def server():
    srv = start_or_skip(find_bin_dir())
    try:
        with psycopg.connect(_dsn(srv), autocommit=True) as conn:
            conn.execute(MUSIC)
        yield srv
    finally:
        srv.stop()


def _dsn(srv: PostgresServer, dbname: str = "postgres") -> str:
    return f"host=127.0.0.1 port={srv.port} user=postgres dbname={dbname}"


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "jar_core.cli", *args], capture_output=True, text=True,
                          env=env, timeout=300)


def _query(srv: PostgresServer, sql: str) -> list[tuple]:
    with psycopg.connect(_dsn(srv)) as conn:
        return [tuple(r) for r in conn.execute(sql).fetchall()]


def test_retrieve_with_schema_prints_sql_that_runs(server, tmp_path):
    p = _cli("retrieve", QUESTION, "--db", server.url, "--schema", "music", "-k", "3", "--format", "json",
             "--no-cache")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    ids = [t["id"] for t in out["tables"]]
    assert set(ids) == {"music.playlist", "music.playlist_track", "music.track"}, ids
    assert not out["unjoined"]
    path = out["join_path"]
    assert 'FROM "music".' in path and '"music"."playlist_track"' in path
    # the join path runs as printed: the Workout playlist's tracks
    rows = _query(server, f"SELECT \"music\".\"track\".\"name\" {path}\nWHERE \"music\".\"playlist\".\"name\" = 'Workout' ORDER BY 1")
    assert rows == [("Digital Love",), ("One More Time",)]

    text = _cli("retrieve", QUESTION, "--db", server.url, "--schema", "music", "-k", "3", "--no-cache")
    assert text.returncode == 0, text.stderr
    assert "music.playlist_track" in text.stdout and '"music"."playlist_track"' in text.stdout


def test_a_name_far_down_a_table_is_found_in_the_server_values(server):
    args = ("retrieve", "List the albums by Iron Maiden", "--db", server.url, "--schema", "label", "-k", "2",
            "--format", "json", "--no-cache")
    out = json.loads(_cli(*args).stdout)
    assert out["value_matches"] == [{"span": "Iron Maiden", "value": "Iron Maiden", "table": "label.artist",
                                     "column": "name", "exact": True, "hint": False}]
    assert {t["id"] for t in out["tables"]} == {"label.album", "label.artist"}
    fewer = json.loads(_cli(*args, "--sample-values", "20").stdout)
    assert fewer["value_matches"] == []  # the 90th name is past the first 20 values read


def test_without_a_schema_the_default_schema_is_read(server):
    p = _cli("retrieve", "playlist titles", "--db", server.url, "-k", "1", "--format", "json", "--no-cache")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert [t["id"] for t in out["tables"]] == ["public.playlist"]
    assert out["join_path"] == 'FROM "playlist"'  # the search path finds it
    assert _query(server, f"SELECT title {out['join_path']}") == [("not this one",)]
    # one table in the default schema, more in others: a warning names them and how to read one
    assert "jar-retrieval: warning: the default schema of" in p.stderr and "holds 1 table (playlist)" in p.stderr
    assert "music (" in p.stderr and "read one with --schema NAME" in p.stderr, p.stderr


def test_several_schemas_keep_same_named_tables_apart(server):
    from jar_core.loaders import load_database

    schema = load_database(server.url, schema=["music", "public"])
    ids = {t.id for t in schema.tables}
    assert {"music.playlist", "public.playlist", "music.playlist_track"} <= ids
    assert schema["music.playlist_track"].sql_schema == "music"
    assert schema["music.playlist_track"].comment == "Which tracks are on which playlist"
    fk_targets = {fk.ref_table for fk in schema["music.playlist_track"].foreign_keys}
    assert fk_targets == {"music.playlist", "music.track"}


def test_joins_between_schemas_of_one_database_are_inferred(server, embedder):
    from jar_core.loaders import load_database
    from jar_core.retriever import TableRetriever

    schema = load_database(server.url, schema=["shop", "crm"])
    assert {t.catalog for t in schema.tables} == {"postgres"}  # the URL's database
    retriever = TableRetriever(schema, embedder=embedder)
    res = retriever.retrieve("reviews of each customer", k=2, include=["crm.review", "shop.customer"])
    clause = res.join_clause()
    assert clause.startswith('FROM "crm"."review" JOIN "shop"."customer" ON "crm"."review"."customer_id" = '
                             '"shop"."customer"."customer_id"') or clause.startswith(
        'FROM "shop"."customer" JOIN "crm"."review" ON "shop"."customer"."customer_id" = "crm"."review"."customer_id"')
    assert _query(server, clause.split("\n")[0].replace("FROM", "SELECT count(*) FROM", 1)) == [(1,)]


def test_documents_ddl_and_sample_rows_are_qualified(server, embedder):
    from langchain_jar import JoinAwareRetriever

    retriever = JoinAwareRetriever.from_database(
        server.url, loader_options={"schema": "music"}, k=3, sample_rows=2, embedder=embedder
    )
    docs = retriever.invoke(QUESTION)
    assert {d.metadata["table_id"] for d in docs} == {"music.playlist", "music.playlist_track", "music.track"}
    for d in docs:
        assert d.page_content.startswith(f'CREATE TABLE "music"."{d.metadata["table"]}"')
        assert "example rows" in d.page_content  # read from music.*, not public.*
    # the DDL runs as printed: recreate the tables in an empty database
    with psycopg.connect(_dsn(server), autocommit=True) as conn:
        conn.execute("CREATE DATABASE ddl_copy")
    statements = [d.page_content.split(";\n")[0].split("/*")[0].strip().rstrip(";") for d in docs]
    with psycopg.connect(_dsn(server, "ddl_copy"), autocommit=True) as conn:
        conn.execute("CREATE SCHEMA music")
        conn.execute("CREATE TABLE music.album (album_id INTEGER PRIMARY KEY)")  # referenced, not retrieved
        conn.execute("CREATE TABLE music.genre (genre_id INTEGER PRIMARY KEY)")
        pending = list(statements)
        for _ in range(len(pending)):  # referenced tables first
            for sql in list(pending):
                try:
                    conn.execute(sql)
                    pending.remove(sql)
                except psycopg.errors.UndefinedTable:
                    pass
        assert not pending, pending
        tables = {r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'music'").fetchall()}
    assert {"playlist", "playlist_track", "track"} <= tables


def test_mcp_describe_table_over_a_schema(server, embedder):
    from jar_core.output.render import describe_table
    from jar_core.retriever import TableRetriever

    retriever = TableRetriever.from_database(server.url, loader_options={"schema": "music"}, embedder=embedder)
    info = describe_table(retriever, "playlist_track")
    assert info["id"] == "music.playlist_track"
    assert info["ddl"].startswith('CREATE TABLE "music"."playlist_track"')
    assert 'REFERENCES "music"."track"' in info["ddl"]
    assert {j["table"] for j in info["joins"] if j["kind"] == "declared"} == {"music.playlist", "music.track"}


def test_partitions_are_read_through_their_parent(server):
    from jar_core.loaders import load_database

    schema = load_database(server.url, schema="shop")
    # the partitions (and the partition of a partition) and the copy-child are left out; the child
    # that adds a column is a table of its own
    assert sorted(t.name for t in schema.tables) == ["customer", "payment", "rental", "rental_late"]
    assert [c.name for c in schema["shop.rental_late"].columns] == ["rental_id", "customer_id", "rented_on", "late_fee"]
    # the parent's sample holds its partitions' rows
    assert sorted(schema["shop.payment"].column("amount").sample) == [1.99, 4.99, 9.99]
    assert [fk.ref_table for fk in schema["shop.payment"].foreign_keys] == ["shop.customer"]

    everything = load_database(server.url, schema="shop", partitions=True)
    assert {"payment_2024", "payment_2025", "payment_2025_h1", "rental_2024"} <= {t.name for t in everything.tables}
    # a partition whose parent is not read is kept: archive.payment_2023 alone, or named alone
    assert [t.id for t in load_database(server.url, schema="archive").tables] == ["archive.payment_2023"]
    both = load_database(server.url, schema=["shop", "archive"])
    assert "archive.payment_2023" not in {t.id for t in both.tables}
    named = load_database(server.url, schema="shop", include_tables=["payment_2024", "customer"])
    assert sorted(t.name for t in named.tables) == ["customer", "payment_2024"]
    named = load_database(server.url, schema="shop", include_tables=["payment_2024", "payment"])
    assert [t.name for t in named.tables] == ["payment"]


def test_partitions_on_the_command_line(server):
    args = ("retrieve", "total amount paid per customer", "--db", server.url, "--schema", "shop", "-k", "5",
            "--format", "json", "--no-cache")
    out = json.loads(_cli(*args).stdout)
    assert not any(t["id"].startswith("shop.payment_") for t in out["tables"]), out["tables"]
    kept = json.loads(_cli(*args, "--partitions").stdout)
    assert any(t["id"].startswith("shop.payment_") for t in kept["tables"]), kept["tables"]


def test_unique_constraints_and_indexes_are_keys_and_row_numbers_join_nothing(server):
    from jar_core.joins import build_join_graph
    from jar_core.loaders import load_database

    schema = load_database(server.url, schema="mimic")
    unique = {(t.name, c.name) for t in schema.tables for c in t.columns if c.unique}
    assert unique == {("admissions", "hadm_id"), ("icustays", "icustay_id")}  # not the partial index
    g = build_join_graph(schema)
    cols = [(t.name, c.name) for t in schema.tables for c in t.columns]
    joins = {tuple(sorted((cols[a], cols[b]))): float(c) for a, b, c in zip(g.a, g.b, g.confidence)}
    assert not any(x[1] == "row_id" or y[1] == "row_id" for x, y in joins), joins
    assert joins[(("admissions", "hadm_id"), ("chartevents", "hadm_id"))] >= 0.9, joins
    assert joins[(("chartevents", "icustay_id"), ("icustays", "icustay_id"))] >= 0.9, joins


def test_generated_columns_are_read_as_computed_and_join_nothing(server):
    # a STORED generated column (PostgreSQL 12+) is computed from others: the loader marks it, and
    # its name (``owner_id``, as if it held a person's id) infers no join
    from jar_core.joins import build_join_graph
    from jar_core.loaders import load_database

    with psycopg.connect(_dsn(server), autocommit=True) as conn:
        conn.execute("CREATE SCHEMA gen; CREATE TABLE gen.owner (owner_id INTEGER PRIMARY KEY, name TEXT);"
                     "CREATE TABLE gen.pet (pet_id INTEGER PRIMARY KEY, name TEXT,"
                     " owner_id INTEGER GENERATED ALWAYS AS (pet_id % 7) STORED)")
    try:
        schema = load_database(server.url, schema="gen")
        assert {(t.name, c.name) for t in schema.tables for c in t.columns if c.computed} == {("pet", "owner_id")}
        assert len(build_join_graph(schema)) == 0
    finally:
        with psycopg.connect(_dsn(server), autocommit=True) as conn:
            conn.execute("DROP SCHEMA gen CASCADE")


def test_enumerations_are_text_with_the_catalog_labels_and_join_nothing(server):
    # zync's integrations.state of type integration_state joined integration_states.id at 0.76;
    # the labels come from the catalog: every one (the rows hold one), also without statistics
    # and for an empty table
    from jar_core.joins import build_join_graph
    from jar_core.loaders import load_database
    from jar_core.schema import TypeFamily
    from jar_core.candidates.values import ValueIndex, match_values

    with psycopg.connect(_dsn(server), autocommit=True) as conn:
        conn.execute("CREATE SCHEMA zync; CREATE TYPE zync.integration_state AS ENUM ('active', 'disabled');"
                     "CREATE TYPE zync.\"Kind\" AS ENUM ('Keycloak', 'Red Hat SSO');"
                     "CREATE TABLE zync.integration_states (id BIGINT PRIMARY KEY, finished_at TIMESTAMP);"
                     "CREATE TABLE zync.integrations (id BIGINT PRIMARY KEY, kind zync.\"Kind\","
                     " state zync.integration_state NOT NULL DEFAULT 'active', states zync.integration_state[]);"
                     "CREATE TABLE zync.archived_integrations (id BIGINT PRIMARY KEY, state zync.integration_state);"
                     "INSERT INTO zync.integration_states SELECT i, now() FROM generate_series(1, 5) AS i;"
                     "INSERT INTO zync.integrations SELECT i, 'Keycloak', 'active' FROM generate_series(1, 5) AS i")
    try:
        schema = load_database(server.url, schema="zync")
        got = {(t.name, c.name): (c.family, c.sample) for t in schema.tables for c in t.columns if c.enum}
        assert got == {("integrations", "kind"): (TypeFamily.TEXT, ("Keycloak", "Red Hat SSO")),
                       ("integrations", "state"): (TypeFamily.TEXT, ("active", "disabled")),
                       ("archived_integrations", "state"): (TypeFamily.TEXT, ("active", "disabled"))}
        assert schema["zync.integrations"].column("state").unique_ratio == 0.2  # the rows' statistics stay
        assert len(build_join_graph(schema)) == 0
        found = match_values(ValueIndex.from_schema(schema), "integrations through Red Hat SSO that are disabled")
        assert {(schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name) for m in found} == {
            ("integrations", "kind"), ("integrations", "state"), ("archived_integrations", "state")}
        bare = load_database(server.url, schema="zync", statistics=False)
        assert bare["zync.archived_integrations"].column("state").sample == ("active", "disabled")
        one = load_database(server.url, schema="zync", sample_values=1)
        assert one["zync.integrations"].column("kind").sample == ("Keycloak",)  # bounded like the rows' values
    finally:
        with psycopg.connect(_dsn(server), autocommit=True) as conn:
            conn.execute("DROP SCHEMA zync CASCADE")
