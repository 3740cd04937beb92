"""Rule 7, what stays uncertain says so (jar_core.joins.uncertain)."""
from __future__ import annotations

import pytest

from jar_core.joins.uncertain import AMBIGUOUS, THROUGH_KEY
from jar_core.schema import Column, Schema, Table

from joins_cases import T, edges


def test_a_reference_to_several_keys_is_uncertain():
    # subject_id is the key of two subject tables alike: the detail table's subject_id may join
    # either, and its confidence says so; with one such table the reference is sure
    def subject(name: str) -> Table:
        return T(name, Column("subject_id", "text", unique_ratio=1.0), Column(f"{name}_title", "text"))

    detail = T("tip_detail", "tip_detail_key", Column("subject_id", "text"))
    one = edges(Schema([subject("subject_offered"), detail]))
    assert one["subject_offered.subject_id = tip_detail.subject_id"][0] > AMBIGUOUS
    two = edges(Schema([subject("subject_offered"), subject("subject_enrollable"), detail]))
    for table in ("subject_offered", "subject_enrollable"):
        conf, evidence = two[f"{table}.subject_id = tip_detail.subject_id"]
        assert evidence == "same name" and conf == pytest.approx(AMBIGUOUS)


def test_siblings_of_one_key_join_through_its_table():
    codes = ("ABW", "AFG", "AGO", "AIA", "ALB", "AND")
    countries = T("country", Column("Code", "text", primary_key=True, unique_ratio=1.0, sample=codes),
                  Column("Name", "text"))
    city = T("city", "ID", Column("CountryCode", "text", unique_ratio=0.5, sample=("ABW", "AFG", "AFG", "AGO")),
             Column("Name", "text"))
    language = T("countrylanguage", Column("CountryCode", "text", unique_ratio=0.5, sample=("ABW", "ABW", "AFG", "AGO")),
                 Column("Language", "text"))
    got = edges(Schema([countries, city, language]))
    assert got["city.CountryCode = country.Code"][0] > 0.8
    assert got["country.Code = countrylanguage.CountryCode"][0] > 0.8
    # the direct edge stays (queries do use it) but below every join through the key
    assert got["city.CountryCode = countrylanguage.CountryCode"] == (pytest.approx(THROUGH_KEY), "sibling")
    # without the key table, the two siblings are the only join and keep their confidence
    alone = edges(Schema([city, language]))
    assert alone["city.CountryCode = countrylanguage.CountryCode"][0] > THROUGH_KEY + 0.1


def test_an_order_header_is_named_by_its_order_and_a_polymorphic_reference_stays_uncertain():
    # AdventureWorks: "Header" qualifies a table as "Detail" does, so SalesOrderHeader goes by
    # "sales order" and a detail's SalesOrderID references it
    def pk(name: str) -> Column:
        return Column(name, "int", primary_key=True)

    plain = Schema([T("SalesOrderHeader", "SalesOrderID", "OrderDate"),
                    T("SalesOrderDetail", "SalesOrderDetailID", "SalesOrderID", "OrderQty")])
    got = edges(plain)
    assert got["SalesOrderDetail.SalesOrderID = SalesOrderHeader.SalesOrderID"][0] >= 0.9, got
    # TransactionHistory.ReferenceOrderID holds a work order's, a purchase order's or a sales
    # order's id: with the keys declared, no one of the three is surer than the others
    keyed = Schema([T("WorkOrder", pk("WorkOrderID"), "OrderQty"), T("WorkOrderRouting", pk("WorkOrderID"), "Step"),
                    T("PurchaseOrderHeader", pk("PurchaseOrderID"), "OrderDate"),
                    T("PurchaseOrderDetail", pk("PurchaseOrderDetailID"), "PurchaseOrderID"),
                    T("SalesOrderHeader", pk("SalesOrderID"), "OrderDate"),
                    T("SalesOrderDetail", pk("SalesOrderDetailID"), "SalesOrderID"),
                    T("TransactionHistory", pk("TransactionID"), "ReferenceOrderID", "Quantity")])
    got = edges(keyed)
    refs = {e: v for e, v in got.items() if "ReferenceOrderID" in e}
    assert len(refs) == 3 and all(v[0] <= 0.74 for v in refs.values()), refs


def test_a_polymorphic_reference_joins_only_a_table_it_names_whole():
    from jar_core.loaders import load_ddl

    # Rails' polymorphic pairs (Lago, Panoptes): record_id / record_type hold ids of several tables
    got = edges(load_ddl("""
    CREATE TABLE users (id bigint PRIMARY KEY, name text);
    CREATE TABLE idempotency_records (id bigint PRIMARY KEY, key text);
    CREATE TABLE active_storage_attachments (id bigint PRIMARY KEY, record_type varchar, record_id bigint);
    CREATE TABLE error_details (id bigint PRIMARY KEY, owner_type varchar, owner_id bigint);
    CREATE TABLE payment_methods (id bigint PRIMARY KEY, provider text);
    CREATE TABLE subscriptions (id bigint PRIMARY KEY, payment_method_type varchar, payment_method_id bigint);
    CREATE TABLE customers (id bigint PRIMARY KEY, name text);
    CREATE TABLE orders (id bigint PRIMARY KEY, customer_type varchar, customer_id bigint);
    """, dialect="postgres"))
    assert not any("record_id" in e for e in got), got
    assert not any("owner_id" in e for e in got), got
    # ... but where the name names a table whole, that table (a type beside it is then an attribute)
    assert got.get("payment_methods.id = subscriptions.payment_method_id", (0, ""))[0] >= 0.75, got
    assert got.get("customers.id = orders.customer_id", (0, ""))[0] >= 0.75, got
