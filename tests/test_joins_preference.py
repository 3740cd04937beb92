"""Rule 6, one key per referencing column (jar_core.joins.preference)."""
from __future__ import annotations

from jar_core.joins.uncertain import AMBIGUOUS
from jar_core.schema import Column, Schema, Table

from joins_cases import T, edges, ints


def test_a_referencing_column_references_one_key():
    s = Schema([
        T("Genre", Column("GenreId", "int", primary_key=True, sample=ints(1, 2, 3, 4, 5))),
        T("MediaType", Column("MediaTypeId", "int", primary_key=True, sample=ints(1, 2, 3, 4, 5))),
        T("Track", "TrackId", Column("GenreId", "int", sample=ints(1, 2, 3))),
    ])
    got = edges(s)
    assert "Genre.GenreId = Track.GenreId" in got
    assert not any("MediaType" in e for e in got)


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
