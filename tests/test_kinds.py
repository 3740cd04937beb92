"""A database's kinds table holds the question's values that name no table or column
(jar_core.signals.kinds, TableRetriever(kind_values=...))."""
from __future__ import annotations

import numpy as np
import pytest
from helpers import BagOfWordsEmbedder

from jar_core.errors import InvalidArgumentError
from jar_core.retriever import TableRetriever
from jar_core.signals.kinds import MAX_KIND_COLUMN_TABLES, credit_kinds, kind_tables, kinds_among

# Yelp's shape: a business's category is a value ("Dentists"); no name says which table holds it
SCHEMA = """
CREATE TABLE business (business_id TEXT PRIMARY KEY, name TEXT, city TEXT, state TEXT, rating REAL);
CREATE TABLE category (id INT PRIMARY KEY, business_id TEXT REFERENCES business(business_id), category_name TEXT);
CREATE TABLE review (rid INT PRIMARY KEY, business_id TEXT REFERENCES business(business_id), text TEXT, year INT);
CREATE TABLE checkin (cid INT PRIMARY KEY, business_id TEXT REFERENCES business(business_id), day TEXT, count INT);
"""


def _retriever(**options):
    return TableRetriever.from_ddl(SCHEMA, embedder=BagOfWordsEmbedder(), **options)


def test_the_one_table_named_as_a_kind_of_its_database():
    from jar_core.loaders import load_ddl
    from jar_core.index.schema_index import SchemaIndex

    r = _retriever()
    assert [t.name for t, k in zip(r.schema.tables, kind_tables(r.index)) if k] == ["category"]
    # two tables named as kinds in one database (a forum's post and vote types): neither
    forum = load_ddl("""
    CREATE TABLE posts (id INT PRIMARY KEY, post_type_id INT, body TEXT);
    CREATE TABLE post_types (id INT PRIMARY KEY, name TEXT);
    CREATE TABLE vote_types (id INT PRIMARY KEY, name TEXT);
    """)
    assert not kind_tables(SchemaIndex.build(forum, BagOfWordsEmbedder())).any()


def _kinds(ddl):
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.loaders import load_ddl

    index = SchemaIndex.build(load_ddl(ddl), BagOfWordsEmbedder())
    return [t.name for t, k in zip(index.schema.tables, kind_tables(index)) if k]


def test_without_a_kinds_table_the_tables_with_a_kind_column():
    # Restaurants' shape: "Chinese" is a restaurant's food type, a column, no table
    restaurants = """
    CREATE TABLE restaurant (id INT PRIMARY KEY, name TEXT, foodType TEXT, city_name TEXT, rating REAL);
    CREATE TABLE location (restaurant_id INT, house_number INT, street_name TEXT, city_name TEXT);
    CREATE TABLE geographic (city_name TEXT PRIMARY KEY, county TEXT, region TEXT);
    """
    assert _kinds(restaurants) == ["restaurant"]
    # a kinds table is the one: the columns that refer to it are not
    assert _kinds(SCHEMA + "CREATE TABLE shop (id INT, shop_type TEXT);") == ["category"]
    # more tables with a kind column than MAX_KIND_COLUMN_TABLES: nothing tells which holds the value
    many = "".join(f"CREATE TABLE t{i} (id INT, item_type TEXT);" for i in range(MAX_KIND_COLUMN_TABLES + 1))
    assert _kinds(many) == []
    assert _kinds(many.replace(f"t{MAX_KIND_COLUMN_TABLES} (id INT, item_type TEXT)",
                               f"t{MAX_KIND_COLUMN_TABLES} (id INT, item TEXT)")) == [
        f"t{i}" for i in range(MAX_KIND_COLUMN_TABLES)]
    # a code or a key of a type is no kind column (Spider's document_type_code refers to a types table)
    assert _kinds("CREATE TABLE documents (id INT, document_type_code TEXT); CREATE TABLE x (id INT);") == []


def test_only_the_strongest_candidates_database_gets_the_credit():
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.schema import Column, Schema, Table

    def db(name, *tables):
        return [Table(name=t, database=name, columns=[Column(c) for c in cols]) for t, cols in tables]

    schema = Schema(db("shop", ("product", ["id", "name"]), ("category", ["id", "name"]))
                    + db("fires", ("fire", ["id", "fire_size_class", "state"]), ("county", ["id", "name"])))
    index = SchemaIndex.build(schema, BagOfWordsEmbedder())
    names = [t.name for t in schema.tables]
    assert [names[i] for i in np.flatnonzero(kind_tables(index))] == ["category", "fire"]
    cands = np.arange(4)
    assert kinds_among(index, cands, np.array([0.9, 0.1, 0.2, 0.3])).tolist() == [False, True, False, False]
    assert kinds_among(index, cands, np.array([0.1, 0.1, 0.2, 0.9])).tolist() == [False, False, True, False]
    assert kinds_among(index, cands[:0], np.zeros(0)).tolist() == []


def test_a_subquery_nothing_matches_is_covered_by_the_kinds_table():
    F = np.array([[0.9, 0.1, 0.2], [0.2, 0.1, 0.3]], dtype=np.float32)  # the second matches nothing well
    kinds = np.array([False, True, False])
    got = credit_kinds(F, kinds, 0.35)
    np.testing.assert_allclose(got, [[0.9, 0.1, 0.2], [0.2, 0.35, 0.3]])
    assert credit_kinds(F, kinds, 0.0) is F and credit_kinds(F, np.zeros(3, dtype=bool), 0.35) is F
    np.testing.assert_allclose(F[1], [0.2, 0.1, 0.3])  # the input is left as it was


def test_the_kinds_table_joins_the_answer_when_the_question_names_a_value():
    # the bundled model: "preschools" is near no column, so it is the category's value
    question = "find the number of preschools in Madison"
    on = TableRetriever.from_ddl(SCHEMA).retrieve(question, k=2)
    off = TableRetriever.from_ddl(SCHEMA, kind_values=0.0).retrieve(question, k=2)
    assert {t.name for t in on.tables} == {"business", "category"}, on.tables
    assert "category" not in [t.name for t in off.tables], off.tables
    # a question whose words all name columns: nothing to credit
    subs = ["business name", "city", "rating"]
    plain = _retriever().signals("business name city rating", subs)
    assert np.array_equal(plain.F, _retriever(kind_values=0.0).signals("business name city rating", subs).F)


def test_a_value_found_among_samples_is_not_the_kinds_tables():
    # "Preschools" is a business's name here: the sub-query's table is known, nothing to credit
    from jar_core.loaders import load_ddl
    from jar_core.signals.kinds import resolved_by_values

    schema = load_ddl(SCHEMA)
    schema["business"].column("name").sample = ("Preschools", "Main Street Bakery", "Joe's Diner")
    subs = ["preschools", "madison"]
    question = "find the number of preschools in Madison"
    kw = dict(embedder=BagOfWordsEmbedder(), expand=0)
    on = TableRetriever(schema, **kw).signals(question, subs)
    off = TableRetriever(schema, kind_values=0.0, **kw).signals(question, subs)
    category = [schema.tables[int(c)].name for c in on.candidates].index("category")
    assert [m.span for m in on.value_matches] == ["preschools"]
    assert on.F[0, category] == off.F[0, category]  # found among names: not a category
    assert on.F[1, category] == pytest.approx(0.35) and off.F[1, category] < 0.35  # "madison" found nowhere
    assert resolved_by_values(["moroccan restaurant", "bars", "city"], ["Moroccan", "the bars"]).tolist() == [True, False, False]


@pytest.mark.parametrize("value", [-0.1, 1.5, "0.3"])
def test_a_bad_kind_values_is_one_error(value):
    with pytest.raises(InvalidArgumentError, match="kind_values"):
        _retriever(kind_values=value)
