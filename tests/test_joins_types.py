"""Rule 4, types (jar_core.joins.types): the types must agree, and a column that holds no key joins nothing."""
from __future__ import annotations

import pytest

from jar_core.joins.words import sample_class
from jar_core.schema import Column, Schema

from joins_cases import T, edges, ints, _ADDRESSES


def test_types_are_read_off_the_samples():
    # declared types shifted by one column (as in the shared Spider tables): the samples decide
    s = Schema([
        T("owners", Column("owner_id", "text", unique_ratio=1.0, sample=ints(1, 2, 3, 4, 5)), Column("name", "int")),
        T("dogs", Column("dog_id", "time", unique_ratio=1.0, sample=ints(1, 2, 3)),
          Column("owner_id", "number", sample=ints(1, 2, 3))),
    ])
    assert "dogs.owner_id = owners.owner_id" in edges(s)
    # the same names with text samples on one side and numbers on the other: no join
    s2 = Schema([
        T("owners", Column("owner_id", "int", unique_ratio=1.0, sample=("ab", "cd", "ef"))),
        T("dogs", Column("owner_id", "int", sample=ints(1, 2, 3))),
    ])
    assert edges(s2) == {}
    assert sample_class(["1", 2, 3.0]) == "numeric" and sample_class(["2020-01-02"]) == "date-time"
    assert sample_class(["x", 1]) == "text" and sample_class([]) is None


def test_columns_that_hold_no_key_join_nothing():
    from jar_core.loaders import load_ddl

    # AdventureWorks: a pay rate, a geography and photos named like references
    got = edges(load_ddl("""
    CREATE TABLE CurrencyRate (CurrencyRateID SERIAL PRIMARY KEY, AverageRate DECIMAL(10, 4));
    CREATE TABLE EmployeePayHistory (BusinessEntityID INT PRIMARY KEY, Rate NUMERIC NOT NULL);
    CREATE TABLE Location (LocationID SERIAL PRIMARY KEY, Name VARCHAR(50));
    CREATE TABLE Address (AddressID SERIAL PRIMARY KEY, SpatialLocation BYTEA, location_doc JSONB);
    CREATE TABLE car_makers (Id INT PRIMARY KEY, Maker TEXT);
    CREATE TABLE model_list (ModelId INT PRIMARY KEY, Maker INT, price DECIMAL(8, 2));
    """, dialect="postgres"))
    assert not any("Rate =" in e or "= EmployeePayHistory.Rate" in e for e in got), got
    assert not any("SpatialLocation" in e or "location_doc" in e for e in got), got
    # an integer named like a table still references it (Spider's car_1)
    assert got["car_makers.Id = model_list.Maker"][1] == "entity"

    # a real number named by a key word still references a key; one whose values are integers too
    kept = edges(Schema([
        T("currency_rate", Column("currency_rate_id", "int", unique_ratio=1.0)),
        T("invoice", Column("invoice_id", "int", unique_ratio=1.0), Column("currency_rate_id", "numeric"),
          Column("rate", "numeric", sample=ints(1, 2, 3))),
    ]))
    assert kept["currency_rate.currency_rate_id = invoice.currency_rate_id"][1] == "same name"
    assert "currency_rate.currency_rate_id = invoice.rate" in kept
    # ... but not one whose values have fractions
    frac = edges(Schema([
        T("currency_rate", Column("currency_rate_id", "int", unique_ratio=1.0)),
        T("invoice", Column("invoice_id", "int", unique_ratio=1.0),
          Column("currency_rate_id", "int", sample=(1, 2.5, 3))),
    ]))
    assert frac == {}


def test_a_count_by_its_name_joins_nothing():
    from jar_core.loaders import load_ddl

    # Northwind's units on order and BEAVER-DW's rooms of a building name the entity they count
    got = edges(load_ddl("""
    CREATE TABLE orders (order_id INT PRIMARY KEY, order_date DATE);
    CREATE TABLE products (product_id INT PRIMARY KEY, units_on_order INT, units_in_stock INT);
    CREATE TABLE FCLT_ROOMS (FCLT_ROOM_KEY INT PRIMARY KEY, ROOM_NAME VARCHAR(20));
    CREATE TABLE FAC_BUILDING (FAC_BUILDING_KEY INT PRIMARY KEY, NUM_OF_ROOMS INT, TOTAL_ROOMS INT);
    CREATE TABLE SPACE_UNIT (SPACE_UNIT_KEY INT PRIMARY KEY, UNIT_NAME VARCHAR(20));
    CREATE TABLE WAREHOUSE_USERS (USER_KEY INT PRIMARY KEY, UNIT_ID INT);
    """, dialect="postgres"))
    assert not any("units_on_order" in e or "ROOMS" in e.split(" = ")[1] for e in got), got
    # a unit's id is a reference, a count is not
    assert any("WAREHOUSE_USERS.UNIT_ID" in e for e in got), got


@pytest.mark.parametrize("name, count", [
    ("units_on_order", True), ("NumberOfEmployees", True), ("TOTAL_UNITS", True), ("qty_ordered", True),
    ("unit_price", False), ("count_id", False), ("UnitMeasureCode", False), ("Number", False), ("total", False),
])
def test_counts(name, count):
    from jar_core.joins.name_facts import counts

    assert counts(name) is count


@pytest.mark.parametrize("raw, keyless", [
    ("bytea", True), ("BLOB NOT NULL", True), ("varbinary(max)", True), ("binary(16)", False),
    ("jsonb", True), ("xml", True), ("geography(POINT,4326)", True), ("text[]", True), ("money", True),
    ("DECIMAL(7, 2)", True), ("numeric(10,0)", False), ("NUMBER", False), ("number(10)", False),
    ("float", False), ("int", False), ("uuid", False), ("varchar(44)", False), ("", False), (None, False),
    ("int4range", True), ("tstzmultirange", True), ("vector(1536)", True), ("tsquery", True), ("box", True),
    ("interval day to second", True), ("inet", False),
])
def test_keyless_types(raw, keyless):
    from jar_core.schema import keyless_type

    assert keyless_type(raw) is keyless


def test_a_network_address_joins_only_an_address():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_ADDRESSES, dialect="postgres"))
    # an inet names the target, but holds an address, which no uuid key holds
    assert not any(e.startswith("targets.id = vm_scans.target") or e.startswith("vm_scans.target = targets.id")
                   for e in got), got
    assert got["hosts.ip = vm_scans.host_ip"][0] > 0.5, got  # an address may join an address
    # ranges and embeddings hold no key
    assert not any("period" in e or "embedding" in e for e in got), got


def test_a_declared_uuid_and_other_text_never_join():
    from jar_core.loaders import load_ddl

    # Lago's billing schema: external ids and codes kept as text, named like the uuid keys
    got = edges(load_ddl("""
    CREATE TABLE customers (id uuid PRIMARY KEY, external_id character varying, name text);
    CREATE TABLE events (id uuid PRIMARY KEY, customer_id uuid, external_customer_id character varying);
    CREATE TABLE payments (id uuid PRIMARY KEY, provider_payment_id character varying, amount integer);
    CREATE TABLE taxes (id uuid PRIMARY KEY, code character varying);
    CREATE TABLE fees_taxes (id uuid PRIMARY KEY, tax_id uuid, tax_code character varying);
    """, dialect="postgres"))
    assert got.get("customers.id = events.customer_id", (0, ""))[0] >= 0.75, got
    assert got.get("fees_taxes.tax_id = taxes.id", (0, ""))[0] >= 0.75, got
    assert not any("external_customer_id" in e and "customers.id" in e for e in got), got
    assert not any("provider_payment_id" in e for e in got), got
    assert not any("tax_code" in e and "taxes.id" in e for e in got), got
