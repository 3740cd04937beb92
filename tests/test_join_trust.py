"""Joins that know when they are unsure, on a small hospital schema without declared keys: a join
calibrated below the trust threshold is not shown as a key (the answer says the tables have no
known key and shows the unverified candidate with its confidence), and two keys between one pair
of tables are both shown, the one the question speaks of first.

The calibration is a fixture table (``jar_core.joins.calibration.calibration_table`` patched), never
the fit shipped in ``jar_core/data/join_calibration.json``."""
from __future__ import annotations

import json

import pytest

import jar_core.joins.calibration as calibration
from jar_core.output.documents import result_documents
from jar_core.output.prompt import model_text
from jar_core.output.render import result_json, result_text

HOSPITAL = """
CREATE TABLE departments (department_id INTEGER PRIMARY KEY, name TEXT, floor INTEGER, head_physician_id INTEGER);
CREATE TABLE physicians (physician_id INTEGER PRIMARY KEY, name TEXT, specialty TEXT, department_id INTEGER);
CREATE TABLE patients (patient_id INTEGER PRIMARY KEY, name TEXT, birth_date DATE, primary_physician_id INTEGER);
CREATE TABLE rooms (room_id INTEGER PRIMARY KEY, room_number TEXT, department_id INTEGER);
CREATE TABLE medications (medication_id INTEGER PRIMARY KEY, name TEXT, dosage TEXT);
CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, amount REAL, issued DATE);
"""
#: The same two tables with both keys declared.
DECLARED = """
CREATE TABLE departments (department_id INTEGER PRIMARY KEY, name TEXT, floor INTEGER,
                          head_physician_id INTEGER REFERENCES physicians (physician_id));
CREATE TABLE physicians (physician_id INTEGER PRIMARY KEY, name TEXT, specialty TEXT,
                         department_id INTEGER REFERENCES departments (department_id));
"""
HEAD = "Who is the head of the Oncology department?"
WORK = "Which physicians work in the Oncology department?"
HEAD_KEY = "departments.head_physician_id = physicians.physician_id"
DEPARTMENT_KEY = "departments.department_id = physicians.department_id"

IDENTITY = {"score": [0.0, 1.0], "right": [0.0, 1.0]}
#: Every rule's score is its confidence; the threshold 0.5.
TRUSTING = {"threshold": 0.5, "evidence": {}, "pooled": IDENTITY}
#: A role column's reference is right 40% as often as its score says (0.87 -> 0.348): not trusted.
ROLES_DOUBTED = {"threshold": 0.5, "evidence": {"role": {"score": [0.0, 1.0], "right": [0.0, 0.4]}}, "pooled": IDENTITY}
#: A role column's reference is right 90% as often as its score says (0.87 -> 0.783): trusted.
ROLES_DISCOUNTED = {"threshold": 0.5, "evidence": {"role": {"score": [0.0, 1.0], "right": [0.0, 0.9]}}, "pooled": IDENTITY}


@pytest.fixture
def fit(monkeypatch):
    """Use a fixture calibration table: ``fit(TABLE)``."""
    def use(table):
        monkeypatch.setattr(calibration, "calibration_table", lambda: table)
    return use


@pytest.fixture(scope="module")
def hospital(embedder):
    from jar_core import TableRetriever

    r = TableRetriever.from_ddl(HOSPITAL, embedder=embedder)
    r.index
    return r


def test_a_join_below_the_threshold_is_an_unverified_candidate(hospital, fit) -> None:
    questions = ("Which physician treats patient Smith?", HEAD, WORK)
    fit(TRUSTING)
    trusting = [hospital.retrieve(q, k=k) for q in questions for k in (2, 3, 4)]
    assert trusting[0].joins and not trusting[0].unverified_joins
    fit(ROLES_DOUBTED)
    doubting = [hospital.retrieve(q, k=k) for q in questions for k in (2, 3, 4)]
    assert [r.table_names for r in doubting] == [r.table_names for r in trusting]  # the search is the same
    res = doubting[0]
    assert res.table_names == ["patients", "physicians"]
    assert res.joins == [] and res.unjoined == ["main.patients", "main.physicians"]
    (cand,) = res.unverified_joins
    assert str(cand) == "patients.primary_physician_id = physicians.physician_id"
    assert not cand.trusted and cand.confidence == pytest.approx(0.87 * 0.4, abs=1e-3)
    assert cand.score == pytest.approx(0.87, abs=1e-3)  # the rule's own score is kept
    note = ("no known key between `patients` and `physicians` (unverified candidate: "
            "patients.primary_physician_id = physicians.physician_id, confidence 0.35)")
    assert note in result_text(res) and note in model_text(res) and f"-- {note}" in res.join_clause()
    assert model_text(res).count(note) == 1  # in the joins' lines, not again in the join path
    assert "JOIN" not in res.join_clause().split("\n")[0]
    assert "physician_id" not in res.to_mermaid() and "physician_id" not in res.to_dot()
    payload = json.loads(json.dumps(result_json(res)))
    assert payload["joins"] == [] and payload["alternative_joins"] == []
    (entry,) = payload["unverified_joins"]
    assert entry["trusted"] is False and entry["confidence"] == pytest.approx(0.348, abs=1e-3)
    assert entry["score"] == pytest.approx(0.87, abs=1e-3) and entry["optional"] is False
    for doc in result_documents(res):
        assert doc.metadata["join_keys"] == [] and doc.metadata["joined"] is False
        (meta,) = doc.metadata["unverified_joins"]
        assert meta["trusted"] is False and meta["note"] == note
        assert meta["confidence"] == pytest.approx(0.348, abs=1e-3)
        assert note in doc.metadata["join_lines"]


def test_a_trusted_join_shows_its_calibrated_confidence(hospital, fit) -> None:
    fit(ROLES_DISCOUNTED)
    res = hospital.retrieve("Which physician treats patient Smith?", k=2)
    (join,) = res.joins
    assert join.trusted and res.unverified_joins == [] and res.unjoined == []
    assert join.score == pytest.approx(0.87, abs=1e-3) and join.confidence == pytest.approx(0.783, abs=1e-3)
    assert "(inferred: role, 0.78)" in result_text(res) and "(role, 0.78)" in res.join_clause()
    d = join.to_dict()
    assert d["trusted"] is True and d["score"] == pytest.approx(0.87, abs=1e-3)
    assert d["confidence"] == pytest.approx(0.783, abs=1e-3)


def test_an_optional_tables_untrusted_join_is_unverified_and_optional(hospital, fit) -> None:
    fit(ROLES_DOUBTED)
    res = hospital.retrieve(HEAD, k=3)
    assert res.needed == ["main.departments", "main.physicians"] and res.optional == ["main.patients"]
    assert res.optional_joins == [] and [_sides(str(j)) for j in res.joins] == [_sides(DEPARTMENT_KEY)]
    (cand,) = res.unverified_joins
    assert cand.optional and cand.right_table.name == "patients" and not cand.trusted
    assert not next(t for t in res.tables if t.name == "patients").joined
    assert "patients (no known key; unverified candidate: physicians.physician_id = patients.primary_physician_id, " \
           "confidence 0.35)" in res.join_clause()
    assert "patients: no known key (unverified candidate:" in model_text(res)
    assert result_json(res)["unverified_joins"][0]["optional"] is True
    fit(TRUSTING)
    trusted = hospital.retrieve(HEAD, k=3)
    assert [str(j) for j in trusted.optional_joins] == ["physicians.physician_id = patients.primary_physician_id"]
    assert trusted.unverified_joins == []


@pytest.mark.parametrize("question,printed,other", [
    (HEAD, HEAD_KEY, DEPARTMENT_KEY),  # "head" names head_physician_id: printed, though less confident
    (WORK, DEPARTMENT_KEY, HEAD_KEY),  # no role named: the more confident key
])
def test_two_keys_between_two_tables_the_question_chooses(hospital, fit, question, printed, other) -> None:
    fit(TRUSTING)
    res = hospital.retrieve(question, k=2)
    assert sorted(res.table_names) == ["departments", "physicians"]
    (join,), (alt_edge,) = res.joins, res.alternative_joins
    assert _sides(str(join)) == _sides(printed) and _sides(str(alt_edge)) == _sides(other)
    assert res.alternative_to(alt_edge) == join
    line = f"other key between `{alt_edge.left_table.name}` and `{alt_edge.right_table.name}`: {alt_edge} (inferred: "
    assert line in result_text(res) and line in model_text(res) and line in res.join_clause()
    assert f'ON "{join.left_table.name}"."{join.left_column}" = "{join.right_table.name}"."{join.right_column}"' \
        in res.join_clause()
    (alt,) = json.loads(json.dumps(result_json(res)))["alternative_joins"]
    assert alt["alternative_to"] == str(join) and alt["trusted"] is True
    assert _sides(alt["left"] + " = " + alt["right"]) == _sides(other)
    for doc in result_documents(res):
        assert [_sides(j["left"] + " = " + j["right"]) for j in doc.metadata["join_keys"]] == [_sides(printed)]
        assert [(_sides(j["left"] + " = " + j["right"]), j["alternative_to"]) for j in doc.metadata["alternative_joins"]] \
            == [(_sides(other), str(join))]


def _sides(key: str) -> frozenset[str]:
    """``a.x = b.y`` as the set of its two sides (either way round)."""
    return frozenset(key.split(" = "))


def test_an_untrusted_key_is_no_alternative(hospital, fit) -> None:
    fit(ROLES_DOUBTED)
    res = hospital.retrieve(HEAD, k=2)
    assert [_sides(str(j)) for j in res.joins] == [_sides(DEPARTMENT_KEY)]
    assert res.alternative_joins == [] and res.unverified_joins == []


@pytest.mark.parametrize("joins", ["rules", "paper"])
def test_declared_keys_both_shown(embedder, fit, joins) -> None:
    from jar_core import TableRetriever

    fit(ROLES_DOUBTED)  # declared keys are trusted whatever the fit
    r = TableRetriever.from_ddl(DECLARED, embedder=embedder, joins=joins)
    res = r.retrieve(HEAD, k=2)
    assert [_sides(str(j)) for j in res.joins] == [_sides(HEAD_KEY)]
    assert [_sides(str(j)) for j in res.alternative_joins] == [_sides(DEPARTMENT_KEY)]
    assert all(j.declared and j.trusted and j.confidence == 1.0 for j in res.joins + res.alternative_joins)


def test_langchain_and_llamaindex_carry_the_notes(hospital, fit) -> None:
    pytest.importorskip("langchain_core")
    pytest.importorskip("llama_index.core")
    from langchain_jar import JoinAwareRetriever as LangChainRetriever
    from langchain_jar.retrievers import join_plan
    from langchain_jar.sql import format_tables
    from llamaindex_jar import JoinAwareRetriever as LlamaIndexRetriever

    fit(ROLES_DOUBTED)
    docs = LangChainRetriever(retriever=hospital, k=2).invoke("Which physician treats patient Smith?")
    plan = join_plan(docs)
    assert plan["joins"] == [] and [j["confidence"] for j in plan["unverified_joins"]] == pytest.approx([0.348], abs=1e-3)
    assert format_tables(docs).count("no known key between `patients` and `physicians` (unverified candidate:") == 1
    nodes = LlamaIndexRetriever(table_retriever=hospital, k=2).retrieve("Which physician treats patient Smith?")
    context = nodes[0].node.metadata["context"]
    assert "No known key between `patients` and `physicians` (unverified candidate:" in context
    assert nodes[0].node.metadata["unverified_joins"][0]["trusted"] is False
    fit(TRUSTING)
    nodes = LlamaIndexRetriever(table_retriever=hospital, k=2).retrieve(HEAD)
    assert f"Other keys to the same tables: {DEPARTMENT_KEY} (inferred, confidence 0.97)." in nodes[0].node.metadata["context"]


@pytest.mark.parametrize("question,left_table,left,right_table,right,fit_", [
    (HEAD, "departments", "head_physician_id", "physicians", "physician_id", 1),
    (HEAD, "physicians", "department_id", "departments", "department_id", 0),  # a table's own name is no role
    ("Who heads each department?", "departments", "head_physician_id", "physicians", "physician_id", 1),
    ("When were the orders shipped?", "orders", "ship_date_key", "dates", "date_key", 1),
    ("When were the orders shipped?", "orders", "order_date_key", "dates", "date_key", 0),
    ("Which headquarters?", "departments", "head_physician_id", "physicians", "physician_id", 0),
    # an attribute two tables share, named alike on both sides, plays no role (BEAVER-DW's
    # SCHOOL_CODE beside DEPARTMENT_CODE: promoting it cost join precision there)
    ("List the school code of each department", "sis_department", "school_code", "student_department",
     "school_code", 0),
])
def test_question_fit(question, left_table, left, right_table, right, fit_) -> None:
    from jar_core.output.trust import question_fit, question_words

    assert question_fit(question_words(question), left_table, left, right_table, right) == fit_


def test_graph_keys_are_calibrated_as_one_key_is(fit) -> None:
    from jar_core.joins.graph import EVIDENCE
    from jar_core.output.trust import graph_keys, make_key

    fit(ROLES_DOUBTED)
    rows = [(0, "x", 1, "y", score, EVIDENCE.index(ev)) for score, ev in
            ((0.87, "role"), (0.97, "same name"), (1.0, "declared"), (0.55, "sibling"), (0.6, "inclusion"))]
    keys = graph_keys(rows)
    one = [make_key(0, "x", 1, "y", score, EVIDENCE[code]) for *_, score, code in rows]
    assert [(k.evidence, k.trusted) for k in keys] == [(k.evidence, k.trusted) for k in one]
    assert [k.confidence for k in keys] == pytest.approx([k.confidence for k in one], abs=1e-9)
    assert [k.trusted for k in keys] == [False, True, True, True, True]


def _keys(*rows):
    """Pair keys from ``(a, b, confidence, trusted)`` rows (columns named after the tables)."""
    from jar_core.output.trust import Key

    pairs = {}
    for a, b, conf, ok in rows:
        pairs.setdefault((a, b), []).append(Key(a, f"t{b}_id", b, "id", conf, "entity", conf, ok))
    return pairs


@pytest.mark.parametrize("rows,needed,tree,unverified,optional", [
    # 0-1 trusted, 1-2 untrusted: the forest joins 0 and 1, and 2 is apart with its candidate
    ([(0, 1, 0.9, True), (1, 2, 0.3, False)], [1, 1, 1], [(0, 1)], [(1, 2)], []),
    # the best untrusted candidate between two components, one per component joined
    ([(0, 1, 0.9, True), (0, 2, 0.2, False), (1, 2, 0.4, False)], [1, 1, 1], [(0, 1)], [(1, 2)], []),
    # a trusted join is taken over a more confident untrusted one: none is unverified
    ([(0, 1, 0.6, True), (0, 2, 0.6, True), (1, 2, 0.45, False)], [1, 1, 1], [(0, 1), (0, 2)], [], []),
    # an optional table before the needed one it joins: (needed, optional, trusted)
    ([(0, 1, 0.9, True), (0, 2, 0.8, True), (1, 2, 0.7, True)], [0, 1, 1], [(1, 2)], [], [(1, 0, True)]),
    ([(0, 1, 0.3, False), (1, 2, 0.8, True)], [0, 1, 1], [(1, 2)], [], [(1, 0, False)]),
])
def test_key_forest_and_optional_keys(rows, needed, tree, unverified, optional) -> None:
    import numpy as np

    from jar_core.output.trust import key_forest, optional_keys

    pairs = _keys(*rows)
    mask = np.array(needed, dtype=bool)
    got_tree, got_unverified = key_forest(pairs, mask)
    assert got_tree == tree and [(k.a, k.b) for k in got_unverified] == unverified
    assert optional_keys(pairs, mask) == optional


def test_keys_a_hundredth_apart_rank_by_the_rules_score() -> None:
    import numpy as np

    from jar_core.output.trust import Key, key_forest, ranked

    # a same-name key calibrated to 0.98 and an entity key to 0.99 between two tables: the
    # calibration's noise; the rules' stronger score (same name 0.97) decides, whichever is higher
    for same, entity in ((0.98, 0.99), (0.99, 0.98)):
        keys = [Key(0, "semester", 1, "semester_id", 0.765, "entity", entity, True),
                Key(0, "semester_id", 1, "semester_id", 0.97, "same name", same, True)]
        assert [k.evidence for k in ranked(keys, frozenset(), ["a", "b"])] == ["same name", "entity"]
    # a tenth apart, the calibrated confidence decides
    keys = [Key(0, "x", 1, "id", 0.97, "same name", 0.75, True), Key(0, "y", 1, "id", 0.765, "entity", 0.98, True)]
    assert ranked(keys, frozenset(), ["a", "b"])[0].evidence == "entity"
    # the spanning forest weighs the same way: 0-2 by same name (0.98), not 0-1-2 through an entity key
    pairs = {(0, 1): [Key(0, "x", 1, "id", 0.765, "entity", 0.99, True)],
             (1, 2): [Key(1, "y", 2, "id", 0.765, "entity", 0.99, True)],
             (0, 2): [Key(0, "z", 2, "z", 0.97, "same name", 0.98, True)]}
    tree, _ = key_forest(pairs, np.ones(3, dtype=bool))
    assert (0, 2) in tree


#: Two roles of one key written run together (Scholar's citations, no key declared).
CITATIONS = """
CREATE TABLE PAPER (PAPERID INTEGER PRIMARY KEY, TITLE TEXT, VENUEID INTEGER, YEAR INTEGER);
CREATE TABLE CITE (CITINGPAPERID INTEGER, CITEDPAPERID INTEGER);
"""


@pytest.mark.parametrize("question,role", [
    ("Which paper from ACL 2015 was cited most?", "CITEDPAPERID"),
    ("Which papers are citing the most other papers?", "CITINGPAPERID"),
])
def test_a_run_together_role_is_read_by_its_words(embedder, fit, question, role) -> None:
    from jar_core import TableRetriever

    fit(TRUSTING)
    res = TableRetriever.from_ddl(CITATIONS, embedder=embedder).retrieve(question, k=2)
    assert sorted(res.table_names) == ["CITE", "PAPER"]
    (join,), (alt,) = res.joins, res.alternative_joins
    assert _sides(str(join)) == _sides(f"CITE.{role} = PAPER.PAPERID"), str(join)
    assert {join.left_column, join.right_column, alt.left_column, alt.right_column} == {
        "PAPERID", "CITEDPAPERID", "CITINGPAPERID"}
