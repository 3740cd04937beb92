"""Limits of reading schemas: work linear in what is read (a name's length, tables, columns), and
the circular definitions of DDL (alias types, ``INHERITS``) named by the error."""
from __future__ import annotations

import sys
import tracemalloc
from typing import Callable

import pytest

from jar_core.errors import DDLParseError
from jar_core.joins import build_join_graph
from jar_core.loaders import load_ddl

#: Characters of the long names: SQLite takes a name of any length.
LONG = 200_000
#: Peak memory (tracemalloc) of loading and joining the schema of one such name: a few MiB when
#: linear in its length; every prefix of it would be about 20 GB.
PEAK_MIB = 128


@pytest.mark.parametrize("name", [
    "t" + "x" * LONG,  # one word: its abbreviations and tails
    "Ab" * (LONG // 2),  # many words: roles, module prefixes, a role and its own table's name
    "_".join(["customer", "order"] * (LONG // 14)),
], ids=["one word", "camel case", "snake case"])
def test_a_long_name_costs_memory_linear_in_its_length(name: str) -> None:
    ddl = (f'CREATE TABLE "{name}" (id INT, "{name}_key" INT, "{name}_parent_id" INT);\n'
           f'CREATE TABLE other (other_id INT PRIMARY KEY, "{name}_id" INT, "{name}id" INT);\n'
           f'CREATE TABLE "{name}_people" ("{name}_people_id" INT PRIMARY KEY, "{name}_manager_id" INT);')
    tracemalloc.start()
    try:
        schema = load_ddl(ddl, dialect="sqlite")
        graphs = [build_join_graph(schema, cross_database=cross) for cross in (False, True)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < PEAK_MIB * 2**20, f"peak {peak / 2**20:.0f} MiB"
    # the same name is still a join: other's <name>_id references <name>_people's key by its whole name
    names = [(t.name, c.name) for t in schema.tables for c in t.columns]
    joined = {frozenset((names[a][0], names[b][0])) for a, b in zip(graphs[0].a, graphs[0].b)}
    assert frozenset(("other", f"{name}_people")) in joined or frozenset(("other", name)) in joined


def _case_foldings(run: Callable[[], object]) -> int:
    """How many times ``run`` folds a string's case (``str.lower``, ``str.casefold``)."""
    count = 0

    def profile(frame, event, arg) -> None:
        nonlocal count
        if event == "c_call" and getattr(arg, "__name__", "") in ("lower", "casefold"):
            count += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count


def test_tables_found_case_insensitively_by_a_map() -> None:
    # each table referenced in another case than it is created in: before, a scan of all tables
    n = 1000
    ddl = "\n".join(["CREATE TABLE T0 (id INT PRIMARY KEY);"] + [
        f"CREATE TABLE T{i} (id INT PRIMARY KEY, t{i - 1}_id INT REFERENCES t{i - 1}(id));" for i in range(1, n)])
    schema: list = []
    assert _case_foldings(lambda: schema.append(load_ddl(ddl))) < 50 * n  # was about 2 n^2
    tables = schema[0].tables
    assert len(tables) == n and tables[-1].foreign_keys[0].ref_table == f"main.T{n - 2}"


def test_columns_checked_for_duplicates_by_a_map() -> None:
    n = 2000
    ddl = "CREATE TABLE t (" + ", ".join(f"c{i} INT" for i in range(n)) + ", C5 INT);"
    with pytest.warns(UserWarning, match=r"column\(s\) '[cC]5', '[cC]5' more than once"):
        assert _case_foldings(lambda: load_ddl(ddl)) < 20 * n  # was about 3 n^2


@pytest.mark.parametrize("ddl, dialect, circle", [
    ("CREATE TYPE a FROM b;\nCREATE TYPE b FROM a;\nCREATE TABLE t (x a);", "tsql", "'a' -> 'b' -> 'a'"),
    ("CREATE TYPE dbo.a FROM dbo.a;\nCREATE TABLE t (x dbo.a);", "tsql", "'dbo.a' -> 'dbo.a'"),
    ("CREATE DOMAIN a AS b;\nCREATE DOMAIN b AS c;\nCREATE DOMAIN c AS a;\nCREATE TABLE t (x b, y INT);", "postgres",
     "'b' -> 'c' -> 'a' -> 'b'"),
])
def test_alias_types_defined_by_one_another_are_named(ddl: str, dialect: str, circle: str) -> None:
    with pytest.raises(DDLParseError, match=f"the types {circle} are defined by one another in a circle"):
        load_ddl(ddl, dialect=dialect)


def test_a_domain_of_a_domain_has_its_base_type() -> None:
    s = load_ddl("CREATE DOMAIN b AS int;\nCREATE DOMAIN a AS b;\nCREATE TABLE t (x a, y b);", dialect="postgres")
    assert [c.type for c in s.tables[0].columns] == ["INT", "INT"]


@pytest.mark.parametrize("ddl, circle", [
    ("CREATE TABLE a () INHERITS (b);\nCREATE TABLE b () INHERITS (a);", "'main.a' -> 'main.b' -> 'main.a'"),
    # with columns, one table was dropped as a copy of the other
    ("CREATE TABLE a (x INT) INHERITS (b);\nCREATE TABLE b (y INT) INHERITS (c);\nCREATE TABLE c (z INT) INHERITS (a);",
     "'main.a' -> 'main.b' -> 'main.c' -> 'main.a'"),
    ("CREATE TABLE a (x INT) INHERITS (a);", "'main.a' -> 'main.a'"),
])
def test_circular_inheritance_is_named(ddl: str, circle: str) -> None:
    with pytest.raises(DDLParseError, match=f"the inheritance of tables {circle} is circular"):
        load_ddl(ddl, dialect="postgres")
