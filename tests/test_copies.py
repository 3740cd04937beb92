"""Copies of one table in several databases of a lake collapse to one copy in the first stage."""
from __future__ import annotations

import numpy as np
from helpers import BagOfWordsEmbedder

from jar_core.candidates.first_stage import exact_top
from jar_core.candidates.copies import best_copies, first_copies, table_signatures
from jar_core.loaders import load_ddl
from jar_core.retriever import TableRetriever
from jar_core.schema import Schema

MUSIC = """
CREATE TABLE artist (artist_id INT PRIMARY KEY, name TEXT);
CREATE TABLE album (album_id INT PRIMARY KEY, title TEXT, artist_id INT REFERENCES artist(artist_id));
CREATE TABLE track (track_id INT PRIMARY KEY, name TEXT, album_id INT REFERENCES album(album_id));
"""
SHOP = "CREATE TABLE artist (artist_id INT PRIMARY KEY, name TEXT, city TEXT);"


def lake() -> Schema:
    music = load_ddl(MUSIC, database="music")
    copies = [t.copy_to(f"music_{n}") for n in range(1, 6) for t in music.tables]
    return Schema([*music.tables, *copies, *load_ddl(SHOP, database="shop").tables])


def test_signatures_group_same_name_and_columns_only():
    schema = lake()
    sig, db = table_signatures(schema)
    by_id = {t.id: i for i, t in enumerate(schema.tables)}
    assert sig[by_id["music.artist"]] == sig[by_id["music_3.artist"]]
    assert sig[by_id["music.artist"]] != sig[by_id["shop.artist"]]  # another column: not a copy
    assert db[by_id["music.artist"]] != db[by_id["music_3.artist"]]


def test_first_copies_keeps_the_first_ranked_database_of_each_table():
    sig = np.array([0, 1, 0, 1, 2])
    db = np.array([0, 0, 1, 1, 1])
    # ranking: table 2 (db 1) first, so db 1's copies win; table 4 has no copy
    keep = first_copies(np.array([2, 0, 1, 3, 4]), sig, db)
    assert keep.tolist() == [True, False, False, True, True]


def test_best_copies_is_first_copies_of_the_whole_ranking():
    # the same rule without sorting: random lakes (one copy of a table per database), scores
    # with ties (one decimal) and without, positions in any order
    rng = np.random.default_rng(7)
    for _ in range(500):
        n = int(rng.integers(2, 50))
        sig, db = rng.integers(0, int(rng.integers(1, 12)), n), rng.integers(0, int(rng.integers(1, 6)), n)
        pos = np.array(sorted({(int(d), int(s)): i for i, (d, s) in enumerate(zip(db, sig))}.values()))
        pos = rng.permutation(pos)
        scores = np.round(rng.random(len(pos)), int(rng.integers(1, 7))).astype(np.float32)
        ranked, _ = exact_top(scores, pos, len(pos))
        want = set(ranked[first_copies(ranked, sig, db)].tolist())
        assert set(pos[best_copies(scores, pos, sig, db)].tolist()) == want


def test_candidates_come_from_one_copy_and_the_answer_joins():
    question = "track names with their album title and artist name"
    on = TableRetriever(lake(), embedder=BagOfWordsEmbedder(), candidates=3, expand=0, lexical=0, match_values=False)
    cands = [on.schema.tables[i] for i in on.signals(question, []).candidates]
    assert len({t.database for t in cands}) == 1 and {t.name for t in cands} == {"artist", "album", "track"}
    res = on.retrieve(question, k=3)
    assert len({t.database for t in res.tables}) == 1 and not res.unjoined
    off = TableRetriever(lake(), embedder=BagOfWordsEmbedder(), candidates=3, expand=0, lexical=0, match_values=False,
                         collapse_copies=False)
    plain = [off.schema.tables[i] for i in off.signals(question, []).candidates]
    assert len({t.name for t in plain}) < 3  # without collapsing, copies of one table crowd the top 3


def test_copies_collapse_with_bm25_fusion_too():
    # BM25 over the whole corpus ranks the copies alike as well: they collapse there too
    question = "track names with their album title and artist name"
    for lexical in (0.5, 1.0):
        r = TableRetriever(lake(), embedder=BagOfWordsEmbedder(), candidates=3, expand=0, lexical=lexical,
                           match_values=False)
        cands = [r.schema.tables[i] for i in r.signals(question, []).candidates]
        assert len({t.name for t in cands}) == 3 and len({t.database for t in cands}) == 1
