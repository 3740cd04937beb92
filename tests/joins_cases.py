"""Shared fixtures of the join rule tests (tests/test_joins_*.py): small hand-made schemas and the
helpers that read their join graphs."""
from __future__ import annotations

import sys

from helpers import load_script

from jar_core.joins import build_join_graph
from jar_core.joins.edges import EVIDENCE
from jar_core.schema import Column, ForeignKey, Schema, Table


def T(name: str, *cols: Column | str, db: str = "d", fks: tuple[ForeignKey, ...] = ()) -> Table:
    return Table(db, name, [c if isinstance(c, Column) else Column(c, "int") for c in cols], list(fks))


def edges(schema: Schema, **kw) -> dict[str, tuple[float, str]]:
    """``{"a.x = b.y": (confidence, evidence)}`` with the two ends sorted."""
    g = build_join_graph(schema, **kw)
    names = [(t.name, c.name) for t in schema.tables for c in t.columns]
    out = {}
    for a, b, conf, ev in zip(g.a, g.b, g.confidence, g.evidence):
        x, y = sorted((f"{names[a][0]}.{names[a][1]}", f"{names[b][0]}.{names[b][1]}"))
        out[f"{x} = {y}"] = (round(float(conf), 3), EVIDENCE[ev])
    return out


def ints(*v: int) -> tuple[int, ...]:
    return tuple(v)


TPCH = Schema([
    T("customer", Column("c_custkey", "int", unique_ratio=1.0, sample=ints(*range(1, 11))), Column("c_name", "text"),
      Column("c_nationkey", "int", sample=ints(1, 2, 3, 4, 5))),
    T("orders", Column("o_orderkey", "int", unique_ratio=1.0, sample=ints(*range(1, 11))),
      Column("o_custkey", "int", sample=ints(1, 2, 3, 7)), Column("o_shippriority", "int", sample=ints(0))),
    T("nation", Column("n_nationkey", "int", unique_ratio=1.0, sample=ints(*range(0, 25))), Column("n_name", "text"),
      Column("n_regionkey", "int", sample=ints(0, 1, 2, 3, 4))),
    T("region", Column("r_regionkey", "int", unique_ratio=1.0, sample=ints(0, 1, 2, 3, 4)), Column("r_name", "text")),
    T("lineitem", Column("l_orderkey", "int", sample=ints(1, 1, 2, 3)), Column("l_linenumber", "int", sample=ints(1, 2, 3, 4)),
      Column("l_quantity", "int", sample=ints(5, 6, 7))),
])


TPCDS = Schema([
    T("catalog_returns", "cr_returned_date_sk", "cr_item_sk", "cr_reason_sk", "cr_return_quantity"),
    T("reason", "r_reason_sk", Column("r_reason_id", "text"), Column("r_reason_desc", "text")),
    T("item", "i_item_sk", Column("i_item_id", "text"), Column("i_product_name", "text")),
    T("store", "s_store_sk", Column("s_store_name", "text")),
    T("date_dim", "d_date_sk", "d_year"),
    T("store_sales", "ss_sold_date_sk", "ss_item_sk", "ss_store_sk", "ss_cdemo_sk", "ss_addr_sk"),
    T("customer_demographics", "cd_demo_sk", Column("cd_gender", "text")),
    T("household_demographics", "hd_demo_sk", "hd_dep_count"),
    T("customer_address", "ca_address_sk", Column("ca_city", "text")),
])


# -- honest output ---------------------------------------------------------------------------
def _retriever(**kw):
    from helpers import BagOfWordsEmbedder

    from jar_core.retriever import TableRetriever

    ddl = """
    CREATE TABLE customers (customer_id INT, name TEXT, country TEXT);
    CREATE TABLE orders (order_id INT, customer_id INT, total REAL);
    CREATE TABLE warehouses (warehouse_code TEXT, city TEXT);
    """
    return TableRetriever.from_ddl(ddl, embedder=BagOfWordsEmbedder(), **kw)


# -- across databases: blocked, capped -------------------------------------------------------
def _across(schema: Schema) -> dict[str, tuple[float, str]]:
    """The cross-database edges, named ``db.table.column`` (two ends sorted)."""
    g = build_join_graph(schema, cross_database=True)
    names = [(t.database, t.name, c.name) for t in schema.tables for c in t.columns]
    out = {}
    for a, b, conf, ev in zip(g.a, g.b, g.confidence, g.evidence):
        if names[a][0] != names[b][0]:
            x, y = sorted((".".join(names[a]), ".".join(names[b])))
            out[f"{x} = {y}"] = (round(float(conf), 3), EVIDENCE[ev])
    return out


def _concert(db: str) -> list[Table]:
    singers = ints(*range(1, 11))
    return [
        T("singer", Column("singer_id", "int", unique_ratio=1.0, sample=singers), Column("name", "text"), db=db),
        T("concert", Column("concert_id", "int", unique_ratio=1.0, sample=ints(*range(1, 7))), db=db),
        T("singer_in_concert", Column("concert_id", "int", sample=ints(1, 2, 3)),
          Column("singer_id", "int", sample=ints(2, 3, 5, 7)), db=db),
    ]


def run_join_keys_public(monkeypatch, capsys, *args: str) -> str:
    """What ``scripts/join_keys_public.py ARGS`` prints (it must exit 0)."""
    monkeypatch.setattr(sys, "argv", ["join_keys_public.py", *args])
    assert load_script("join_keys_public").main() == 0
    return capsys.readouterr().out


# -- composite keys ----------------------------------------------------------------------------
_TPCH_LIKE = """
CREATE TABLE part (p_partkey INT PRIMARY KEY, p_name TEXT, p_brand TEXT);
CREATE TABLE supplier (s_suppkey INT PRIMARY KEY, s_name TEXT);
CREATE TABLE partsupp (ps_partkey INT REFERENCES part(p_partkey), ps_suppkey INT REFERENCES supplier(s_suppkey),
                       ps_supplycost REAL, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE lineitem (l_orderkey INT, l_linenumber INT, l_partkey INT, l_suppkey INT, l_quantity REAL,
                       PRIMARY KEY (l_orderkey, l_linenumber),
                       FOREIGN KEY (l_partkey, l_suppkey) REFERENCES partsupp (ps_partkey, ps_suppkey));
CREATE TABLE version (version_id INT PRIMARY KEY, part_id INT, rev INT);
CREATE TABLE build (build_id INT PRIMARY KEY, part_id INT, rev INT,
                    FOREIGN KEY (part_id, rev) REFERENCES version (part_id, rev));
"""


_ADDRESSES = """
CREATE TABLE targets (id uuid PRIMARY KEY, name text);
CREATE TABLE hosts (ip inet PRIMARY KEY, name text);
CREATE TABLE vm_scans (id uuid PRIMARY KEY, target inet, host_ip inet, period tstzrange, embedding vector(3));
CREATE TABLE windows (id int PRIMARY KEY, period tstzrange);
"""


_KEYS_ONLY = """
CREATE TABLE part (p_partkey INT PRIMARY KEY, p_name TEXT);
CREATE TABLE supplier (s_suppkey INT PRIMARY KEY, s_name TEXT);
CREATE TABLE partsupp (ps_partkey INT, ps_suppkey INT, ps_supplycost REAL, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE lineitem (l_orderkey INT, l_linenumber INT, l_partkey INT, l_suppkey INT, l_quantity REAL,
                       PRIMARY KEY (l_orderkey, l_linenumber));
CREATE TABLE item (i_item_sk INT PRIMARY KEY);
CREATE TABLE web_sales (ws_item_sk INT, ws_order_number INT, PRIMARY KEY (ws_item_sk, ws_order_number));
CREATE TABLE catalog_sales (cs_item_sk INT, cs_order_number INT, PRIMARY KEY (cs_item_sk, cs_order_number));
CREATE TABLE web_returns (wr_item_sk INT, wr_order_number INT, PRIMARY KEY (wr_item_sk, wr_order_number));
"""


# MIMIC-III's layout: every table keyed by a row number, the entities by columns declared unique
_MIMIC = """
CREATE TABLE patients (row_id INT NOT NULL, subject_id INT NOT NULL, gender VARCHAR(5),
  CONSTRAINT pat_rowid_pk PRIMARY KEY (row_id), CONSTRAINT pat_subid_unique UNIQUE (subject_id));
CREATE TABLE admissions (row_id INT NOT NULL, subject_id INT NOT NULL, hadm_id INT NOT NULL, admittime TIMESTAMP,
  CONSTRAINT adm_rowid_pk PRIMARY KEY (row_id), CONSTRAINT adm_hadm_unique UNIQUE (hadm_id));
CREATE TABLE icustays (row_id INT NOT NULL, subject_id INT NOT NULL, hadm_id INT NOT NULL, icustay_id INT NOT NULL,
  CONSTRAINT icustay_rowid_pk PRIMARY KEY (row_id));
CREATE TABLE chartevents (row_id INT NOT NULL, subject_id INT, hadm_id INT, icustay_id INT, valuenum FLOAT,
  CONSTRAINT chartevents_rowid_pk PRIMARY KEY (row_id));
"""


# MusicBrainz's layout: a bare ``type`` in each entity table and in its aliases, a ``*_type`` table
# for each; a generated ``gid`` unique in every entity table, and a redirect table keyed by retired gids
_MUSICBRAINZ = """
CREATE TABLE area_type (id SERIAL PRIMARY KEY, name VARCHAR(255), gid UUID NOT NULL);
CREATE TABLE artist_type (id SERIAL PRIMARY KEY, name VARCHAR(255), gid UUID NOT NULL);
CREATE TABLE event_type (id SERIAL PRIMARY KEY, name VARCHAR(255), gid UUID NOT NULL);
CREATE TABLE area_alias_type (id SERIAL PRIMARY KEY, name VARCHAR(255), gid UUID NOT NULL);
CREATE TABLE area (id SERIAL PRIMARY KEY, gid UUID NOT NULL, name VARCHAR(255), type INTEGER);
CREATE TABLE area_alias (id SERIAL PRIMARY KEY, area INTEGER NOT NULL, name VARCHAR(255), type INTEGER);
CREATE TABLE artist (id SERIAL PRIMARY KEY, gid UUID NOT NULL, name VARCHAR(255), type INTEGER, area INTEGER);
CREATE TABLE artist_gid_redirect (gid UUID NOT NULL PRIMARY KEY, new_id INTEGER NOT NULL);
CREATE TABLE deleted_entity (gid UUID NOT NULL PRIMARY KEY, data TEXT);
CREATE TABLE editor_subscribe_artist_deleted (editor INTEGER NOT NULL, gid UUID NOT NULL, PRIMARY KEY (editor, gid));
CREATE UNIQUE INDEX area_type_idx_gid ON area_type (gid);
CREATE UNIQUE INDEX artist_type_idx_gid ON artist_type (gid);
CREATE UNIQUE INDEX event_type_idx_gid ON event_type (gid);
CREATE UNIQUE INDEX area_alias_type_idx_gid ON area_alias_type (gid);
CREATE UNIQUE INDEX area_idx_gid ON area (gid);
CREATE UNIQUE INDEX artist_idx_gid ON artist (gid);
"""


def directed(schema: Schema) -> dict[str, tuple[float, str]]:
    """``{"referencing.x -> referenced.y": (confidence, evidence)}``."""
    g = build_join_graph(schema)
    names = [f"{t.name}.{c.name}" for t in schema.tables for c in t.columns]
    return {f"{names[a]} -> {names[b]}": (round(float(conf), 3), EVIDENCE[ev])
            for a, b, conf, ev in zip(g.a, g.b, g.confidence, g.evidence)}


_ROLES_AND_WHOLES = """
CREATE TABLE users (id bigint PRIMARY KEY, name varchar);
CREATE TABLE subscriptions (id uuid PRIMARY KEY, user_id bigint);
CREATE TABLE requests (id bigint PRIMARY KEY, pull_request_id bigint, parent_request_id bigint);
CREATE TABLE pull_requests (id bigint PRIMARY KEY, number int);
CREATE TABLE usage_thresholds (id uuid PRIMARY KEY, subscription_id uuid);
CREATE TABLE usage_monitoring_subscription_activities (id bigint PRIMARY KEY, subscription_id uuid NOT NULL);
CREATE UNIQUE INDEX idx_subscription_unique ON usage_monitoring_subscription_activities (subscription_id);
CREATE TABLE teleconsultations (id uuid PRIMARY KEY, medical_officer_id bigint, signatory_id bigint);
"""


_LONG_MODULES = """
CREATE TABLE active_storage_attachments (id bigint PRIMARY KEY, record_type varchar, record_id bigint, blob_id bigint);
CREATE TABLE active_storage_blobs (id bigint PRIMARY KEY, key varchar, filename varchar);
CREATE TABLE active_storage_variant_records (id bigint PRIMARY KEY, blob_id bigint, variation_digest varchar);
CREATE TABLE iap_subject_category (iap_subject_category_key int PRIMARY KEY, name varchar);
CREATE TABLE iap_subject_person (iap_subject_person_key int PRIMARY KEY, person_name varchar);
CREATE TABLE cip (cip_key int PRIMARY KEY, category_code varchar(8));
"""


_LINKS_BY_NAMES = """
CREATE TABLE wallets (id uuid PRIMARY KEY, name varchar);
CREATE TABLE wallet_transactions (id uuid PRIMARY KEY, wallet_id uuid);
CREATE TABLE invoice_custom_sections (id uuid PRIMARY KEY, name varchar);
CREATE TABLE wallets_invoice_custom_sections (id uuid PRIMARY KEY, wallet_id uuid, invoice_custom_section_id uuid);
CREATE TABLE wallet_transactions_invoice_custom_sections (id uuid PRIMARY KEY, wallet_transaction_id uuid,
                                                          invoice_custom_section_id uuid);
CREATE TABLE reports (id uuid PRIMARY KEY, title varchar);
CREATE TABLE scan_reports (id uuid PRIMARY KEY, format varchar);
CREATE TABLE scan_launches (id uuid PRIMARY KEY, report_id uuid, launched_at timestamp);
"""


_WAREHOUSE = """
CREATE TABLE DimCurrency (CurrencyKey int PRIMARY KEY, CurrencyName nvarchar(50));
CREATE TABLE DimDate (DateKey int PRIMARY KEY, FullDate date);
CREATE TABLE DimProduct (ProductKey int PRIMARY KEY, ProductName nvarchar(50));
CREATE TABLE FactInternetSales (SalesOrderNumber nvarchar(20), SalesOrderLineNumber tinyint, ProductKey int,
    OrderDateKey int, CurrencyKey int, SalesAmount money, PRIMARY KEY (SalesOrderNumber, SalesOrderLineNumber));
CREATE TABLE FactResellerSales (SalesOrderNumber nvarchar(20), SalesOrderLineNumber tinyint, ProductKey int,
    OrderDateKey int, CurrencyKey int, SalesAmount money, PRIMARY KEY (SalesOrderNumber, SalesOrderLineNumber));
CREATE TABLE FactInternetSalesReason (SalesOrderNumber nvarchar(20), SalesOrderLineNumber tinyint,
    SalesReasonKey int, PRIMARY KEY (SalesOrderNumber, SalesOrderLineNumber, SalesReasonKey));
CREATE TABLE NewFactCurrencyRate (AverageRate real, CurrencyKey int, DateKey int);
"""
