"""Hub tables (jar_core.signals.hubness) and BM25 in the search's coarse relevance (lexical_relevance)."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import BagOfWordsEmbedder

import jar_core.signals.hubness as hubness
from jar_core.errors import InvalidArgumentError
from jar_core.signals.hubness import HubScores, corrected, hub_scores
from jar_core.retriever import TableRetriever

# ``registry`` is a hub: generic columns that half the schema's columns resemble
SCHEMA = """
CREATE TABLE registry (id INT PRIMARY KEY, name TEXT, title TEXT, code TEXT, status TEXT, type TEXT,
                       description TEXT, amount REAL, created_date DATE);
CREATE TABLE grants (grant_id INT PRIMARY KEY, grant_title TEXT, grant_amount REAL);
CREATE TABLE people (person_id INT PRIMARY KEY, name TEXT, status TEXT);
CREATE TABLE projects (project_id INT PRIMARY KEY, project_code TEXT, description TEXT, type TEXT);
CREATE TABLE rooms (room_id INT PRIMARY KEY, floor INT);
"""


def _retriever(**options):
    return TableRetriever.from_ddl(SCHEMA, embedder=BagOfWordsEmbedder(), **options)


def _manual_scores(index) -> np.ndarray:
    """``h`` by its definition: every column of another table is a probe."""
    C = np.asarray(index.column_vectors)
    off = index.col_offsets
    out = []
    for t in range(len(off) - 1):
        own = np.arange(off[t], off[t + 1])
        probes = np.setdiff1d(np.arange(len(C)), own)
        out.append(float((C[probes] @ C[own].T).max(axis=1).mean()))
    return np.array(out)


def test_hub_scores_follow_the_definition_and_rank_the_generic_table_first():
    r = _retriever()
    hubs = HubScores(r.index)
    h = hubs.scores(np.arange(len(r.schema)))
    np.testing.assert_allclose(h, _manual_scores(r.index), atol=1e-5)
    names = [t.name for t in r.schema.tables]
    assert names[int(np.argmax(h))] == "registry"
    assert h[names.index("registry")] > h[names.index("rooms")]
    assert hubs.baseline == pytest.approx(float(h.mean()), abs=1e-6)
    # kept on the index, computed once per table
    assert hub_scores(r.index) is hub_scores(r.index)


def test_a_table_is_not_its_own_probe():
    # one table alone has no probes: it resembles nothing else
    r = TableRetriever.from_ddl("CREATE TABLE solo (a INT, b TEXT);", embedder=BagOfWordsEmbedder())
    assert HubScores(r.index).scores(np.array([0]))[0] == 0.0


def test_large_schemas_use_a_fixed_sample_of_probes(monkeypatch):
    monkeypatch.setattr(hubness, "PROBES", 5)
    monkeypatch.setattr(hubness, "BASELINE_TABLES", 2)
    r = _retriever()
    a, b = HubScores(r.index), HubScores(r.index)
    assert len(a._probes) == 5
    all_tables = np.arange(len(r.schema))
    np.testing.assert_array_equal(a.scores(all_tables), b.scores(all_tables))  # deterministic
    assert a.baseline == b.baseline


def test_corrected_subtracts_the_weighted_hub_score():
    r = _retriever()
    tables = np.array([0, 1, 2])
    F = np.full((2, 3), 0.5, dtype=np.float32)
    hubs = hub_scores(r.index)
    got = corrected(F, r.index, tables, 0.5)
    np.testing.assert_allclose(got, F - 0.5 * (hubs.scores(tables) - hubs.baseline)[None, :], atol=1e-6)
    assert corrected(F, r.index, tables, 0.0) is F


def test_a_schema_of_fewer_than_four_tables_is_not_corrected():
    # three tables: a table's hub score would compare it with two others only
    small = TableRetriever.from_ddl(SCHEMA.split("CREATE TABLE projects")[0], embedder=BagOfWordsEmbedder())
    assert len(small.schema.tables) == 3 < hubness.MIN_TABLES
    F = np.full((2, 3), 0.5, dtype=np.float32)
    assert corrected(F, small.index, np.array([0, 1, 2]), 0.5) is F
    assert not np.allclose(corrected(F, _retriever().index, np.array([0, 1, 2]), 0.5), F)


def test_hubness_lowers_the_hub_against_the_specific_table():
    question = "grant title and amount"
    subs = ["title", "amount"]
    paper = _retriever(hubness=0.0, lexical=0.0).signals(question, subs)
    fixed = _retriever(hubness=2.0, lexical=0.0).signals(question, subs)
    pos = {int(c): i for i, c in enumerate(paper.candidates)}
    names = [t.name for t in _retriever().schema.tables]
    hub, grants = pos[names.index("registry")], pos[names.index("grants")]
    # the hub's generic columns match each word exactly; the correction narrows that lead
    gap_paper = paper.F[:, hub].sum() - paper.F[:, grants].sum()
    gap_fixed = fixed.F[:, hub].sum() - fixed.F[:, grants].sum()
    assert gap_paper > 0 and gap_fixed < gap_paper
    np.testing.assert_allclose(paper.r, fixed.r)  # coarse relevance untouched


def test_lexical_relevance_mixes_bm25_into_the_searchs_relevance():
    from jar_core.candidates.lexical import LexicalIndex, normalized

    question = "grant title and amount"
    dense = _retriever(lexical_relevance=0.0).signals(question, [])
    mixed = _retriever(lexical_relevance=0.4).signals(question, [])
    np.testing.assert_array_equal(dense.candidates, mixed.candidates)  # the candidates do not change
    r = _retriever()
    bm25 = normalized(LexicalIndex(r.index).scores(question))[dense.candidates]
    np.testing.assert_allclose(mixed.r, 0.6 * dense.r + 0.4 * bm25, atol=1e-6)
    # without the lexical stage there is no BM25 to mix
    off = _retriever(lexical=0.0, lexical_relevance=0.4).signals(question, [])
    plain = _retriever(lexical=0.0, lexical_relevance=0.0).signals(question, [])
    np.testing.assert_allclose(off.r, plain.r)


@pytest.mark.parametrize("option, value", [("hubness", -0.1), ("hubness", 3), ("hubness", True),
                                           ("lexical_relevance", 1.5), ("lexical_relevance", "0.1")])
def test_bad_weights_are_named(option, value):
    with pytest.raises(InvalidArgumentError, match=option):
        _retriever(**{option: value})


def test_options_round_trip():
    r = _retriever(hubness=0.25, lexical_relevance=0.3)
    assert r.options()["hubness"] == 0.25 and r.options()["lexical_relevance"] == 0.3
    assert r.with_options(candidates=3).hubness == 0.25


def test_copies_of_a_table_share_one_score(monkeypatch):
    from jar_core.loaders import load_ddl
    from jar_core.schema import Schema

    one = load_ddl(SCHEMA)
    lake = Schema([t.copy_to(db) for db in ("east", "west") for t in one.tables])
    r = TableRetriever(lake, embedder=BagOfWordsEmbedder())
    hubs = HubScores(r.index)
    hubs._scores[:] = np.nan  # forget what the baseline computed
    hubs._by_text.clear()
    computed = []
    real = hubs._compute
    monkeypatch.setattr(hubs, "_compute", lambda tables: (computed.append(len(tables)), real(tables)))
    east = [lake.position(f"east.{t.name}") for t in one.tables]
    west = [lake.position(f"west.{t.name}") for t in one.tables]
    a = hubs.scores(np.array(east))
    b = hubs.scores(np.array(west))
    np.testing.assert_array_equal(a, b)
    assert computed == [len(east)]  # the west copies were not computed again
