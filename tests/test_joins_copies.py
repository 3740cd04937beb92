"""Rule 9, copies (jar_core.joins.copies): a copy joins as the table it copies; an archive shares no row."""
from __future__ import annotations

from jar_core.schema import Column, Schema

from joins_cases import T, edges


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
