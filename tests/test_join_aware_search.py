"""The join-aware search's parts beyond the paper: join-graph expansion, the connection gain and bridges, each on a hand-made case
where it must change the answer; the paper's greedy is unchanged."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import BagOfWordsEmbedder, load_script

from jar_core.strategies.bridge import bridge_paths, connect, is_connected
from jar_core.retriever import TableRetriever
from jar_core.signals.matrices import Signals
from jar_core.strategies import GreedyStrategy, JoinAwareStrategy, get_strategy
from jar_core.strategies.greedy import connect_gain, join_gain


def sig(r, w, F=None) -> Signals:
    r = np.asarray(r, dtype=np.float32)
    n = len(r)
    F = np.zeros((0, n), dtype=np.float32) if F is None else np.asarray(F, dtype=np.float32)
    return Signals(candidates=np.arange(n), r=r, F=F, w=np.asarray(w, dtype=np.float32),
                   join_columns=np.full((n, n, 2), -1))


def test_connection_gain_does_not_favour_hubs():
    w = np.array([[0, 0.9, 0.9, 0.9], [0.9, 0, 0.9, 0.0], [0.9, 0.9, 0, 0], [0.9, 0, 0, 0]], dtype=float)
    sel = np.array([True, True, False, False])
    np.testing.assert_allclose(join_gain(w, sel), [0.9, 0.9, 1.8, 0.9])
    np.testing.assert_allclose(connect_gain(w, sel), [0.9, 0.9, 0.9, 0.9])
    # 0 and 1 chosen first; 2 is a hub joining both, 3 is more relevant and joins 0
    s = sig([0.9, 0.85, 0.1, 0.3], w)
    assert GreedyStrategy(0, 1, 1).select(s, 3).order == [0, 1, 2]  # the paper's sum picks the hub
    assert JoinAwareStrategy(0, 1, 1, bridges=False).select(s, 3).order == [0, 1, 3]


def test_bridge_connects_a_disconnected_pick_within_k():
    # 0 and 2 are relevant but do not join; 1 joins both (a junction table), 3 is a distractor
    w = np.zeros((4, 4))
    w[0, 1] = w[1, 0] = 0.95
    w[1, 2] = w[2, 1] = 0.95
    s = sig([0.9, 0.05, 0.8, 0.5], w)
    plain = JoinAwareStrategy(0, 0, 1, bridges=False).select(s, 3)
    assert plain.order == [0, 2, 3] and not is_connected(w, plain.order)
    sel = JoinAwareStrategy(0, 0, 1).select(s, 3)
    assert sel.order == [0, 2, 1] and sel.bridges == [1] and is_connected(w, sel.order)
    # no room for a bridge at K = 2: the greedy's choice stands
    assert JoinAwareStrategy(0, 0, 1).select(s, 2).order == [0, 2]


def test_a_pick_connected_only_by_a_later_table_gets_no_bridge():
    # 0 and 2 do not join each other (2's join gain is 0 when it is chosen); 1, chosen third,
    # joins both: the set is connected, so the bridge step leaves it as it is
    w = np.zeros((4, 4))
    w[0, 1] = w[1, 0] = w[1, 2] = w[2, 1] = 0.9
    sel = JoinAwareStrategy(0, 0, 1).select(sig([0.9, 0.7, 0.8, 0.1], w), 3)
    assert sel.order == [0, 2, 1] and sel.steps[1].join == 0 and sel.bridges == []
    # every choice joining one before it (join gain > 0 at each step) is connected as it is
    sel = JoinAwareStrategy(0, 1, 1).select(sig([0.9, 0.7, 0.8, 0.1], w), 3)
    assert all(g.join > 0 for g in sel.steps[1:]) and sel.bridges == [] and is_connected(w, sel.order)


def test_a_choice_that_covered_nothing_gives_way_to_a_bridge():
    # Chinook: Genre, Track, InvoiceLine, then PlaylistTrack (similar to the question, covering
    # nothing) and Customer, which joins InvoiceLine only through Invoice. The first four are
    # connected, so no prefix needs a bridge; PlaylistTrack gives way to Invoice instead
    genre, track, line, playlist, customer, invoice = range(6)
    w = np.zeros((6, 6))
    for a, b in ((genre, track), (track, line), (track, playlist), (line, invoice), (invoice, customer)):
        w[a, b] = w[b, a] = 0.95
    order = [genre, track, line, playlist, customer]
    F = np.zeros((3, 6))
    F[0, genre] = F[1, track] = F[2, customer] = 0.8
    assert connect(w, 5, order) == (order, [])  # without spare choices: the greedy's choice stands
    chosen, bridges = connect(w, 5, order, spare=[playlist], F=F)
    assert bridges == [invoice] and sorted(chosen) == [genre, track, line, customer, invoice], chosen
    # the choice that covers a sub-query is never the one to go; the first choice never goes
    assert connect(w, 5, order, spare=[genre], F=F) == (order, [])
    # through the strategy: the steps' coverage tells which choices are spare
    r = np.array([0.9, 0.8, 0.6, 0.7, 0.5, 0.1])
    plain = JoinAwareStrategy(1, 1, 1, bridges=False).select(sig(r.tolist(), w, F=F), 5)
    sel = JoinAwareStrategy(1, 1, 1).select(sig(r.tolist(), w, F=F), 5)
    assert not is_connected(w, plain.order) and playlist in plain.order, plain.order
    assert is_connected(w, sel.order) and sel.bridges == [invoice] and playlist not in sel.order, sel.order


def test_lookahead_takes_a_bridge_for_the_covering_table_behind_it():
    # demo-like: books (0) covers 'book'; categories (2) alone covers the value 'Mystery & Crime'
    # but joins only through book_categories (1), which covers nothing; book_authors (3) is more
    # similar to the question than either and joins books
    books, link, categories, authors = range(4)
    w = np.zeros((4, 4))
    for a, b in ((books, link), (link, categories), (books, authors)):
        w[a, b] = w[b, a] = 1.0
    F = np.zeros((2, 4))
    F[0, [books, link, authors]] = 0.8, 0.7, 0.7
    F[1, categories] = 0.6
    s = sig([0.38, 0.36, 0.08, 0.39], w, F=F)
    plain = JoinAwareStrategy(lookahead=False).select(s, 3)
    assert plain.order == [books, authors, link], plain.order  # categories never joins in time
    sel = JoinAwareStrategy().select(s, 3)
    assert sel.order == [books, link, categories] and sel.bridges == [link], sel.order
    # the bridge's step shows its own utility, the table behind it its coverage and join
    assert sel.steps[1].coverage == 0 and sel.steps[2].coverage > 0.5 and sel.steps[2].join == 1.0
    # one place left: no room for the pair, the best single table stands
    assert JoinAwareStrategy().select(s, 2).order == plain.order[:2]
    # the paper's greedy never looks ahead
    assert not GreedyStrategy().lookahead and GreedyStrategy().select(s, 3).bridges == []
    # k="auto": the pair and nothing more; a cut after the bridge would not keep it as a bridge
    from jar_core.strategies.auto_k import auto_select
    auto = auto_select(JoinAwareStrategy(), s, 4)
    assert auto.order == [books, link, categories] and auto.bridges == [link], auto.order


def test_bridge_paths_and_unreachable_pieces():
    w = np.zeros((5, 5))
    for a, b in ((0, 1), (1, 2), (2, 3)):
        w[a, b] = w[b, a] = 0.9
    assert bridge_paths(w, [0, 3]) == [1, 2]
    assert bridge_paths(w, [0, 4]) is None
    assert connect(w, 3, [0, 4, 3]) == ([0, 4, 3], [])  # no prefix of two or more connects: unchanged


def test_paper_greedy_is_unchanged_and_named():
    assert get_strategy("greedy").name == "greedy" and get_strategy("join-aware").name == "join-aware"
    assert GreedyStrategy().join_mode == "sum"


SCHEMA = """
CREATE TABLE playlists (playlist_id INT PRIMARY KEY, playlist_name TEXT);
CREATE TABLE tracks (track_id INT PRIMARY KEY, track_name TEXT, composer TEXT);
CREATE TABLE pl_map (pid INT REFERENCES playlists(playlist_id), tid INT REFERENCES tracks(track_id), pos INT);
CREATE TABLE playlist_names_archive (old_playlist_name TEXT, old_name TEXT);
CREATE TABLE track_names_archive (old_track_name TEXT, old_name TEXT);
CREATE TABLE composer_names (composer TEXT, composer_name TEXT);
"""


def test_expansion_brings_in_a_bridge_outside_the_top_n():
    question = "track names and composer of the playlist named Chill"
    plain = TableRetriever.from_ddl(SCHEMA, embedder=BagOfWordsEmbedder(), candidates=3, expand=0, lexical=0)
    top = [plain.schema.tables[i].name for i in plain.signals(question, []).candidates]
    assert "pl_map" not in top and {"tracks", "playlists"} <= set(top)
    wide = TableRetriever.from_ddl(SCHEMA, embedder=BagOfWordsEmbedder(), candidates=3, expand=2, lexical=0)
    cands = [wide.schema.tables[i].name for i in wide.signals(question, []).candidates]
    assert cands[:3] == top and "pl_map" in cands
    res = wide.retrieve(question, k=3)
    assert set(res.table_names) == {"tracks", "playlists", "pl_map"}
    assert not res.unjoined and all(j.declared for j in res.joins)
    assert all(t.reason in ("relevance", "coverage", "join", "bridge") for t in res.tables)


def test_expand_is_checked():
    with pytest.raises(Exception, match="expand"):
        TableRetriever.from_ddl(SCHEMA, embedder=BagOfWordsEmbedder(), expand=-1)


MUSIC = """
CREATE TABLE artist (artist_id INT PRIMARY KEY, name TEXT);
CREATE TABLE album (album_id INT PRIMARY KEY, title TEXT, artist_id INT REFERENCES artist(artist_id));
CREATE TABLE genre (genre_id INT PRIMARY KEY, label TEXT);
CREATE TABLE concert_hall (hall_id INT PRIMARY KEY, city TEXT);
"""


def _music(**kw):
    from jar_core.loaders import load_ddl

    schema = load_ddl(MUSIC)
    schema["artist"].column("name").sample = ("Iron Maiden", "Metallica", "Queen")
    schema["genre"].column("label").sample = ("Heavy Metal", "Jazz")
    return TableRetriever(schema, embedder=BagOfWordsEmbedder(), **kw)


def test_a_value_only_mention_finds_its_table():
    question = "list the albums by Iron Maiden"
    off = _music(match_values=False).retrieve(question, k=2)
    on = _music().retrieve(question, k=2)
    assert "artist" not in off.table_names or off.value_matches == []
    assert set(on.table_names) == {"album", "artist"}
    assert on.value_matches == [{"span": "Iron Maiden", "value": "Iron Maiden", "table": "main.artist",
                                 "column": "name", "exact": True, "hint": False}]
    assert on.coverage["value: Iron Maiden"] > 0
    fuzzy = _music().retrieve("albums by Iron Maidan", k=2)  # one letter off
    assert fuzzy.value_matches and not fuzzy.value_matches[0]["exact"]
    assert fuzzy.value_matches[0]["value"] == "Iron Maiden"


def test_values_are_matched_in_the_other_schemas_of_a_catalog_not_in_other_databases():
    import dataclasses

    from jar_core.loaders import load_ddl
    from jar_core.schema import Schema

    schema = load_ddl(MUSIC.replace("TABLE artist", "TABLE people.artist").replace("TABLE album", "TABLE media.album")
                      .replace("REFERENCES artist", "REFERENCES people.artist"))
    schema["artist"].column("name").sample = ("Iron Maiden", "Metallica", "Queen")
    question = "list the albums by Iron Maiden"
    kw = dict(embedder=BagOfWordsEmbedder(), expand=0, expand_seeds=1)
    seed = TableRetriever(schema, match_values=False, **kw).retrieve(question, k=1).table_ids
    assert seed == ["media.album"]  # the one seed's database has no artist
    found = TableRetriever(schema, **kw).retrieve(question, k=2)
    assert [m["table"] for m in found.value_matches] == ["people.artist"]
    lake = Schema([dataclasses.replace(t, catalog=None) for t in schema.tables])
    assert TableRetriever(lake, **kw).retrieve(question, k=2).value_matches == []


def test_fuzzy_names_within_one_edit_either_way():
    from jar_core.candidates.values import ValueIndex, match_values

    vi = ValueIndex.from_schema(_music().schema)
    assert vi.one_deletion_from("iron maiden") == []  # nothing indexed is one letter longer
    assert vi.one_deletion_from("metalica") == ["metallica"]
    for asked in ("Metalica", "Metallicca", "Metallika"):  # a letter missing, one too many, one changed
        assert [m.value for m in match_values(vi, f"songs by {asked}")] == ["Metallica"], asked
    assert match_values(vi, "songs by Metlica") == []  # two edits


def test_value_index_is_bounded_and_skips_numbers():
    from jar_core.candidates.values import ValueIndex, match_values

    r = _music()
    r.schema["concert_hall"].column("city").sample = ("12345", "ab", "x" * 100, "Lyon")
    vi = ValueIndex.from_schema(r.schema)
    assert set(vi.exact) == {"iron maiden", "metallica", "queen", "heavy metal", "jazz", "lyon"}
    assert [m.span for m in match_values(vi, "concerts in Lyon or 12345")] == ["Lyon"]


WAREHOUSE = """
CREATE TABLE date_dim (d_date_sk INT PRIMARY KEY, d_date DATE, d_year INT, d_moy INT);
CREATE TABLE time_dim (t_time_sk INT PRIMARY KEY, t_time INT, t_hour INT, t_minute INT);
CREATE TABLE item (i_item_sk INT PRIMARY KEY, i_rec_start_date DATE, i_product_name VARCHAR(50));
CREATE TABLE store_sales (ss_sold_date_sk INT REFERENCES date_dim (d_date_sk),
  ss_sold_time_sk INT REFERENCES time_dim (t_time_sk), ss_item_sk INT REFERENCES item (i_item_sk),
  ss_net_paid DECIMAL(7,2));
"""


def test_a_year_points_to_the_date_dimension_not_to_every_table_with_a_date():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    schema = load_ddl(WAREHOUSE)
    vi = ValueIndex.from_schema(schema)
    found = [(schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name)
             for m in match_values(vi, "net paid of store sales in 2001") if m.span == "2001"]
    # not the fact's date key (a reference), not the time of day, not the item's row start date
    assert found == [("date_dim", "d_year")]
    # without a date dimension, every table with a date column gets the hint
    plain = load_ddl(WAREHOUSE.replace("date_dim", "promo_window"))
    hinted = {plain.tables[m.table].name for m in match_values(ValueIndex.from_schema(plain), "in 2001")}
    assert hinted == {"promo_window", "item", "time_dim"}  # time_dim: named so, but no year nor date
    # k="auto" keeps the year's table: a value found always counts, however weak its coverage
    r = TableRetriever(schema, embedder=BagOfWordsEmbedder())
    assert "date_dim" in r.retrieve("net paid of store sales in 2001", k="auto").table_names


WEB_SHOP = """
CREATE TABLE date_dim (d_date_sk INT PRIMARY KEY, d_date DATE, d_year INT, d_moy INT);
CREATE TABLE ship_mode (sm_ship_mode_sk INT PRIMARY KEY, sm_type VARCHAR(30), sm_carrier VARCHAR(20));
CREATE TABLE web_site (web_site_sk INT PRIMARY KEY, web_name VARCHAR(50));
CREATE TABLE web_page (wp_web_page_sk INT PRIMARY KEY, wp_url VARCHAR(100));
CREATE TABLE web_sales (ws_sold_date_sk INT REFERENCES date_dim (d_date_sk),
  ws_ship_mode_sk INT REFERENCES ship_mode (sm_ship_mode_sk), ws_web_site_sk INT REFERENCES web_site (web_site_sk),
  ws_web_page_sk INT REFERENCES web_page (wp_web_page_sk), ws_order_number INT, ws_quantity INT);
CREATE TABLE web_returns (wr_returned_date_sk INT REFERENCES date_dim (d_date_sk),
  wr_web_page_sk INT REFERENCES web_page (wp_web_page_sk), wr_order_number INT, wr_return_quantity INT);
"""


def test_a_year_counts_as_a_value_of_the_date_dimension(monkeypatch):
    from jar_core.candidates import values
    from jar_core.loaders import load_ddl

    # the facts hold only a key to the dimension: a question with a year needs the dimension,
    # as surely as a table whose value the question names (a weaker hint loses it to web_page)
    question = "How many web orders were shipped in 2001 by each ship mode?"
    r = TableRetriever(load_ddl(WEB_SHOP), embedder=BagOfWordsEmbedder())
    res = r.retrieve(question, k=4)
    assert "date_dim" in res.table_names
    assert res.value_matches == [{"span": "2001", "value": "2001", "table": "main.date_dim", "column": "d_year",
                                  "exact": False, "hint": True}]
    monkeypatch.setattr(values, "DIMENSION_YEAR_WEIGHT", values.YEAR_WEIGHT)
    assert "date_dim" not in r.retrieve(question, k=4).table_names


def test_a_year_points_to_the_date_column_the_question_names():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    schema = load_ddl("CREATE TABLE Employee (EmployeeId INT, BirthDate TIMESTAMP, HireDate TIMESTAMP);"
                      "CREATE TABLE lineitem (l_orderkey INT, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE);")
    vi = ValueIndex.from_schema(schema)

    def dated(question):
        return [schema.tables[m.table].columns[m.column].name for m in match_values(vi, question)]

    # a date that a word names takes the year alone: the other tables' dates are not what is asked
    assert dated("Which employees were hired in 2003?") == ["HireDate"]
    assert dated("Which items were received in 1995?") == ["l_receiptdate"]
    assert dated("What happened in 2003?") == ["BirthDate", "l_shipdate"]  # none named: each table's first


def test_a_camel_case_name_dates_a_column_of_any_type():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    # a year kept as a number under a camel-case name (KaggleDBQA's WhatCD torrents) is a date column,
    # as ``birth_year`` is; a camel-case key to a date (``releaseDateId``) stays none
    schema = load_ddl("CREATE TABLE torrents (groupName TEXT, groupYear INT, releaseDateId INT, id INT);"
                      "CREATE TABLE player (player_id TEXT, birth_year TEXT);")
    vi = ValueIndex.from_schema(schema)
    found = [f"{schema.tables[m.table].name}.{schema.tables[m.table].columns[m.column].name}"
             for m in match_values(vi, "What are the top 20 instrumental albums since 2000?")]
    assert found == ["torrents.groupYear", "player.birth_year"]


def test_a_run_together_name_dates_a_column_as_its_words_do():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    # the same schema with its names run together: GROUPYEAR is a group's year, RELEASEDATEID a key,
    # HIREDATE names the date 'hired' asks for
    schema = load_ddl("CREATE TABLE TORRENTS (GROUPNAME TEXT, GROUPYEAR INT, RELEASEDATEID INT, ID INT);"
                      "CREATE TABLE PLAYER (PLAYERID TEXT, BIRTHYEAR TEXT);"
                      "CREATE TABLE EMPLOYEE (EMPLOYEEID INT, BIRTHDATE TIMESTAMP, HIREDATE TIMESTAMP);")
    vi = ValueIndex.from_schema(schema)

    def dated(question):
        return [f"{schema.tables[m.table].name}.{schema.tables[m.table].columns[m.column].name}"
                for m in match_values(vi, question)]

    assert dated("What are the top 20 instrumental albums since 2000?") == [
        "TORRENTS.GROUPYEAR", "PLAYER.BIRTHYEAR", "EMPLOYEE.BIRTHDATE"]
    assert dated("Which employees were hired in 2003?") == ["EMPLOYEE.HIREDATE"]
    # a trade word hints the measures of the tables its noun names, read split
    schema = load_ddl("CREATE TABLE SALESORDERDETAIL (SALESORDERID INT, ORDERQUANTITY INT);"
                      "CREATE TABLE PURCHASEORDERDETAIL (PURCHASEORDERID INT, ORDERQUANTITY INT);")
    vi = ValueIndex.from_schema(schema)
    assert dated("What were the total sales per product?") == ["SALESORDERDETAIL.ORDERQUANTITY"]


def test_a_year_dates_the_trade_the_question_measures():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    schema = load_ddl("CREATE TABLE Product (ProductID INT, Name VARCHAR(50), SellStartDate TIMESTAMP);"
                      "CREATE TABLE SalesOrderHeader (SalesOrderID INT, OrderDate TIMESTAMP, SubTotal NUMERIC);"
                      "CREATE TABLE SalesOrderDetail (SalesOrderID INT, ProductID INT, OrderQty INT);"
                      "CREATE TABLE Employee (EmployeeID INT, BirthDate TIMESTAMP);")
    vi = ValueIndex.from_schema(schema)

    def years(question):
        return [f"{schema.tables[m.table].name}.{schema.tables[m.table].columns[m.column].name}"
                for m in match_values(vi, question) if m.span.isdigit()]

    # no word names a date: the sale's date, not the product's nor the employee's
    assert years("What were the total sales per product in 2013?") == ["SalesOrderHeader.OrderDate"]
    assert years("Which products were ordered in 2013?") == ["SalesOrderHeader.OrderDate"]  # named
    # no trade, no date named: every dated table, as a hint each
    assert years("Which products and employees date from 2013?") == [
        "Product.SellStartDate", "SalesOrderHeader.OrderDate", "Employee.BirthDate"]


def test_a_year_does_not_point_to_audit_times_nor_to_a_period_measure():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    # AdventureWorks: ModifiedDate on every table, SalesPerson.SalesLastYear (money); Sakila: last_update
    schema = load_ddl("""
    CREATE TABLE SalesPerson (BusinessEntityID INT, SalesLastYear NUMERIC, ModifiedDate TIMESTAMP);
    CREATE TABLE SalesOrderHeader (SalesOrderID INT, OrderDate TIMESTAMP, ModifiedDate TIMESTAMP);
    CREATE TABLE actor (actor_id INT, first_name TEXT, last_update TIMESTAMP);
    CREATE TABLE users (id INT, created_at TIMESTAMP, updated_at TIMESTAMP);
    CREATE TABLE film (film_id INT, release_year INT, last_update TIMESTAMP);
    CREATE TABLE ACADEMIC_TERMS (TERM_CODE VARCHAR2, TERM_START_DATE DATE, WAREHOUSE_LOAD_DATE DATE);
    CREATE TABLE SUBJECT_OFFERED (SUBJECT_ID VARCHAR2, WAREHOUSE_LOAD_DATE DATE);
    CREATE TABLE CIS_COURSE_CATALOG (SUBJECT_ID VARCHAR2, DEPARTMENT_CODE DATE, DEPARTMENT_NAME DATE);
    CREATE TABLE FAC_ROOMS (FAC_ROOM_KEY DATE, ROOM VARCHAR2);
    """)
    found = [(schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name)
             for m in match_values(ValueIndex.from_schema(schema), "what was new in 2013")]  # no date named
    # a warehouse's load time is an audit time too (ETL), not a date the question can mean; a code,
    # a name or a key is no date whatever its declared type (BEAVER-DW's DEPARTMENT_CODE DATE)
    assert found == [("SalesOrderHeader", "OrderDate"), ("users", "created_at"), ("film", "release_year"),
                     ("ACADEMIC_TERMS", "TERM_START_DATE")]
    # ... even where a word of the question names it
    named = match_values(ValueIndex.from_schema(schema), "which department code was new in 2013")
    assert named and not any(schema.tables[m.table].name == "CIS_COURSE_CATALOG" for m in named)


def test_a_date_dimension_outside_the_candidates_leaves_the_year_to_the_candidates_dates():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    schema = load_ddl("""
    CREATE TABLE TIME_DAY (CALENDAR_DATE DATE, CALENDAR_YEAR VARCHAR2);
    CREATE TABLE ACADEMIC_TERMS (TERM_CODE VARCHAR2, TERM_START_DATE DATE);
    CREATE TABLE SUBJECT_OFFERED (SUBJECT_ID VARCHAR2, TERM_CODE VARCHAR2);
    """)
    vi = ValueIndex.from_schema(schema)

    def hinted(candidates):
        mask = np.array([t.name in candidates for t in schema.tables])
        return [schema.tables[m.table].name for m in match_values(vi, "subjects of the 2023 fall term", None, mask)]

    assert hinted({"TIME_DAY", "ACADEMIC_TERMS", "SUBJECT_OFFERED"}) == ["TIME_DAY"]  # the dimension answers it
    # the dimension is not a candidate: the candidates' own dates do (before, nothing did)
    assert hinted({"ACADEMIC_TERMS", "SUBJECT_OFFERED"}) == ["ACADEMIC_TERMS"]


MUSIC_SHOP = """
CREATE TABLE genre (genre_id INT PRIMARY KEY, name TEXT);
CREATE TABLE track (track_id INT PRIMARY KEY, name TEXT, genre_id INT REFERENCES genre (genre_id),
  unit_price NUMERIC);
CREATE TABLE playlist (playlist_id INT PRIMARY KEY, name TEXT);
CREATE TABLE playlist_track (playlist_id INT REFERENCES playlist (playlist_id),
  track_id INT REFERENCES track (track_id));
CREATE TABLE invoice (invoice_id INT PRIMARY KEY, invoice_date TIMESTAMP, billing_city TEXT);
CREATE TABLE invoice_line (invoice_line_id INT PRIMARY KEY, invoice_id INT REFERENCES invoice (invoice_id),
  track_id INT REFERENCES track (track_id), unit_price NUMERIC, quantity INT);
"""


def test_a_question_about_sales_points_to_the_tables_that_measure_them(monkeypatch):
    from jar_core.candidates import values
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    schema = load_ddl(MUSIC_SHOP)
    vi = ValueIndex.from_schema(schema)
    found = [(m.span, schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name, m.weight)
             for m in match_values(vi, "What genre sells the most tracks?")]
    # the line's quantity, not the track's unit price (a price is no sale)
    assert found == [("sells", "invoice_line", "quantity", values.MEASURE_WEIGHT)]
    assert match_values(vi, "What genre has the most tracks?") == []
    # the transaction table is never named by the question: the hint is what brings it
    r = TableRetriever(schema, embedder=BagOfWordsEmbedder(), lexical=0)
    res = r.retrieve("What genre sells the most tracks?", k="auto")
    assert {"genre", "track", "invoice_line"} <= set(res.table_names)
    assert any(m["table"].endswith("invoice_line") and m["column"] == "quantity" for m in res.value_matches)
    monkeypatch.setattr(values, "MEASURE_WEIGHT", 0.0)
    plain = TableRetriever(schema, embedder=BagOfWordsEmbedder(), lexical=0)
    assert "invoice_line" not in plain.retrieve("What genre sells the most tracks?", k="auto").table_names



def test_a_trade_word_that_names_tables_points_to_those_alone():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    # AdventureWorks: a bill of materials and a vendor's order limits also end in Qty, but "sales"
    # and "bought" name the sales and purchase tables
    schema = load_ddl("""
CREATE TABLE Product (ProductID INT PRIMARY KEY, Name TEXT);
CREATE TABLE BillOfMaterials (BillOfMaterialsID INT PRIMARY KEY, ComponentID INT, PerAssemblyQty INT);
CREATE TABLE ProductVendor (ProductID INT, VendorID INT, MinOrderQty INT);
CREATE TABLE SalesOrderDetail (SalesOrderDetailID INT PRIMARY KEY, ProductID INT, OrderQty INT);
CREATE TABLE PurchaseOrderDetail (PurchaseOrderDetailID INT PRIMARY KEY, ProductID INT, OrderQty INT);
""")
    vi = ValueIndex.from_schema(schema)

    def hinted(question: str) -> set[str]:
        return {schema.tables[m.table].name for m in match_values(vi, question)}

    assert hinted("What were the total sales per product?") == {"SalesOrderDetail"}
    assert hinted("Which products did we buy most?") == {"PurchaseOrderDetail"}
    # a trade that names no table still points to every measure
    assert hinted("Which product earned the most?") == {"BillOfMaterials", "ProductVendor", "SalesOrderDetail",
                                                         "PurchaseOrderDetail"}


def test_a_measure_of_goods_given_back_is_no_trade():
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, is_trade_word, match_values, measure_only

    # TPC-DS: what comes back to a store is counted in a quantity too, but nobody bought it
    schema = load_ddl("""
CREATE TABLE store_sales (ss_item_sk INT, ss_customer_sk INT, ss_quantity INT);
CREATE TABLE store_returns (sr_item_sk INT, sr_customer_sk INT, sr_return_quantity INT);
CREATE TABLE refunds (order_id INT, refunded_amount DECIMAL(7, 2));
""")
    vi = ValueIndex.from_schema(schema)
    found = {(schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name)
             for m in match_values(vi, "How many customers bought from the store?")}
    assert found == {("store_sales", "ss_quantity")}
    assert is_trade_word("sales") and is_trade_word("Bought") and not is_trade_word("returned")
    assert measure_only("amount") and measure_only("Total amount") and not measure_only("sales amount")
    assert not measure_only("")


def test_auto_k_leaves_a_measure_word_to_the_trade_words_hint():
    from jar_core.strategies.auto_k import auto_select

    # TPC-DS 'What was the total catalog sales amount in 2000?': 'amount' by meaning is nearest a
    # late table (item 0.41); the trade word's hint 'value: sales' found catalog_sales' measure
    n = 4
    w = np.zeros((n, n), dtype=np.float32)
    for a, b in ((0, 1), (0, 2), (0, 3)):
        w[a, b] = w[b, a] = 0.97
    F = np.array([[0.57, 0.23, 0.45, 0.47],   # catalog sale
                  [0.3, 0.25, 0.32, 0.41],    # amount
                  [0.3, 0.0, 0.0, 0.0],       # value: sales
                  [0.0, 0.6, 0.0, 0.0]], dtype=np.float32)  # value: 2000
    s = sig([0.54, 0.23, 0.46, 0.35], w, F)
    s.subqueries = ["catalog sale", "amount", "value: sales", "value: 2000"]
    assert auto_select(GreedyStrategy(3, 1, 4), s, 4).order == [0, 1]
    s.subqueries = ["catalog sale", "amount", "value: acme", "value: 2000"]  # no trade word: 'amount' counts
    assert auto_select(GreedyStrategy(3, 1, 4), s, 4).order[-1] == 3


def test_where_someone_lives_points_to_the_few_place_columns_when_no_value_names_it(monkeypatch):
    from jar_core.candidates import values
    from jar_core.loaders import load_ddl
    from jar_core.candidates.values import ValueIndex, match_values

    # AdventureWorks as DDL: no sample says where Seattle is, but a customer who lives there has an
    # address, and Address.City is the one place column
    schema = load_ddl("""
CREATE TABLE Customer (CustomerID INT PRIMARY KEY, PersonID INT, AccountNumber TEXT);
CREATE TABLE Address (AddressID INT PRIMARY KEY, AddressLine1 TEXT, City TEXT, PostalCode TEXT);
CREATE TABLE SalesOrderHeader (SalesOrderID INT PRIMARY KEY, CustomerID INT, BillToAddressID INT);
""")
    vi = ValueIndex.from_schema(schema)
    found = [(m.span, schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name, m.weight)
             for m in match_values(vi, "Which customers live in Seattle?")]
    assert found == [("Seattle", "Address", "City", values.PLACE_WEIGHT)]
    assert match_values(vi, "Which customers ordered in Seattle?") == []  # no one's residence
    # a place found among the values needs no hint
    sampled = load_ddl("CREATE TABLE Address (AddressID INT PRIMARY KEY, City TEXT);")
    sampled.tables[0].columns[1].sample = ["Seattle", "Bothell"]
    assert [m.weight for m in match_values(ValueIndex.from_schema(sampled), "Who lives in Seattle?")] == [1.0]
    # a place column in more tables than a value may be in tells nothing
    many = load_ddl("\n".join(f"CREATE TABLE t{i} (id INT, city TEXT);" for i in range(values.MAX_TABLES + 1)))
    assert match_values(ValueIndex.from_schema(many), "Who lives in Seattle?") == []
    # unless one of them is an address: where people live (TPC-DS: stores, warehouses, call
    # centers and web sites have cities too)
    tpcds = load_ddl("\n".join(f"CREATE TABLE {t} (id INT, {t[:2]}_city TEXT, {t[:2]}_state TEXT);" for t in (
        "store", "warehouse", "call_center", "web_site", "customer_address")))
    found = [(tpcds.tables[m.table].name, tpcds.tables[m.table].columns[m.column].name, m.weight)
             for m in match_values(ValueIndex.from_schema(tpcds), "Who lives in Texas?")]
    # each of its place columns: no value says whether Texas is a city or a state
    assert found == [("customer_address", "cu_city", values.PLACE_WEIGHT), ("customer_address", "cu_state", values.PLACE_WEIGHT)]
    assert match_values(ValueIndex.from_schema(tpcds), "Which stores are located in Texas?") == []  # not a residence

def test_auto_k_stops_when_covered_and_connected():
    from jar_core.strategies.auto_k import auto_size

    w = np.zeros((4, 4))
    w[0, 1] = w[1, 0] = w[1, 2] = w[2, 1] = 0.9
    F = np.array([[0.9, 0.1, 0.1, 0.2], [0.1, 0.2, 0.8, 0.1]])  # sub-query 1 needs table 2
    r = np.array([0.5, 0.4, 0.3, 0.2])
    assert auto_size(F, w, r, [0, 1, 2, 3]) == 3  # 0 and 2 cover; 1 joins them
    assert auto_size(F, w, r, [0, 2, 1, 3]) == 3  # covered at 2 but not connected until 3
    assert auto_size(F[:1], w, r, [0, 1, 2, 3]) == 2  # k_min
    res = _music().retrieve("list the albums by Iron Maiden", k="auto")
    assert res.k == "auto" and 2 <= len(res) <= 4 and res.to_dict()["k"] == "auto"


def test_auto_k_leaves_out_a_sub_query_no_table_answers():
    from jar_core.strategies.auto_k import auto_size

    w = np.full((5, 5), 0.9) - 0.9 * np.eye(5)
    F = np.array([[0.9, 0.2, 0.1, 0.1, 0.1],    # answered by 0
                  [0.2, 0.8, 0.1, 0.1, 0.1],    # answered by 1
                  [0.1, 0.1, 0.2, 0.2, 0.35]])  # 'sells': no table answers it; its best is last
    r = np.array([0.5, 0.4, 0.3, 0.2, 0.1])
    assert auto_size(F, w, r, [0, 1, 2, 3, 4]) == 2
    assert auto_size(F, w, r, [0, 1, 2, 3, 4], floor=0.0) == 5  # chasing it took every table


def test_auto_k_bridges_the_covering_tables_instead_of_growing_the_prefix():
    from jar_core.strategies.auto_k import auto_select

    # 0 and 1 answer the question; they join only through 4, a table the search would take last
    n = 6
    w = np.zeros((n, n), dtype=np.float32)
    for a, b in ((0, 4), (4, 1), (0, 2), (2, 3), (3, 5)):
        w[a, b] = w[b, a] = 0.97
    F = np.zeros((2, n), dtype=np.float32)
    F[0, 0], F[1, 1] = 0.9, 0.9
    s = sig([0.6, 0.55, 0.5, 0.45, 0.05, 0.4], w, F)
    greedy = GreedyStrategy(3, 1, 4)
    assert greedy.select(s, 6).order[-1] == 4  # the bridge comes last in the search's own order
    assert auto_select(greedy, s, 6).order == [0, 1, 2, 3, 5, 4]  # without bridges: the prefix up to it
    sel = auto_select(JoinAwareStrategy(), s, 6)
    assert sel.order == [0, 1, 4] and sel.bridges == [4]
    assert [st.candidate for st in sel.steps] == [0, 1, 4] and sel.steps[2].join == pytest.approx(0.97)
    assert auto_select(JoinAwareStrategy(), s, 6, pinned=[3]).order[:1] == [3]
    with pytest.raises(Exception, match="positive integer"):
        _music().retrieve("albums", k="some")


def test_adapters_accept_k_auto():
    pytest.importorskip("langchain_core")
    from langchain_jar import JoinAwareRetriever

    lc = JoinAwareRetriever(retriever=_music(), k="auto")
    docs = lc.invoke("list the albums by Iron Maiden")
    assert 2 <= len(docs) <= 4


def test_bm25_fusion_ranks_candidates_by_words_too():
    from jar_core.candidates.lexical import LexicalIndex, fuse

    r = _music(lexical=0.0)
    lex = LexicalIndex(r.index)
    scores = lex.scores("which city hosts the concert hall")
    assert int(np.argmax(scores)) == r.schema.position("concert_hall") and scores.min() == 0.0
    np.testing.assert_allclose(fuse(np.array([0.2, 0.4]), np.array([2.0, 0.0]), 0.5), [0.6, 0.2])
    with pytest.raises(Exception, match="lexical"):
        _music(lexical=2)


def test_bm25_reads_plurals_in_the_singular():
    # "vendors" finds the table named vendor, "categories" a category; no stemmer's merges
    from jar_core.candidates.lexical import LexicalIndex, singulars

    assert singulars(["vendors", "categories", "boxes", "address", "status", "offered"]) == [
        "vendor", "category", "box", "address", "status", "offered"]
    r = _music(lexical=0.0)
    lex = LexicalIndex(r.index)
    for q, table in (("which genres are there", "genre"), ("albums of the artists", "album"),
                     ("concert halls in each city", "concert_hall")):
        scores = lex.scores(q)
        assert int(np.argmax(scores)) == r.schema.position(table), q
    assert lex.scores("artists")[r.schema.position("artist")] > 0


def test_bm25_over_table_texts_without_a_word_scores_zero():
    # a schema whose names are stop words, one letter or symbols gives BM25 no vocabulary at all
    # (bm25s itself fails to index it): every table scores 0 and retrieval still answers
    from jar_core.candidates.lexical import LexicalIndex
    from jar_core.schema import Column, Schema, Table

    schema = Schema([Table("t", "x\x1b[2J", [Column("x\x1b[2J", "text")]),
                     Table("t", "a", [Column("the", "int")])])
    r = TableRetriever(schema, embedder=BagOfWordsEmbedder(), lexical=0.0)
    lex = LexicalIndex(r.index)
    assert lex.scores("which x is the a").tolist() == [0.0, 0.0]
    assert len(TableRetriever(schema, embedder=BagOfWordsEmbedder()).retrieve("which x is the a", k=2).tables) == 2


def test_bm25_scores_the_whole_corpus_once_below_the_threshold(monkeypatch):
    import jar_core.candidates.lexical as lexical_mod
    import jar_core.retriever as retriever_mod

    built = []
    real = lexical_mod.LexicalIndex

    class Counting(real):
        def __init__(self, index, tables=None):
            built.append(None if tables is None else len(tables))
            super().__init__(index, tables)

    monkeypatch.setattr(lexical_mod, "LexicalIndex", Counting)
    monkeypatch.setattr(retriever_mod, "LEXICAL_SHORTLIST", 2)  # the corpus is "larger" than the shortlist
    r = _music(candidates=2)
    for q in ("which city hosts the concert hall", "albums by Iron Maiden"):
        r.retrieve(q, k=2)
    assert built == [None]  # one index over every table, kept for the next question
    built.clear()
    monkeypatch.setattr(retriever_mod, "LEXICAL_WHOLE_CORPUS", 1)  # a lake above the threshold
    r = _music(candidates=2)
    for q in ("which city hosts the concert hall", "albums by Iron Maiden"):
        r.retrieve(q, k=2)
    assert built == [2, 2]  # the dense shortlist of each question


def test_family_gain_keeps_a_subject_area_together():
    # 0 chosen first; 1 (SIS_x) and 2 (other) are equally relevant, neither joins: the family wins
    w = np.zeros((3, 3))
    s = sig([0.9, 0.5, 0.5], w)
    s.family = np.array([[False, True, False], [True, False, False], [False, False, False]])
    assert JoinAwareStrategy(0, 0, 1, bridges=False).select(s, 2).order[1] == 1
    assert JoinAwareStrategy(0, 0, 1, l_family=0, bridges=False).select(s, 2).order[1] == 1  # tie: lower index
    s.r = np.array([0.9, 0.5, 0.55], dtype=np.float32)
    assert JoinAwareStrategy(0, 0, 1, l_family=0, bridges=False).select(s, 2).order[1] == 2
    assert JoinAwareStrategy(0, 0, 1, bridges=False).select(s, 2).order[1] == 1
    assert GreedyStrategy(0, 0, 1).select(s, 2).order[1] == 2  # the paper's search has no family term


def _signals_of(ddl: str, question: str) -> tuple[Signals, list[str]]:
    """The signals of ``question`` over ``ddl`` (no sub-queries) and their candidates' table names."""
    r = TableRetriever.from_ddl(ddl, embedder=BagOfWordsEmbedder())
    s = r.signals(question, [])
    return s, [r.schema.tables[i].name for i in s.candidates]


def _family_pairs(ddl: str, question: str) -> set[tuple[str, str]]:
    """The ``(table, table)`` pairs of :attr:`Signals.family` for ``question`` over ``ddl``."""
    s, names = _signals_of(ddl, question)
    return {(names[i], names[j]) for i, j in zip(*np.nonzero(s.family))}


def test_extends_marks_a_reference_by_the_whole_declared_key():
    # location is keyed by its restaurant (one row per restaurant: it extends it); a review refers
    # to its restaurant by a column that is not its key; geographic is the restaurant's parent
    ddl = ("CREATE TABLE restaurant (id INT PRIMARY KEY, name TEXT, city_name TEXT REFERENCES geographic(city_name));"
           "CREATE TABLE location (restaurant_id INT PRIMARY KEY REFERENCES restaurant(id), street TEXT);"
           "CREATE TABLE review (review_id INT PRIMARY KEY, restaurant_id INT REFERENCES restaurant(id));"
           "CREATE TABLE geographic (city_name TEXT PRIMARY KEY, region TEXT);")
    s, names = _signals_of(ddl, "restaurant location review region")
    pairs = {(names[i], names[j]) for i, j in zip(*np.nonzero(s.extends))}
    assert pairs == {("location", "restaurant")}
    assert s.references[names.index("review"), names.index("restaurant")]  # a reference, no extension


def test_siblings_refer_to_each_other_both_ways():
    # business is keyed by a bare id: review and tip hold business_id as siblings (two references
    # of one key), neither the other's child; a declared reference goes one way
    from jar_core.joins.edges import EVIDENCE

    ddl = ("CREATE TABLE business (id INT PRIMARY KEY, business_id TEXT, name TEXT, city TEXT);"
           "CREATE TABLE review (rid INT PRIMARY KEY, business_id TEXT, user_id TEXT, rating REAL);"
           "CREATE TABLE tip (tip_id INT PRIMARY KEY, business_id TEXT, text TEXT);"
           "CREATE TABLE reply (reply_id INT PRIMARY KEY, rid INT REFERENCES review(rid), text TEXT);")
    s, names = _signals_of(ddl, "business review tip reply")
    review, tip, reply = names.index("review"), names.index("tip"), names.index("reply")
    assert EVIDENCE[s.evidence[review, tip]] == "sibling"
    assert s.references[review, tip] and s.references[tip, review]
    assert s.references[reply, review] and not s.references[review, reply]
    # two keys named alike, in a database nothing else joins: no direction either
    s, names = _signals_of("CREATE TABLE patients (row_id INT PRIMARY KEY, subject_id INT, dob DATE);"
                           "CREATE TABLE stays (row_id INT PRIMARY KEY, subject_id INT, ward TEXT);", "patients stays")
    patients, stays = names.index("patients"), names.index("stays")
    assert EVIDENCE[s.evidence[patients, stays]] == "names alike"
    assert s.references[patients, stays] and s.references[stays, patients]


def test_family_relation_from_names():
    fam = _family_pairs("CREATE TABLE sis_dept (a INT); CREATE TABLE sis_course (b INT); CREATE TABLE hr_unit (c INT);"
                        "CREATE TABLE course (d INT);", "sis courses")
    assert fam == {("sis_dept", "sis_course"), ("sis_course", "sis_dept")}


def test_a_leading_word_that_names_a_table_is_an_entity_not_a_family():
    # film_actor and film_category refer to film (a table): link tables of an entity, not a
    # module; sis_ names no table, so sis_dept and sis_course stay one family
    fam = _family_pairs(
        "CREATE TABLE films (film_id INT PRIMARY KEY); CREATE TABLE film_actor (film_id INT, actor_id INT);"
        "CREATE TABLE film_category (film_id INT, category_id INT); CREATE TABLE sis_dept (a INT);"
        "CREATE TABLE sis_course (b INT);", "film actor category sis dept course",
    )
    assert fam == {("sis_dept", "sis_course"), ("sis_course", "sis_dept")}


@pytest.mark.parametrize("n", [12, 150])  # the depth-first walk and scipy's traversal
def test_component_labels_name_each_component_by_its_first_node(n):
    from scipy.sparse.csgraph import connected_components

    from jar_core.strategies.bridge import labels

    rng = np.random.default_rng(n)
    w = np.zeros((n, n))
    for group in np.array_split(rng.permutation(n), 4):  # four chains of shuffled nodes, one edge direction
        w[group[:-1], group[1:]] = rng.uniform(0.5, 1.0, len(group) - 1)
    nodes = rng.permutation(n)[: n - 2]
    got = labels(w, nodes)
    _, comp = connected_components((w + w.T)[np.ix_(nodes, nodes)] > 0, directed=False)
    assert len(set(comp.tolist())) > 1
    expected = np.array([np.flatnonzero(comp == c)[0] for c in comp])
    assert got.tolist() == expected.tolist()
    assert labels(w, []).tolist() == []


def test_trace_lists_every_step_best_first_with_fewer_as_candidates_run_out():
    r = np.array([0.9, 0.8, 0.7])
    sig = Signals(candidates=np.arange(3), r=r, F=np.eye(3)[:2], w=np.zeros((3, 3)), join_columns=np.full((3, 3, 2), -1))
    sel = GreedyStrategy(trace_width=5).select(sig, 3)
    assert [len(t) for t in sel.trace] == [3, 2, 1]
    for step, entries in zip(sel.steps, sel.trace):
        assert entries[0] == step  # the chosen candidate heads its step's trace, with the same gains
        assert [g.total for g in entries] == sorted((g.total for g in entries), reverse=True)


def test_public_questions_script_reports_complete_sets_values_and_bridges(tmp_path, capsys, monkeypatch):
    import sqlite3

    script = load_script("public_questions")
    db = tmp_path / "music.db"
    con = sqlite3.connect(db)
    con.executescript(MUSIC)
    con.executemany("INSERT INTO artist VALUES (?, ?)", [(1, "Iron Maiden"), (2, "Queen")])
    con.commit()
    con.close()
    monkeypatch.setattr(script, "QUESTIONS", {"chinook": [("list the albums by Iron Maiden", {"album", "artist"})],
                                              "tpch": [("unused", {"x"})]})
    with pytest.warns(UserWarning, match="k=5 is larger than the 4 candidate tables"):
        assert script.main(["--chinook", f"sqlite:///{db}"]) == 0
    out = capsys.readouterr().out
    assert "chinook: list the albums by Iron Maiden" in out and "tpch: skipped (no --tpch given)" in out
    assert "values: Iron Maiden -> artist.name" in out
    assert "k=5: 1 of 1 questions complete, 4.00 tables on average" in out  # the schema's 4 tables


def test_auto_k_a_sub_query_that_repeats_a_found_value_asks_nothing_more():
    from jar_core.strategies.auto_k import auto_select

    # TPC-H: 'europe' by meaning is nearest a late table (nation 0.47); 'value: EUROPE' is region's
    n = 4
    w = np.zeros((n, n), dtype=np.float32)
    for a, b in ((0, 1), (1, 2), (2, 3)):
        w[a, b] = w[b, a] = 0.97
    F = np.array([[0.2, 0.7, 0.1, 0.1],     # customer
                  [0.46, 0.1, 0.1, 0.47],   # europe
                  [0.6, 0.0, 0.0, 0.0]], dtype=np.float32)  # value: EUROPE
    s = sig([0.5, 0.4, 0.3, 0.2], w, F)
    s.subqueries = ["customer", "europe", "value: EUROPE"]
    assert auto_select(GreedyStrategy(3, 1, 4), s, 4).order == [0, 1]
    s.subqueries = ["customer", "europe", "value: Europa"]  # another value: 'europe' counts
    assert auto_select(GreedyStrategy(3, 1, 4), s, 4).order == [0, 1, 2, 3]


def test_auto_k_adds_the_table_a_chosen_one_refers_to_for_a_sub_query():
    from jar_core.strategies.auto_k import auto_select, referenced

    # Sakila: 'Which actors appear in the film X?'. film_actor (1) covers 'actor' through its
    # actor_id (0.76), which refers to actor (2, 0.80); it also refers to film (0), chosen.
    n = 4
    w = np.zeros((n, n), dtype=np.float32)
    for a, b in ((1, 0), (1, 2), (3, 0)):
        w[a, b] = w[b, a] = 0.97
    refs = np.zeros((n, n), dtype=bool)
    refs[1, 0] = refs[1, 2] = refs[3, 0] = True
    F = np.array([[0.45, 0.76, 0.80, 0.39],   # actor: film, film_actor, actor, film_category
                  [0.76, 0.53, 0.36, 0.61]],  # film
                 dtype=np.float32)
    s = sig([0.34, 0.46, 0.34, 0.37], w, F)
    s.subqueries = ["actor", "film"]
    greedy = GreedyStrategy(3, 1, 4)
    assert auto_select(greedy, s, 4).order == [1, 0]  # covered at 0.6: the set stops without actor
    s.references = refs
    sel = auto_select(greedy, s, 4)
    assert sel.order == [1, 0, 2] and sel.references == [2] and not sel.bridges
    assert sel.steps[2].coverage == pytest.approx(0.04, abs=1e-6)  # 0.80 over film_actor's 0.76
    assert referenced(F[1:], refs, [1, 0]) == []  # 'film' alone: film refers to nothing
    # a table referred to that covers the sub-query less than the one referring to it is not added
    weaker = F.copy()
    weaker[0, 2] = 0.7
    assert referenced(weaker, refs, [1, 0]) == []
    assert referenced(F, None, [1, 0]) == []  # the paper's joins have no direction
    assert auto_select(greedy, s, 2).order == [1, 0]  # no room
    # a value found in film_actor (chosen) and in actor, which it refers to, as well: actor joins too
    s.F = np.array([[0.45, 0.76, 0.70, 0.39], [0.76, 0.53, 0.36, 0.61], [0.0, 0.6, 0.6, 0.0]], dtype=np.float32)
    s.subqueries = ["actor", "film", "value: Penelope"]
    assert auto_select(greedy, s, 4).references == [2]
    s.F[2, 2] = 0.0
    assert auto_select(greedy, s, 4).references == []


def test_auto_k_adds_what_a_link_table_covers_by_its_name_only():
    from jar_core.strategies.auto_k import referenced

    # Sakila: 'Total revenue by film category'. film_category (0) covers 'film category' by its
    # name (0.88); category (2), which it refers to, holds the category's name but covers it less
    # (0.50) than film (1, 0.70), chosen: only as a link table does film_category bring it.
    n = 3
    refs = np.zeros((n, n), dtype=bool)
    refs[0, 1] = refs[0, 2] = True
    F = np.array([[0.88, 0.70, 0.50]], dtype=np.float32)
    assert referenced(F, refs, [0, 1]) == []
    links = np.array([True, False, False])
    assert referenced(F, refs, [0, 1], links=links) == [2]
    assert referenced(F, refs, [1, 0], links=np.array([False, True, False])) == []  # film is no link
    assert referenced(F, refs, [0], links=links) == [1]  # of the tables it refers to, the best cover
    assert referenced(F * 0.4, refs, [0, 1], links=links) == []  # nothing covered at the floor
    from jar_core.strategies.auto_k import auto_select

    w = np.zeros((n, n), dtype=np.float32)
    w[0, 1] = w[1, 0] = w[0, 2] = w[2, 0] = 1.0
    s = sig([0.59, 0.47, 0.22], w, np.array([[0.88, 0.70, 0.50], [0.1, 0.7, 0.1]]))
    s.subqueries, s.references = ["film category", "film"], refs
    assert auto_select(GreedyStrategy(3, 1, 4), s, 3).order == [1, 0]
    s.links = links
    sel = auto_select(GreedyStrategy(3, 1, 4), s, 3)
    assert sel.order == [1, 0, 2] and sel.references == [2]


def test_link_tables_are_named_after_what_they_link_and_describe_nothing():
    r = TableRetriever.from_ddl(
        "CREATE TABLE film (film_id int PRIMARY KEY, title text);"
        "CREATE TABLE category (category_id int PRIMARY KEY, name text);"
        "CREATE TABLE customer (customer_id int PRIMARY KEY, name text);"
        "CREATE TABLE film_category (film_id int REFERENCES film, category_id int REFERENCES category,"
        " last_update timestamp, PRIMARY KEY (film_id, category_id));"
        # refers to two tables with nothing of its own, but records events: not named after them
        "CREATE TABLE rental (rental_id int PRIMARY KEY, rental_date timestamp,"
        " film_id int REFERENCES film, customer_id int REFERENCES customer);"
        # named after what it links, but describes something
        "CREATE TABLE film_customer (film_id int REFERENCES film, customer_id int REFERENCES customer,"
        " rating text);"
        # named after one table only, which it refers to once
        "CREATE TABLE film_note (note_id int PRIMARY KEY, film_id int REFERENCES film);",
        embedder=BagOfWordsEmbedder())
    links = r.index.link_tables()
    assert [t.name for t, link in zip(r.schema.tables, links) if link] == ["film_category"]
    sig = r.signals("films by category", ["film category"])
    names = [r.schema.tables[int(c)].name for c in sig.candidates]
    assert [n for n, link in zip(names, sig.links) if link] == ["film_category"]
    assert r.with_options(joins="paper").signals("films by category", ["film category"]).links is None


def test_a_referenced_table_says_why_it_is_there():
    r = TableRetriever.from_ddl(
        "CREATE TABLE actor (actor_id int PRIMARY KEY, first_name text, last_name text);"
        "CREATE TABLE film (film_id int PRIMARY KEY, title text, release_year int);"
        "CREATE TABLE film_actor (actor_id int REFERENCES actor, film_id int REFERENCES film,"
        " PRIMARY KEY (actor_id, film_id));", embedder=BagOfWordsEmbedder())
    sig = r.signals("actors of a film", ["actor", "film"])
    names = [r.schema.tables[int(c)].name for c in sig.candidates]
    fa, a = names.index("film_actor"), names.index("actor")
    assert sig.references[fa, a] and not sig.references[a, fa]
    from jar_core.strategies import Selection

    sel = Selection(order=[fa, a], references=[a])
    res = r._result("actors of a film", r.decomposer.decompose("actors", r.schema), sig, sel, r.strategy, 0, [])
    assert [t.reason for t in res.tables][1] == "reference" and res.to_dict()["tables"][1]["reason"] == "reference"


def test_time_values_script_builds_an_index_and_finds_a_name_one_letter_off():
    row = load_script("time_values").one(20, 5)  # 2 tables of 10 text columns, 5 names each
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[:3] == ["20", "5", "100"] and float(cells[3]) >= 0 and float(cells[5]) > 0


_COPIES = """
CREATE TABLE terms (term_code text PRIMARY KEY, term_description text, start_date date, end_date date);
CREATE TABLE course_catalog (term_code text REFERENCES terms, subject_id text, subject_title text, units int,
    prerequisites text, instructors text, department_code text, department_name text, description text);
CREATE TABLE drupal_course_catalog (so_term_code text, subject_id text, subject_title text, units int,
    prerequisites text, instructors text, department_code text, department_name text, description text);
CREATE TABLE buildings (building_key int PRIMARY KEY, building_name text);
"""


def test_near_copies_are_tables_of_one_database_with_nearly_the_same_columns():
    r = TableRetriever.from_ddl(_COPIES, embedder=BagOfWordsEmbedder())
    s = r.signals("courses and terms", [])
    names = [r.schema.tables[int(c)].name for c in s.candidates]
    pairs = {(names[i], names[j]) for i, j in zip(*np.nonzero(s.near_copies))}
    # 8 of 10 column names shared: a Jaccard index of 0.8
    assert pairs == {("course_catalog", "drupal_course_catalog"), ("drupal_course_catalog", "course_catalog")}


def _twins(join_of_copy: float) -> Signals:
    # 0: the table the search seeds with, 1: its near copy, 2: the table chosen beside it
    s = sig([0.60, 0.58, 0.50], [[0, 0, 0.87], [0, 0, join_of_copy], [0.87, join_of_copy, 0]],
            F=[[0.9, 0.9, 0.1], [0.1, 0.1, 0.9]])
    s.near_copies = np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]], dtype=bool)
    return s


def test_a_near_copy_that_joins_the_rest_more_surely_takes_the_seeds_place():
    got = JoinAwareStrategy().select(_twins(0.97), 2)
    assert got.order == [1, 2] and got.replaced == {1: 0}
    assert got.steps[0].candidate == 1 and got.steps[0].join == pytest.approx(0.97)
    # without the step, or with a copy that joins no better, the search's choice stays
    assert JoinAwareStrategy(near_copies=False).select(_twins(0.97), 2).order == [0, 2]
    same = JoinAwareStrategy().select(_twins(0.87), 2)
    assert same.order == [0, 2] and same.replaced == {}
    # the paper's greedy has no such step
    assert GreedyStrategy().select(_twins(0.97), 2).order == [0, 2]


def test_a_near_copy_says_which_table_it_replaced():
    r = TableRetriever.from_ddl(_COPIES, embedder=BagOfWordsEmbedder())
    s = r.signals("course titles and term descriptions", [])
    names = [r.schema.tables[int(c)].name for c in s.candidates]
    cc, dc, t = names.index("course_catalog"), names.index("drupal_course_catalog"), names.index("terms")
    from jar_core.output.render import result_text
    from jar_core.strategies import Selection

    sel = Selection(order=[cc, t], replaced={cc: dc})
    res = r._result("course titles", r.decomposer.decompose("course titles", r.schema), s, sel, r.strategy, 0, [])
    assert res.tables[0].reason == "near copy" and res.tables[0].replaced == "main.drupal_course_catalog"
    assert res.to_dict()["tables"][0]["replaced"] == "main.drupal_course_catalog"
    assert res.to_dict()["tables"][1]["replaced"] == "" and res.tables[1].reason != "near copy"
    assert "near copy of main.drupal_course_catalog" in result_text(res, explain=True)


def test_columns_that_many_tables_hold_make_no_near_copies():
    # every table keeps its bookkeeping columns (AdventureWorks' ModifiedDate, rowguid, Name): a
    # category and its subcategories share them and the category's key, and are no copies
    book = "name text, rowguid uuid, modified_date timestamp"
    ddl = (f"CREATE TABLE product_category (product_category_id int PRIMARY KEY, {book});"
           f"CREATE TABLE product_subcategory (product_subcategory_id int PRIMARY KEY, product_category_id int, {book});"
           f"CREATE TABLE product (product_id int PRIMARY KEY, product_subcategory_id int, {book});"
           f"CREATE TABLE vendor (vendor_id int PRIMARY KEY, {book});")
    r = TableRetriever.from_ddl(ddl, embedder=BagOfWordsEmbedder())
    s = r.signals("product categories", [])
    assert not s.near_copies.any()


def test_a_central_table_gains_the_join_sum():
    # as in test_connection_gain_does_not_favour_hubs, but table 2 is central (most of its
    # database references it): it gains the paper's sum of its joins, the others their best join
    w = np.array([[0, 0.9, 0.9, 0.9], [0.9, 0, 0.9, 0.0], [0.9, 0.9, 0, 0], [0.9, 0, 0, 0]], dtype=float)
    s = sig([0.9, 0.85, 0.1, 0.3], w)
    s.central = np.array([False, False, True, False])
    assert JoinAwareStrategy(0, 1, 1, bridges=False).select(s, 3).order == [0, 1, 2]
    assert JoinAwareStrategy(0, 1, 1, bridges=False, central_sum=False).select(s, 3).order == [0, 1, 3]


def test_central_tables_are_read_off_the_join_graph():
    from jar_core.loaders import load_ddl
    from jar_core.signals.central import central_tables

    ddl = """
    CREATE TABLE admissions (hadm_id INTEGER PRIMARY KEY, subject_id INTEGER, admittime TEXT);
    CREATE TABLE diagnoses (row_id INTEGER PRIMARY KEY, hadm_id INTEGER REFERENCES admissions(hadm_id), icd9_code TEXT);
    CREATE TABLE prescriptions (row_id INTEGER PRIMARY KEY, hadm_id INTEGER REFERENCES admissions(hadm_id), drug TEXT);
    CREATE TABLE transfers (row_id INTEGER PRIMARY KEY, hadm_id INTEGER REFERENCES admissions(hadm_id), ward TEXT);
    CREATE TABLE wards (ward_id INTEGER PRIMARY KEY, name TEXT);
    """
    r = TableRetriever(load_ddl(ddl), embedder=BagOfWordsEmbedder())
    names = [t.name for t, c in zip(r.schema.tables, central_tables(r.index)) if c]
    assert names == ["admissions"]  # 3 of the 4 other tables reference it; no other table is referenced
    small = TableRetriever(load_ddl(ddl.split("CREATE TABLE prescriptions")[0]), embedder=BagOfWordsEmbedder())
    assert not central_tables(small.index).any()  # two tables: no central table (fewer than 4)
    # a third of the other tables is enough: courses, referenced by 2 of the 6 others (a half would need 3)
    school = """
    CREATE TABLE courses (course_id INTEGER PRIMARY KEY, title TEXT);
    CREATE TABLE offerings (offering_id INTEGER PRIMARY KEY, course_id INTEGER REFERENCES courses(course_id));
    CREATE TABLE prerequisites (row_id INTEGER PRIMARY KEY, course_id INTEGER REFERENCES courses(course_id));
    CREATE TABLE rooms (room_id INTEGER PRIMARY KEY, building TEXT);
    CREATE TABLE bookings (row_id INTEGER PRIMARY KEY, room_id INTEGER REFERENCES rooms(room_id), day TEXT);
    CREATE TABLE students (student_id INTEGER PRIMARY KEY, name TEXT);
    CREATE TABLE terms (term_id INTEGER PRIMARY KEY, name TEXT);
    """
    r = TableRetriever(load_ddl(school), embedder=BagOfWordsEmbedder())
    names = [t.name for t, c in zip(r.schema.tables, central_tables(r.index)) if c]
    assert names == ["courses"]  # rooms: referenced by 1 of 6, not a third


def test_a_link_table_is_no_more_relevant_than_the_tables_it_links():
    from jar_core.signals.link_relevance import link_relevance

    # 0 author, 1 publication, 2 domain, 3 domain_author (links 0 and 2), 4 writes (links 0 and 1,
    # but is named after neither: no link table). domain_author's name echoes "author": it is more
    # similar to the question than author itself, yet a question about authors' papers needs writes
    w = np.zeros((5, 5))
    for a, b in ((3, 0), (3, 2), (4, 0), (4, 1)):
        w[a, b] = w[b, a] = 0.97
    s = sig([0.33, 0.34, 0.19, 0.45, 0.22], w)
    s.links = np.array([False, False, False, True, False])
    s.references = np.zeros((5, 5), dtype=bool)
    for a, b in ((3, 0), (3, 2), (4, 0), (4, 1)):
        s.references[a, b] = True
    np.testing.assert_allclose(link_relevance(s), [0.33, 0.34, 0.19, 0.19, 0.22])  # capped at domain's
    assert set(JoinAwareStrategy(0, 1, 4).select(s, 3).order) == {0, 1, 4}
    assert 3 in JoinAwareStrategy(0, 1, 4, link_relevance=False).select(s, 3).order
    # a link table with one end among the candidates keeps its relevance (the other end's is unknown)
    s.references[3, 2] = False
    assert link_relevance(s)[3] == pytest.approx(0.45)


COURSES = """
CREATE TABLE course (course_id INT PRIMARY KEY, name TEXT, department TEXT, number INT, credits INT);
CREATE TABLE course_offering (offering_id INT PRIMARY KEY, course_id INT REFERENCES course (course_id),
                              semester TEXT, start_time TEXT, end_time TEXT);
CREATE TABLE instructor (instructor_id INT PRIMARY KEY, name TEXT, uniqname TEXT);
CREATE TABLE offering_instructor (offering_id INT REFERENCES course_offering (offering_id),
                                  instructor_id INT REFERENCES instructor (instructor_id));
CREATE TABLE program (program_id INT PRIMARY KEY, name TEXT, number_of_courses INT);
"""


def test_a_bare_number_points_to_the_column_named_as_a_number():
    from jar_core.candidates.values import NUMBER_WEIGHT, TIME_WEIGHT, ValueIndex, match_values
    from jar_core.loaders import load_ddl

    schema = load_ddl(COURSES)
    vi = ValueIndex.from_schema(schema)

    def found(question):
        return [(m.span, schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name, m.weight)
                for m in match_values(vi, question)]

    # the course's number, not the program's count of courses (and the offering's time: the
    # questions ask when)
    assert found("Is Prof. Donia teaching 452 next Winter?") == [
        ("452", "course", "number", NUMBER_WEIGHT), ("next winter", "course_offering", "start_time", TIME_WEIGHT)]
    assert found("NURS 610 was last offered when?") == [
        ("610", "course", "number", NUMBER_WEIGHT), ("when", "course_offering", "start_time", TIME_WEIGHT)]
    # a count, a limit, a time, a share or a year is no thing's number
    for question in ("Which courses have more than 100 students?", "What are the top 20 courses?",
                     "What are the 10 most popular courses?", "Is there a section after 14:45?",
                     "Which courses start at 10 each day?", "Which courses pass 45% of students?",
                     "Which courses were offered in 2016?"):
        assert not [f for f in found(question) if f[1] == "course"], question


TERMS = COURSES.replace("semester TEXT,", "semester INT REFERENCES semester (semester_id),") + """
CREATE TABLE semester (semester_id INT PRIMARY KEY, semester TEXT, year INT);
CREATE TABLE program_course (program_id INT REFERENCES program (program_id),
                             course_id INT REFERENCES course (course_id), workload INT);
"""


def test_a_question_asking_when_points_to_the_dates():
    from jar_core.candidates.values import MAX_TABLES, TIME_WEIGHT, ValueIndex, match_values
    from jar_core.loaders import load_ddl

    schema = load_ddl(TERMS)
    vi = ValueIndex.from_schema(schema)

    def hints(question):
        return {(m.span, schema.tables[m.table].name, schema.tables[m.table].columns[m.column].name, m.weight)
                for m in match_values(vi, question) if m.hint}

    # the semester's year, and the offering's time (the first date of a table without a year)
    for question, word in (("Algebra, when was it last offered?", "when"),
                           ("Who has taught Algebra most recently?", "most recently"),
                           ("Who taught Algebra in the past?", "in the past"),
                           ("Which instructor teaches Algebra this Fall?", "this fall"),
                           ("For the last time she taught Algebra, was there an exam?", "the last time")):
        assert hints(question) == {(word, "semester", "year", TIME_WEIGHT),
                                   (word, "course_offering", "start_time", TIME_WEIGHT)}, question
    # how recently asks for a date: not a time of day's column ('when' may ask for either)
    timed = load_ddl(TERMS.replace("start_time TEXT", "start_time TIME"))
    vt = ValueIndex.from_schema(timed)
    recent = {(timed.tables[m.table].name, m.span) for m in match_values(vt, "Who taught Algebra most recently?")}
    assert recent == {("semester", "most recently")}
    assert {timed.tables[m.table].name for m in match_values(vt, "When is Algebra taught?")} == {
        "semester", "course_offering"}
    # no time asked ('last name'); a year is a hint of its own, not asked twice
    assert hints("What is the last name of the instructor?") == set()
    assert {h[0] for h in hints("When was Algebra offered in 2016?")} == {"2016"}
    # dates in more tables than MAX_TABLES tell nothing
    ddl = "".join(f"CREATE TABLE t{i} (id INT, created DATE);" for i in range(MAX_TABLES + 1))
    assert match_values(ValueIndex.from_schema(load_ddl(ddl)), "When was item 4 made?") == []
    one = ValueIndex.from_schema(load_ddl(ddl.split(";")[0]))
    assert [m.span for m in match_values(one, "When was item 4 made?")] == ["when"]


def test_a_question_asking_when_brings_the_table_of_terms(monkeypatch):
    from jar_core.candidates import values
    from jar_core.loaders import load_ddl

    question = "When was Algebra last offered?"
    schema = load_ddl(TERMS)
    hinted = TableRetriever(schema, embedder=BagOfWordsEmbedder(), lexical=0).retrieve(question, k=3)
    assert set(hinted.table_names) == {"semester", "course_offering", "course"}
    monkeypatch.setattr(values, "TIME_WEIGHT", 0.0)
    plain = TableRetriever(schema, embedder=BagOfWordsEmbedder(), lexical=0).retrieve(question, k=3)
    assert "semester" not in plain.table_names


def test_a_number_in_every_table_tells_nothing():
    from jar_core.candidates.values import MAX_TABLES, ValueIndex, match_values
    from jar_core.loaders import load_ddl

    ddl = "".join(f"CREATE TABLE t{i} (id INT, item_no INT);" for i in range(MAX_TABLES + 1))
    vi = ValueIndex.from_schema(load_ddl(ddl))
    assert match_values(vi, "Where is item 452?") == []
    vi = ValueIndex.from_schema(load_ddl(ddl.split(";")[0]))
    assert [m.span for m in match_values(vi, "Where is item 452?")] == ["452"]


def test_a_bare_number_brings_the_table_that_keeps_it(monkeypatch):
    from jar_core.candidates import values
    from jar_core.loaders import load_ddl

    question = "Is Prof. Donia teaching 452 next Winter?"
    schema = load_ddl(COURSES)
    r = TableRetriever(schema, embedder=BagOfWordsEmbedder(), lexical=0)
    res = r.retrieve(question, k=3)
    assert "course" in res.table_names
    assert any(m["table"].endswith("course") and m["column"] == "number" for m in res.value_matches)
    # the hint alone brings it where every join weighs alike (parents first would bring the
    # offering's course too)
    alike = JoinAwareStrategy(child_share=1.0)
    hinted = TableRetriever(schema, embedder=BagOfWordsEmbedder(), lexical=0, strategy=alike)
    assert "course" in hinted.retrieve(question, k=3).table_names
    monkeypatch.setattr(values, "NUMBER_WEIGHT", 0.0)
    plain = TableRetriever(schema, embedder=BagOfWordsEmbedder(), lexical=0, strategy=alike)
    assert "course" not in plain.retrieve(question, k=3).table_names
