"""Rule 2, naming conventions (jar_core.joins.naming): a referencing column names the key it joins."""
from __future__ import annotations

import pytest

from jar_core.joins import build_join_graph
from jar_core.schema import Column, Schema, Table

from joins_cases import T, edges, ints, TPCH, TPCDS, _MUSICBRAINZ, _ROLES_AND_WHOLES, _LONG_MODULES


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


def test_database_name_is_not_part_of_the_name():
    # every column of database "customer" would otherwise look like it names the customer table
    s = Schema([T("customer", "id", db="customer"), T("orders", "id", "total", db="customer")])
    assert edges(s) == {}


def test_flags_reference_nothing():
    s = Schema([T("terms", "term_code", "term_name"), T("courses", "course_id", "is_current_term", "term_code")])
    got = edges(s)
    assert "courses.term_code = terms.term_code" in got
    assert not any("is_current_term" in e for e in got)


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


def test_a_table_name_without_a_word_is_no_module_prefix():
    # found by tests/test_fuzz.py: a table named by a private-use character has no first word
    schema = Schema([Table("main", "\ue000", [Column("id", "int")]), Table("main", "orders", [Column("id", "int")])])
    assert build_join_graph(schema).a.shape == (0,)


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


def test_a_module_prefix_of_two_words_leaves_the_entity_name():
    from jar_core.loaders import load_ddl

    got = edges(load_ddl(_LONG_MODULES, dialect="postgres"))
    # every active_ table goes on with storage_: the module is active_storage_, and a blob its blobs
    assert got["active_storage_attachments.blob_id = active_storage_blobs.id"] == (0.92, "entity"), got
    assert got["active_storage_blobs.id = active_storage_variant_records.blob_id"] == (0.92, "entity")
    # a generic word left alone names no entity: a CIP code's category is no IAP subject category
    assert not any(e.startswith("cip.category_code") or e.endswith("cip.category_code") for e in got), got
