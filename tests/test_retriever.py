"""End-to-end retrieval on the demo database and on DDL sources, and the bad inputs."""
import warnings

import pytest

from jar_core import TableRetriever
from jar_core.decompose.heuristic import HeuristicDecomposer, PrecomputedDecomposer
from jar_core.demo import DEMO_GOLD_TABLES, DEMO_QUESTION
from jar_core.errors import InvalidArgumentError, SchemaError, UnknownDatabaseError
from jar_core.loaders import load_ddl

from helpers import BagOfWordsEmbedder


def test_demo_question_reaches_through_the_junction_table(demo_retriever):
    res = demo_retriever.retrieve(DEMO_QUESTION, k=3)
    assert set(res.table_names) == set(DEMO_GOLD_TABLES)  # books, book_categories, categories
    # dense similarity alone ranks another junction (book_authors) above the categories table
    dense = demo_retriever.with_options(lexical=0.0, strategy="dense")
    assert set(dense.retrieve(DEMO_QUESTION, k=3).table_names) != set(DEMO_GOLD_TABLES)
    assert not res.unjoined
    edges = {frozenset((j.left, j.right)) for j in res.joins}
    assert edges == {frozenset(("books.book_id", "book_categories.book_id")),
                     frozenset(("book_categories.category_id", "categories.category_id"))}
    assert all(j.declared for j in res.joins)
    assert [t.step for t in res.tables] == [1, 2, 3]
    hint = res.join_clause()
    assert hint.startswith(f'FROM "{res.tables[0].name}" JOIN "book_categories"') and hint.count(" JOIN ") == 2


def test_authors_question_uses_the_other_junction(demo_retriever):
    res = demo_retriever.retrieve("Which books were written by authors born in Ireland?", k=4)
    assert {"authors", "book_authors", "books"} <= set(res.table_names)
    assert frozenset(("authors.author_id", "book_authors.author_id")) in {frozenset((j.left, j.right)) for j in res.joins}
    # "Ireland" is a value of countries.name: the birthplace's table is found through it
    assert "countries" in res.table_names and any(m["table"].endswith("countries") for m in res.value_matches)


def test_result_is_deterministic(demo_retriever):
    a = demo_retriever.retrieve(DEMO_QUESTION, k=5).to_dict()
    b = demo_retriever.retrieve(DEMO_QUESTION, k=5).to_dict()
    assert a == b


def test_include_and_exclude(demo_retriever):
    res = demo_retriever.retrieve(DEMO_QUESTION, k=3, include=["countries"], exclude=["book_authors"])
    assert res.table_names[0] == "countries" and res.tables[0].pinned
    assert "book_authors" not in res.table_names
    with pytest.raises(InvalidArgumentError, match="both included and excluded"):
        demo_retriever.retrieve(DEMO_QUESTION, include=["books"], exclude=["books"])
    with pytest.raises(UnknownDatabaseError, match="nope"):
        demo_retriever.retrieve(DEMO_QUESTION, include=["nope"])


@pytest.mark.parametrize("question", ["", "   \n", None, 42])
def test_blank_or_non_string_question(demo_retriever, question):
    with pytest.raises(InvalidArgumentError):
        demo_retriever.retrieve(question)


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_bad_k(demo_retriever, k):
    with pytest.raises(InvalidArgumentError, match="k must be"):
        demo_retriever.retrieve(DEMO_QUESTION, k=k)


def test_k_larger_than_candidates_warns_and_returns_what_there_is(demo_retriever):
    with pytest.warns(UserWarning, match="larger than the 13 candidate"):
        res = demo_retriever.retrieve(DEMO_QUESTION, k=50)
    assert len(res) == 13 and res.warnings


def test_explicit_subqueries_and_trace(demo_retriever):
    res = demo_retriever.retrieve(DEMO_QUESTION, k=3, subqueries=["authors:birthplace", "books:title"])
    assert res.decomposer == "given" and res.subqueries == ["authors:birthplace", "books:title"]
    # the value the question names ("Science Fiction") is covered as a sub-query of its own
    assert set(res.coverage) == {"authors:birthplace", "books:title", "value: Science Fiction"}
    assert len(res.trace) == 3 and all(sum(e.chosen for e in step) == 1 for step in res.trace)


def test_dense_strategy_per_call(demo_retriever):
    res = demo_retriever.retrieve(DEMO_QUESTION, k=3, strategy="dense")
    assert res.strategy == "dense"
    assert [t.coarse for t in res.tables] == sorted((t.coarse for t in res.tables), reverse=True)


ODD_DDL = '''
CREATE TABLE "frpm" ("CDSCode" TEXT PRIMARY KEY, "Free Meal Count (K-12)" REAL, "School Name" TEXT);
CREATE TABLE "schools" ("CDSCode" TEXT PRIMARY KEY REFERENCES "frpm"("CDSCode"), "City" TEXT, "Zip" TEXT);
CREATE TABLE "Café ""Orders""" ("Numéro" INTEGER PRIMARY KEY, "CDSCode" TEXT REFERENCES "schools"("CDSCode"));
'''


def test_identifiers_with_spaces_quotes_parentheses_and_accents():
    r = TableRetriever(load_ddl(ODD_DDL, dialect="sqlite"), embedder=BagOfWordsEmbedder())
    res = r.retrieve("free meal count of schools by city", k=3, include=["frpm", "schools", 'Café "Orders"'])
    assert set(res.table_names) == {"frpm", "schools", 'Café "Orders"'}
    hint = res.join_clause("sqlite")  # pinned tables are needed: all three in the join path
    assert '"Café ""Orders"""' in hint
    doc_cols = {c.name for c in r.schema["frpm"].columns}
    assert "Free Meal Count (K-12)" in doc_cols


def test_same_table_name_in_two_databases_are_distinct():
    ddl = """CREATE TABLE sales.orders (id INT PRIMARY KEY, amount REAL);
             CREATE TABLE hr.orders (id INT PRIMARY KEY, supplies TEXT);"""
    r = TableRetriever(load_ddl(ddl), embedder=BagOfWordsEmbedder())
    res = r.retrieve("orders amount", k=2)
    assert sorted(res.table_ids) == ["hr.orders", "sales.orders"]
    assert r.retrieve("orders", k=1, database="hr").table_ids == ["hr.orders"]


def test_database_filter_is_computed_once_not_per_query(monkeypatch):
    from jar_core.schema import Schema

    ddl = """CREATE TABLE sales.orders (id INT PRIMARY KEY, amount REAL);
             CREATE TABLE sales.clients (id INT PRIMARY KEY, name TEXT);
             CREATE TABLE hr.orders (id INT PRIMARY KEY, supplies TEXT);
             CREATE TABLE Hr.staff (id INT PRIMARY KEY, name TEXT);"""
    r = TableRetriever(load_ddl(ddl), embedder=BagOfWordsEmbedder())
    r.index
    calls = []
    real_subset = Schema.subset
    monkeypatch.setattr(Schema, "subset", lambda self, db: calls.append(db) or real_subset(self, db))
    for _ in range(3):
        assert sorted(r.retrieve("orders clients amount name", k=2, database="sales").table_ids) == [
            "sales.clients", "sales.orders"]
    assert r.retrieve("staff name", k=1, database="Hr").table_ids == ["Hr.staff"]  # exact name first
    # no exact match: case-insensitive, over every database whose name folds to it (as Schema.subset)
    assert sorted(r.retrieve("orders staff", k=2, database="HR").table_ids) == ["Hr.staff", "hr.orders"]
    assert calls == []  # no per-query subset
    with pytest.raises(UnknownDatabaseError, match="unknown database 'payroll'"):
        r.retrieve("orders", k=1, database="payroll")


def test_no_tables_and_no_columns_are_schema_errors():
    with pytest.raises(SchemaError, match="no tables"):
        TableRetriever(load_ddl("CREATE INDEX i ON t(a);"))
    with pytest.raises(SchemaError, match="no columns"):
        TableRetriever(load_ddl("CREATE TABLE t ();"))


def test_heuristic_decomposer_uses_schema_vocabulary(demo_schema):
    d = HeuristicDecomposer().decompose("What is the title and list price of books by Irish authors?", demo_schema)
    assert d.source == "heuristic"
    assert "book:title" in d.subqueries and "book:list price" in d.subqueries
    assert all(w not in d.subqueries for w in ("what", "is", "the"))
    assert HeuristicDecomposer().decompose("How many 'Ireland' 1990?").subqueries == ()


def test_decomposer_and_join_rules_share_one_singular():
    # the decomposer had its own plural rule: "courses" became "cours" and missed a course table
    from jar_core.joins.profile import singular
    from jar_core.schema import Column, Schema, Table

    words = ["courses", "statuses", "houses", "matches", "series", "ids", "gas", "categories", "boxes"]
    assert [singular(w) for w in words] == [
        "course", "status", "house", "match", "series", "id", "gas", "category", "box"]
    schema = Schema([Table("d", "course", [Column("course_id", "int"), Column("status", "text")]),
                     Table("d", "teacher", [Column("teacher_id", "int"), Column("name", "text")])])
    d = HeuristicDecomposer().decompose("Which courses have statuses, and which teachers teach them?", schema)
    assert d.subqueries[:2] == ("course:status", "teacher")


def test_precomputed_decomposer_falls_back():
    d = PrecomputedDecomposer({"q1": ["a:b", "", "c"]})
    assert d.decompose("q1").subqueries == ("a:b", "c") and d.decompose("q1").source == "precomputed"
    assert d.decompose("list singers by age").source == "heuristic"


# -- no process-wide state keyed by addresses, strings as names, invalid text ----------


def _schema(name):
    from jar_core.schema import Column, Schema, Table

    return Schema([Table("d", name, [Column("id", "int"), Column(f"{name}_title", "text")])])


def test_heuristic_vocabulary_is_keyed_by_the_schema_not_its_address(monkeypatch):
    import jar_core.decompose.heuristic as decomposition

    monkeypatch.setattr(decomposition, "id", lambda obj: 4242, raising=False)  # an address reused
    dec = HeuristicDecomposer()
    assert "book:book title" in dec.decompose("books title of every book", _schema("books")).subqueries
    assert "song:song title" in dec.decompose("songs title of every song", _schema("songs")).subqueries


def test_llm_decomposer_cache_is_keyed_by_the_schema_not_its_address(monkeypatch):
    import jar_core.decompose.llm as llm_decomposition
    from jar_core.decompose.llm import LLMDecomposer

    monkeypatch.setattr(llm_decomposition, "id", lambda obj: 4242, raising=False)
    answers = iter(['["books"]', '["movies"]'])
    dec = LLMDecomposer(lambda prompt: next(answers), max_tables=5)
    assert dec.decompose("what is there?", _schema("books")).subqueries == ("books",)
    assert dec.decompose("what is there?", _schema("movies")).subqueries == ("movies",)


def test_include_and_exclude_take_one_string_as_one_name():
    r = TableRetriever.from_ddl(
        "CREATE TABLE books (id INT PRIMARY KEY, title TEXT);"
        "CREATE TABLE authors (id INT PRIMARY KEY, book_id INT REFERENCES books(id), name TEXT);",
        embedder=BagOfWordsEmbedder(),
    )
    res = r.retrieve("authors of books", k=2, include="books")
    assert res.table_names[0] == "books"
    assert "books" not in r.retrieve("authors of books", k=1, exclude="books").table_names
    with pytest.raises(InvalidArgumentError, match="table names"):
        r.retrieve("authors of books", k=2, include=[3])


@pytest.mark.parametrize("question", ["books by \ud800 authors", "caf\udcc3 books"])
def test_a_question_with_a_lone_surrogate_is_an_invalid_argument(question):
    r = TableRetriever.from_ddl("CREATE TABLE books (id INT PRIMARY KEY, title TEXT);", embedder=BagOfWordsEmbedder())
    with pytest.raises(InvalidArgumentError, match="surrogate"):
        r.retrieve(question)


def test_terminal_escape_sequences_are_no_words_of_a_question(demo_retriever):
    # pasted from a terminal: before, "31mred" became a sub-query
    res = demo_retriever.retrieve("\x1b[31mScience Fiction\x1b[0m books\x07 and their authors", k=3)
    assert res.question == "Science Fiction books  and their authors"
    assert not any("31m" in q or "0m" in q for q in res.subqueries), res.subqueries
    with pytest.raises(InvalidArgumentError, match="empty"):
        demo_retriever.retrieve("\x1b[0m\x1b[2J", k=2)


def test_one_string_of_subqueries_is_one_subquery(demo_retriever):
    res = demo_retriever.retrieve("books", k=2, subqueries="authors")
    assert res.subqueries == ["authors"] and res.decomposer == "given"
    with pytest.raises(InvalidArgumentError, match="subqueries must be strings"):
        demo_retriever.retrieve("books", k=2, subqueries=["authors", 3])


def test_a_question_nothing_in_the_source_matches_is_flagged(demo_retriever):
    from jar_core.output.documents import format_tables_text

    assert demo_retriever.retrieve("Which books are in Horror?", k=3).warnings == []
    res = demo_retriever.retrieve("what is the weather tomorrow", k=2)
    assert len(res.warnings) == 1 and "no table matches any part of the question" in res.warnings[0]
    assert format_tables_text(res).startswith("-- Warning: no table matches")
    empty = demo_retriever.retrieve("what is the", k=2)
    assert empty.subqueries == [] and "no sub-queries" in empty.warnings[0]


_DDL = ("CREATE TABLE books (id INT PRIMARY KEY, title TEXT);"
        "CREATE TABLE book_authors (id INT PRIMARY KEY, book_id INT REFERENCES books(id), name TEXT);")


@pytest.mark.parametrize("source, hint", [
    ("sqlite:///shop.db", "TableRetriever.from_database"),
    (_DDL, "TableRetriever.from_ddl"),
    (None, "Schema"),
    ({"tables": []}, "Schema.from_dict"),
])
def test_a_retriever_needs_a_schema_not_a_url_or_none(source, hint):
    with pytest.raises(InvalidArgumentError, match="Schema") as err:
        TableRetriever(source)
    assert hint in str(err.value)


@pytest.mark.parametrize("decomposer", ["nope", "heuristic", 42, object()])
def test_an_unknown_decomposer_is_rejected_at_construction(decomposer):
    schema = load_ddl(_DDL)
    with pytest.raises(InvalidArgumentError, match="decomposer") as err:
        TableRetriever(schema, decomposer=decomposer, embedder=BagOfWordsEmbedder())
    assert "decompose(" in str(err.value) and "None" in str(err.value)  # what is accepted


def test_decomposers_accepted_at_construction():
    class Upper:  # any object with decompose(question, schema), no name needed
        def decompose(self, question, schema=None):
            from jar_core.decompose.heuristic import Decomposition

            return Decomposition(("authors",), "upper")

    schema = load_ddl(_DDL)
    for dec in (None, HeuristicDecomposer(), PrecomputedDecomposer({}), Upper()):
        r = TableRetriever(schema, decomposer=dec, embedder=BagOfWordsEmbedder())
        assert r.retrieve("who wrote books?", k=1).decomposer in ("heuristic", "upper")


@pytest.mark.parametrize("strategy", [42, object()])
def test_an_unknown_strategy_object_is_rejected_at_construction(strategy):
    with pytest.raises(InvalidArgumentError, match="strategy"):
        TableRetriever(load_ddl(_DDL), strategy=strategy, embedder=BagOfWordsEmbedder())


def test_unknown_loader_options_are_named_with_the_accepted_ones():
    from jar_core.demo import demo_url

    with pytest.raises(InvalidArgumentError, match="'nope'") as err:
        TableRetriever.from_database(demo_url(), loader_options={"nope": 1, "sample_rows": 10})
    assert "sample_rows" in str(err.value) and "include_tables" in str(err.value)  # the accepted ones
    with pytest.raises(InvalidArgumentError, match="loader_options"):
        TableRetriever.from_database(demo_url(), loader_options=["sample_rows"])
    # the adapters read the options before the core does: the same check, not a TypeError
    from jar_core.loaders.database import sql_database_source

    class FakeSQLDatabase:
        _engine = object()

    for build in (lambda o: pytest.importorskip("langchain_jar").JoinAwareRetriever.from_database(demo_url(), loader_options=o),
                  lambda o: pytest.importorskip("llamaindex_jar").JoinAwareRetriever.from_database(demo_url(), loader_options=o),
                  lambda o: sql_database_source(FakeSQLDatabase(), o)):
        with pytest.raises(InvalidArgumentError, match="loader_options"):
            build(["sample_rows"])
        with pytest.raises(InvalidArgumentError, match="'nope'"):
            build({"nope": 1})


def test_prefetch_counts_one_string_as_one_question():
    r = TableRetriever.from_ddl(_DDL, embedder=BagOfWordsEmbedder())
    assert r.prefetch("Which books?", decompose=False) == 1
    assert r.prefetch(["Which books?", "Who wrote them?"], decompose=False) == 2


def test_a_misspelled_include_exclude_or_database_suggests_close_names(demo_retriever):
    for option in ("include", "exclude"):
        with pytest.raises(UnknownDatabaseError, match=r"no table 'book_author'.*did you mean demo\.book_authors"):
            demo_retriever.retrieve(DEMO_QUESTION, **{option: ["book_author"]})
    with pytest.raises(UnknownDatabaseError, match="unknown database 'dem'.*did you mean demo"):
        demo_retriever.retrieve(DEMO_QUESTION, database="dem")
