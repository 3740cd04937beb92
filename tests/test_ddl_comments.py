"""SQL comments of a DDL file (``--``, ``/* */``) are its tables' and columns' descriptions when no
``COMMENT`` clause gives one, and they rank."""
from __future__ import annotations

import re

import pytest

from jar_core.loaders import load_ddl
from jar_core.retriever import TableRetriever

#: The cryptic-names fixture of tests/test_descriptions.py, documented with comments only.
COMMENTED = """-- Hospital schema, exported by hand (the file's header, no table's)
CREATE TABLE t_x20 (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 DATE, f4 INTEGER);
-- Adverse events: side effects reported for patients
CREATE TABLE t_x20b (k1 INTEGER PRIMARY KEY);
CREATE TABLE t_inv ( -- Inventory of pharmacy stock
    k1 INTEGER PRIMARY KEY,
    f2 TEXT,
    f3 INTEGER, -- quantity on hand
    f4 TEXT
);
/* Inpatient stays:
 * hospital admissions */
CREATE TABLE t_adm (
    k1 INTEGER PRIMARY KEY,
    f2 DATE,
    f3 DATE,
    f4 INTEGER /* physician responsible for the stay */
);
CREATE TABLE t_q7 (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 REAL, f4 DATE); -- Laboratory test results
-- Prescriptions of medication
CREATE TABLE t_rx (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 INTEGER, f4 DATE);
-- Staff members: doctors and nurses
CREATE TABLE t_st (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 TEXT, f4 TEXT);
"""
QUESTIONS = {
    "How many items are in the inventory?": "t_inv",
    "physician responsible for each inpatient stay": "t_adm",
}


def _plain(ddl: str) -> str:
    """``ddl`` without its comments."""
    return re.sub(r"--[^\n]*|/\*.*?\*/", "", ddl, flags=re.DOTALL)


def test_comments_are_read_as_descriptions():
    schema = load_ddl(COMMENTED, dialect="sqlite")
    comments = {t.name: t.comment for t in schema.tables}
    assert comments == {
        "t_x20": None,  # the file's opening comment describes the file
        "t_x20b": "Adverse events: side effects reported for patients",
        "t_inv": "Inventory of pharmacy stock",
        "t_adm": "Inpatient stays: hospital admissions",
        "t_q7": "Laboratory test results",
        "t_rx": "Prescriptions of medication",
        "t_st": "Staff members: doctors and nurses",
    }
    assert schema.find("t_inv").columns[2].comment == "quantity on hand"
    assert schema.find("t_adm").columns[3].comment == "physician responsible for the stay"
    assert [c.comment for c in schema.find("t_inv").columns if c.name != "f3"] == [None] * 3


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql", "duckdb"])
def test_a_comment_clause_wins_and_noise_is_skipped(dialect):
    ddl = """CREATE TABLE first (id INT);
-- ----------------------------
-- DROP TABLE IF EXISTS orders;
CREATE TABLE orders (
    id INT PRIMARY KEY, -- ======
    -- old_total INT,
    total INT, -- amount paid, in cents
    qty INT  -- units
);
-- stays
CREATE TABLE stays (id INT);
COMMENT ON TABLE stays IS 'Inpatient stays';
"""
    if dialect == "mysql":
        ddl = ddl.replace("COMMENT ON TABLE stays IS 'Inpatient stays';", "ALTER TABLE stays COMMENT = 'x';")
    schema = load_ddl(ddl, dialect=dialect)
    orders = schema.find("orders")
    assert orders.comment is None
    assert [c.comment for c in orders.columns] == [None, "amount paid, in cents", "units"]
    if dialect != "mysql":
        assert schema.find("stays").comment == "Inpatient stays"


def test_keys_and_columns_do_not_change():
    plain, commented = load_ddl(_plain(COMMENTED)), load_ddl(COMMENTED)
    for a, b in zip(plain.tables, commented.tables):
        assert (a.name, [c.name for c in a.columns], a.foreign_keys) == (b.name, [c.name for c in b.columns], b.foreign_keys)
        assert [(c.primary_key, c.unique, c.type) for c in a.columns] == [(c.primary_key, c.unique, c.type) for c in b.columns]


def test_comments_move_the_right_table_first(embedder):
    plain = TableRetriever(load_ddl(_plain(COMMENTED)), embedder=embedder)
    commented = TableRetriever(load_ddl(COMMENTED), embedder=embedder)
    for question, table in QUESTIONS.items():
        assert plain.retrieve(question, k=3).table_names[0] != table, question
        assert commented.retrieve(question, k=3).table_names[0] == table, question


def test_a_live_sqlite_databases_comments_are_read_from_its_schema_text(tmp_path):
    """SQLite keeps each CREATE TABLE as written: its comments become the table's and columns'."""
    import sqlite3

    from jar_core.loaders import load_database

    db = tmp_path / "clinic.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE t_adm ( -- Inpatient stays\n"
                "  k1 INTEGER PRIMARY KEY,\n  f2 INTEGER, -- the physician responsible for the stay\n  f3 TEXT)")
    con.execute("CREATE TABLE t_plain (k1 INTEGER PRIMARY KEY, f2 TEXT)")
    con.commit()
    con.close()
    schema = load_database(f"sqlite:///{db}")
    adm = schema.find("t_adm")
    assert adm.comment == "Inpatient stays"
    assert {c.name: c.comment for c in adm.columns} == {
        "k1": None, "f2": "the physician responsible for the stay", "f3": None}
    assert schema.find("t_plain").comment is None
