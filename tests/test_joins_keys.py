"""Which columns key their tables (jar_core.joins.keys, name_facts, words): own keys, part references, adopted keys, name words."""
from __future__ import annotations

import pytest

from jar_core.joins import build_join_graph
from jar_core.joins.words import abbreviates, words
from jar_core.schema import Column, Schema, Table

from joins_cases import T, edges, _MIMIC, directed


def test_words():
    assert words("SupportRepId") == ["support", "rep", "id"]
    assert words("FCLT_ROOMS") == ["fclt", "room"]
    assert words("StuID") == ["stu", "id"]
    assert words("categories") == ["category"]


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


def test_a_surrogate_key_leaves_the_column_named_after_the_table_its_key_too():
    from jar_core.loaders import load_ddl

    # Yelp: business is keyed by a surrogate (bid); business_id is the business's own id, which
    # the other tables hold: references to it, not siblings of theirs
    ddl = """
    CREATE TABLE business (bid INT PRIMARY KEY, business_id TEXT, name TEXT, city TEXT);
    CREATE TABLE review (rid INT PRIMARY KEY, business_id TEXT, user_id TEXT, rating REAL);
    CREATE TABLE tip (tip_id INT PRIMARY KEY, business_id TEXT, text TEXT);
    """
    got = edges(load_ddl(ddl))
    for other in ("review", "tip"):
        conf, evidence = got.get(f"business.business_id = {other}.business_id", (0, ""))
        assert conf >= 0.9 and evidence != "sibling", (other, got)
    # a table keyed by a bare id is not keyed by a column named after it (scan_reports.scan_report_id)
    bare = edges(load_ddl(ddl.replace("bid INT PRIMARY KEY", "id INT PRIMARY KEY")))
    assert bare.get("business.business_id = review.business_id", (0, "sibling"))[1] == "sibling", bare


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


def test_a_key_named_by_its_tables_initials():
    from jar_core.loaders import load_ddl

    # academic / IMDB style, no keys declared: author.aid is the author's key (a + id), and the
    # columns named aid elsewhere refer to it
    ddl = """
    CREATE TABLE author (aid INT, name TEXT, homepage TEXT);
    CREATE TABLE publication (pid INT, title TEXT, year INT);
    CREATE TABLE writes (aid INT, pid INT);
    CREATE TABLE orders (order_id INT, paid INT, void INT);
    """
    got = edges(load_ddl(ddl))
    for pair in ("author.aid = writes.aid", "publication.pid = writes.pid"):
        conf, evidence = got.get(pair, (0, ""))
        assert conf >= 0.9 and evidence == "same name", (pair, got)
    # words that end in "id" but are no table's initials stay what they are
    assert not any("paid" in k or "void" in k for k in got), got
    # a table of the same initials keyed by a bare id is keyed by it: its aid refers to the author
    award = edges(load_ddl(ddl + "CREATE TABLE award (id INT PRIMARY KEY, aid INT, name TEXT);"))
    assert award.get("author.aid = writes.aid", (0, ""))[0] >= 0.9, award
    assert award.get("author.aid = award.aid", (0, ""))[0] >= 0.9, award
    # two tables whose initials make one key name: a column of that name elsewhere names neither
    two = edges(load_ddl(ddl + "CREATE TABLE article (aid INT, body TEXT);"))
    assert "author.aid = writes.aid" not in two and "article.aid = writes.aid" not in two, two


def test_a_key_glued_to_an_abbreviation_of_its_tables_name():
    from jar_core.loaders import load_ddl

    # Spider's activity_1, no keys declared: stuid and actid are stu + id and act + id, keys of
    # student and activity written as one word; StuID, written in two words, is the same name
    ddl = """
    CREATE TABLE Activity (actid INTEGER, activity_name TEXT);
    CREATE TABLE Participates_in (stuid INTEGER, actid INTEGER);
    CREATE TABLE Student (StuID INTEGER, LName TEXT, Age INTEGER);
    CREATE TABLE Payment (payment_no INTEGER, valid INTEGER, amount REAL);
    CREATE TABLE Value (value_code TEXT, label TEXT);
    """
    got = edges(load_ddl(ddl))
    for pair in ("Participates_in.stuid = Student.StuID", "Activity.actid = Participates_in.actid"):
        conf, evidence = got.get(pair, (0, ""))
        assert conf >= 0.9 and evidence == "same name", (pair, got)
    # a word stays a word though its start abbreviates a table (valid is no val + id of value)
    assert not any("valid" in k for k in got), got


def test_a_keyless_tables_first_key_column_is_its_key_where_others_are_named_as_the_table():
    from jar_core.loaders import load_ddl

    # Spider's hospital_1 without keys: physicians and nurses are keyed by EmployeeID (no employee
    # table); Appointment.Physician and On_Call.Nurse name those tables, PrepNurse a nurse's role
    ddl = """
    CREATE TABLE Physician (EmployeeID INTEGER, Name TEXT, Position TEXT);
    CREATE TABLE Nurse (EmployeeID INTEGER, Name TEXT, Registered BOOLEAN);
    CREATE TABLE Appointment (AppointmentID INTEGER, PrepNurse INTEGER, Physician INTEGER, Start TEXT);
    CREATE TABLE On_Call (Nurse INTEGER, BlockFloor INTEGER, OnCallStart TEXT);
    """
    got = edges(load_ddl(ddl))
    for pair in ("Appointment.Physician = Physician.EmployeeID", "Nurse.EmployeeID = On_Call.Nurse",
                 "Appointment.PrepNurse = Nurse.EmployeeID"):
        assert got.get(pair, (0, ""))[0] >= 0.7, (pair, got)
    # two such keys are two tables' rows, no siblings
    assert "Nurse.EmployeeID = Physician.EmployeeID" not in got, got
    # a number first, without a key word (a patient's SSN), is the key of a table others name;
    # a text first column is not (a name is no key), nor is a number no column names the table of
    patients = """
    CREATE TABLE Patient (SSN INTEGER, Name TEXT, Address TEXT);
    CREATE TABLE Stay (StayID INTEGER, Patient INTEGER, Room INTEGER);
    CREATE TABLE Ward (Floor INTEGER, Beds INTEGER);
    """
    got = edges(load_ddl(patients))
    assert got.get("Patient.SSN = Stay.Patient", (0, ""))[0] >= 0.7, got
    assert not any("Ward." in e for e in got), got
    named = edges(load_ddl(patients.replace("SSN INTEGER, Name TEXT", "Name TEXT, SSN INTEGER")))
    assert not any(e.startswith("Patient.") or "= Patient." in e for e in named), named
    # a column named as its own table is no reference to it: trust.trust leaves source_u_id a role
    trust = edges(load_ddl("""
    CREATE TABLE useracct (u_id INTEGER, name TEXT);
    CREATE TABLE trust (source_u_id INTEGER, target_u_id INTEGER, trust INTEGER);
    """))
    assert trust.get("trust.source_u_id = useracct.u_id", (0, ""))[0] >= 0.8, trust


def test_a_key_named_by_initials_is_a_surrogate_beside_the_entitys_own_id():
    from jar_core.loaders import load_ddl

    # Yelp: user is keyed by uid (u + id); user.user_id is the user's own id, which reviews hold
    ddl = """
    CREATE TABLE "user" (uid INT PRIMARY KEY, user_id TEXT, name TEXT);
    CREATE TABLE review (rid INT PRIMARY KEY, business_id TEXT, user_id TEXT, rating REAL);
    CREATE TABLE tip (tip_id INT PRIMARY KEY, user_id TEXT, text TEXT);
    """
    got = edges(load_ddl(ddl))
    for other in ("review", "tip"):
        conf, evidence = got.get(f"{other}.user_id = user.user_id", (0, ""))
        assert conf >= 0.9 and evidence != "sibling", (other, got)


def test_two_references_of_one_key_named_apart_are_siblings():
    from jar_core.joins.through import MAX_REFERENCES
    from jar_core.loaders import load_ddl

    # ATIS: a flight's departure airport and an airport a city's service uses are one airport
    ddl = """
    CREATE TABLE airport (airport_code TEXT PRIMARY KEY, airport_name TEXT);
    CREATE TABLE city (city_code TEXT PRIMARY KEY, city_name TEXT);
    CREATE TABLE flight (flight_id INT PRIMARY KEY, from_airport TEXT, to_airport TEXT, departure_time INT);
    CREATE TABLE airport_service (city_code TEXT, airport_code TEXT, miles_distant INT);
    """
    got = edges(load_ddl(ddl))
    assert got.get("airport.airport_code = flight.from_airport", (0, ""))[1] == "role", got
    conf, evidence = got.get("airport_service.airport_code = flight.from_airport", (0, ""))
    assert evidence == "sibling apart" and conf == pytest.approx(0.55), got
    # a key that more than MAX_REFERENCES columns reference (a warehouse's term key) gives none
    many = "".join(f"CREATE TABLE fact_{chr(97 + i)} (row_id INT PRIMARY KEY, origin_airport TEXT, amount REAL);\n"
                   for i in range(MAX_REFERENCES))
    hub = edges(load_ddl(ddl + many))
    assert hub.get("airport.airport_code = fact_a.origin_airport", (0, ""))[0] > 0, hub
    assert "airport_service.airport_code = flight.from_airport" not in hub, hub


def test_two_keys_of_one_name_join_for_the_search_only_where_nothing_else_joins():
    from jar_core.loaders import load_ddl
    from jar_core.retriever import TableRetriever
    from helpers import BagOfWordsEmbedder

    # KaggleDBQA's WhatCDHipHop without keys: a torrent's tags keyed by the torrent's bare id
    ddl = """
    CREATE TABLE torrents (groupName TEXT, totalSnatched INT, artist TEXT, groupYear INT, id INT);
    CREATE TABLE tags ("index" INT, id INT, tag TEXT);
    """
    got = edges(load_ddl(ddl))
    from jar_core.joins.alike import SCORE

    assert got == {"tags.id = torrents.id": (pytest.approx(SCORE), "names alike")}, got
    # the search may use it; the answer never shows it as a key, only as an unverified candidate
    res = TableRetriever.from_ddl(ddl, embedder=BagOfWordsEmbedder()).retrieve("tags of torrents", k=2)
    assert sorted(res.table_names) == ["tags", "torrents"]
    assert res.joins == [] and [str(j) for j in res.unverified_joins] in (
        ["tags.id = torrents.id"], ["torrents.id = tags.id"])
    # two declared primary keys, or two first columns, are two tables' own keys
    both = ddl.replace("id INT);", "id INT PRIMARY KEY);").replace("id INT, tag", "id INT PRIMARY KEY, tag")
    assert edges(load_ddl(both)) == {}, edges(load_ddl(both))
    firsts = ddl.replace('"index" INT, id INT', 'id INT, "index" INT').replace("groupName TEXT,", "").replace(", id INT);", ");")
    firsts = firsts.replace("CREATE TABLE torrents (", "CREATE TABLE torrents (id INT, ")
    assert edges(load_ddl(firsts)) == {}, firsts
    # a database the other rules join at all gets none: their joins say how its tables fit
    joined = edges(load_ddl(ddl + "CREATE TABLE plays (play_id INT, torrent_id INT, day TEXT);"))
    assert all(e != "names alike" for _, e in joined.values()) and "plays.torrent_id = torrents.id" in joined, joined



def test_of_two_sibling_keys_between_two_tables_the_finer_is_first():
    # MIMIC-III without keys: an admission's HADM_ID is in every table its patient's SUBJECT_ID
    # is in but the patients'; both are siblings between admissions and labevents, and the
    # pair's first edge (the join an answer shows) is the finer HADM_ID, the other an alternative
    schema = Schema([
        T("patients", "row_id", "subject_id", Column("gender", "text"), Column("dob", "date")),
        T("admissions", "row_id", "subject_id", "hadm_id", Column("admittime", "text")),
        T("labevents", "row_id", "subject_id", "hadm_id", Column("valuenum", "real")),
        T("icustays", "row_id", "subject_id", "hadm_id", "icustay_id"),
    ])  # (a date beside the patients' gender: a record, no dictionary of subject_id)
    got = edges(schema)
    assert got["admissions.subject_id = labevents.subject_id"] == got["admissions.hadm_id = labevents.hadm_id"]
    assert got["admissions.hadm_id = labevents.hadm_id"][1] == "sibling"
    assert _first_join(schema, 1, 2) == "hadm_id"


def test_two_sibling_keys_each_in_a_table_of_its_own_keep_their_order():
    # Formula 1: results and lapTimes share raceId and driverId, each also in a table of its own
    # (races, drivers): neither is finer, though driverId is in fewer tables, and the pair's
    # first edge stays the first column's
    schema = Schema([
        T("races", "raceId", Column("name", "text")),
        T("drivers", "driverId", Column("surname", "text")),
        T("results", "resultId", "raceId", "driverId", Column("points", "real")),
        T("lapTimes", "raceId", "driverId", "lap", Column("time", "text")),
        T("constructorResults", "constructorResultsId", "raceId", Column("points", "real")),
    ])
    got = edges(schema)
    assert got["lapTimes.raceId = results.raceId"] == got["lapTimes.driverId = results.driverId"]
    assert got["lapTimes.raceId = results.raceId"][1] == "sibling"
    assert _first_join(schema, 2, 3) == "raceId"


def _first_join(schema: Schema, a: int, b: int) -> str:
    """The column of table ``a`` in the first edge between tables ``a`` and ``b`` (the join an
    answer shows)."""
    import numpy as np

    from jar_core.joins import candidate_join_matrices

    offsets = np.cumsum([0] + [len(t.columns) for t in schema.tables])
    _, cols, _, _, _ = candidate_join_matrices(build_join_graph(schema), offsets, np.array([a, b]), len(schema.tables))
    return schema.tables[a].columns[cols[0, 1, 0]].name


def _dictionaries(*extra: Table) -> Schema:
    """MIMIC-III without its keys: every table keyed by a ROW_ID; lookups of ICD-9 codes and items."""
    def lookup(name: str, code: Column | str, *text: str) -> Table:
        return T(name, "row_id", code, *(Column(c, "text") for c in text))

    def events(name: str, code: Column | str) -> Table:
        return T(name, "row_id", "subject_id", "hadm_id", code, Column("charttime", "date"))

    icd = Column("icd9_code", "text")
    return Schema([
        lookup("d_icd_diagnoses", icd, "short_title", "long_title"),
        lookup("d_icd_procedures", icd, "short_title", "long_title"),
        lookup("d_items", "itemid", "label", "linksto"), lookup("d_labitems", "itemid", "label"), events("diagnoses_icd", icd), events("procedures_icd", icd),
        events("labevents", "itemid"), events("chartevents", "itemid"), *extra,
    ])


def test_a_keyless_table_of_text_beside_one_code_is_the_codes_dictionary():
    got = edges(_dictionaries())
    # each event's code references its own dictionary: the one whose name shares its table's words,
    # the lab's items for the lab's events (``d_items.itemid`` names its table, ``labitems`` ends with it)
    for ref in ("d_icd_diagnoses.icd9_code = diagnoses_icd.icd9_code",
                "d_icd_procedures.icd9_code = procedures_icd.icd9_code",
                "d_labitems.itemid = labevents.itemid", "chartevents.itemid = d_items.itemid"):
        assert got.get(ref, (0.0, ""))[0] >= 0.9 and got[ref][1] == "same name", (ref, got.get(ref))
    # not the other dictionary, not the other dictionary's events, not the two dictionaries together
    for wrong in ("d_icd_procedures.icd9_code = diagnoses_icd.icd9_code",
                  "d_icd_diagnoses.icd9_code = procedures_icd.icd9_code",
                  "d_icd_diagnoses.icd9_code = d_icd_procedures.icd9_code", "d_items.itemid = d_labitems.itemid",
                  "d_items.itemid = labevents.itemid", "diagnoses_icd.icd9_code = procedures_icd.icd9_code",
                  "chartevents.itemid = labevents.itemid"):
        assert wrong not in got, (wrong, got[wrong])


def test_a_table_with_more_than_text_beside_its_code_is_no_dictionary():
    # a date beside the code: a record of it (the events), which keys nothing; the codes stay
    # siblings, as before; so does a text column that a table without the code has too (a
    # tryout's college, beside the player's pID)
    dated = Schema([
        T("d_icd_diagnoses", "row_id", Column("icd9_code", "text"), Column("short_title", "text"),
          Column("seen", "date")),
        T("diagnoses_icd", "row_id", "subject_id", Column("icd9_code", "text"), Column("charttime", "date")),
    ])
    assert edges(dated)["d_icd_diagnoses.icd9_code = diagnoses_icd.icd9_code"][1] == "sibling"
    tryouts = Schema([
        T("Player", "pID", Column("pName", "text"), Column("yCard", "text"), "HS"),
        T("College", Column("cName", "text"), Column("state", "text"), "enr"),
        T("Tryout", "pID", Column("cName", "text"), Column("pPos", "text"), Column("decision", "text")),
    ])
    assert edges(tryouts)["Player.pID = Tryout.pID"][1] == "same name", edges(tryouts)
    assert edges(_dictionaries(T("d_icd_notes", "row_id", Column("short_title", "text"))))[
        "d_icd_diagnoses.icd9_code = diagnoses_icd.icd9_code"][1] == "sibling"
    # a column named after another table refers to it: a department's id in a table of employees'
    # names is no key of the employees, whose department a project's column is not
    staff = Schema([
        T("department", "department_id", Column("name", "text")),
        T("employee", "row_id", "department_id", Column("name", "text")),
        T("project", "row_id", "department_id", Column("title", "text")),
    ])
    got = edges(staff)
    assert got["department.department_id = project.department_id"][1] == "same name", got
    assert got["department.department_id = employee.department_id"][1] == "same name", got
    assert got.get("employee.department_id = project.department_id", (0.0, "sibling"))[1] == "sibling", got
