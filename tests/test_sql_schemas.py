"""SQL schemas: tables read from a named schema are ``schema.table`` and the SQL printed for them is
qualified, so that it runs as printed (offline: SQLite's attached databases are schemas)."""
from __future__ import annotations

import dataclasses
import sqlite3
from pathlib import Path

import pytest
import sqlalchemy as sa

from jar_core.output.documents import fetch_sample_rows, result_documents
from jar_core.errors import InvalidArgumentError, UnknownDatabaseError
from jar_core.loaders import load_database, load_ddl
from jar_core.retriever import TableRetriever
from jar_core.schema import Schema, Table
from jar_core.output.sql import create_table_ddl, qualified_name

from helpers import BagOfWordsEmbedder

MUSIC = """
CREATE TABLE artist (artist_id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE album (album_id INTEGER PRIMARY KEY, title TEXT, artist_id INTEGER REFERENCES artist(artist_id));
CREATE TABLE track (track_id INTEGER PRIMARY KEY, name TEXT, album_id INTEGER REFERENCES album(album_id));
CREATE TABLE playlist (playlist_id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE playlist_track (playlist_id INTEGER REFERENCES playlist(playlist_id),
                             track_id INTEGER REFERENCES track(track_id), PRIMARY KEY (playlist_id, track_id));
INSERT INTO artist VALUES (1, 'Miles Davis'), (2, 'Daft Punk');
INSERT INTO album VALUES (1, 'Kind of Blue', 1), (2, 'Discovery', 2);
INSERT INTO track VALUES (1, 'So What', 1), (2, 'One More Time', 2), (3, 'Digital Love', 2);
INSERT INTO playlist VALUES (1, 'Workout'), (2, 'Evening');
INSERT INTO playlist_track VALUES (1, 2), (1, 3), (2, 1);
"""


@pytest.fixture()
def engine(tmp_path: Path):
    """A SQLite database whose schema ``music`` (an attached file) holds the music tables and whose
    main schema has a different ``playlist`` table: unqualified SQL would read the wrong one."""
    main_db, music_db = tmp_path / "main.db", tmp_path / "music.db"
    with sqlite3.connect(music_db) as con:
        con.executescript(MUSIC)
    with sqlite3.connect(main_db) as con:
        con.executescript("CREATE TABLE playlist (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO playlist VALUES (7, 'decoy');")
    eng = sa.create_engine(f"sqlite:///{main_db}")

    @sa.event.listens_for(eng, "connect")
    def attach(dbapi_connection, _record):
        dbapi_connection.execute(f"ATTACH DATABASE '{music_db}' AS music")

    yield eng
    eng.dispose()


def test_a_named_schema_is_the_tables_database_and_qualifies_their_sql(engine) -> None:
    schema = load_database(engine, schema="music")
    assert [t.id for t in schema.tables] == [
        "music.album", "music.artist", "music.playlist", "music.playlist_track", "music.track"]
    assert {t.sql_schema for t in schema.tables} == {"music"}
    pt = schema["music.playlist_track"]
    assert {fk.ref_table for fk in pt.foreign_keys} == {"music.playlist", "music.track"}
    ddl = create_table_ddl(pt, "sqlite")
    assert ddl.startswith('CREATE TABLE "music"."playlist_track"') and 'REFERENCES "music"."track"' in ddl
    assert qualified_name(pt, "mysql") == "`music`.`playlist_track`"

    retriever = TableRetriever(schema, embedder=BagOfWordsEmbedder())
    res = retriever.retrieve("tracks on the playlist", k=3, include=["playlist", "playlist_track", "track"])
    path = res.join_clause()
    assert path.startswith('FROM "music".') and '"music"."playlist_track"' in path
    with engine.connect() as conn:  # runs as printed, and reads music.playlist, not main.playlist
        rows = conn.execute(sa.text(f'SELECT "music"."track"."name" {path} WHERE "music"."playlist"."name" = \'Workout\' ORDER BY 1')).fetchall()
    assert [r[0] for r in rows] == ["Digital Love", "One More Time"]
    docs = result_documents(res)
    assert all(d.text.startswith('CREATE TABLE "music".') for d in docs)
    samples = fetch_sample_rows(engine, [t.table for t in res.tables], 5)
    assert samples["music.playlist"][1] == [(1, "Workout"), (2, "Evening")]


def test_the_default_schema_is_not_qualified(engine) -> None:
    schema = load_database(engine)
    assert [t.id for t in schema.tables] == ["main.playlist"] and schema.tables[0].sql_schema is None
    assert create_table_ddl(schema.tables[0]).startswith('CREATE TABLE "playlist"')


def test_several_schemas(engine) -> None:
    schema = load_database(engine, schema=["main", "music"])
    ids = [t.id for t in schema.tables]
    assert "main.playlist" in ids and "music.playlist" in ids and len(ids) == 6
    assert schema["main.playlist"].sql_schema == "main"
    with pytest.raises(UnknownDatabaseError, match="ambiguous"):
        schema["playlist"]
    picked = load_database(engine, schema=["main", "music"], include_tables=["music.track", "playlist"])
    assert sorted(t.id for t in picked.tables) == ["main.playlist", "music.playlist", "music.track"]
    with pytest.raises(UnknownDatabaseError, match="'music.nope'"):
        load_database(engine, schema=["main", "music"], include_tables=["music.nope"])
    with pytest.raises(InvalidArgumentError, match="several schemas"):
        load_database(engine, schema=["main", "music"], database="x")
    one = load_database(engine, schema="music", include_tables=["music.track"])
    assert [t.id for t in one.tables] == ["music.track"]
    # the schemas of one database are one catalog (their joins are inferred); one schema is its own
    assert len({t.catalog for t in schema.tables}) == 1 and schema.tables[0].catalog is not None
    assert one.tables[0].catalog is None


SHOP = """
CREATE TABLE sales.orders (order_id INT PRIMARY KEY, customer_id INT, product_id INT, ordered_on DATE);
CREATE TABLE crm.customers (customer_id INT PRIMARY KEY, full_name TEXT, city TEXT);
CREATE TABLE production.products (product_id INT PRIMARY KEY, title TEXT, list_price NUMERIC);
"""


def test_joins_between_the_schemas_of_one_file_are_inferred() -> None:
    from jar_core.joins import build_join_graph

    schema = load_ddl(SHOP, dialect="postgres")
    assert {t.catalog for t in schema.tables} == {"main"}
    assert Schema.from_dict(schema.to_dict()).tables[0].catalog == "main"

    def joins(s: Schema) -> set[str]:
        cols = [f"{t.id}.{c.name}" for t in s.tables for c in t.columns]
        g = build_join_graph(s)
        return {f"{cols[a]} -> {cols[b]}" for a, b, conf in zip(g.a, g.b, g.confidence) if conf >= 0.75}

    assert joins(schema) == {"sales.orders.customer_id -> crm.customers.customer_id",
                             "sales.orders.product_id -> production.products.product_id"}
    # three databases of a lake (no catalog) do not join
    apart = Schema([dataclasses.replace(t, catalog=None) for t in schema.tables])
    assert joins(apart) == set() and apart.fingerprint() != schema.fingerprint()
    # one schema alone: no catalog, as before
    assert load_ddl("CREATE TABLE sales.orders (order_id INT PRIMARY KEY);").tables[0].catalog is None
    retriever = TableRetriever(schema, embedder=BagOfWordsEmbedder())
    res = retriever.retrieve("customers city of orders", k=2, include=["orders", "customers"])
    clause = res.join_clause()
    assert clause.startswith(
        'FROM "sales"."orders" JOIN "crm"."customers" ON "sales"."orders"."customer_id" = "crm"."customers"."customer_id"\n'
    )
    assert "inferred joins" in clause


def test_schema_is_saved_with_the_index(engine, tmp_path: Path) -> None:
    schema = load_database(engine, schema="music")
    retriever = TableRetriever(schema, embedder=BagOfWordsEmbedder())
    retriever.save_index(tmp_path / "idx")
    loaded = TableRetriever.from_index(tmp_path / "idx", embedder=BagOfWordsEmbedder())
    assert {t.sql_schema for t in loaded.schema.tables} == {"music"}
    assert Schema.from_dict(schema.to_dict()).fingerprint() == schema.fingerprint()


def test_fingerprints_of_tables_without_a_schema_are_unchanged() -> None:
    import hashlib
    import json

    from jar_core.schema import Column

    def schema(**kw):
        return Schema([Table("db", "t", columns=[Column("id", "INT", primary_key=True)], **kw)])

    plain, qualified = schema(), schema(sql_schema="db")
    # the payload of the fingerprint before tables had a sql_schema: saved indexes stay valid
    before = [["db", "t", None, [["id", "INT", None, True]], []]]
    old = hashlib.sha256(json.dumps(before, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()
    assert plain.fingerprint() == old
    assert qualified.fingerprint() != old
    assert "sql_schema" not in plain.tables[0].to_dict() and qualified.tables[0].to_dict()["sql_schema"] == "db"


def test_schema_qualified_ddl_prints_qualified_sql() -> None:
    schema = load_ddl(
        "CREATE TABLE sales.customers (id INT PRIMARY KEY, city TEXT);\n"
        "CREATE TABLE sales.orders (id INT PRIMARY KEY, customer_id INT REFERENCES sales.customers(id));\n"
        "CREATE TABLE notes (id INT PRIMARY KEY);",
        dialect="postgres",
    )
    assert schema["sales.orders"].sql_schema == "sales" and schema["main.notes"].sql_schema is None
    retriever = TableRetriever(schema, embedder=BagOfWordsEmbedder())
    res = retriever.retrieve("orders per customer city", k=2, include=["customers", "orders"])
    assert res.join_clause() == (
        'FROM "sales"."customers" JOIN "sales"."orders" ON "sales"."customers"."id" = "sales"."orders"."customer_id"'
    )
    assert res.join_clause("mysql").startswith("FROM `sales`.`customers` JOIN `sales`.`orders`")
    assert create_table_ddl(schema["sales.orders"], "mysql").startswith("CREATE TABLE `sales`.`orders`")


def test_adapters_read_sample_rows_from_each_tables_schema(engine) -> None:
    pytest.importorskip("langchain_core")
    from langchain_jar import JoinAwareRetriever

    retriever = JoinAwareRetriever.from_database(
        engine, loader_options={"schema": ["main", "music"]}, sample_rows=2, embedder=BagOfWordsEmbedder(),
        include=["main.playlist", "music.playlist"], k=2,
    )
    docs = {d.metadata["table_id"]: d.page_content for d in retriever.invoke("playlists")}
    assert "7\tdecoy" in docs["main.playlist"] and 'CREATE TABLE "main"."playlist"' in docs["main.playlist"]
    assert "1\tWorkout" in docs["music.playlist"] and 'CREATE TABLE "music"."playlist"' in docs["music.playlist"]

    pytest.importorskip("llama_index.core")
    from llamaindex_jar import JoinAwareRetriever as LlamaRetriever

    llama = LlamaRetriever.from_database(
        engine, loader_options={"schema": ["main", "music"]}, sample_rows=2, embedder=BagOfWordsEmbedder(),
        include=["main.playlist", "music.playlist"], k=2,
    )
    nodes = {n.node.metadata["table_id"]: n.node.text for n in llama.retrieve("playlists")}
    assert "7\tdecoy" in nodes["main.playlist"] and "1\tWorkout" in nodes["music.playlist"]
