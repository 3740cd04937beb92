"""Rule 5, across databases (jar_core.joins.across, blocking): blocked, capped."""
from __future__ import annotations

import numpy as np
import pytest

from jar_core.joins import build_join_graph
from jar_core.schema import Column, Schema

from joins_cases import T, edges, ints, TPCH, TPCDS, _across, _concert


def test_no_join_across_databases_unless_asked():
    s = Schema([T("orders", "id", "customer_id", db="shop"), T("customer", "id", db="crm")])
    assert edges(s) == {}
    assert "customer.id = orders.customer_id" in edges(s, cross_database=True)


def test_two_databases_that_share_a_key_are_joined():
    s = Schema([
        T("orders", Column("order_id", "int", unique_ratio=1.0), "customer_id", "total", db="shop"),
        T("customer", Column("customer_id", "int", unique_ratio=1.0), Column("name", "text"), db="crm"),
        T("ticket", Column("ticket_id", "int", unique_ratio=1.0), Column("subject", "text"), db="crm"),
    ])
    assert edges(s) == {}
    got = _across(s)
    assert got == {"crm.customer.customer_id = shop.orders.customer_id": (0.97, "same name")}


def test_copies_of_one_database_join_a_few_copies_not_every_one():
    from jar_core.joins.across import MAX_CROSS_KEYS

    n_copies = 12
    s = Schema([t for i in range(n_copies) for t in _concert(f"concert_{i}")])
    g = build_join_graph(s, cross_database=True)
    db = np.array([t.database for t in s.tables])
    across = db[g.table_a] != db[g.table_b]
    per_column = np.bincount(g.a[across], minlength=int(g.a.max()) + 1)
    assert across.any() and per_column.max() <= MAX_CROSS_KEYS
    # all pairs would join each key-named column of a copy with its namesakes in the 11 others
    assert across.sum() <= 4 * n_copies * MAX_CROSS_KEYS < 4 * n_copies * (n_copies - 1)
    # within each copy, the graph is the one within databases
    own = build_join_graph(s)
    keep = ~across
    assert set(zip(g.a[keep], g.b[keep], g.confidence[keep], g.evidence[keep])) == set(
        zip(own.a, own.b, own.confidence, own.evidence))


def test_a_common_value_or_a_bare_id_joins_nothing_across_databases(monkeypatch):
    from jar_core.joins import blocking

    codes = ("ax1", "bx2", "cx3", "dx4", "ex5")
    # a key-named column whose text values lie inside another database's key: an inclusion
    s = Schema([
        T("thing", Column("thing_id", "text", unique_ratio=1.0, sample=codes), db="a"),
        T("log", Column("entry", "int", unique_ratio=1.0), Column("ref_id", "text", sample=codes[:3]), db="b"),
    ])
    assert _across(s) == {"a.thing.thing_id = b.log.ref_id": (0.7, "inclusion")}
    # values found in more columns than VALUE_CAP (here 1: each is in two): no evidence across
    # databases, while within one database the same rule still joins them
    monkeypatch.setattr(blocking, "VALUE_CAP", 1)
    assert _across(s) == {}
    assert "log.ref_id = thing.thing_id" in edges(Schema([t.copy_to("a") for t in s.tables]))
    monkeypatch.undo()
    # a bare ``id`` (not its table's key) lies inside a key of its own database and of another:
    # the rule joins it within its database, never across
    one_to_ten = ints(*range(1, 11))
    s = Schema([
        T("person", Column("person_id", "int", primary_key=True, unique_ratio=1.0, sample=one_to_ten), db="a"),
        T("log", Column("log_no", "int", primary_key=True), Column("id", "int", sample=ints(1, 2, 3)), db="a"),
        T("person", Column("person_id", "int", primary_key=True, unique_ratio=1.0, sample=one_to_ten), db="b"),
    ])
    assert "log.id = person.person_id" in edges(s)
    assert not any(".id " in e or e.endswith(".id") for e in _across(s)), _across(s)


@pytest.mark.parametrize("schema", [TPCH, TPCDS])
def test_within_database_edges_are_the_same_with_cross_database(schema):
    # the benchmark schemas as three databases each (renamed copies) and one database of each
    lake = Schema([t.copy_to(f"{db}") for db in ("x", "y", "z") for t in schema.tables])
    within = build_join_graph(lake)
    g = build_join_graph(lake, cross_database=True)
    db = np.array([t.database for t in lake.tables])
    same = db[g.table_a] == db[g.table_b]
    assert set(zip(g.a[same], g.b[same], g.confidence[same], g.evidence[same])) == set(
        zip(within.a, within.b, within.confidence, within.evidence))
