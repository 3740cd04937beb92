"""Rule 2's self and person rules (jar_core.joins.hierarchy, jar_core.joins.people): a row under another of its table, a person by a role."""
from __future__ import annotations

import pytest

from jar_core.schema import Column, Schema, Table

from joins_cases import T, edges, ints


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
    from jar_core.joins.calibration import calibrated
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
    # the rule's score, shown calibrated (jar_core.joins.calibration)
    assert res.self_joins[0].score == pytest.approx(0.765, abs=1e-3)
    shown = f"{calibrated(res.self_joins[0].score, 'self'):.2f}"
    assert "-- self-joins (the table joined to itself under another alias): employee.reports_to = " \
           f"employee.employee_id (inferred: self, {shown})" in res.join_clause()
    assert f"employee.reports_to = employee.employee_id  (self-join, inferred: self, {shown})" in result_text(res)
    declared = r.retrieve("categories and their parent", k=1, include=["category"]).self_joins
    assert [(str(j), j.declared) for j in declared] == [("category.parent_id = category.category_id", True)]
    # the paper's joins read the declared ones from the schema
    paper = TableRetriever(load_ddl(ddl), embedder=BagOfWordsEmbedder(), joins="paper")
    assert [str(j) for j in paper.retrieve("categories", k=1, include=["category"]).self_joins] == [
        "category.parent_id = category.category_id"]


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
