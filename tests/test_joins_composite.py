"""Rules 1 and 8, declared keys and keys of several columns (jar_core.joins.declared, composite)."""
from __future__ import annotations

from jar_core.joins.uncertain import AMBIGUOUS
from jar_core.schema import Column, ForeignKey, Schema

from joins_cases import T, edges, _TPCH_LIKE, _KEYS_ONLY, directed, _WAREHOUSE


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
