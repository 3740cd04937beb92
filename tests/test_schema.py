import pytest

from jar_core.errors import SchemaError, UnknownDatabaseError
from jar_core.schema import Column, ForeignKey, Schema, Table, TypeFamily, normalize_type


@pytest.mark.parametrize(
    "raw,family",
    [
        ("VARCHAR2", TypeFamily.TEXT), ("varchar(255) DEFAULT NULL", TypeFamily.TEXT),
        ("int NOT NULL AUTO_INCREMENT", TypeFamily.INTEGER), ("number", TypeFamily.REAL),
        ("NUMBER(10)", TypeFamily.INTEGER), ("numeric(10,2)", TypeFamily.REAL), ("text", TypeFamily.TEXT),
        ("bigint unsigned", TypeFamily.INTEGER), ("DATETIME", TypeFamily.DATETIME), ("time", TypeFamily.DATETIME),
        ("TIMESTAMP WITH TIME ZONE", TypeFamily.DATETIME), ("boolean", TypeFamily.BOOLEAN),
        ("double precision", TypeFamily.REAL), ("CHAR(3)", TypeFamily.TEXT), ("others", TypeFamily.OTHER),
        ("", TypeFamily.OTHER), (None, TypeFamily.OTHER),
    ],
)
def test_normalize_type(raw, family):
    assert normalize_type(raw) is family


def test_integer_and_real_share_a_join_class():
    assert TypeFamily.INTEGER.join_class == TypeFamily.REAL.join_class != TypeFamily.TEXT.join_class


def test_validation_errors():
    with pytest.raises(SchemaError, match="no tables"):
        Schema([])
    with pytest.raises(SchemaError, match="has no columns"):
        Schema([Table("d", "empty", [])])
    with pytest.raises(SchemaError, match="appears twice"):
        Schema([Table("d", "t", [Column("a")]), Table("d", "t", [Column("b")])])
    with pytest.raises(SchemaError, match="column"):
        Column("  ")


def test_same_table_name_in_two_databases():
    s = Schema([Table("sales", "orders", [Column("id")]), Table("hr", "orders", [Column("id")])])
    assert s["sales.orders"].database == "sales" and s["hr.orders"].database == "hr"
    with pytest.raises(UnknownDatabaseError, match="ambiguous"):
        s["orders"]
    with pytest.raises(UnknownDatabaseError, match="unknown database 'nope'"):
        s.subset("nope")
    assert [t.id for t in s.subset("HR")] == ["hr.orders"]


def test_dangling_foreign_keys_are_dropped_and_names_resolved():
    a = Table("d", "a", [Column("id", primary_key=True)])
    b = Table("d", "b", [Column("A_ID")], foreign_keys=[ForeignKey(("a_id",), "d.a", ("id",)), ForeignKey(("x",), "d.zz", ("id",))])
    s = Schema([a, b])
    assert s["b"].foreign_keys == [ForeignKey(("A_ID",), "d.a", ("id",))]


def test_round_trip_and_fingerprint():
    s = Schema([Table("d", "Free Meal (K-12)", [Column("Café Name", "text", unique_ratio=0.5, sample=("x",))])])
    s2 = Schema.from_dict(s.to_dict())
    assert s2.fingerprint() == s.fingerprint()
    assert s2["d.Free Meal (K-12)"].columns[0].sample == ("x",)
    s2.tables[0].columns[0].type = "int"
    assert Schema.from_dict(s2.to_dict()).fingerprint() != s.fingerprint()


def test_copy_to_another_database_repoints_foreign_keys():
    t = Table("shop", "orders", [Column("id", "int", primary_key=True), Column("customer_id", "int", sample=(1, 2))],
              [ForeignKey(("customer_id",), "shop.customers", ("id",))])
    c = t.copy_to("shop_2")
    assert c.id == "shop_2.orders" and c.foreign_keys == [ForeignKey(("customer_id",), "shop_2.customers", ("id",))]
    assert c.columns == t.columns and c.columns[0] is not t.columns[0]
    assert t.id == "shop.orders" and t.foreign_keys[0].ref_table == "shop.customers"


@pytest.mark.parametrize("tables", [None, 42, "books", [Table("d", "t", [Column("a")]), "u"]])
def test_a_schema_of_something_else_than_tables_is_a_schema_error(tables):
    with pytest.raises(SchemaError, match="Table"):
        Schema(tables)


def test_an_unknown_table_or_database_name_suggests_close_ones():
    s = Schema([Table("shop", "book_authors", [Column("id")]), Table("shop", "books", [Column("id")]),
                Table("hr", "staff", [Column("id")])])
    with pytest.raises(UnknownDatabaseError, match=r"no table 'book_author' in the schema .*did you mean shop\.book_authors"):
        s.resolve(["book_author"])
    with pytest.raises(UnknownDatabaseError, match="no table 'zzz'") as err:
        s["zzz"]
    assert "did you mean" not in str(err.value)  # nothing close: no suggestion
    with pytest.raises(UnknownDatabaseError, match="unknown database 'shopp'.*did you mean shop"):
        s.subset("shopp")
