"""The join graph as the retriever reads it (jar_core.joins.graph, links): candidate joins, honest output, link tables, the scripts."""
from __future__ import annotations

import numpy as np
import pytest

from jar_core.joins import build_join_graph

from joins_cases import edges, TPCH, _retriever, run_join_keys_public, _LINKS_BY_NAMES


def test_candidate_joins_reads_the_graph():
    from jar_core.joins import candidate_joins

    g = build_join_graph(TPCH)
    offsets = np.concatenate([[0], np.cumsum([len(t.columns) for t in TPCH.tables])])
    w, cols, declared, evidence = candidate_joins(g, offsets, np.array([1, 0, 2]), len(TPCH.tables))
    assert w[0, 1] > 0.9 and w[0, 1] == w[1, 0]  # orders - customer
    assert tuple(cols[0, 1]) == (1, 0) and tuple(cols[1, 0]) == (0, 1)  # o_custkey = c_custkey
    assert w[0, 2] == 0 and tuple(cols[0, 2]) == (-1, -1)  # orders - nation: none
    assert not declared.any() and evidence[0, 2] == -1


def test_candidate_references_point_from_the_referencing_table_to_the_key():
    from jar_core.joins import candidate_join_matrices

    g = build_join_graph(TPCH)
    offsets = np.concatenate([[0], np.cumsum([len(t.columns) for t in TPCH.tables])])
    w, *_, refs = candidate_join_matrices(g, offsets, np.array([1, 0, 2]), len(TPCH.tables))
    assert refs[0, 1] and not refs[1, 0]  # orders.o_custkey refers to customer, not the other way
    assert not refs[0, 2] and not refs[2, 0]  # orders - nation: no join


def test_inferred_joins_are_marked_as_such():
    from jar_core.output.documents import result_documents

    res = _retriever().retrieve("orders total by customer name and warehouse city", k=3)
    assert set(res.table_names) == {"customers", "orders", "warehouses"}
    (edge,) = res.joins
    assert {edge.left, edge.right} == {"customers.customer_id", "orders.customer_id"}
    assert edge.kind == "inferred" and not edge.declared and edge.evidence == "same name"
    assert 0.5 <= edge.confidence < 1.0
    d = edge.to_dict()
    assert d["kind"] == "inferred" and d["confidence"] == pytest.approx(edge.confidence, abs=1e-6)
    assert d["evidence"] == "same name"
    assert res.unjoined == [t.id for t in res.tables if t.name == "warehouses"]
    clause = res.join_clause()
    assert "-- inferred joins (not declared in the schema; check them):" in clause
    assert "JOIN \"warehouses\"" not in clause
    keys = [k for doc in result_documents(res) for k in doc.metadata["join_keys"]]
    assert keys and all(k["kind"] == "inferred" and "confidence" in k for k in keys)


def test_min_join_score_drops_weak_joins():
    res = _retriever(min_join_score=0.99).retrieve("orders total by customer name", k=2)
    assert res.joins == [] and len(res.unjoined) == 2
    with pytest.raises(Exception, match="min_join_score"):
        _retriever(min_join_score=1.5)
    with pytest.raises(Exception, match="joins must be"):
        _retriever(joins="guess")


def test_tpch_in_duckdb_without_declared_keys(tmp_path):
    """A real database through ``duckdb:///``: no keys declared, real rows; the inferred joins are
    the TPC-H keys, and the one-value priority column joins nothing."""
    duckdb = pytest.importorskip("duckdb", reason="DuckDB is not installed (pip install 'jar-retrieval[duckdb]')")
    pytest.importorskip("duckdb_engine", reason="duckdb-engine is not installed (pip install 'jar-retrieval[duckdb]')")
    from jar_core.loaders import load_database

    path = tmp_path / "tpch.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE nation (n_nationkey INTEGER, n_name VARCHAR)")
    con.execute("CREATE TABLE customer (c_custkey INTEGER, c_name VARCHAR, c_nationkey INTEGER)")
    con.execute("CREATE TABLE orders (o_orderkey INTEGER, o_custkey INTEGER, o_shippriority INTEGER)")
    con.execute("CREATE TABLE lineitem (l_orderkey INTEGER, l_linenumber INTEGER, l_quantity INTEGER)")
    con.execute("INSERT INTO nation SELECT i, 'n' || i FROM range(0, 25) t(i)")
    con.execute("INSERT INTO customer SELECT i, 'c' || i, i % 25 FROM range(1, 151) t(i)")
    con.execute("INSERT INTO orders SELECT i, 1 + (i * 7) % 150, 0 FROM range(1, 601) t(i)")
    con.execute("INSERT INTO lineitem SELECT 1 + i // 4, 1 + i % 4, 1 + i % 50 FROM range(0, 2400) t(i)")
    con.close()
    schema = load_database(f"duckdb:///{path}")
    assert {t.id for t in schema.tables} == {"tpch.nation", "tpch.customer", "tpch.orders", "tpch.lineitem"}
    got = edges(schema)
    assert "customer.c_custkey = orders.o_custkey" in got
    assert "customer.c_nationkey = nation.n_nationkey" in got
    assert "lineitem.l_orderkey = orders.o_orderkey" in got
    assert not any("shippriority" in e or "linenumber" in e or "quantity" in e for e in got), got
    assert all(ev != "declared" for _, ev in got.values())


def test_public_schema_script_scores_inferred_joins_against_declared_ones(tmp_path, capsys, monkeypatch):
    # scripts/join_keys_public.py: declared keys are the truth, the graph is inferred without them
    ddl = tmp_path / "shop.sql"
    ddl.write_text(
        "CREATE TABLE customer (customer_id INT PRIMARY KEY, name TEXT);\n"
        "CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT REFERENCES customer(customer_id),"
        " placed_by INT REFERENCES customer(customer_id));\n")
    out = run_join_keys_public(monkeypatch, capsys, f"{ddl}:sqlite", "--list")
    # customer_id is found by its name; placed_by (a role no rule reads) is missed and listed
    assert "| shop.sql | primary | 2 | 2 | 1 | 100.0 | 100.0 | 50.0 |" in out
    assert "missed customer.customer_id = orders.placed_by" in out
    # a database made without keys (DuckDB's dbgen) is scored against a DDL file's keys
    import sqlite3

    con = sqlite3.connect(tmp_path / "shop.db")
    con.executescript("CREATE TABLE customer (customer_id INT, name TEXT);"
                      "CREATE TABLE orders (order_id INT, customer_id INT, placed_by INT);")
    con.executemany("INSERT INTO customer VALUES (?, ?)", [(i, f"c{i}") for i in range(1, 30)])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(i, i % 29 + 1, 1) for i in range(1, 60)])
    con.commit()
    con.close()
    out = run_join_keys_public(monkeypatch, capsys, f"sqlite:///{tmp_path / 'shop.db'}={ddl}:sqlite")
    assert "| shop.db (keys of shop.sql) | primary | 2 | 2 | 1 | 100.0 | 100.0 | 50.0 |" in out


def test_public_schema_script_joins_sql_schemas_and_counts_implied_joins(tmp_path, capsys, monkeypatch):
    # the SQL schemas of one DDL file are one catalog: the references across them are inferred;
    # two references of one key make an undeclared sibling join that is implied, not wrong
    ddl = tmp_path / "two.sql"
    ddl.write_text(
        "CREATE TABLE sales.customer (customer_id INT PRIMARY KEY, name TEXT);\n"
        "CREATE TABLE crm.visit (visit_id INT PRIMARY KEY, customer_id INT REFERENCES sales.customer(customer_id));\n"
        "CREATE TABLE sales.invoice (invoice_id INT PRIMARY KEY, customer_id INT REFERENCES sales.customer(customer_id));\n")
    out = run_join_keys_public(monkeypatch, capsys, f"{ddl}:postgres", "--list")
    assert "| two.sql | primary | 3 | 2 | 3 | 66.7 | 100.0 | 100.0 | 2 | 100.0 | 100.0 | 100.0 |" in out
    assert "implied 0.55 sibling      visit.customer_id -> invoice.customer_id" in out
    assert "wrong" not in out


def test_a_link_table_is_not_named_by_the_table_it_links():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_LINKS_BY_NAMES, dialect="postgres"))
    # the rest of ``wallets_invoice_custom_sections`` is another table's whole name: that table's
    key = "invoice_custom_sections.id = wallet_transactions_invoice_custom_sections.invoice_custom_section_id"
    assert got[key] == (0.92, "entity"), got
    assert ("wallet_transactions_invoice_custom_sections.invoice_custom_section_id = wallets_invoice_custom_sections.id"
            not in got)
    # a module's table (``scan_``, which names no table) keeps its entity's name beside another table's
    assert got["scan_launches.report_id = scan_reports.id"] == (0.92, "entity"), got
