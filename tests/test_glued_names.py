"""Run-together names read as words (jar_core.glued): the segmenter's splits, and where they change
the answer: a table named in one run-together word found by a question in plain words, a glued
``...ID`` column joined to its table, an index of older texts rebuilt."""
from __future__ import annotations

import json

import pytest
from helpers import BagOfWordsEmbedder
from joins_cases import T, edges

from jar_core.candidates.lexical import bm25_name
from jar_core.decompose.heuristic import HeuristicDecomposer
from jar_core.errors import StaleIndexError
from jar_core.glued import split_glued
from jar_core.index.schema_index import SchemaIndex
from jar_core.index.texts import TEXTS_VERSION, column_name_text, column_text, table_text
from jar_core.joins.words import words
from jar_core.loaders import load_ddl
from jar_core.retriever import TableRetriever
from jar_core.schema import Column, Schema

SPLITS = [  # (token, its words)
    ("elementoffinancialstatement", "element of financial statement"),
    ("cashcashequivalentsandshortterminvestmentsid", "cash cash equivalents and short term investments id"),
    ("shortterminvestmentsid", "short term investments id"),
    ("countrylanguage", "country language"),
    ("orderdetails", "order details"),
    ("productid", "product id"),
    ("customerid", "customer id"),
    ("custid", "cust id"),
    ("deptno", "dept no"),
    ("wardid", "ward id"),
    ("patientunitstayid", "patient unit stay id"),
    ("linenumber", "line number"),
    # words, codes and abbreviations stay whole
    ("ssn", "ssn"), ("isbn", "isbn"), ("cusip", "cusip"), ("hadm", "hadm"), ("labid", "labid"),
    ("valid", "valid"), ("rapid", "rapid"), ("fluid", "fluid"), ("casino", "casino"), ("donkey", "donkey"),
    ("username", "username"), ("customer", "customer"), ("department", "department"),
    ("gradaute", "gradaute"), ("edacca", "edacca"),  # a typo and a code: no split into rare pieces
    ("iso3", "iso3"), ("CustomerID", "CustomerID"), ("x" * 70, "x" * 70),  # digits, capitals, too long: as given
]


@pytest.mark.parametrize("token,want", SPLITS)
def test_split_glued(token, want):
    assert " ".join(split_glued(token)) == want


FINANCE = """
CREATE TABLE ELEMENTOFFINANCIALSTATEMENT (ID INTEGER PRIMARY KEY, ELEMENTNAME TEXT, REPORTINGPERIOD TEXT);
CREATE TABLE CASHEQUIVALENTS (ID INTEGER PRIMARY KEY, AMOUNT REAL, CURRENCYCODE TEXT);
CREATE TABLE LEGALENTITYADDRESS (ID INTEGER PRIMARY KEY, STREETNAME TEXT, POSTALCODE TEXT);
CREATE TABLE MARKETSECURITYLISTING (ID INTEGER PRIMARY KEY, TICKERSYMBOL TEXT, EXCHANGENAME TEXT);
CREATE TABLE CUSTOMER (ID INTEGER PRIMARY KEY, NAME TEXT);
CREATE TABLE ACCOUNT (ID INTEGER PRIMARY KEY, CUSTID INTEGER, CASHEQUIVALENTSID INTEGER, OPENED DATE);
"""


def test_a_run_together_table_name_is_found_by_its_words():
    schema = load_ddl(FINANCE)
    r = TableRetriever(schema, embedder=BagOfWordsEmbedder(dim=256))
    assert "element of financial statement" in table_text(schema.tables[0])
    asks = {"Which elements of each financial statement are reported per period?": "ELEMENTOFFINANCIALSTATEMENT",
            "ticker symbol and exchange name of every market security listing": "MARKETSECURITYLISTING",
            "street name and postal code of the legal entity": "LEGALENTITYADDRESS"}
    for question, table in asks.items():
        assert r.retrieve(question, k=1).table_names == [table], question
    # the paper's join-name text keeps the names as written; BM25 a word that spells other tables' names
    assert column_name_text(schema.tables[1], 2) == "main cashequivalents currencycode"
    tables = frozenset({"cashequivalents", "cashequivalent", "customer"})
    assert [bm25_name(n, tables) for n in ("CASHEQUIVALENTSID", "CUSTOMERID", "ELEMENTNAME", "CUSTID")] == [
        "cashequivalentsid", "customerid", "element name", "cust id"]
    assert column_text(schema.tables[1], 2) == "cash equivalents:currency code"


@pytest.mark.parametrize("name,want", [
    ("CASHEQUIVALENTSID", ["cash", "equivalent", "id"]),  # the entity in the singular
    ("salesorderid", ["sales", "order", "id"]),  # a compound's inner words as written: salesorder
    ("billtoaddressid", ["bill", "to", "address", "id"]),
    ("Order_Details", ["order", "detail"]), ("ProductsID", ["product", "id"]),  # written apart: as before
])
def test_a_column_name_is_read_split(name, want):
    assert words(name, glued=True) == want
    assert words("salesorderheader") == ["salesorderheader"]  # a table's name: whole


def test_a_glued_key_column_is_joined_to_its_table():
    got = edges(load_ddl(FINANCE.replace(" PRIMARY KEY", "")))
    # a plural table name glued to its key word, an abbreviation glued to it
    assert got.get("ACCOUNT.CASHEQUIVALENTSID = CASHEQUIVALENTS.ID", (0, ""))[0] >= 0.8, got
    assert got.get("ACCOUNT.CUSTID = CUSTOMER.ID", (0, ""))[0] >= 0.7, got
    # MySQL Workbench's keys, read apart: the table's name, then its key's
    wb = edges(Schema([T("customer", "idcustomer", "name"), T("order", "idorder", "customer_idcustomer")]))
    assert wb.get("customer.idcustomer = order.customer_idcustomer", (0, ""))[0] >= 0.75, wb


def test_a_row_number_within_its_table_joins_no_key_on_values():
    # 1, 2, 3... in each order lie in any numeric key: the number of a line of its own table, no reference
    for name in ("l_linenumber", "l_line_number", "line_no"):
        schema = Schema([
            T("nation", Column("n_nationkey", "int", unique_ratio=1.0, sample=tuple(range(25)))),
            T("lineitem", Column("l_orderkey", "int", unique_ratio=0.25, sample=(1, 1, 2, 3)),
              Column(name, "int", unique_ratio=0.01, sample=(1, 2, 3, 4, 1, 2))),
        ])
        assert not any(name in e for e in edges(schema)), (name, edges(schema))


def test_a_measured_number_is_no_key():
    # VALUENUM read apart is "value num": a value as a number, not the number of a value entity
    ddl = """
    CREATE TABLE LABEVENTS (ROW_ID INT, HADM_ID INT, ITEMID INT, VALUENUM NUMBER, VALUEUOM TEXT);
    CREATE TABLE CHARTEVENTS (ROW_ID INT, HADM_ID INT, ITEMID INT, VALUENUM NUMBER, VALUEUOM TEXT);
    CREATE TABLE ADMISSIONS (ROW_ID INT, HADM_ID INT, ADMITTIME TEXT);
    """
    got = edges(load_ddl(ddl))
    assert not any("VALUENUM" in e for e in got), got
    assert any("HADM_ID" in e for e in got), got  # the keys are still joined


def test_a_one_word_plural_is_no_key():
    from jar_core.joins.name_facts import counts

    # ATIS: flight.stops is how many stops a flight makes, no reference to a flight_stop row
    ddl = """
    CREATE TABLE FLIGHT (FLIGHT_ID INT, STOPS INT, AIRLINE_CODE TEXT);
    CREATE TABLE FLIGHT_STOP (FLIGHT_ID INT, STOP_NUMBER INT, STOP_AIRPORT TEXT);
    CREATE TABLE STOP (STOP_ID INT, NAME TEXT);
    """
    got = edges(load_ddl(ddl))
    assert not any("STOPS" in e for e in got), got
    assert any("FLIGHT_ID" in e for e in got), got
    assert counts("stops") and counts("ENGINES") and not counts("status") and not counts("address")
    assert not counts("stop_id") and not counts("bus")
    # a plural written as a table of its database is written is that table (Spider's hospital_1)
    got = edges(load_ddl("""
    CREATE TABLE Procedures (Code INTEGER, Name TEXT, Cost REAL);
    CREATE TABLE Undergoes (Patient INTEGER, Procedures INTEGER, DateUndergoes TEXT);
    """))
    assert got.get("Procedures.Code = Undergoes.Procedures", (0, ""))[0] >= 0.7, got


def test_the_decomposer_reads_run_together_names():
    schema = load_ddl("CREATE TABLE ORDERDETAILS (ORDERID INT, UNITPRICE REAL); CREATE TABLE PRODUCTS (PRODUCTID INT);")
    subs = HeuristicDecomposer().decompose("unit price of the order details", schema).subqueries
    assert "order detail:unit price" in subs, subs


def test_an_index_of_older_texts_is_stale(tmp_path):
    r = TableRetriever(load_ddl(FINANCE), embedder=BagOfWordsEmbedder())
    path = tmp_path / "idx"
    r.save_index(path)
    meta = json.loads((path / "meta.json").read_text())
    assert meta["texts"] == TEXTS_VERSION
    del meta["texts"]  # saved before the texts had a version: version 1
    (path / "meta.json").write_text(json.dumps(meta))
    with pytest.raises(StaleIndexError, match="texts of version 1"):
        SchemaIndex.load(path)
    emb = BagOfWordsEmbedder()
    TableRetriever(load_ddl(FINANCE), embedder=emb).load_or_build_index(path)  # rebuilt, not used
    assert emb.calls > 0 and json.loads((path / "meta.json").read_text())["texts"] == TEXTS_VERSION
