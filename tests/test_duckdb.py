"""DuckDB through ``duckdb:///`` (duckdb-engine): read from DuckDB's catalog, keys where it gives them."""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

duckdb = pytest.importorskip("duckdb")
pytest.importorskip("duckdb_engine")

import sqlalchemy as sa  # noqa: E402

from jar_core.cli.main import main  # noqa: E402
from jar_core.errors import DatabaseConnectionError  # noqa: E402
from jar_core.loaders import load_database  # noqa: E402
from jar_core.loaders.database import connect as dbmod  # noqa: E402
from jar_core.loaders.database import duckdb_catalog  # noqa: E402
from jar_core.retriever import TableRetriever  # noqa: E402

from helpers import BagOfWordsEmbedder  # noqa: E402

TPCH = """
CREATE TABLE region (r_regionkey INTEGER PRIMARY KEY, r_name VARCHAR);
CREATE TABLE nation (n_nationkey INTEGER PRIMARY KEY, n_name VARCHAR,
                     n_regionkey INTEGER REFERENCES region (r_regionkey));
CREATE TABLE customer (c_custkey INTEGER PRIMARY KEY, c_name VARCHAR,
                       c_nationkey INTEGER REFERENCES nation (n_nationkey), c_acctbal DECIMAL(15, 2));
CREATE TABLE orders (o_orderkey INTEGER PRIMARY KEY, o_custkey INTEGER REFERENCES customer (c_custkey),
                     o_totalprice DECIMAL(15, 2), o_orderdate DATE);
COMMENT ON TABLE customer IS 'Customers of the shop';
COMMENT ON COLUMN customer.c_acctbal IS 'account balance';
CREATE VIEW big_customers AS SELECT * FROM customer WHERE c_acctbal > 100;
CREATE SCHEMA staging;
CREATE TABLE staging.customer (id INTEGER PRIMARY KEY, raw VARCHAR);
INSERT INTO region VALUES (1, 'EUROPE'), (2, 'ASIA');
INSERT INTO nation VALUES (1, 'FRANCE', 1), (2, 'IRELAND', 1), (3, 'JAPAN', 2);
INSERT INTO customer VALUES (1, 'Customer#1', 1, 10.5), (2, 'Customer#2', 2, 200.0), (3, 'Customer#3', 3, 5.0);
INSERT INTO orders VALUES (1, 1, 100.0, '2024-01-02'), (2, 2, 50.0, '2024-02-03'), (3, 2, 75.0, '2024-03-04');
INSERT INTO staging.customer VALUES (1, 'x');
"""

NO_KEYS = """
CREATE TABLE nation (n_nationkey INTEGER, n_name VARCHAR);
CREATE TABLE customer (c_custkey INTEGER, c_name VARCHAR, c_nationkey INTEGER);
INSERT INTO nation VALUES (1, 'FRANCE'), (2, 'IRELAND');
INSERT INTO customer VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 2);
"""


def _make(path: Path, script: str) -> Path:
    con = duckdb.connect(str(path))
    try:
        con.execute(script)
    finally:
        con.close()
    return path


@pytest.fixture(scope="module")
def tpch(tmp_path_factory) -> Path:
    return _make(tmp_path_factory.mktemp("duck") / "tpch.duckdb", TPCH)


def test_tables_columns_keys_and_ids_from_the_database_name(tpch) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # keys were read: no warning
        schema = load_database(f"duckdb:///{tpch}")
    assert schema.dialect == "duckdb"
    assert [t.id for t in schema.tables] == ["tpch.customer", "tpch.nation", "tpch.orders", "tpch.region"]
    customer = schema["customer"]
    assert [(c.name, c.type, c.primary_key) for c in customer.columns][:2] == [
        ("c_custkey", "INTEGER", True), ("c_name", "VARCHAR", False)]
    assert customer.comment == "Customers of the shop" and customer.column("c_acctbal").comment == "account balance"
    assert [(fk.columns, fk.ref_table, fk.ref_columns) for fk in customer.foreign_keys] == [
        (("c_nationkey",), "tpch.nation", ("n_nationkey",))]
    assert customer.row_count == 3 and customer.column("c_name").sample == ("Customer#1", "Customer#2", "Customer#3")
    assert customer.sql_schema is None


def test_the_file_is_opened_read_only_and_never_created(tpch, tmp_path) -> None:
    with pytest.raises(DatabaseConnectionError, match="does not exist"):
        load_database(f"duckdb:///{tmp_path / 'missing.duckdb'}")
    assert not (tmp_path / "missing.duckdb").exists()
    with pytest.raises(DatabaseConnectionError, match="is a directory, not a DuckDB database file"):
        load_database(f"duckdb:///{tmp_path}")  # DuckDB's own message: 'IO Error: Could not read from file'
    engine = dbmod._create_engine(f"duckdb:///{tpch}")
    try:
        with engine.connect() as conn, pytest.raises(sa.exc.DBAPIError, match="read-only"):
            conn.exec_driver_sql("CREATE TABLE written (x INTEGER)")
    finally:
        engine.dispose()


def test_a_named_schema_and_sql_that_runs(tpch) -> None:
    staging = load_database(f"duckdb:///{tpch}", schema="staging")
    assert [t.id for t in staging.tables] == ["staging.customer"] and staging.tables[0].sql_schema == "staging"

    schema = load_database(f"duckdb:///{tpch}", schema=["main", "staging"])
    assert {"main.customer", "staging.customer"} <= {t.id for t in schema.tables}
    retriever = TableRetriever(schema, embedder=BagOfWordsEmbedder())
    res = retriever.retrieve("order totals per nation", k=3, include=["main.orders", "main.customer", "main.nation"])
    path = res.join_clause()
    assert '"main"."orders"' in path
    con = duckdb.connect(str(tpch), read_only=True)
    try:
        rows = con.execute(f'SELECT "main"."nation"."n_name", SUM(o_totalprice) {path} GROUP BY 1 ORDER BY 1').fetchall()
    finally:
        con.close()
    assert [(n, float(t)) for n, t in rows] == [("FRANCE", 100.0), ("IRELAND", 125.0)]


def test_an_engine_you_pass_works_too(tpch) -> None:
    engine = sa.create_engine(f"duckdb:///{tpch}", connect_args={"read_only": True})
    try:
        assert [t.id for t in load_database(engine).tables][0] == "tpch.customer"
    finally:
        engine.dispose()


def test_without_key_information_a_warning_and_no_keys(tpch, monkeypatch) -> None:
    monkeypatch.setattr(duckdb_catalog, "_DUCKDB_CONSTRAINTS", "SELECT * FROM no_such_catalog_function()")
    with pytest.warns(UserWarning, match=r"keys of duckdb:///.*tpch.duckdb could not be read.*going on without them"):
        schema = load_database(f"duckdb:///{tpch}")
    assert len(schema) == 4
    assert all(not t.foreign_keys and not t.primary_key for t in schema.tables)


def test_a_database_without_declared_keys_infers_its_joins(tmp_path) -> None:
    db = _make(tmp_path / "nokeys.duckdb", NO_KEYS)
    schema = load_database(f"duckdb:///{db}")
    assert all(not t.foreign_keys for t in schema.tables)
    retriever = TableRetriever(schema, embedder=BagOfWordsEmbedder())
    res = retriever.retrieve("customers per nation name", k=2)
    assert [str(j) for j in res.joins] == ["customer.c_nationkey = nation.n_nationkey"] or [
        str(j) for j in res.joins] == ["nation.n_nationkey = customer.c_nationkey"]
    assert not res.joins[0].declared


def test_default_database_names() -> None:
    url = sa.engine.make_url
    assert dbmod._default_database(url("duckdb:////data/lake/tpch.duckdb"), None) == "tpch"
    assert dbmod._default_database(url("duckdb:///sales.db"), None) == "sales"
    assert dbmod._default_database(url("duckdb:///:memory:"), None) == "memory"
    assert dbmod._default_database(url("duckdb:///md:analytics"), None) == "analytics"
    assert dbmod._default_database(url("duckdb:///x.duckdb"), "staging") == "staging"
    assert dbmod._default_database(url("postgresql://u@h/db"), None) is None  # its default schema, once connected


def test_cli_json_on_duckdb(tpch, tmp_path, embedder, monkeypatch, capsys) -> None:
    import jar_core.embed.embedders as emb

    monkeypatch.setattr(emb, "_DEFAULT", embedder)
    assert main(["retrieve", "total price of orders per customer nation", "--db", f"duckdb:///{tpch}", "-k", "3",
                 "--format", "json", "--no-cache", "-q"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert all(t["id"].startswith("tpch.") for t in out["tables"])
    assert "orders" in [t["name"] for t in out["tables"]]
    con = duckdb.connect(str(tpch), read_only=True)
    try:
        assert con.execute(f"SELECT COUNT(*) {out['join_path']}").fetchone()[0] >= 1
    finally:
        con.close()


def test_enumerations_are_text_with_their_labels_and_join_nothing(tmp_path) -> None:
    # a column of CREATE TYPE ... AS ENUM and an inline ENUM(...): duckdb_columns() spells both
    # ENUM('a', 'b'); orders.status joined order_status.status on its values before
    from jar_core.joins import build_join_graph
    from jar_core.schema import TypeFamily
    from jar_core.candidates.values import ValueIndex, match_values

    path = _make(tmp_path / "shop.duckdb", """
        CREATE TYPE mood AS ENUM ('sad', 'ok', 'it''s fine');
        CREATE TABLE order_status (status VARCHAR PRIMARY KEY, label VARCHAR);
        CREATE TABLE orders (id INTEGER PRIMARY KEY, status ENUM('new', 'paid', 'shipped'), mood mood,
                             moods mood[]);
        CREATE TABLE archived_orders (id INTEGER PRIMARY KEY, status ENUM('new', 'paid', 'shipped'));
        INSERT INTO order_status VALUES ('new', 'New'), ('paid', 'Paid'), ('shipped', 'Shipped');
        INSERT INTO orders VALUES (1, 'new', 'ok', ['sad']), (2, 'paid', 'ok', []), (3, 'new', NULL, NULL);
    """)
    url = f"duckdb:///{path}"
    schema = load_database(url)
    got = {(t.name, c.name): (c.family, c.sample) for t in schema.tables for c in t.columns if c.enum}
    assert got == {("orders", "status"): (TypeFamily.TEXT, ("new", "paid", "shipped")),
                   ("orders", "mood"): (TypeFamily.TEXT, ("sad", "ok", "it's fine")),
                   ("archived_orders", "status"): (TypeFamily.TEXT, ("new", "paid", "shipped"))}
    assert schema["orders"].column("status").unique_ratio == pytest.approx(2 / 3)  # the rows' statistics stay
    assert not schema["orders"].column("moods").enum
    cols = [f"{t.name}.{c.name}" for t in schema.tables for c in t.columns]
    graph = build_join_graph(schema)
    assert [(cols[a], cols[b]) for a, b in zip(graph.a, graph.b) if "status" in cols[a] + cols[b]] == []
    found = match_values(ValueIndex.from_schema(schema), "orders shipped by someone whose mood is sad")
    assert {(schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name) for m in found} >= {
        ("orders", "status"), ("archived_orders", "status"), ("orders", "mood")}
    bare = load_database(url, statistics=False)
    assert bare["archived_orders"].column("status").sample == ("new", "paid", "shipped")
    one = load_database(url, sample_values=1)
    assert one["orders"].column("mood").sample == ("sad",)  # bounded like the rows' values
