"""Join inference (jar_core.joins): each rule on a small hand-made schema, one row per case."""
from __future__ import annotations

import sys

import numpy as np
import pytest
from helpers import load_script

from jar_core.joins import build_join_graph
from jar_core.joins.graph import AMBIGUOUS, EVIDENCE, MAX_VALUE_TIES, THROUGH_KEY
from jar_core.joins.words import abbreviates, sample_class, words
from jar_core.schema import Column, ForeignKey, Schema, Table


def T(name: str, *cols: Column | str, db: str = "d", fks: tuple[ForeignKey, ...] = ()) -> Table:
    return Table(db, name, [c if isinstance(c, Column) else Column(c, "int") for c in cols], list(fks))


def edges(schema: Schema, **kw) -> dict[str, tuple[float, str]]:
    """``{"a.x = b.y": (confidence, evidence)}`` with the two ends sorted."""
    g = build_join_graph(schema, **kw)
    names = [(t.name, c.name) for t in schema.tables for c in t.columns]
    out = {}
    for a, b, conf, ev in zip(g.a, g.b, g.confidence, g.evidence):
        x, y = sorted((f"{names[a][0]}.{names[a][1]}", f"{names[b][0]}.{names[b][1]}"))
        out[f"{x} = {y}"] = (round(float(conf), 3), EVIDENCE[ev])
    return out


def ints(*v: int) -> tuple[int, ...]:
    return tuple(v)


TPCH = Schema([
    T("customer", Column("c_custkey", "int", unique_ratio=1.0, sample=ints(*range(1, 11))), Column("c_name", "text"),
      Column("c_nationkey", "int", sample=ints(1, 2, 3, 4, 5))),
    T("orders", Column("o_orderkey", "int", unique_ratio=1.0, sample=ints(*range(1, 11))),
      Column("o_custkey", "int", sample=ints(1, 2, 3, 7)), Column("o_shippriority", "int", sample=ints(0))),
    T("nation", Column("n_nationkey", "int", unique_ratio=1.0, sample=ints(*range(0, 25))), Column("n_name", "text"),
      Column("n_regionkey", "int", sample=ints(0, 1, 2, 3, 4))),
    T("region", Column("r_regionkey", "int", unique_ratio=1.0, sample=ints(0, 1, 2, 3, 4)), Column("r_name", "text")),
    T("lineitem", Column("l_orderkey", "int", sample=ints(1, 1, 2, 3)), Column("l_linenumber", "int", sample=ints(1, 2, 3, 4)),
      Column("l_quantity", "int", sample=ints(5, 6, 7))),
])

TPCDS = Schema([
    T("catalog_returns", "cr_returned_date_sk", "cr_item_sk", "cr_reason_sk", "cr_return_quantity"),
    T("reason", "r_reason_sk", Column("r_reason_id", "text"), Column("r_reason_desc", "text")),
    T("item", "i_item_sk", Column("i_item_id", "text"), Column("i_product_name", "text")),
    T("store", "s_store_sk", Column("s_store_name", "text")),
    T("date_dim", "d_date_sk", "d_year"),
    T("store_sales", "ss_sold_date_sk", "ss_item_sk", "ss_store_sk", "ss_cdemo_sk", "ss_addr_sk"),
    T("customer_demographics", "cd_demo_sk", Column("cd_gender", "text")),
    T("household_demographics", "hd_demo_sk", "hd_dep_count"),
    T("customer_address", "ca_address_sk", Column("ca_city", "text")),
])


@pytest.mark.parametrize(
    "schema,edge,evidence",
    [
        (TPCH, "customer.c_custkey = orders.o_custkey", "same name"),  # prefixed warehouse names
        (TPCH, "customer.c_nationkey = nation.n_nationkey", "same name"),
        (TPCH, "nation.n_regionkey = region.r_regionkey", "same name"),
        (TPCH, "lineitem.l_orderkey = orders.o_orderkey", "same name"),
        (TPCDS, "catalog_returns.cr_reason_sk = reason.r_reason_sk", "same name"),
        (TPCDS, "catalog_returns.cr_item_sk = item.i_item_sk", "same name"),
        (TPCDS, "catalog_returns.cr_returned_date_sk = date_dim.d_date_sk", "role"),  # a role before the key
        (TPCDS, "date_dim.d_date_sk = store_sales.ss_sold_date_sk", "role"),
        (TPCDS, "store.s_store_sk = store_sales.ss_store_sk", "same name"),
        (TPCDS, "customer_demographics.cd_demo_sk = store_sales.ss_cdemo_sk", "abbreviation"),
        (TPCDS, "customer_address.ca_address_sk = store_sales.ss_addr_sk", "abbreviation"),
    ],
)
def test_naming_conventions_find_the_key(schema, edge, evidence):
    got = edges(schema)
    assert edge in got, sorted(got)
    assert got[edge][1] == evidence


@pytest.mark.parametrize(
    "schema,wrong",
    [
        (TPCH, "nation.n_nationkey = orders.o_shippriority"),  # a one-value column lies inside any key
        (TPCH, "customer.c_custkey = lineitem.l_linenumber"),  # numbers 1..n, no key name
        (TPCH, "customer.c_custkey = orders.o_orderkey"),  # two surrogate keys 1..n
        (TPCH, "lineitem.l_quantity = orders.o_orderkey"),
        (TPCDS, "catalog_returns.cr_reason_sk = item.i_item_sk"),
        (TPCDS, "item.i_product_name = store.s_store_name"),
        (TPCDS, "household_demographics.hd_demo_sk = store_sales.ss_cdemo_sk"),  # cdemo is cd_demo_sk
    ],
)
def test_no_join_where_nothing_supports_one(schema, wrong):
    assert wrong not in edges(schema)


def test_entity_and_same_name_conventions():
    s = Schema([
        T("customer", "id", Column("name", "text")),
        T("orders", "id", "customer_id", "total"),
        T("Album", "AlbumId", "Title"),
        T("Track", "TrackId", "AlbumId", "Milliseconds"),
        T("country", Column("Code", "text"), Column("Name", "text")),
        T("city", "ID", Column("CountryCode", "text")),
    ])
    got = edges(s)
    assert got["customer.id = orders.customer_id"][1] == "entity"
    assert got["Album.AlbumId = Track.AlbumId"][1] == "same name"
    assert got["city.CountryCode = country.Code"][1] == "entity"
    assert "customer.id = orders.id" not in got and "Album.AlbumId = Track.TrackId" not in got


def test_surrogate_keys_do_not_join_on_their_values():
    one_to_ten = ints(*range(1, 11))
    s = Schema([
        T("Customer", Column("CustomerId", "int", primary_key=True, unique_ratio=1.0, sample=one_to_ten),
          Column("SupportLevelId", "int", sample=ints(3, 4, 5))),
        T("Artist", Column("ArtistId", "int", primary_key=True, unique_ratio=1.0, sample=one_to_ten)),
        T("Employee", Column("EmployeeId", "int", primary_key=True, unique_ratio=1.0, sample=one_to_ten)),
    ])
    got = edges(s)
    assert "Artist.ArtistId = Customer.CustomerId" not in got
    assert "Artist.ArtistId = Employee.EmployeeId" not in got
    # a key-named referencing column whose values lie inside one key: an inclusion join, but the
    # three keys hold the same values, so it is tied between them and flagged as weak
    assert all(v[1] == "inclusion" for k, v in got.items() if "SupportLevelId" in k)
    # a person's role names its table of people, whatever the values (Chinook's SupportRepId)
    rep = Schema([T("Customer", *s.tables[0].columns[:1], Column("SupportRepId", "int", sample=ints(3, 4, 5))),
                  *s.tables[1:]])
    assert {k: v for k, v in edges(rep).items() if "SupportRepId" in k} == {
        "Customer.SupportRepId = Employee.EmployeeId": (0.84, "person")}  # values inside: + 0.04


@pytest.mark.parametrize(
    "ref_values,joined",
    [((1, 2, 3, 4), True), ((1, 2, 50, 60), False), ((1, 1), False)],  # inclusion / overlap / too few values
)
def test_value_inclusion_is_directional(ref_values, joined):
    s = Schema([
        T("person", Column("id", "int", primary_key=True, unique_ratio=1.0, sample=ints(*range(1, 11)))),
        T("friendship", Column("buddy_ref_id", "int", unique_ratio=0.5, sample=ref_values)),
    ])
    got = edges(s)
    assert ("friendship.buddy_ref_id = person.id" in got) is joined
    if joined:
        assert got["friendship.buddy_ref_id = person.id"][1] == "inclusion"


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


def test_declared_keys_first_and_the_bridge_table():
    s = Schema([
        T("Playlist", Column("PlaylistId", "int", primary_key=True)),
        T("Album", Column("AlbumId", "int", primary_key=True), "ArtistId"),
        T("Track", Column("TrackId", "int", primary_key=True), "AlbumId",
          fks=(ForeignKey(("AlbumId",), "d.Album", ("AlbumId",)),)),
        T("PlaylistTrack", Column("PlaylistId", "int", primary_key=True), Column("TrackId", "int", primary_key=True),
          fks=(ForeignKey(("PlaylistId",), "d.Playlist", ("PlaylistId",)), ForeignKey(("TrackId",), "d.Track", ("TrackId",)))),
    ])
    got = edges(s)
    assert got["Album.AlbumId = Track.AlbumId"] == (1.0, "declared")
    assert got["Playlist.PlaylistId = PlaylistTrack.PlaylistId"] == (1.0, "declared")
    assert got["PlaylistTrack.TrackId = Track.TrackId"] == (1.0, "declared")
    assert "Album.AlbumId = Playlist.PlaylistId" not in got


def test_no_join_across_databases_unless_asked():
    s = Schema([T("orders", "id", "customer_id", db="shop"), T("customer", "id", db="crm")])
    assert edges(s) == {}
    assert "customer.id = orders.customer_id" in edges(s, cross_database=True)


def test_database_name_is_not_part_of_the_name():
    # every column of database "customer" would otherwise look like it names the customer table
    s = Schema([T("customer", "id", db="customer"), T("orders", "id", "total", db="customer")])
    assert edges(s) == {}


def test_a_referencing_column_references_one_key():
    s = Schema([
        T("Genre", Column("GenreId", "int", primary_key=True, sample=ints(1, 2, 3, 4, 5))),
        T("MediaType", Column("MediaTypeId", "int", primary_key=True, sample=ints(1, 2, 3, 4, 5))),
        T("Track", "TrackId", Column("GenreId", "int", sample=ints(1, 2, 3))),
    ])
    got = edges(s)
    assert "Genre.GenreId = Track.GenreId" in got
    assert not any("MediaType" in e for e in got)


def test_flags_reference_nothing():
    s = Schema([T("terms", "term_code", "term_name"), T("courses", "course_id", "is_current_term", "term_code")])
    got = edges(s)
    assert "courses.term_code = terms.term_code" in got
    assert not any("is_current_term" in e for e in got)


def test_words():
    assert words("SupportRepId") == ["support", "rep", "id"]
    assert words("FCLT_ROOMS") == ["fclt", "room"]
    assert words("StuID") == ["stu", "id"]
    assert words("categories") == ["category"]


def test_candidate_joins_reads_the_graph():
    from jar_core.joins import candidate_joins

    g = build_join_graph(TPCH)
    offsets = np.concatenate([[0], np.cumsum([len(t.columns) for t in TPCH.tables])])
    w, cols, declared, evidence = candidate_joins(g, offsets, np.array([1, 0, 2]), len(TPCH.tables))
    assert w[0, 1] > 0.9 and w[0, 1] == w[1, 0]  # orders - customer
    assert tuple(cols[0, 1]) == (1, 0) and tuple(cols[1, 0]) == (0, 1)  # o_custkey = c_custkey
    assert w[0, 2] == 0 and tuple(cols[0, 2]) == (-1, -1)  # orders - nation: none
    assert not declared.any() and evidence[0, 2] == -1


def test_candidate_references_point_from_the_referencing_table_to_the_key():
    from jar_core.joins import candidate_join_matrices

    g = build_join_graph(TPCH)
    offsets = np.concatenate([[0], np.cumsum([len(t.columns) for t in TPCH.tables])])
    w, *_, refs = candidate_join_matrices(g, offsets, np.array([1, 0, 2]), len(TPCH.tables))
    assert refs[0, 1] and not refs[1, 0]  # orders.o_custkey refers to customer, not the other way
    assert not refs[0, 2] and not refs[2, 0]  # orders - nation: no join


# -- honest output ---------------------------------------------------------------------------
def _retriever(**kw):
    from helpers import BagOfWordsEmbedder

    from jar_core.retriever import TableRetriever

    ddl = """
    CREATE TABLE customers (customer_id INT, name TEXT, country TEXT);
    CREATE TABLE orders (order_id INT, customer_id INT, total REAL);
    CREATE TABLE warehouses (warehouse_code TEXT, city TEXT);
    """
    return TableRetriever.from_ddl(ddl, embedder=BagOfWordsEmbedder(), **kw)


def test_inferred_joins_are_marked_as_such():
    from jar_core.output.documents import result_documents

    res = _retriever().retrieve("orders total by customer name and warehouse city", k=3)
    assert set(res.table_names) == {"customers", "orders", "warehouses"}
    (edge,) = res.joins
    assert {edge.left, edge.right} == {"customers.customer_id", "orders.customer_id"}
    assert edge.kind == "inferred" and not edge.declared and edge.evidence == "same name"
    assert 0.5 <= edge.confidence < 1.0
    d = edge.to_dict()
    assert d["kind"] == "inferred" and d["confidence"] == pytest.approx(edge.confidence, abs=1e-6)
    assert d["evidence"] == "same name"
    assert res.unjoined == [t.id for t in res.tables if t.name == "warehouses"]
    clause = res.join_clause()
    assert "-- inferred joins (not declared in the schema; check them):" in clause
    assert "JOIN \"warehouses\"" not in clause
    keys = [k for doc in result_documents(res) for k in doc.metadata["join_keys"]]
    assert keys and all(k["kind"] == "inferred" and "confidence" in k for k in keys)


def test_min_join_score_drops_weak_joins():
    res = _retriever(min_join_score=0.99).retrieve("orders total by customer name", k=2)
    assert res.joins == [] and len(res.unjoined) == 2
    with pytest.raises(Exception, match="min_join_score"):
        _retriever(min_join_score=1.5)
    with pytest.raises(Exception, match="joins must be"):
        _retriever(joins="guess")


def test_ordinals_and_english_words_are_no_references():
    # credit_order: two values over 60 rows (an ordinal); page_count: "count" is not "country"
    book_authors = Table("d", "book_authors", [Column("book_id", "int"),
                                               Column("credit_order", "int", unique_ratio=2 / 60, sample=ints(1, 2))],
                         row_count=60)
    s = Schema([
        T("orders", Column("order_id", "int", primary_key=True)),
        T("countries", Column("country_id", "int", primary_key=True)),
        T("books", Column("book_id", "int", primary_key=True), "page_count"),
        book_authors,
    ])
    got = edges(s)
    assert not any("credit_order" in e or "page_count" in e for e in got), got
    assert "book_authors.book_id = books.book_id" in got


def test_tpch_in_duckdb_without_declared_keys(tmp_path):
    """A real database through ``duckdb:///``: no keys declared, real rows; the inferred joins are
    the TPC-H keys, and the one-value priority column joins nothing."""
    duckdb = pytest.importorskip("duckdb", reason="DuckDB is not installed (pip install 'jar-retrieval[duckdb]')")
    pytest.importorskip("duckdb_engine", reason="duckdb-engine is not installed (pip install 'jar-retrieval[duckdb]')")
    from jar_core.loaders import load_database

    path = tmp_path / "tpch.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE nation (n_nationkey INTEGER, n_name VARCHAR)")
    con.execute("CREATE TABLE customer (c_custkey INTEGER, c_name VARCHAR, c_nationkey INTEGER)")
    con.execute("CREATE TABLE orders (o_orderkey INTEGER, o_custkey INTEGER, o_shippriority INTEGER)")
    con.execute("CREATE TABLE lineitem (l_orderkey INTEGER, l_linenumber INTEGER, l_quantity INTEGER)")
    con.execute("INSERT INTO nation SELECT i, 'n' || i FROM range(0, 25) t(i)")
    con.execute("INSERT INTO customer SELECT i, 'c' || i, i % 25 FROM range(1, 151) t(i)")
    con.execute("INSERT INTO orders SELECT i, 1 + (i * 7) % 150, 0 FROM range(1, 601) t(i)")
    con.execute("INSERT INTO lineitem SELECT 1 + i // 4, 1 + i % 4, 1 + i % 50 FROM range(0, 2400) t(i)")
    con.close()
    schema = load_database(f"duckdb:///{path}")
    assert {t.id for t in schema.tables} == {"tpch.nation", "tpch.customer", "tpch.orders", "tpch.lineitem"}
    got = edges(schema)
    assert "customer.c_custkey = orders.o_custkey" in got
    assert "customer.c_nationkey = nation.n_nationkey" in got
    assert "lineitem.l_orderkey = orders.o_orderkey" in got
    assert not any("shippriority" in e or "linenumber" in e or "quantity" in e for e in got), got
    assert all(ev != "declared" for _, ev in got.values())


# -- across databases: blocked, capped -------------------------------------------------------
def _across(schema: Schema) -> dict[str, tuple[float, str]]:
    """The cross-database edges, named ``db.table.column`` (two ends sorted)."""
    g = build_join_graph(schema, cross_database=True)
    names = [(t.database, t.name, c.name) for t in schema.tables for c in t.columns]
    out = {}
    for a, b, conf, ev in zip(g.a, g.b, g.confidence, g.evidence):
        if names[a][0] != names[b][0]:
            x, y = sorted((".".join(names[a]), ".".join(names[b])))
            out[f"{x} = {y}"] = (round(float(conf), 3), EVIDENCE[ev])
    return out


def _concert(db: str) -> list[Table]:
    singers = ints(*range(1, 11))
    return [
        T("singer", Column("singer_id", "int", unique_ratio=1.0, sample=singers), Column("name", "text"), db=db),
        T("concert", Column("concert_id", "int", unique_ratio=1.0, sample=ints(*range(1, 7))), db=db),
        T("singer_in_concert", Column("concert_id", "int", sample=ints(1, 2, 3)),
          Column("singer_id", "int", sample=ints(2, 3, 5, 7)), db=db),
    ]


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
    from jar_core.joins.graph import MAX_CROSS_KEYS

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


def test_a_table_named_exactly_by_one_key_is_not_keyed_by_a_shorter_name():
    # building_address_key names the whole table; building_key there only starts its name: it is
    # a reference to building, not the address table's own key
    schema = Schema([
        T("building", "building_key", Column("building_name", "text")),
        T("building_address", "building_address_key", "building_key", Column("street", "text")),
        T("floor", "floor_key", "building_key", Column("floor_name", "text")),
    ])
    got = edges(schema)
    assert "building.building_key = floor.building_key" in got, sorted(got)
    assert got["building.building_key = floor.building_key"][1] == "same name"
    assert got["building.building_key = building_address.building_key"][1] == "same name"
    # two references to one key: siblings at most, never a key and its reference
    shared = got.get("building_address.building_key = floor.building_key")
    assert shared is None or shared[1] == "sibling"
    # a natural key without a key word stays a key beside the surrogate (Spider's model_list)
    cars = Schema([
        T("model_list", "ModelId", Column("Maker", "int"), Column("Model", "text", unique_ratio=1.0)),
        T("car_names", "MakeId", Column("Model", "text"), Column("Make", "text")),
    ])
    assert "car_names.Model = model_list.Model" in edges(cars)


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


def test_a_role_before_an_abbreviated_key_still_finds_it():
    # TPC-DS: ws_ship_cdemo_sk is the ship-to customer's demographics, cd_demo_sk; not hd_demo_sk
    s = Schema([
        T("customer_demographics", Column("cd_demo_sk", "int", primary_key=True), Column("cd_gender", "text")),
        T("household_demographics", Column("hd_demo_sk", "int", primary_key=True), "hd_dep_count"),
        T("web_sales", "ws_item_sk", "ws_ship_cdemo_sk", "ws_bill_hdemo_sk"),
    ])
    got = edges(s)
    assert got["customer_demographics.cd_demo_sk = web_sales.ws_ship_cdemo_sk"][1] == "abbreviation"
    assert got["household_demographics.hd_demo_sk = web_sales.ws_bill_hdemo_sk"][1] == "abbreviation"
    assert "household_demographics.hd_demo_sk = web_sales.ws_ship_cdemo_sk" not in got
    # two tables' own surrogate keys that share a name only without their prefixes do not join
    assert "customer_demographics.cd_demo_sk = household_demographics.hd_demo_sk" not in got


def test_the_key_named_after_its_table_is_the_reference():
    # Sakila: film_text is keyed by film_id too (a 1:1 table); film_actor.film_id is film's
    film = T("film", Column("film_id", "int", primary_key=True), Column("title", "text"))
    text = T("film_text", Column("film_id", "int", primary_key=True), Column("description", "text"))
    actor = T("film_actor", "actor_id", "film_id")
    got = edges(Schema([film, text, actor]))
    assert got["film.film_id = film_actor.film_id"][0] > AMBIGUOUS
    # no reference to film_text: at most two siblings, below every reference
    conf, evidence = got.get("film_actor.film_id = film_text.film_id", (0.0, "sibling"))
    assert evidence == "sibling" and conf < AMBIGUOUS
    assert got["film.film_id = film_text.film_id"][0] > AMBIGUOUS  # the 1:1 join itself stays


def test_a_tables_own_key_references_nothing_by_a_partial_name():
    # TPC-DS: web_page's key is not a catalog page ("page" is the end of both names)
    s = Schema([
        T("catalog_page", Column("cp_catalog_page_sk", "int", primary_key=True), Column("cp_type", "text")),
        T("web_page", Column("wp_web_page_sk", "int", primary_key=True), Column("wp_url", "text")),
    ])
    assert edges(s) == {}


def test_a_column_named_after_its_own_table_references_nothing_by_a_role():
    # TPC-DS: catalog_page.cp_catalog_page_number is the page's number, not a role ("catalog")
    # of a web page; a column of another table with those words still is a catalog page
    page = T("catalog_page", Column("cp_catalog_page_sk", "int", primary_key=True), "cp_catalog_page_number")
    web = T("web_page", Column("wp_web_page_sk", "int", primary_key=True), Column("wp_url", "text"))
    assert edges(Schema([page, web])) == {}
    returns = T("catalog_returns", "cr_item_sk", "cr_catalog_page_sk")
    got = edges(Schema([page, web, returns]))
    assert set(got) == {"catalog_page.cp_catalog_page_sk = catalog_returns.cr_catalog_page_sk"}


def test_a_column_named_after_its_own_table_is_its_attribute_not_a_copys_key():
    # BEAVER-DW: FAC_FLOOR.FLOOR is the floor's number; FCLT_FLOOR, another module's floor table,
    # goes by FLOOR too once the module prefixes are dropped, but that is no reference
    fac = T("FAC_FLOOR", Column("FLOOR_KEY", "text", primary_key=True), Column("FLOOR", "text"))
    fclt = T("FCLT_FLOOR", Column("FCLT_FLOOR_KEY", "text", primary_key=True), Column("FLOOR", "text"))
    assert not any(e.startswith("FAC_FLOOR.FLOOR =") or e.endswith("= FAC_FLOOR.FLOOR")
                   for e in edges(Schema([fac, fclt])))
    # a column of another table with that name still references the floor, and a column named
    # after its own table still references a table by that table's whole name
    rooms = T("FAC_ROOMS", Column("ROOM_KEY", "text", primary_key=True), Column("FLOOR", "text"))
    floor = T("FLOOR", Column("FLOOR_KEY", "text", primary_key=True), Column("LEVEL", "text"))
    got = edges(Schema([fac, rooms, floor]))
    assert "FAC_FLOOR.FLOOR = FLOOR.FLOOR_KEY" in got or "FLOOR.FLOOR_KEY = FAC_FLOOR.FLOOR" in got
    assert any("FAC_ROOMS.FLOOR" in e for e in got)


def test_names_that_meet_only_without_two_different_leading_words_do_not_join():
    # AdventureWorks as one database: PurchaseOrderID, SalesOrderID and WorkOrderID are all
    # "OrderID" once "Purchase", "Sales" and "Work" are dropped, yet a purchase order is no work order
    def pk(name: str) -> Column:
        return Column(name, "int", primary_key=True)

    tables = [
        T("WorkOrder", pk("WorkOrderID"), "StockedQty"),
        T("WorkOrderRouting", "WorkOrderID", "OperationSequence"),
        T("PurchaseOrderHeader", pk("PurchaseOrderID"), "ShipDate"),
        T("PurchaseOrderDetail", pk("PurchaseOrderDetailID"), "PurchaseOrderID", "OrderQty"),
        T("SalesOrderHeader", pk("SalesOrderID"), "DueDate"),
        T("SalesOrderDetail", pk("SalesOrderDetailID"), "SalesOrderID", "UnitPrice"),
    ]
    got = edges(Schema(tables))
    assert not any("WorkOrder" in e and ("PurchaseOrder" in e or "SalesOrder" in e) for e in got), got
    assert not any("PurchaseOrder" in e and "SalesOrder" in e for e in got), got
    # each detail still references its own header, and the routing its work order
    for a, b in (("PurchaseOrderDetail.PurchaseOrderID", "PurchaseOrderHeader.PurchaseOrderID"),
                 ("SalesOrderDetail.SalesOrderID", "SalesOrderHeader.SalesOrderID"),
                 ("WorkOrder.WorkOrderID", "WorkOrderRouting.WorkOrderID")):
        assert f"{a} = {b}" in got or f"{b} = {a}" in got, (a, b, got)


def test_a_leading_word_of_one_table_is_no_module_prefix():
    # AdventureWorks: EmailAddress.EmailAddressID is the e-mail address's own key, not a
    # reference to Address ("email" leads no other table: it names no module)
    email = T("EmailAddress", Column("EmailAddressID", "int", primary_key=True), "BusinessEntityID", "Email")
    address = T("Address", Column("AddressID", "int", primary_key=True), "City")
    assert edges(Schema([email, address])) == {}
    # a word that leads several tables is a module's (BEAVER-DW: FAC_BUILDING.FAC_BUILDING_KEY
    # is the building key a FAC_ table names without the prefix)
    building = T("FAC_BUILDING", Column("FAC_BUILDING_KEY", "text", primary_key=True), "BUILDING_NAME")
    floor = T("FAC_FLOOR", Column("FAC_FLOOR_KEY", "text", primary_key=True), "BUILDING_KEY")
    assert "FAC_FLOOR.BUILDING_KEY = FAC_BUILDING.FAC_BUILDING_KEY" in edges(Schema([building, floor])) or \
        "FAC_BUILDING.FAC_BUILDING_KEY = FAC_FLOOR.BUILDING_KEY" in edges(Schema([building, floor]))


def test_two_attributes_are_no_siblings_unless_a_table_is_their_entity():
    # Chinook / Northwind: customers.postal_code and employees.postal_code are two addresses' parts,
    # not two references to one key; the tables declare their keys and no table is a "postal" one
    def keyed(name: str, *cols: str) -> Table:
        return T(name, Column(f"{name}_id", "int", primary_key=True), *cols)

    got = edges(Schema([keyed("customer", "postal_code", "store_code"), keyed("employee", "postal_code", "store_code"),
                        T("store", Column("store_code", "text"), "city")]))
    assert not any("postal_code" in e for e in got), got
    # ... but when a table is their entity (a "store" table), they are two references to it
    assert any("customer.store_code" in e and "employee.store_code" in e for e in got), got
    # without declared keys (a warehouse of names only, BEAVER-DW's DLC_KEY) a sibling stays one,
    # but a postal address's or a telephone's parts are attributes all the same
    plain = edges(Schema([T("customer", "customer_id", "postal_code", "dlc_key", "PhoneNumber", "street_number"),
                          T("employee", "employee_id", "postal_code", "dlc_key", "PhoneNumber", "ca_street_number")]))
    assert any("dlc_key" in e for e in plain), plain
    assert not any(w in e for e in plain for w in ("postal_code", "PhoneNumber", "street_number")), plain
    # ... unless a table is one of them (BEAVER-DW's ZIP_CANADA, a table of postcodes)
    zips = edges(Schema([T("customer", "customer_id", "postal_code"), T("ZIP_CANADA", "POSTAL_CODE", "CITY")]))
    assert any("postal_code" in e and "ZIP_CANADA" in e for e in zips), zips


def test_an_email_address_is_no_address():
    # TPC-DS without keys: customer.c_email_address read as a role ('email') of an address
    addr = T("customer_address", "ca_address_sk", "ca_address_id", "ca_city")
    got = edges(Schema([T("customer", "c_customer_sk", "c_email_address", "c_current_addr_sk", "ip_address"), addr]))
    assert not any("email" in e or "ip_address" in e for e in got), got
    # a role before the entity still names it
    assert any("c_current_addr_sk" in e for e in got), got


def test_values_alone_that_fit_many_keys_join_nothing():
    # Chinook: SupportRepId holds 3, 4, 5, which every serial id of the database holds too (here a
    # name that no rule reads, so that the values alone speak)
    def entity(name: str) -> Table:
        return T(name, Column(f"{name}_id", "int", primary_key=True, unique_ratio=1.0, sample=ints(*range(1, 9))),
                 Column("label", "text"))

    rep = T("customer", Column("customer_id", "int", primary_key=True, unique_ratio=1.0, sample=ints(*range(1, 9))),
            Column("support_rep_ref_id", "int", unique_ratio=0.4, sample=ints(3, 4, 5)))
    few = [entity(n) for n in ("employee", "album")]
    many = [entity(n) for n in ("employee", "album", "genre", "artist")]
    got_few = edges(Schema([rep, *few]))
    assert sum("support_rep" in e for e in got_few) == len(few) <= MAX_VALUE_TIES
    assert all(got_few[e][1] == "inclusion" for e in got_few if "support_rep" in e)
    assert not any("support_rep" in e for e in edges(Schema([rep, *many])))


def run_join_keys_public(monkeypatch, capsys, *args: str) -> str:
    """What ``scripts/join_keys_public.py ARGS`` prints (it must exit 0)."""
    monkeypatch.setattr(sys, "argv", ["join_keys_public.py", *args])
    assert load_script("join_keys_public").main() == 0
    return capsys.readouterr().out


def test_public_schema_script_scores_inferred_joins_against_declared_ones(tmp_path, capsys, monkeypatch):
    # scripts/join_keys_public.py: declared keys are the truth, the graph is inferred without them
    ddl = tmp_path / "shop.sql"
    ddl.write_text(
        "CREATE TABLE customer (customer_id INT PRIMARY KEY, name TEXT);\n"
        "CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT REFERENCES customer(customer_id),"
        " placed_by INT REFERENCES customer(customer_id));\n")
    out = run_join_keys_public(monkeypatch, capsys, f"{ddl}:sqlite", "--list")
    # customer_id is found by its name; placed_by (a role no rule reads) is missed and listed
    assert "| shop.sql | primary | 2 | 2 | 1 | 100.0 | 100.0 | 50.0 |" in out
    assert "missed customer.customer_id = orders.placed_by" in out
    # a database made without keys (DuckDB's dbgen) is scored against a DDL file's keys
    import sqlite3

    con = sqlite3.connect(tmp_path / "shop.db")
    con.executescript("CREATE TABLE customer (customer_id INT, name TEXT);"
                      "CREATE TABLE orders (order_id INT, customer_id INT, placed_by INT);")
    con.executemany("INSERT INTO customer VALUES (?, ?)", [(i, f"c{i}") for i in range(1, 30)])
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)", [(i, i % 29 + 1, 1) for i in range(1, 60)])
    con.commit()
    con.close()
    out = run_join_keys_public(monkeypatch, capsys, f"sqlite:///{tmp_path / 'shop.db'}={ddl}:sqlite")
    assert "| shop.db (keys of shop.sql) | primary | 2 | 2 | 1 | 100.0 | 100.0 | 50.0 |" in out


def test_public_schema_script_joins_sql_schemas_and_counts_implied_joins(tmp_path, capsys, monkeypatch):
    # the SQL schemas of one DDL file are one catalog: the references across them are inferred;
    # two references of one key make an undeclared sibling join that is implied, not wrong
    ddl = tmp_path / "two.sql"
    ddl.write_text(
        "CREATE TABLE sales.customer (customer_id INT PRIMARY KEY, name TEXT);\n"
        "CREATE TABLE crm.visit (visit_id INT PRIMARY KEY, customer_id INT REFERENCES sales.customer(customer_id));\n"
        "CREATE TABLE sales.invoice (invoice_id INT PRIMARY KEY, customer_id INT REFERENCES sales.customer(customer_id));\n")
    out = run_join_keys_public(monkeypatch, capsys, f"{ddl}:postgres", "--list")
    assert "| two.sql | primary | 3 | 2 | 3 | 66.7 | 100.0 | 100.0 | 2 | 100.0 | 100.0 | 100.0 |" in out
    assert "implied 0.55 sibling      visit.customer_id -> invoice.customer_id" in out
    assert "wrong" not in out


def test_a_module_prefix_leaves_an_entity_not_a_generic_head_noun():
    from jar_core.loaders import load_ddl

    # AdventureWorks: AddressType.AddressTypeID and ContactType.ContactTypeID are two surrogate keys,
    # which met at 'typeid' once their first words were read as module prefixes
    s = load_ddl("""
    CREATE TABLE AddressType (AddressTypeID SERIAL PRIMARY KEY, Name TEXT);
    CREATE TABLE ContactType (ContactTypeID SERIAL PRIMARY KEY, Name TEXT);
    CREATE TABLE BusinessEntityAddress (BusinessEntityID INT, AddressID INT, AddressTypeID INT,
                                        PRIMARY KEY (BusinessEntityID, AddressID, AddressTypeID));
    CREATE TABLE LIBRARY_MATERIAL_STATUS (LIBRARY_MATERIAL_STATUS_KEY INT PRIMARY KEY, STATUS_NAME TEXT);
    CREATE TABLE TIP_MATERIAL_STATUS (TIP_MATERIAL_STATUS_KEY INT PRIMARY KEY, STATUS_NAME TEXT);
    """, dialect="postgres")
    g = build_join_graph(s)
    cols = [(t.name, c.name) for t in s.tables for c in t.columns]
    pairs = {(cols[a][0], cols[b][0]) for a, b in zip(g.a, g.b)}
    assert ("BusinessEntityAddress", "AddressType") in pairs
    assert not {("AddressType", "ContactType"), ("ContactType", "AddressType")} & pairs
    # two modules' status keys meet only without their (different) prefixes: two surrogate key
    # sequences, no join (test_a_leading_word_of_one_table_is_no_module_prefix: a module's
    # prefix is still dropped within the module)
    assert not {("LIBRARY_MATERIAL_STATUS", "TIP_MATERIAL_STATUS"), ("TIP_MATERIAL_STATUS", "LIBRARY_MATERIAL_STATUS")} & pairs



def test_self_references_a_hierarchy_inside_one_table():
    # a row placed under another row of its own table references that table's key; a person's
    # hierarchy word only in a table of people; nothing else in the name but the table
    from jar_core.loaders import load_ddl

    schema = load_ddl("""
    CREATE TABLE Employee (EmployeeId INT PRIMARY KEY, ReportsTo INT, manager_id INT, parent_category_id INT);
    CREATE TABLE ProductCategory (ProductCategoryID INT PRIMARY KEY, ParentProductCategoryID INT, Name TEXT);
    CREATE TABLE category (category_id INT PRIMARY KEY, name TEXT);
    CREATE TABLE item (i_item_sk INT PRIMARY KEY, i_manager_id INT);
    CREATE TABLE FAC_ORGANIZATION (ORGANIZATION_KEY TEXT, ORGANIZATION_NUMBER TEXT, ORG_PARENT_KEY TEXT);
    CREATE TABLE grid (x INT, y INT, parent_id INT, PRIMARY KEY (x, y));
    """)
    got = {e: v for e, v in edges(schema).items() if v[1] == "self"}
    assert got == {
        "Employee.EmployeeId = Employee.ReportsTo": (0.765, "self"),  # no key word: 0.9 * 0.85
        "Employee.EmployeeId = Employee.manager_id": (0.9, "self"),
        "ProductCategory.ParentProductCategoryID = ProductCategory.ProductCategoryID": (0.9, "self"),
        # of two keys named after the table, the one with the column's key word
        "FAC_ORGANIZATION.ORGANIZATION_KEY = FAC_ORGANIZATION.ORG_PARENT_KEY": (0.9, "self"),
    }
    everything = edges(schema)
    # an item's manager is a person, not an item: the one table of people's (the person rule)
    assert {e: v for e, v in everything.items() if "i_manager_id" in e} == {
        "Employee.EmployeeId = item.i_manager_id": (0.8, "person")}
    assert "Employee.parent_category_id = category.category_id" in everything  # a role, not a self-reference
    assert not any("grid." in e for e in everything)  # a table keyed by two columns


def test_a_hierarchy_with_few_distinct_values_is_still_a_self_reference():
    # Northwind's employees (9 rows) report to 2 managers: few values make a category of a
    # column without a key word, but not of a row's manager
    t = Table("d", "employees", [
        Column("employee_id", "int", primary_key=True, unique_ratio=1.0, sample=ints(*range(1, 10))),
        Column("reports_to", "int", unique_ratio=2 / 9, sample=ints(2, 5)),
        Column("title_rank", "int", unique_ratio=2 / 9, sample=ints(1, 2)),
    ], [], row_count=9)
    got = edges(Schema([t]))
    assert got == {"employees.employee_id = employees.reports_to": (0.765, "self")}
    # a flag by its name is still no reference
    flagged = Table("d", "employees", [t.columns[0], Column("is_reports_to", "int", sample=ints(2, 5))], [], row_count=9)
    assert edges(Schema([flagged])) == {}


def test_self_references_are_returned_with_the_table_not_as_a_join_between_tables(tmp_path):
    from jar_core.loaders import load_ddl
    from jar_core.output.render import result_text
    from jar_core.retriever import TableRetriever

    from helpers import BagOfWordsEmbedder

    ddl = """
    CREATE TABLE employee (employee_id INT PRIMARY KEY, name TEXT, reports_to INT);
    CREATE TABLE customer (customer_id INT PRIMARY KEY, name TEXT, support_rep_id INT REFERENCES employee(employee_id));
    CREATE TABLE category (category_id INT PRIMARY KEY, name TEXT, parent_id INT REFERENCES category(category_id));
    """
    r = TableRetriever(load_ddl(ddl), embedder=BagOfWordsEmbedder())
    res = r.retrieve("employee name and the employee they report to", k=1, include=["employee"])
    assert res.joins == [] and [str(j) for j in res.self_joins] == ["employee.reports_to = employee.employee_id"]
    assert res.self_joins[0].evidence == "self" and not res.self_joins[0].declared
    assert res.to_dict()["self_joins"][0]["left"] == "employee.reports_to"
    assert "-- self-joins (the table joined to itself under another alias): employee.reports_to = " \
           "employee.employee_id (inferred: self, 0.76)" in res.join_clause()
    assert "employee.reports_to = employee.employee_id  (self-join, inferred: self, 0.76)" in result_text(res)
    declared = r.retrieve("categories and their parent", k=1, include=["category"]).self_joins
    assert [(str(j), j.declared) for j in declared] == [("category.parent_id = category.category_id", True)]
    # the paper's joins read the declared ones from the schema
    paper = TableRetriever(load_ddl(ddl), embedder=BagOfWordsEmbedder(), joins="paper")
    assert [str(j) for j in paper.retrieve("categories", k=1, include=["category"]).self_joins] == [
        "category.parent_id = category.category_id"]


def test_a_table_name_without_a_word_is_no_module_prefix():
    # found by tests/test_fuzz.py: a table named by a private-use character has no first word
    schema = Schema([Table("main", "\ue000", [Column("id", "int")]), Table("main", "orders", [Column("id", "int")])])
    assert build_join_graph(schema).a.shape == (0,)


# -- composite keys ----------------------------------------------------------------------------
_TPCH_LIKE = """
CREATE TABLE part (p_partkey INT PRIMARY KEY, p_name TEXT, p_brand TEXT);
CREATE TABLE supplier (s_suppkey INT PRIMARY KEY, s_name TEXT);
CREATE TABLE partsupp (ps_partkey INT REFERENCES part(p_partkey), ps_suppkey INT REFERENCES supplier(s_suppkey),
                       ps_supplycost REAL, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE lineitem (l_orderkey INT, l_linenumber INT, l_partkey INT, l_suppkey INT, l_quantity REAL,
                       PRIMARY KEY (l_orderkey, l_linenumber),
                       FOREIGN KEY (l_partkey, l_suppkey) REFERENCES partsupp (ps_partkey, ps_suppkey));
CREATE TABLE version (version_id INT PRIMARY KEY, part_id INT, rev INT);
CREATE TABLE build (build_id INT PRIMARY KEY, part_id INT, rev INT,
                    FOREIGN KEY (part_id, rev) REFERENCES version (part_id, rev));
"""


def test_a_column_of_a_composite_key_still_references_its_own_entity():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_TPCH_LIKE))
    assert got["lineitem.l_partkey = partsupp.ps_partkey"] == (1.0, "declared")
    assert got["lineitem.l_suppkey = partsupp.ps_suppkey"] == (1.0, "declared")
    # the declared reference to partsupp leaves these unambiguous (not capped as uncertain)
    assert got["lineitem.l_suppkey = supplier.s_suppkey"] == (0.97, "same name")
    assert got["lineitem.l_partkey = part.p_partkey"] == (0.97, "same name")
    # a column of a single-column declared key gets no other join
    assert not any(e.startswith("partsupp.ps_suppkey = ") and "supplier" not in e for e in got)


def test_a_composite_key_joins_on_all_its_columns():
    from helpers import BagOfWordsEmbedder

    from jar_core.output.documents import result_documents
    from jar_core.loaders import load_ddl
    from jar_core.output.render import result_text, to_mermaid
    from jar_core.retriever import TableRetriever

    r = TableRetriever(load_ddl(_TPCH_LIKE), embedder=BagOfWordsEmbedder())
    res = r.retrieve("supply cost of each line item quantity", k=2, include=["partsupp", "lineitem"])
    (edge,) = res.joins
    assert edge.declared and sorted(edge.column_pairs) == sorted(
        [(a, b) if edge.left_table.name == "partsupp" else (b, a)
         for a, b in (("ps_partkey", "l_partkey"), ("ps_suppkey", "l_suppkey"))])
    assert str(edge).count(" AND ") == 1 and len(edge.to_dict()["columns"]) == 2
    clause = res.join_clause()
    assert '"partsupp"."ps_partkey" = "lineitem"."l_partkey"' in clause or \
        '"lineitem"."l_partkey" = "partsupp"."ps_partkey"' in clause
    assert '"partsupp"."ps_suppkey" = "lineitem"."l_suppkey"' in clause or \
        '"lineitem"."l_suppkey" = "partsupp"."ps_suppkey"' in clause
    assert " AND " in clause
    assert f"  {edge}  (declared)" in result_text(res)
    assert "l_suppkey" in to_mermaid(res) and "ps_suppkey" in to_mermaid(res)
    keys = [k for doc in result_documents(res) for k in doc.metadata["join_keys"]]
    assert keys and all(len(k["columns"]) == 2 for k in keys)
    # the paper's joins read the same declared key
    paper = TableRetriever(load_ddl(_TPCH_LIKE), embedder=BagOfWordsEmbedder(), joins="paper")
    (pedge,) = paper.retrieve("supply cost", k=2, include=["partsupp", "lineitem"]).joins
    assert len(pedge.column_pairs) == 2 and pedge.declared
    # a key of two columns to a table's two columns that are not its primary key
    (bedge,) = r.retrieve("builds of a part version", k=2, include=["build", "version"]).joins
    assert sorted(bedge.column_pairs) in ([("part_id", "part_id"), ("rev", "rev")],)


def test_a_persons_role_references_the_one_table_of_people():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl("""
    CREATE TABLE Employee (EmployeeId INT PRIMARY KEY, Name TEXT, LastEditedBy INT);
    CREATE TABLE Customer (CustomerId INT PRIMARY KEY, SupportRepId INT, created_by INT, AUTHOR TEXT);
    CREATE TABLE owners (owner_id INT PRIMARY KEY, name TEXT);
    CREATE TABLE dogs (dog_id INT PRIMARY KEY, owner_id INT, account_manager_id INT);
    """))
    # in the table of people itself too: whoever last edited an employee's row is an employee
    assert got["Employee.EmployeeId = Employee.LastEditedBy"] == (0.68, "person")
    assert got["Customer.SupportRepId = Employee.EmployeeId"] == (0.8, "person")
    assert got["Customer.created_by = Employee.EmployeeId"] == (0.68, "person")  # no key word: uncertain
    assert got["Employee.EmployeeId = dogs.account_manager_id"] == (0.8, "person")
    assert "Customer.AUTHOR = Employee.EmployeeId" not in got  # a bare role word is a name
    # a name that names its table wins (rule 6)
    assert got["dogs.owner_id = owners.owner_id"][1] == "same name"
    assert not any(e.startswith("Employee.EmployeeId = dogs.owner_id") for e in got)
    # several tables of people: nothing tells which one is meant
    several = edges(load_ddl("""
    CREATE TABLE Employee (EmployeeId INT PRIMARY KEY);
    CREATE TABLE Person (PersonId INT PRIMARY KEY);
    CREATE TABLE Customer (CustomerId INT PRIMARY KEY, SupportRepId INT);
    """))
    assert not any(v[1] == "person" for v in several.values())
    # an application's users (OpenStreetMap, Danbooru): tables named after users by a word before
    # their head noun hold blocks and roles, not people, and roles name what a user did to a row
    app = edges(load_ddl("""
    CREATE TABLE users (id BIGINT PRIMARY KEY, display_name TEXT);
    CREATE TABLE user_blocks (id BIGINT PRIMARY KEY, user_id BIGINT, creator_id BIGINT, revoker_id BIGINT);
    CREATE TABLE user_roles (id BIGINT PRIMARY KEY, user_id BIGINT, granter_id BIGINT);
    CREATE TABLE note_comments (id BIGINT PRIMARY KEY, author_id BIGINT, updater_id BIGINT, body TEXT);
    """, dialect="postgres"))
    for col in ("user_blocks.creator_id", "user_blocks.revoker_id", "user_roles.granter_id",
                "note_comments.author_id", "note_comments.updater_id"):
        assert app.get(f"{col} = users.id", (0, ""))[1] == "person", (col, app)
    assert not any(v[1] == "person" and ("user_blocks.id" in e or "user_roles.id" in e) for e, v in app.items()), app
    # the members of another table's rows (OpenStreetMap's relation_members, no keys declared:
    # its member_id reads as its own key) are no second table of people
    members = edges(load_ddl("""
    CREATE TABLE users (id BIGINT, display_name TEXT);
    CREATE TABLE relations (relation_id BIGINT, visible BOOLEAN);
    CREATE TABLE relation_members (relation_id BIGINT, member_id BIGINT, member_role TEXT);
    CREATE TABLE note_comments (id BIGINT, author_id BIGINT, body TEXT);
    """, dialect="postgres"))
    assert members.get("note_comments.author_id = users.id", (0, ""))[1] == "person", members
    assert not any("relation_members.member_id" in e and v[1] == "person" for e, v in members.items()), members
    # ... but a table of members with no such table beside it holds people
    team = edges(load_ddl("""
    CREATE TABLE team_members (member_id BIGINT, name TEXT);
    CREATE TABLE note_comments (id BIGINT, author_id BIGINT, body TEXT);
    """, dialect="postgres"))
    assert team.get("note_comments.author_id = team_members.member_id", (0, ""))[1] == "person", team
    # users beside machine_users (Simple) or gatekeeper_workers (Travis): the one named by a person
    # word alone; Person and Employee beside SalesPerson (several such): none
    plain = edges(load_ddl("""
    CREATE TABLE users (id BIGINT, full_name TEXT);
    CREATE TABLE machine_users (id BIGINT, name TEXT);
    CREATE TABLE teleconsultations (id BIGINT, requester_id BIGINT, notes TEXT);
    """, dialect="postgres"))
    assert plain.get("teleconsultations.requester_id = users.id", (0, ""))[1] == "person", plain
    assert not any("machine_users" in e and v[1] == "person" for e, v in plain.items()), plain
    # no table of people (TPC-DS's item.i_manager_id)
    none = edges(load_ddl("CREATE TABLE item (i_item_sk INT PRIMARY KEY, i_manager_id INT);"
                          "CREATE TABLE store (s_store_sk INT PRIMARY KEY, s_manager TEXT);"))
    assert not any(v[1] == "person" for v in none.values())


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


_ADDRESSES = """
CREATE TABLE targets (id uuid PRIMARY KEY, name text);
CREATE TABLE hosts (ip inet PRIMARY KEY, name text);
CREATE TABLE vm_scans (id uuid PRIMARY KEY, target inet, host_ip inet, period tstzrange, embedding vector(3));
CREATE TABLE windows (id int PRIMARY KEY, period tstzrange);
"""


def test_a_network_address_joins_only_an_address():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_ADDRESSES, dialect="postgres"))
    # an inet names the target, but holds an address, which no uuid key holds
    assert not any(e.startswith("targets.id = vm_scans.target") or e.startswith("vm_scans.target = targets.id")
                   for e in got), got
    assert got["hosts.ip = vm_scans.host_ip"][0] > 0.5, got  # an address may join an address
    # ranges and embeddings hold no key
    assert not any("period" in e or "embedding" in e for e in got), got


_KEYS_ONLY = """
CREATE TABLE part (p_partkey INT PRIMARY KEY, p_name TEXT);
CREATE TABLE supplier (s_suppkey INT PRIMARY KEY, s_name TEXT);
CREATE TABLE partsupp (ps_partkey INT, ps_suppkey INT, ps_supplycost REAL, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE lineitem (l_orderkey INT, l_linenumber INT, l_partkey INT, l_suppkey INT, l_quantity REAL,
                       PRIMARY KEY (l_orderkey, l_linenumber));
CREATE TABLE item (i_item_sk INT PRIMARY KEY);
CREATE TABLE web_sales (ws_item_sk INT, ws_order_number INT, PRIMARY KEY (ws_item_sk, ws_order_number));
CREATE TABLE catalog_sales (cs_item_sk INT, cs_order_number INT, PRIMARY KEY (cs_item_sk, cs_order_number));
CREATE TABLE web_returns (wr_item_sk INT, wr_order_number INT, PRIMARY KEY (wr_item_sk, wr_order_number));
"""


def test_a_reference_to_a_key_of_several_columns_is_inferred_on_all_of_them():
    from helpers import BagOfWordsEmbedder

    from jar_core.loaders import load_ddl
    from jar_core.retriever import TableRetriever

    got = edges(load_ddl(_KEYS_ONLY))
    # primary keys declared, no foreign keys: lineitem matches partsupp's key column for column
    assert got["lineitem.l_partkey = partsupp.ps_partkey"] == (0.85, "composite key")
    assert got["lineitem.l_suppkey = partsupp.ps_suppkey"] == (0.85, "composite key")
    assert got["lineitem.l_partkey = part.p_partkey"][1] == "same name"
    # web returns are of web sales (the table of their family), not of catalog sales
    assert got["web_returns.wr_order_number = web_sales.ws_order_number"] == (0.85, "composite key")
    assert got.get("catalog_sales.cs_order_number = web_returns.wr_order_number", (0, ""))[1] != "composite key"
    # part matches one column of partsupp's key only: it is referenced, it references nothing
    assert got["part.p_partkey = partsupp.ps_partkey"][1] == "same name"

    r = TableRetriever(load_ddl(_KEYS_ONLY), embedder=BagOfWordsEmbedder())
    (edge,) = r.retrieve("supply cost of each line item", k=2, include=["partsupp", "lineitem"]).joins
    assert not edge.declared and edge.evidence == "composite key"
    assert sorted(edge.column_pairs) == sorted(
        [(a, b) if edge.left_table.name == "lineitem" else (b, a)
         for a, b in (("l_partkey", "ps_partkey"), ("l_suppkey", "ps_suppkey"))])
    assert str(edge).count(" AND ") == 1
    # with part chosen too, the path takes the reference on both columns, not two joins through
    # part (a line item would meet the partsupp row of every supplier of its part)
    res = r.retrieve("supply cost of each line item part", k=3, include=["part", "lineitem", "partsupp"])
    assert sorted(e.evidence for e in res.joins) == ["composite key", "same name"]
    assert '"lineitem"."l_suppkey" = "partsupp"."ps_suppkey"' in res.join_clause()


def test_a_key_of_several_columns_matched_by_two_tables_of_no_family_is_uncertain():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl("""
    CREATE TABLE orders (order_id INT PRIMARY KEY);
    CREATE TABLE product (product_id INT PRIMARY KEY);
    CREATE TABLE offer_product (offer_id INT, product_id INT, PRIMARY KEY (offer_id, product_id));
    CREATE TABLE promo_product (offer_id INT, product_id INT, PRIMARY KEY (offer_id, product_id));
    CREATE TABLE order_line (order_id INT, line_no INT, offer_id INT, product_id INT,
                             PRIMARY KEY (order_id, line_no));
    """))
    assert got["offer_product.offer_id = order_line.offer_id"] == (AMBIGUOUS, "composite key")
    assert got["order_line.offer_id = promo_product.offer_id"] == (AMBIGUOUS, "composite key")


def test_a_key_named_by_its_tables_leading_word_answers_to_that_entity_only():
    # AdventureWorks without keys: ProductVendor.ProductID keys the table by its product; the
    # table is no kind of "vendor", so a header's VendorID does not reference it
    link = T("ProductVendor", "ProductID", "BusinessEntityID", "StandardPrice")
    header = T("PurchaseOrderHeader", "PurchaseOrderID", "VendorID", "OrderDate")
    got = edges(Schema([link, header, T("ProductPhoto", "ProductPhotoID", "Photo")]))
    assert not any("VendorID" in e for e in got), got
    # a key named by its table's head noun still answers to it (TPC-DS: customer_address's
    # ca_address_sk is the address key a customer's c_current_addr_sk references)
    address = T("customer_address", "ca_address_sk", "ca_city")
    customer = T("customer", "c_customer_sk", "c_current_address_sk")
    got = edges(Schema([address, customer]))
    assert any("c_current_address_sk" in e and "ca_address_sk" in e for e in got), got


def test_a_keyless_subtype_is_keyed_by_its_first_column_when_a_column_names_it():
    # AdventureWorks without keys: Person and Store are keyed by their supertype's BusinessEntityID;
    # Customer.PersonID / StoreID name them, so they reference that column
    def aw(person_first: Column | str = "BusinessEntityID") -> Schema:
        return Schema([
            T("BusinessEntity", "BusinessEntityID", "ModifiedDate"),
            T("Person", person_first, "PersonType", "FirstName"),
            T("Store", "BusinessEntityID", "Name"),
            T("EmailAddress", "BusinessEntityID", "EmailAddressID", "Email"),
            T("Customer", "CustomerID", "PersonID", "StoreID"),
        ])

    got = edges(aw())
    assert got["Customer.PersonID = Person.BusinessEntityID"][0] >= 0.9, got
    assert got["Customer.StoreID = Store.BusinessEntityID"][0] >= 0.9, got
    # the subtype's key answers to its table's names only: another BusinessEntityID still
    # references BusinessEntity, and a subtype references its supertype
    assert got["BusinessEntity.BusinessEntityID = EmailAddress.BusinessEntityID"][0] >= 0.9, got
    assert got["BusinessEntity.BusinessEntityID = Person.BusinessEntityID"][0] >= 0.9, got
    assert got.get("EmailAddress.BusinessEntityID = Person.BusinessEntityID", (0.0,))[0] < 0.74, got
    # a first column that repeats values (a database says so) keys nothing
    repeats = Column("BusinessEntityID", "int", unique_ratio=0.5)
    assert "Customer.PersonID = Person.BusinessEntityID" not in edges(aw(repeats))


def test_a_detail_tables_leading_reference_is_no_key_unless_a_column_names_the_table():
    # BEAVER-DW: IAP_SUBJECT_DETAIL starts with the category it references; no column names the
    # detail table, so the reference keeps its direction and nothing joins the detail by name
    category = T("IAP_SUBJECT_CATEGORY", "IAP_SUBJECT_CATEGORY_KEY", "CATEGORY_NAME")
    detail = T("IAP_SUBJECT_DETAIL", "IAP_SUBJECT_CATEGORY_KEY", "SUBJECT_ID", "TITLE")
    g = build_join_graph(Schema([category, detail]))
    names = [(t.name, c.name) for t in (category, detail) for c in t.columns]
    (a, b), = [(names[x], names[y]) for x, y in zip(g.a, g.b)]
    assert a[0] == "IAP_SUBJECT_DETAIL" and b[0] == "IAP_SUBJECT_CATEGORY", (a, b)


def test_a_table_and_its_archive_share_a_key_name_but_no_join():
    # AdventureWorks: TransactionHistoryArchive holds the rows moved out of TransactionHistory
    def pk(name: str) -> Column:
        return Column(name, "int", primary_key=True)

    got = edges(Schema([T("TransactionHistory", pk("TransactionID"), "ProductID"),
                        T("TransactionHistoryArchive", pk("TransactionID"), "ProductID"),
                        T("Product", pk("ProductID"), "Name")]))
    assert not any(e.count("TransactionID") == 2 for e in got), got
    assert got["Product.ProductID = TransactionHistoryArchive.ProductID"][0] >= 0.9, got
    # a table that extends another one row for row still joins it on the key (Sakila)
    got = edges(Schema([T("film", pk("film_id"), "title"), T("film_text", pk("film_id"), "description")]))
    assert "film.film_id = film_text.film_id" in got, got


def test_a_key_of_equal_evidence_in_the_table_the_column_names_wins_the_tie():
    # Chinook without keys: InvoiceLine.TrackId names Track, not PlaylistTrack, whose key (named
    # after its head noun) it matches as well; the link table's TrackId is a sibling below it
    chinook = Schema([T("Track", "TrackId", "Name"), T("Playlist", "PlaylistId", "Name"),
                      T("PlaylistTrack", "PlaylistId", "TrackId"), T("InvoiceLine", "InvoiceLineId", "TrackId")])
    got = edges(chinook)
    assert got["InvoiceLine.TrackId = Track.TrackId"][0] >= 0.9, got
    assert got.get("InvoiceLine.TrackId = PlaylistTrack.TrackId", (0.0,))[0] < 0.74, got
    # AdventureWorks: a bill-to address is an Address, not an EmailAddress (both keys named after
    # their tables, and "address" the head noun of both)
    aw = Schema([T("Address", "AddressID", "City"), T("EmailAddress", "EmailAddressID", "Email"),
                 T("SalesOrderHeader", "SalesOrderID", "BillToAddressID")])
    got = edges(aw)
    assert got["Address.AddressID = SalesOrderHeader.BillToAddressID"][0] >= 0.85, got
    assert not any("EmailAddressID" in e for e in got), got


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


# MIMIC-III's layout: every table keyed by a row number, the entities by columns declared unique
_MIMIC = """
CREATE TABLE patients (row_id INT NOT NULL, subject_id INT NOT NULL, gender VARCHAR(5),
  CONSTRAINT pat_rowid_pk PRIMARY KEY (row_id), CONSTRAINT pat_subid_unique UNIQUE (subject_id));
CREATE TABLE admissions (row_id INT NOT NULL, subject_id INT NOT NULL, hadm_id INT NOT NULL, admittime TIMESTAMP,
  CONSTRAINT adm_rowid_pk PRIMARY KEY (row_id), CONSTRAINT adm_hadm_unique UNIQUE (hadm_id));
CREATE TABLE icustays (row_id INT NOT NULL, subject_id INT NOT NULL, hadm_id INT NOT NULL, icustay_id INT NOT NULL,
  CONSTRAINT icustay_rowid_pk PRIMARY KEY (row_id));
CREATE TABLE chartevents (row_id INT NOT NULL, subject_id INT, hadm_id INT, icustay_id INT, valuenum FLOAT,
  CONSTRAINT chartevents_rowid_pk PRIMARY KEY (row_id));
"""


def test_a_row_number_joins_nothing_and_unique_columns_are_the_keys():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_MIMIC, dialect="postgres"))
    # row_id keys every table: before, every pair of tables joined on it (0.74-0.97)
    assert not any("row_id" in e for e in got), got
    # the entities are the columns declared unique, and icustays' column named after it
    for key, ref in [("patients.subject_id", "admissions.subject_id"), ("admissions.hadm_id", "chartevents.hadm_id"),
                     ("chartevents.icustay_id", "icustays.icustay_id"), ("chartevents.subject_id", "patients.subject_id")]:
        pair = " = ".join(sorted((key, ref)))
        assert got.get(pair, (0, ""))[0] >= 0.9, (pair, got)
    # without the keys declared, still no join on row numbers (ROWID too)
    bare = load_ddl(_MIMIC.replace("PRIMARY KEY (row_id)", "CHECK (row_id > 0)").replace("UNIQUE (", "CHECK (0 < "),
                    dialect="postgres")
    assert not any(c.unique or c.primary_key for t in bare.tables for c in t.columns)
    got = edges(bare)
    assert not any("row_id" in e for e in got) and "admissions.hadm_id = chartevents.hadm_id" in got, got
    # a row number is read as a bare id: its table's key when nothing else is (b_id -> b.ROWID),
    # never a join of two row numbers
    got = edges(Schema([T("a", "ROWID", "b_id"), T("b", "ROWID", "name"), T("c", "ROWID", "b_id")]))
    assert not any(e.count("ROWID") == 2 for e in got) and got["a.b_id = b.ROWID"][1] == "entity", got


def test_unique_columns_in_ddl_and_their_schema_round_trip():
    from jar_core.loaders import load_ddl

    s = load_ddl("""
    CREATE TABLE a (id INT PRIMARY KEY, x INT UNIQUE, y INT, z INT, w INT, v INT, CONSTRAINT u UNIQUE (y), UNIQUE (x, y));
    ALTER TABLE a ADD CONSTRAINT uu UNIQUE (z);
    CREATE UNIQUE INDEX i ON a (w);
    CREATE UNIQUE INDEX i2 ON a (v) WHERE y > 0;
    CREATE UNIQUE INDEX i3 ON a USING btree (lower(v));
    CREATE INDEX i4 ON a (v);
    CREATE UNIQUE INDEX i5 ON nothere (v);
    CREATE UNIQUE INDEX i6 ON a (v, w);
    """, dialect="postgres")
    assert [c.name for c in s.tables[0].columns if c.unique] == ["x", "y", "z", "w"]
    again = Schema.from_dict(s.to_dict())
    assert [c.unique for c in again.tables[0].columns] == [c.unique for c in s.tables[0].columns]
    assert again.fingerprint() == s.fingerprint()
    # a unique column changes the fingerprint (the join graph depends on it); none leaves it as it was
    plain = load_ddl("CREATE TABLE a (id INT PRIMARY KEY, x INT, y INT, z INT, w INT, v INT);", dialect="postgres")
    assert plain.fingerprint() != s.fingerprint()
    assert "unique" not in plain.tables[0].columns[1].to_dict()


def test_a_key_word_glued_to_a_table_s_name_is_read_as_written_apart():
    from jar_core.loaders import load_ddl

    # PostgreSQL folds unquoted CamelCase: AdventureWorks' CustomerID is customerid in a live database
    ddl = """
    CREATE TABLE customer (customerid INT, name VARCHAR(20));
    CREATE TABLE address (addressid INT, city VARCHAR(20));
    CREATE TABLE salesorderheader (salesorderid INT, customerid INT, billtoaddressid INT, valid BOOLEAN, paid INT);
    CREATE TABLE salesorderdetail (salesorderdetailid INT, salesorderid INT, orderqty INT);
    """
    got = edges(load_ddl(ddl, dialect="postgres"))
    want = {"customer.customerid = salesorderheader.customerid": "same name",
            "address.addressid = salesorderheader.billtoaddressid": "role",
            "salesorderdetail.salesorderid = salesorderheader.salesorderid": "same name"}
    for pair, evidence in want.items():
        assert got.get(pair, (0, ""))[1] == evidence and got[pair][0] >= 0.8, (pair, got)
    # a word that ends like a key word names no table: no key (valid, paid)
    assert not any("valid" in e or "paid" in e for e in got), got
    # the same names written apart give the same joins
    apart = edges(load_ddl(ddl.replace("customerid", "customer_id").replace("addressid", "address_id")
                           .replace("salesorderid", "salesorder_id").replace("billtoaddress_id", "billto_address_id"),
                           dialect="postgres"))
    assert {e.replace("_id", "id").replace("billto_address", "billtoaddress") for e in apart} >= set(want), apart


# MusicBrainz's layout: a bare ``type`` in each entity table and in its aliases, a ``*_type`` table
# for each; a generated ``gid`` unique in every entity table, and a redirect table keyed by retired gids
_MUSICBRAINZ = """
CREATE TABLE area_type (id SERIAL PRIMARY KEY, name VARCHAR(255), gid UUID NOT NULL);
CREATE TABLE artist_type (id SERIAL PRIMARY KEY, name VARCHAR(255), gid UUID NOT NULL);
CREATE TABLE event_type (id SERIAL PRIMARY KEY, name VARCHAR(255), gid UUID NOT NULL);
CREATE TABLE area_alias_type (id SERIAL PRIMARY KEY, name VARCHAR(255), gid UUID NOT NULL);
CREATE TABLE area (id SERIAL PRIMARY KEY, gid UUID NOT NULL, name VARCHAR(255), type INTEGER);
CREATE TABLE area_alias (id SERIAL PRIMARY KEY, area INTEGER NOT NULL, name VARCHAR(255), type INTEGER);
CREATE TABLE artist (id SERIAL PRIMARY KEY, gid UUID NOT NULL, name VARCHAR(255), type INTEGER, area INTEGER);
CREATE TABLE artist_gid_redirect (gid UUID NOT NULL PRIMARY KEY, new_id INTEGER NOT NULL);
CREATE TABLE deleted_entity (gid UUID NOT NULL PRIMARY KEY, data TEXT);
CREATE TABLE editor_subscribe_artist_deleted (editor INTEGER NOT NULL, gid UUID NOT NULL, PRIMARY KEY (editor, gid));
CREATE UNIQUE INDEX area_type_idx_gid ON area_type (gid);
CREATE UNIQUE INDEX artist_type_idx_gid ON artist_type (gid);
CREATE UNIQUE INDEX event_type_idx_gid ON event_type (gid);
CREATE UNIQUE INDEX area_alias_type_idx_gid ON area_alias_type (gid);
CREATE UNIQUE INDEX area_idx_gid ON area (gid);
CREATE UNIQUE INDEX artist_idx_gid ON artist (gid);
"""


def test_a_bare_name_is_read_in_its_own_table_and_generated_ids_do_not_join():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_MUSICBRAINZ, dialect="postgres"))
    refs = {e: v for e, v in got.items() if ".type" in e}
    # artist.type names artist_type in its own table's context, not each of the three *_type tables
    assert [e for e in refs if "artist.type" in e] == ["artist.type = artist_type.id"], refs
    # area_alias.type: area_alias_type, not area_type (which area.type references)
    assert [e for e in refs if "area_alias.type" in e] == ["area_alias.type = area_alias_type.id"], refs
    assert [e for e in refs if "area.type" in e] == ["area.type = area_type.id"], refs
    assert all(v[0] >= 0.75 for v in refs.values()), refs
    # each table's own generated gid (unique in it) joins no redirect table nor another table's gid
    gids = [e for e in got if e.count(".gid") == 2]
    own = ("area.gid", "artist.gid", "area_type.gid", "artist_type.gid", "event_type.gid", "area_alias_type.gid")
    assert not any(g in e.split(" = ") for e in gids for g in own), gids
    # a gid that is no table's own identifier still references a key named so (here two: a tie)
    assert "deleted_entity.gid = editor_subscribe_artist_deleted.gid" in gids, gids


def test_a_table_of_people_is_keyed_by_a_person_s_id_and_its_archive_is_no_other():
    # WideWorldImporters without keys: People.PersonID (people is the plural of person), a temporal
    # history table People_Archive beside it; before, no LastEditedBy or *PersonID found its key
    s = Schema([T("People", "PersonID", "FullName"), T("People_Archive", "PersonID", "FullName"),
                T("Cities", "CityID", "CityName", "LastEditedBy"),
                T("Customers", "CustomerID", "PrimaryContactPersonID", "LastEditedBy")])
    got = edges(s)
    for pair, evidence in (("Cities.LastEditedBy = People.PersonID", "person"),
                           ("Customers.LastEditedBy = People.PersonID", "person"),
                           ("Customers.PrimaryContactPersonID = People.PersonID", "role")):
        assert got.get(pair, (0, ""))[1] == evidence, (pair, got)
    assert not any("LastEditedBy" in e and "People_Archive" in e for e in got), got


def test_a_compound_name_is_no_module_and_a_role_of_its_own_table_is_another_row():
    # WideWorldImporters: PurchaseOrders and PurchaseOrderLines share "purchase order", a compound
    # name, not a module "purchase" whose PurchaseOrderID would be an OrderID; BackorderOrderID and
    # BillToCustomerID are other rows of their own tables, not of PurchaseOrders or an archive.
    # Before, PurchaseOrders.PurchaseOrderID joined Orders.OrderID at 0.97 and BackorderOrderID
    # PurchaseOrders at 0.87.
    s = Schema([T("PurchaseOrders", "PurchaseOrderID", "SupplierID"),
                T("PurchaseOrderLines", "PurchaseOrderLineID", "PurchaseOrderID"),
                T("Orders", "OrderID", "CustomerID", "BackorderOrderID", "CustomerPurchaseOrderNumber"),
                T("OrderLines", "OrderLineID", "OrderID"),
                T("Customers", "CustomerID", "BillToCustomerID"),
                T("Customers_Archive", "CustomerID", "BillToCustomerID")])
    got = edges(s)
    for e in got:  # nothing of a purchase order joins a sales order
        ends = e.split(" = ")
        assert not (any(x.startswith("Purchase") for x in ends) and any(x.startswith(("Orders.", "OrderLines.")) for x in ends)), e
    assert "PurchaseOrderLines.PurchaseOrderID = PurchaseOrders.PurchaseOrderID" in got, got
    assert got.get("Orders.BackorderOrderID = Orders.OrderID", (0, ""))[1] == "self", got
    assert got.get("Customers.BillToCustomerID = Customers.CustomerID", (0, ""))[1] == "self", got
    assert not any(e.startswith("Orders.CustomerPurchaseOrderNumber = Orders.") for e in got), got
    assert not any(e.startswith("Customers.BillToCustomerID = Customers_Archive.CustomerID") for e in got), got


def test_a_key_named_by_its_table_s_first_and_last_words_keys_it():
    # Spider's student_transcripts_tracking: Student_Enrolment_Courses.student_course_id is the
    # table's key (its name without the middle word), which Transcript_Contents refers to; it is
    # no Courses.course_id by a role "student"
    def C(name: str, unique: float) -> Column:
        return Column(name, "int", unique_ratio=unique)

    s = Schema([T("Courses", C("course_id", 1.0), "course_name"), T("Students", C("student_id", 1.0), "name"),
                T("Student_Enrolment", C("student_enrolment_id", 1.0), C("student_id", 0.6)),
                T("Student_Enrolment_Courses", C("student_course_id", 1.0), C("course_id", 0.6),
                  C("student_enrolment_id", 0.6)),
                T("Transcript_Contents", C("student_course_id", 0.6), C("transcript_id", 0.6))])
    got = edges(s)
    pair = "Student_Enrolment_Courses.student_course_id = Transcript_Contents.student_course_id"
    assert got.get(pair, (0, ""))[1] == "same name", got
    assert not any("student_course_id" in e and "Courses.course_id" in e for e in got), got


def test_a_table_named_by_one_word_heads_its_family():
    # CustomerTransactions.CustomerID references Customers, whose one-word name leads the family
    # of CustomerTransactions as much as Customer_Details' does (a detail table is named after
    # its entity too). Before, only names of several words had a family, and the reference went
    # to Customer_Details alone (WideWorldImporters: to Customers_Archive).
    s = Schema([T("Customers", "CustomerID", Column("CustomerName", "text")),
                T("Customer_Details", "CustomerID", Column("Notes", "text")),
                T("CustomerTransactions", "CustomerTransactionID", "CustomerID")])
    got = edges(s)
    assert got.get("CustomerTransactions.CustomerID = Customers.CustomerID", (0, ""))[1] == "same name", got
    assert not any(e.startswith("CustomerTransactions.CustomerID = Customer_Details") or
                   e.startswith("Customer_Details.CustomerID = CustomerTransactions") for e in got
                   if got[e][1] != "sibling"), got


def test_a_copy_joins_as_the_table_it_copies():
    # WideWorldImporters' temporal history tables and a warehouse's *_HIST copies hold all the
    # columns of the table they copy: a reference to the entity goes to the copied table, never to
    # the copy (CustomerTransactions.CustomerID joined Customers_Archive at 0.97: now two references
    # to one customer at most, siblings); the copy's
    # columns reference what the copied table's reference (a self-reference: the copied table's
    # rows), a history copy's key references the copied key, an archive's does not (its rows were
    # moved out); two copies of one attribute (a postal code) are no join.
    cust = ("CustomerID", "BillToCustomerID", "BuyingGroupID", "DeliveryPostalCode")
    s = Schema([T("Customers", *cust), T("Customers_Archive", *cust, "ValidTo"),
                T("BuyingGroups", "BuyingGroupID", Column("BuyingGroupName", "text")),
                T("CustomerTransactions", "CustomerTransactionID", "CustomerID"),
                T("Buildings", "BuildingID", "BuyingGroupID"), T("Buildings_Hist", "BuildingID", "BuyingGroupID")])
    got = edges(s)
    assert got.get("CustomerTransactions.CustomerID = Customers.CustomerID", (0, ""))[1] == "same name", got
    assert all(v[1] == "sibling" for e, v in got.items() if "CustomerTransactions." in e and "Customers_Archive." in e), got
    assert got.get("BuyingGroups.BuyingGroupID = Customers_Archive.BuyingGroupID", (0, ""))[1] == "copy", got
    assert got.get("Customers.CustomerID = Customers_Archive.BillToCustomerID", (0, ""))[1] == "copy", got
    assert got.get("Buildings.BuildingID = Buildings_Hist.BuildingID", (0, ""))[1] == "copy", got
    assert "Customers.CustomerID = Customers_Archive.CustomerID" not in got, got
    assert not any(e.count("DeliveryPostalCode") == 2 for e in got), got


def directed(schema: Schema) -> dict[str, tuple[float, str]]:
    """``{"referencing.x -> referenced.y": (confidence, evidence)}``."""
    g = build_join_graph(schema)
    names = [f"{t.name}.{c.name}" for t in schema.tables for c in t.columns]
    return {f"{names[a]} -> {names[b]}": (round(float(conf), 3), EVIDENCE[ev])
            for a, b, conf, ev in zip(g.a, g.b, g.confidence, g.evidence)}


def test_abbreviations_drop_letters_inside_one_short_word():
    assert abbreviates("dept", "department") and abbreviates("emp", "employee") and abbreviates("acct", "account")
    assert abbreviates("cust", "customer")  # the start of the word, as before
    assert not abbreviates("cat", "contact")  # not the same first two letters
    assert not abbreviates("dept", "dept") and not abbreviates("de", "department")
    # a longer name is written out: only a cut end abbreviates it
    assert not abbreviates("productdescription", "productmodelproductdescriptionculture")


def test_a_key_named_by_a_part_of_its_table_references_the_table_of_that_part():
    # MySQL's employees database without its keys: dept_emp and dept_manager are named after the
    # departments and employees they link; their emp_no and dept_no are references to
    # employees and departments (an abbreviation of one word), not the link tables' keys.
    # Before, salaries.emp_no and titles.emp_no joined dept_emp (its head noun) at 0.88 and
    # dept_emp.dept_no joined dept_manager.
    s = Schema([T("employees", "emp_no", Column("first_name", "text"), Column("hire_date", "date")),
                T("departments", Column("dept_no", "char(4)"), Column("dept_name", "text")),
                T("dept_emp", "emp_no", Column("dept_no", "char(4)"), Column("from_date", "date")),
                T("dept_manager", "emp_no", Column("dept_no", "char(4)"), Column("from_date", "date")),
                T("salaries", "emp_no", "salary", Column("from_date", "date"))])
    got = directed(s)
    for f, k in [("dept_emp.emp_no", "employees.emp_no"), ("dept_emp.dept_no", "departments.dept_no"),
                 ("dept_manager.emp_no", "employees.emp_no"), ("dept_manager.dept_no", "departments.dept_no"),
                 ("salaries.emp_no", "employees.emp_no")]:
        assert got.get(f"{f} -> {k}", (0, ""))[0] >= 0.75, (f, k, got)
    assert not [e for e, (c, _) in got.items() if c >= 0.75 and e.split(" -> ")[1].startswith("dept_")], got
    from jar_core.joins.profile import ColumnProfile

    part = ColumnProfile.from_schema(s).part_reference
    assert part[[c.name for t in s.tables for c in t.columns].index("emp_no", 3)]  # dept_emp's
    # an abbreviation names a one-word table that holds a column named by it, not any table whose
    # name starts alike: ``ordersummary`` is no ``order`` table
    glued = Schema([T("ordersummary", "summary_id", "total"), T("order_notes", "order_id", Column("note", "text"))])
    assert not ColumnProfile.from_schema(glued).part_reference.any()
    # a part that is no other table stays the key: customer_orders is the orders' table
    s = Schema([T("customers", "customer_id", Column("name", "text")),
                T("customer_orders", "order_id", "customer_id", Column("placed", "date")),
                T("deliveries", "delivery_id", "order_id")])
    got = directed(s)
    assert got.get("deliveries.order_id -> customer_orders.order_id", (0, ""))[1] == "same name", got
    assert got.get("customer_orders.customer_id -> customers.customer_id", (0, ""))[1] == "same name", got
    # a module's table (FAC_, two tables, no FAC table) is the module's entity: FAC_BUILDING's
    # BUILDING_NUMBER stays its key beside BUILDINGS', and its parent building is one of its rows
    s = Schema([T("FAC_BUILDING", "FAC_BUILDING_KEY", "BUILDING_NUMBER", "PARENT_BUILDING_NUMBER"),
                T("FAC_ROOMS", "FAC_ROOMS_KEY", "FAC_BUILDING_KEY", Column("ROOM", "text")),
                T("BUILDINGS", "BUILDING_KEY", "BUILDING_NUMBER", Column("NAME", "text"))])
    got = directed(s)
    assert got.get("FAC_BUILDING.PARENT_BUILDING_NUMBER -> FAC_BUILDING.BUILDING_NUMBER", (0, ""))[1] == "self", got


def test_a_key_word_before_the_entity_names_the_table():
    # schemas written in Spanish, Italian, Portuguese or French name keys id_<table> / codigo_<table>,
    # and MySQL Workbench idcustomer / customer_idcustomer; no keys declared: before, no join at all
    es = edges(Schema([T("clientes", "id_cliente", "nombre"), T("pedidos", "id_pedido", "id_cliente", "fecha"),
                       T("productos", "id_producto", "nombre"),
                       T("detalle_pedido", "id_pedido", "id_producto", "cantidad"),
                       T("oficina", "codigo_oficina", "ciudad", "codigo_postal"),
                       T("empleado", "codigo_empleado", "codigo_oficina", "nombre")]))
    for pair in ("clientes.id_cliente = pedidos.id_cliente", "detalle_pedido.id_pedido = pedidos.id_pedido",
                 "detalle_pedido.id_producto = productos.id_producto",
                 "empleado.codigo_oficina = oficina.codigo_oficina"):
        assert es.get(pair, (0, ""))[0] >= 0.75, (pair, es)
    assert not any("codigo_postal" in e for e in es), es  # a postcode is no key of a "postal" table
    wb = edges(Schema([T("customer", "idcustomer", "name"), T("order", "idorder", "customer_idcustomer", "date"),
                       T("product", "idproduct", "name"),
                       T("order_has_product", "order_idorder", "product_idproduct", "quantity")]))
    for pair in ("customer.idcustomer = order.customer_idcustomer", "order.idorder = order_has_product.order_idorder",
                 "order_has_product.product_idproduct = product.idproduct"):
        assert wb.get(pair, (0, ""))[0] >= 0.75, (pair, wb)
    # only as written: a module prefix dropped leaves no key word first (SUBJECT_ID_SORT is no "sort" id),
    # and a word that starts with "id" names no table unless the rest is one (identity, no entity table)
    rest = edges(Schema([T("SUBJECT_OFFERED", "SUBJECT_KEY", "SUBJECT_ID_SORT"),
                         T("SUBJECT_SUMMARY", "SUBJECT_KEY", "SUBJECT_ID_SORT"), T("sort", "sort_id", "name"),
                         T("users", "user_id", "identity"), T("entities", "entity_id", "label")]))
    assert "SUBJECT_OFFERED.SUBJECT_ID_SORT = SUBJECT_SUMMARY.SUBJECT_ID_SORT" not in rest, rest
    assert not any(".identity" in e for e in rest), rest


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


def test_romance_word_order_plurals_and_people():
    # the entity before its role (codigo_empleado_rep_ventas), a plural in -es (proveedores for
    # id_proveedor), a boss in the table of people and a role outside it (no keys declared)
    got = edges(Schema([T("empleados", "id", "nombre", "id_jefe", "id_direccion"),
                        T("direcciones", "id", "ciudad"), T("proveedores", "id", "nombre", "id_direccion"),
                        T("provee", "id", "id_proveedor", "cantidad"),
                        T("clientes", "id", "codigo_empleado_rep_ventas", "id_vendedor", "nombre")]))
    assert got.get("empleados.id = empleados.id_jefe", (0, ""))[1] == "self", got
    for pair in ("direcciones.id = empleados.id_direccion", "direcciones.id = proveedores.id_direccion",
                 "provee.id_proveedor = proveedores.id"):
        assert got.get(pair, (0, ""))[0] >= 0.75, (pair, got)
    assert got.get("clientes.codigo_empleado_rep_ventas = empleados.id", (0, ""))[1] == "role", got
    assert got.get("clientes.id_vendedor = empleados.id", (0, ""))[1] == "person", got
    # an English name keeps its order and its plurals (no "cas" for "cases")
    en = edges(Schema([T("cases", "case_id", "title"), T("notes", "note_id", "cas_id")]))
    assert not any("cas_id" in e for e in en), en


def test_a_table_keyed_by_a_bare_id_and_a_polymorphic_id_are_not_keyed_by_their_names():
    # Rails schemas without keys declared: a table keyed by ``id`` is not keyed by a column named
    # after it too (csis' ``scan_reports.scan_report_id``, Simple's ``cphc_facilities.facility_id``
    # refer to other tables); an id named after a part of its table beside a type of it
    # (``targets_scans.scan_id`` beside ``scan_type``) holds ids of several tables
    got = edges(Schema([
        T("reports", "id", "title"), T("scan_reports", "id", "scan_report_id", "introduction"),
        T("report_exports", "id", "report_id"), T("aggregates", "id", "report_id"),
        T("facilities", "id", "name"), T("cphc_facilities", "id", "facility_id", "cphc_facility_name"),
        T("cphc_facility_mappings", "id", "facility_id"), T("cphc_district_mappings", "id", "district"),
        T("appointments", "id", "facility_id"),
        T("vm_scans", "id", "name"), T("wa_scans", "id", "name"), T("targets", "id", "ip"),
        T("targets_scans", "target_id", "scan_id", Column("scan_type", "varchar")),
        T("vm_occurrences", "id", "scan_id"), T("wa_occurrences", "id", "scan_id"),
    ]))
    for pair in ("report_exports.report_id = reports.id", "aggregates.report_id = reports.id",
                 "appointments.facility_id = facilities.id", "cphc_facilities.facility_id = facilities.id",
                 "vm_occurrences.scan_id = vm_scans.id", "wa_occurrences.scan_id = wa_scans.id"):
        assert got.get(pair, (0, ""))[0] >= 0.75, (pair, got)
    assert not any("scan_report_id" in e and got[e][0] >= 0.75 and "reports.id" not in e for e in got), got
    assert not any("targets_scans.scan_id" in e and got[e][0] >= 0.75 for e in got), got
    # a table named by its key column keeps it beside a bare key word of another kind
    got = edges(Schema([T("sets", "id", "code", "name"), T("cards", "id", "set_code")]))
    assert got.get("cards.set_code = sets.code", (0, ""))[0] >= 0.75, got


def test_a_qualified_entity_is_meant_by_a_table_of_its_qualifier():
    # MIMIC: LABEVENTS.ITEMID refers to the lab's items (D_LABITEMS), CHARTEVENTS.ITEMID to D_ITEMS,
    # which ITEMID names exactly
    def rows(name: str, *cols: Column | str) -> Table:  # MIMIC's tables are keyed by a row number
        return T(name, Column("ROW_ID", "int", primary_key=True), *cols)

    item = Column("ITEMID", "int", unique=True)
    s = Schema([rows("D_ITEMS", item, "LABEL"), rows("D_LABITEMS", item, "LABEL", "FLUID"),
                rows("LABEVENTS", "ITEMID", "VALUENUM"), rows("CHARTEVENTS", "ITEMID", "VALUENUM")])
    got = edges(s)
    assert got.get("D_LABITEMS.ITEMID = LABEVENTS.ITEMID", (0, ""))[0] >= 0.75, got
    assert got.get("CHARTEVENTS.ITEMID = D_ITEMS.ITEMID", (0, ""))[0] >= 0.75, got
    assert got.get("D_ITEMS.ITEMID = LABEVENTS.ITEMID", (0, ""))[0] < 0.75, got


_ROLES_AND_WHOLES = """
CREATE TABLE users (id bigint PRIMARY KEY, name varchar);
CREATE TABLE subscriptions (id uuid PRIMARY KEY, user_id bigint);
CREATE TABLE requests (id bigint PRIMARY KEY, pull_request_id bigint, parent_request_id bigint);
CREATE TABLE pull_requests (id bigint PRIMARY KEY, number int);
CREATE TABLE usage_thresholds (id uuid PRIMARY KEY, subscription_id uuid);
CREATE TABLE usage_monitoring_subscription_activities (id bigint PRIMARY KEY, subscription_id uuid NOT NULL);
CREATE UNIQUE INDEX idx_subscription_unique ON usage_monitoring_subscription_activities (subscription_id);
CREATE TABLE teleconsultations (id uuid PRIMARY KEY, medical_officer_id bigint, signatory_id bigint);
"""


def test_a_role_before_the_own_table_and_a_unique_reference_name_other_tables():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_ROLES_AND_WHOLES, dialect="postgres"))
    # a role and the own table's name that are another table's whole name: a pull request, no request
    assert got["pull_requests.id = requests.pull_request_id"] == (0.92, "entity"), got
    assert "requests.id = requests.pull_request_id" not in got
    assert got["requests.id = requests.parent_request_id"][1] == "self"
    # one row per subscription: a one-to-one reference to subscriptions, no key others refer to
    assert got["subscriptions.id = usage_thresholds.subscription_id"][1] == "entity", got
    assert got["subscriptions.id = usage_monitoring_subscription_activities.subscription_id"][1] == "entity"
    assert got.get("usage_monitoring_subscription_activities.subscription_id = usage_thresholds.subscription_id",
                   (0, ""))[0] < 0.75
    # people by their office
    assert got["teleconsultations.medical_officer_id = users.id"][1] == "person", got
    assert got["teleconsultations.signatory_id = users.id"][1] == "person"


_LONG_MODULES = """
CREATE TABLE active_storage_attachments (id bigint PRIMARY KEY, record_type varchar, record_id bigint, blob_id bigint);
CREATE TABLE active_storage_blobs (id bigint PRIMARY KEY, key varchar, filename varchar);
CREATE TABLE active_storage_variant_records (id bigint PRIMARY KEY, blob_id bigint, variation_digest varchar);
CREATE TABLE iap_subject_category (iap_subject_category_key int PRIMARY KEY, name varchar);
CREATE TABLE iap_subject_person (iap_subject_person_key int PRIMARY KEY, person_name varchar);
CREATE TABLE cip (cip_key int PRIMARY KEY, category_code varchar(8));
"""


def test_a_module_prefix_of_two_words_leaves_the_entity_name():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_LONG_MODULES, dialect="postgres"))
    # every active_ table goes on with storage_: the module is active_storage_, and a blob its blobs
    assert got["active_storage_attachments.blob_id = active_storage_blobs.id"] == (0.92, "entity"), got
    assert got["active_storage_blobs.id = active_storage_variant_records.blob_id"] == (0.92, "entity")
    # a generic word left alone names no entity: a CIP code's category is no IAP subject category
    assert not any(e.startswith("cip.category_code") or e.endswith("cip.category_code") for e in got), got


_LINKS_BY_NAMES = """
CREATE TABLE wallets (id uuid PRIMARY KEY, name varchar);
CREATE TABLE wallet_transactions (id uuid PRIMARY KEY, wallet_id uuid);
CREATE TABLE invoice_custom_sections (id uuid PRIMARY KEY, name varchar);
CREATE TABLE wallets_invoice_custom_sections (id uuid PRIMARY KEY, wallet_id uuid, invoice_custom_section_id uuid);
CREATE TABLE wallet_transactions_invoice_custom_sections (id uuid PRIMARY KEY, wallet_transaction_id uuid,
                                                          invoice_custom_section_id uuid);
CREATE TABLE reports (id uuid PRIMARY KEY, title varchar);
CREATE TABLE scan_reports (id uuid PRIMARY KEY, format varchar);
CREATE TABLE scan_launches (id uuid PRIMARY KEY, report_id uuid, launched_at timestamp);
"""


def test_a_link_table_is_not_named_by_the_table_it_links():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_LINKS_BY_NAMES, dialect="postgres"))
    # the rest of ``wallets_invoice_custom_sections`` is another table's whole name: that table's
    key = "invoice_custom_sections.id = wallet_transactions_invoice_custom_sections.invoice_custom_section_id"
    assert got[key] == (0.92, "entity"), got
    assert ("wallet_transactions_invoice_custom_sections.invoice_custom_section_id = wallets_invoice_custom_sections.id"
            not in got)
    # a module's table (``scan_``, which names no table) keeps its entity's name beside another table's
    assert got["scan_launches.report_id = scan_reports.id"] == (0.92, "entity"), got


_WAREHOUSE = """
CREATE TABLE DimCurrency (CurrencyKey int PRIMARY KEY, CurrencyName nvarchar(50));
CREATE TABLE DimDate (DateKey int PRIMARY KEY, FullDate date);
CREATE TABLE DimProduct (ProductKey int PRIMARY KEY, ProductName nvarchar(50));
CREATE TABLE FactInternetSales (SalesOrderNumber nvarchar(20), SalesOrderLineNumber tinyint, ProductKey int,
    OrderDateKey int, CurrencyKey int, SalesAmount money, PRIMARY KEY (SalesOrderNumber, SalesOrderLineNumber));
CREATE TABLE FactResellerSales (SalesOrderNumber nvarchar(20), SalesOrderLineNumber tinyint, ProductKey int,
    OrderDateKey int, CurrencyKey int, SalesAmount money, PRIMARY KEY (SalesOrderNumber, SalesOrderLineNumber));
CREATE TABLE FactInternetSalesReason (SalesOrderNumber nvarchar(20), SalesOrderLineNumber tinyint,
    SalesReasonKey int, PRIMARY KEY (SalesOrderNumber, SalesOrderLineNumber, SalesReasonKey));
CREATE TABLE NewFactCurrencyRate (AverageRate real, CurrencyKey int, DateKey int);
"""


def test_two_kinds_of_one_fact_and_a_module_table_by_the_rest_of_its_name():
    from jar_core.loaders import load_ddl

    got = directed(load_ddl(_WAREHOUSE, dialect="tsql"))
    # two tables keyed alike whose names end with one head noun are two kinds of it (internet and
    # reseller sales), not one the other's reference, though ``Fact`` leads both
    assert not any(e.startswith("FactInternetSales.") and "-> FactResellerSales." in e and v[1] == "composite key"
                   for e, v in got.items()), got
    # a table named by another's whole name and a word references that table on its whole key
    for c in ("SalesOrderNumber", "SalesOrderLineNumber"):
        assert got[f"FactInternetSalesReason.{c} -> FactInternetSales.{c}"] == (0.85, "composite key"), got
        assert f"FactInternetSalesReason.{c} -> FactResellerSales.{c}" not in got, got
    # ``DimCurrency`` goes by ``currency`` once the ``Dim`` module's prefix is dropped: the keyless
    # rate table's ``CurrencyKey`` references it (was: the currency's key referenced the rates)
    assert got["NewFactCurrencyRate.CurrencyKey -> DimCurrency.CurrencyKey"][0] >= 0.9, got
    assert "DimCurrency.CurrencyKey -> NewFactCurrencyRate.CurrencyKey" not in got, got
