"""Descriptions and comments rank: a table's description and its columns' (the sources' comments,
``TableRetriever(descriptions=...)``) are embedded and searched with the table, saved with the
index, and a changed description embeds that table again, alone."""
from __future__ import annotations

import pytest

from jar_core.errors import InvalidArgumentError, JarError, StaleIndexError
from jar_core.index.schema_index import SchemaIndex
from jar_core.index.texts import column_text, table_text
from jar_core.loaders import load_ddl
from jar_core.retriever import TableRetriever

#: Cryptic names: only the descriptions tell these tables apart.
CRYPTIC = """
CREATE TABLE t_x20 (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 DATE, f4 INTEGER);
CREATE TABLE t_inv (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 INTEGER, f4 TEXT);
CREATE TABLE t_adm (k1 INTEGER PRIMARY KEY, f2 DATE, f3 DATE, f4 INTEGER);
CREATE TABLE t_q7 (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 REAL, f4 DATE);
CREATE TABLE t_rx (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 INTEGER, f4 DATE);
CREATE TABLE t_st (k1 INTEGER PRIMARY KEY, f2 TEXT, f3 TEXT, f4 TEXT);
"""
DESCRIPTIONS = {
    "t_x20": "Adverse events: side effects reported for patients", "t_x20.f2": "severity of the event",
    "t_inv": "Inventory of pharmacy stock", "t_inv.f3": "quantity on hand",
    "t_adm": "Inpatient stays: hospital admissions", "t_adm.f4": "physician responsible for the stay",
    "t_q7": "Laboratory test results", "t_rx": "Prescriptions of medication",
    "t_st": "Staff members: doctors and nurses",
}
#: Questions whose table the names alone do not put first (with the bundled model).
QUESTIONS = {
    "Which adverse events were severe?": "t_x20",
    "How many items are in the inventory?": "t_inv",
    "physician responsible for each inpatient stay": "t_adm",
}


@pytest.fixture(scope="module")
def cryptic():
    return load_ddl(CRYPTIC)


def first(retriever: TableRetriever, question: str) -> str:
    return retriever.retrieve(question, k=3).table_names[0]


def test_descriptions_move_the_right_table_first(cryptic, embedder):
    plain = TableRetriever(cryptic, embedder=embedder)
    described = TableRetriever(cryptic, embedder=embedder, descriptions=DESCRIPTIONS)
    for question, table in QUESTIONS.items():
        assert first(plain, question) != table, question
        assert first(described, question) == table, question


def test_no_descriptions_leave_the_texts_as_they_were(cryptic):
    t = cryptic.find("t_inv")
    assert table_text(t) == "main t inv k1 f2 f3 f4"
    assert column_text(t, 2) == "t inv:f3"
    described = cryptic.with_descriptions({"t_inv": "Inventory", "t_inv.f3": "quantity on hand"})
    assert table_text(described.find("t_inv")) == "main t inv k1 f2 f3 f4 Inventory. f3: quantity on hand"
    assert column_text(described.find("t_inv"), 2) == "t inv:f3 quantity on hand"
    assert cryptic.with_descriptions(None) is cryptic and cryptic.with_descriptions({}) is cryptic
    assert cryptic.find("t_inv").comment is None  # the given schema is not changed
    assert described.fingerprint() != cryptic.fingerprint()


def test_comment_on_table_in_ddl_ranks(embedder):
    ddl = """
    CREATE TABLE admissions (row_id INT PRIMARY KEY, subject_id INT, admittime TIMESTAMP, dischtime TIMESTAMP);
    CREATE TABLE caregivers (cgid INT PRIMARY KEY, label TEXT, description TEXT);
    CREATE TABLE prescriptions (row_id INT PRIMARY KEY, subject_id INT, drug TEXT, startdate TIMESTAMP);
    CREATE TABLE services (row_id INT PRIMARY KEY, subject_id INT, curr_service TEXT, transfertime TIMESTAMP);
    """
    question = "physician responsible for each inpatient stay"
    plain = TableRetriever(load_ddl(ddl), embedder=embedder)
    commented = TableRetriever(load_ddl(ddl + "COMMENT ON TABLE admissions IS 'Inpatient stays';"), embedder=embedder)
    before = plain.retrieve(question, k=4).table_names.index("admissions")
    after = commented.retrieve(question, k=4).table_names.index("admissions")
    assert after < before  # 4th -> 2nd with the bundled model (prescriptions stays first: "physician")


def test_a_changed_description_embeds_that_table_again(cryptic, embedder, tmp_path):
    old = SchemaIndex.build(cryptic.with_descriptions(DESCRIPTIONS), embedder)
    changed = cryptic.with_descriptions({**DESCRIPTIONS, "t_inv": "Pharmacy stock levels"})
    new = SchemaIndex.update(old, changed, embedder)
    assert new.report is not None
    assert new.report.changed == (cryptic.find("t_inv").id,)
    assert new.report.embedded == 1  # the table text of t_inv; its columns' texts are the same
    new.save(tmp_path / "idx")
    loaded = SchemaIndex.load(tmp_path / "idx")
    assert loaded.schema.find("t_inv").comment == "Pharmacy stock levels"
    assert loaded.schema.find("t_inv").column("f3").comment == "quantity on hand"
    with pytest.raises(StaleIndexError):
        SchemaIndex.load(tmp_path / "idx", schema=cryptic)


def test_a_retriever_over_an_index_without_descriptions_updates_it(cryptic, embedder):
    plain = TableRetriever(cryptic, embedder=embedder)
    described = TableRetriever(cryptic, embedder=embedder, index=plain.index, descriptions=DESCRIPTIONS)
    assert first(described, "Which adverse events were severe?") == "t_x20"
    assert described.index.report is not None and described.index.report.changed
    again = described.with_options(descriptions=None)
    assert again.schema.fingerprint() == cryptic.fingerprint()
    assert first(again, "Which adverse events were severe?") != "t_x20"
    assert described.options()["descriptions"] == DESCRIPTIONS


@pytest.mark.parametrize("descriptions, message", [
    ("Inventory", "descriptions file 'Inventory' does not exist"),
    (3, "must be a mapping"),
    ({"t_inv": 3}, "expected a table or column name -> text"),
    ({"t_nope": "x"}, "no table 't_nope'"),
    ({"t_inv.nope": "x"}, "no column 'nope'"),
])
def test_bad_descriptions_are_one_line_errors(cryptic, descriptions, message):
    with pytest.raises((InvalidArgumentError, JarError), match=message) as e:
        TableRetriever(cryptic, descriptions=descriptions)
    assert "\n" not in str(e.value)


def test_llamaindex_table_descriptions_rank(cryptic, embedder):
    pytest.importorskip("llama_index.core")
    from llama_index.core.objects import SQLTableSchema

    from llamaindex_jar.retrievers import JoinAwareRetriever

    core = TableRetriever(cryptic, embedder=embedder)
    objs = [SQLTableSchema(table_name=name, context_str=text) for name, text in DESCRIPTIONS.items() if "." not in name]
    li = JoinAwareRetriever(core, k=3, table_descriptions=objs)
    assert li.table_retriever.descriptions == {name: text for name, text in DESCRIPTIONS.items() if "." not in name}
    nodes = li.retrieve("Which adverse events were severe?")
    assert nodes[0].node.metadata["table"] == "t_x20"
    assert core.descriptions is None  # the given retriever is left as it was
