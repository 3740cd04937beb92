"""scripts/spider_layout.py: a benchmark in Spider's layout written as a benchmark folder."""
import json

import pytest

from jar_core.loaders import load_benchmark
from tests.helpers import load_script

layout = load_script("spider_layout")

DATABASES = [
    {
        "db_id": "shop",
        "table_names_original": ["customer", "orders"],
        "table_names": ["customer", "orders"],
        "column_names_original": [[-1, "*"], [0, "id"], [0, "name"], [1, "order_id"], [1, "customer_id"], [1, "total"]],
        "column_names": [[-1, "*"], [0, "id"], [0, "name"], [1, "order id"], [1, "customer id"], [1, "total"]],
        "column_types": ["text", "number", "text", "number", "number", "number"],
        "primary_keys": [1, 3],
        "foreign_keys": [[4, 1]],
    },
    {
        "db_id": "school",
        "table_names_original": ["Student", "Enrolment"],
        "column_names_original": [[-1, "*"], [0, "StuID"], [0, "Name"], [1, "StuID"], [1, "CourseID"]],
        "column_types": ["text", "number", "text", "number", "number"],
        "primary_keys": [1, [3, 4]],
        "foreign_keys": [[3, 1]],
    },
]
QUESTIONS = [
    {"question": "Total spent by each customer", "SQL": "SELECT c.name, SUM(o.total) FROM customer c JOIN orders o "
     "ON o.customer_id = c.id GROUP BY c.name", "db_id": "shop", "evidence": "ignored"},
    {"question": "Names of enrolled students", "query": "SELECT DISTINCT s.Name FROM Student s JOIN Enrolment e "
     "ON e.StuID = s.StuID", "db_id": "school"},
]


def _inputs(tmp_path, databases=DATABASES, questions=QUESTIONS):
    (tmp_path / "tables.json").write_text(json.dumps(databases))
    (tmp_path / "questions.json").write_text(json.dumps(questions))
    return ["--tables", str(tmp_path / "tables.json"), "--questions", str(tmp_path / "questions.json")]


def test_a_spider_layout_benchmark_loads_with_or_without_its_keys(tmp_path, capsys):
    args = _inputs(tmp_path)
    assert layout.main([*args, "--out", str(tmp_path / "keys"), "--keys"]) == 0
    assert "2 questions, 4 tables in 2 databases" in capsys.readouterr().out
    bench = load_benchmark(tmp_path / "keys")
    tables = {f"{t.database}.{t.name}": t for t in bench.schema.tables}
    assert set(tables) == {"shop.customer", "shop.orders", "school.Student", "school.Enrolment"}
    assert [c.name for c in tables["shop.orders"].columns] == ["order_id", "customer_id", "total"]
    assert tables["shop.orders"].primary_key == ("order_id",)
    assert tables["school.Enrolment"].primary_key == ("StuID", "CourseID")  # a composite key
    fk = tables["shop.orders"].foreign_keys[0]
    assert (fk.columns, fk.ref_table, fk.ref_columns) == (("customer_id",), "shop.customer", ("id",))
    assert tables["school.Student"].foreign_keys == []
    assert [q.sql.split()[0] for q in bench.questions] == ["SELECT", "SELECT"]  # SQL and query both read

    assert layout.main([*args, "--out", str(tmp_path / "plain")]) == 0
    plain = load_benchmark(tmp_path / "plain")
    assert not any(t.foreign_keys or t.primary_key for t in plain.schema.tables)
    assert plain.name == "plain" and plain.dialect == "sqlite"


@pytest.mark.parametrize("databases, questions, message", [
    ({"db_id": "shop"}, QUESTIONS, "must hold a list of databases"),
    ([{**DATABASES[0], "column_types": ["text"]}], QUESTIONS[:1], "differ in length"),
    ([{"db_id": "shop"}], QUESTIONS[:1], "database 0 is not in Spider's layout"),
    (DATABASES[:1], QUESTIONS, "database 'school', which tables.json does not hold"),
    (DATABASES, [{"question": "q", "db_id": "shop"}], "question 0 has no SQL or query"),
])
def test_input_not_in_spiders_layout_is_named_in_one_line(tmp_path, capsys, databases, questions, message):
    args = _inputs(tmp_path, databases, questions)
    assert layout.main([*args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err
    assert not (tmp_path / "out" / "dev.json").exists()


def test_an_existing_benchmark_is_kept_unless_forced(tmp_path, capsys):
    args = _inputs(tmp_path)
    out = tmp_path / "out"
    assert layout.main([*args, "--out", str(out)]) == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert layout.main([*args, "--out", str(out), "--keys"]) == 2
    assert "--force" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert layout.main([*args, "--out", str(out), "--keys", "--force"]) == 0
    assert load_benchmark(out).schema.tables[1].foreign_keys
    assert sorted(p.name for p in out.iterdir()) == ["benchmark.json", "dev.json", "dev_tables.json"]


def test_a_missing_input_file_is_named(tmp_path, capsys):
    assert layout.main(["--tables", str(tmp_path / "none.json"), "--questions", str(tmp_path / "q.json"),
                        "--out", str(tmp_path / "out")]) == 2
    assert "tables file" in capsys.readouterr().err


def test_an_output_path_that_is_a_file_is_named(tmp_path, capsys):
    args = _inputs(tmp_path)
    taken = tmp_path / "taken"
    taken.write_text("keep me")
    assert layout.main([*args, "--out", str(taken)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("spider_layout: cannot write") and "\n" not in err
    assert taken.read_text() == "keep me"
