"""Gold-table extraction from SQL (jar_core.eval.gold)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from jar_core.errors import JarError
from jar_core.eval.gold import GoldSQLError, extract_gold_tables as gold

BENCH = Path(__file__).resolve().parents[1].parent / "shared" / "benchmarks"


def test_aliases_resolved():
    sql = (
        "SELECT T1.name FROM singer AS T1 JOIN singer_in_concert AS T2 "
        "ON T1.singer_id = T2.singer_id JOIN concert T3 ON T2.concert_id = T3.concert_id"
    )
    assert gold(sql) == ["singer", "singer_in_concert", "concert"]


def test_self_join_listed_once():
    sql = "SELECT a.x FROM emp AS a JOIN emp AS b ON a.boss = b.id JOIN EMP c ON 1=1"
    assert gold(sql) == ["emp"]


def test_subqueries_in_where_and_from():
    sql = (
        "SELECT name FROM country WHERE code NOT IN "
        "(SELECT countrycode FROM countrylanguage WHERE language = 'English')"
    )
    assert gold(sql) == ["country", "countrylanguage"]
    sql = (
        "SELECT t.c FROM (SELECT count(*) AS c FROM pets JOIN has_pet ON 1=1) AS t "
        "WHERE t.c > (SELECT avg(age) FROM student)"
    )
    assert gold(sql) == ["pets", "has_pet", "student"]


def test_cte_names_excluded():
    sql = "WITH x AS (SELECT a FROM t) SELECT * FROM x JOIN u ON x.a = u.a"
    assert gold(sql) == ["t", "u"]


def test_nested_and_chained_ctes():
    sql = (
        "WITH a AS (SELECT * FROM t1), b AS (SELECT * FROM a JOIN t2 ON 1=1) "
        "SELECT * FROM b WHERE b.x IN (SELECT y FROM a)"
    )
    assert gold(sql) == ["t1", "t2"]
    # A CTE defined inside a subquery is visible only there.
    sql = "SELECT * FROM (WITH z AS (SELECT * FROM t3) SELECT * FROM z) AS q JOIN z ON 1=1"
    assert gold(sql) == ["t3", "z"]
    # A CTE inside a CTE body.
    sql = "WITH o AS (WITH i AS (SELECT * FROM base) SELECT * FROM i) SELECT * FROM o"
    assert gold(sql) == ["base"]


def test_cte_shadowing_real_table_inside_its_own_body():
    # Non-recursive: inside its own body the name refers to the real table.
    assert gold("WITH Country AS (SELECT c.Id FROM Country c) SELECT * FROM Country") == [
        "Country"
    ]
    # Recursive: the name refers to the CTE itself.
    sql = "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n FROM r JOIN e ON 1=1) SELECT * FROM r"
    assert gold(sql) == ["e"]


def test_set_operations():
    sql = "SELECT a FROM t1 UNION SELECT a FROM t2 INTERSECT SELECT a FROM t3 EXCEPT SELECT a FROM t4"
    assert gold(sql) == ["t1", "t2", "t3", "t4"]


def test_quoted_names_with_spaces_and_parentheses():
    sql = (
        'SELECT "Free Meal Count (K-12)" FROM "frpm table" AS f '
        'JOIN schools ON f.CDSCode = schools.CDSCode WHERE f.name = "France"'
    )
    assert gold(sql) == ["frpm table", "schools"]


def test_mysql_backticks_and_schema_qualifier():
    sql = (
        "SELECT `Free Meal Count (K-12)` FROM `frpm table` AS f "
        "JOIN dw.BUILDINGS b ON f.id = b.id"
    )
    assert gold(sql, dialect="mysql") == ["frpm table", "BUILDINGS"]


def test_order_of_first_appearance():
    sql = "SELECT * FROM b WHERE x IN (SELECT y FROM a) AND z IN (SELECT y FROM b)"
    assert gold(sql) == ["b", "a"]


def test_case_insensitive_resolution_against_table_list():
    sql = "SELECT * FROM SINGER AS T1 JOIN concert AS T2 ON 1=1 JOIN nope ON 1=1"
    assert gold(sql, tables=["Singer", "Concert", "stadium"]) == ["Singer", "Concert"]
    assert gold(sql) == ["SINGER", "concert", "nope"]
    # A CTE named like nothing in the database is dropped either way.
    sql = "WITH x AS (SELECT * FROM stadium) SELECT * FROM x"
    assert gold(sql, tables=["stadium", "x_table"]) == ["stadium"]


@pytest.mark.parametrize("sql", ["SELECT * FROM", "SELECT FROM WHERE ((", "", "   "])
def test_unparseable_sql_raises(sql):
    with pytest.raises(GoldSQLError):
        gold(sql)
    assert issubclass(GoldSQLError, JarError)


# ---------------------------------------------------------------- real data checks

def _load(name: str):
    folder = BENCH / name
    if not (folder / "dev.json").is_file():
        pytest.skip(f"benchmark folder {folder} is absent")
    dev = json.loads((folder / "dev.json").read_text())
    tables = json.loads((folder / "dev_tables.json").read_text())
    meta_path = folder / "benchmark.json"
    meta = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    by_db: dict[str, list[str]] = defaultdict(list)
    for info in tables.values():
        by_db[info["db_id"]].append(info["table_name_original"])
    return dev, by_db, meta.get("dialect", "sqlite")


def test_spider_dev_has_459_multi_table_questions():
    dev, by_db, dialect = _load("spider")
    multi = sum(
        len(gold(q["sql"], dialect=dialect, tables=by_db[q["db_id"]])) >= 2 for q in dev
    )
    assert len(dev) == 1034
    assert multi == 459


def test_beaver_dw_annotated_gold_reproduced():
    dev, by_db, dialect = _load("beaver_dw")
    assert dialect == "mysql"
    mismatches = []
    for i, q in enumerate(dev):
        got = {f"{q['db_id']}#sep#{t}" for t in gold(q["sql"], dialect=dialect, tables=by_db[q["db_id"]])}
        if got != set(q["gold_tables"]):
            mismatches.append((i, sorted(got), sorted(q["gold_tables"])))
    assert not mismatches, mismatches[:5]
    multi = sum(len(q["gold_tables"]) >= 2 for q in dev)
    assert multi == 120


def test_deeply_nested_gold_sql_is_a_gold_sql_error() -> None:
    with pytest.raises(GoldSQLError, match="recursion"):
        gold("SELECT * FROM t WHERE a IN " + "(SELECT a FROM t WHERE a IN " * 300 + "(1)" + ")" * 300)
