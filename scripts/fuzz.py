"""Fuzz the library's inputs with hypothesis: schemas, questions, DDL and gold SQL.

Every input must either work or raise an error of the library's hierarchy
(:class:`jar_core.errors.JarError`); anything else is a *crash*. ``tests/test_fuzz.py`` runs the
same targets with a few examples each inside the test suite; this command runs more:

    python scripts/fuzz.py --examples 500

Prints one line per target (examples run, library errors, crashes) and a total; exits 1 if any
input crashed, and prints the first crashing inputs.
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
import traceback
import zlib
from pathlib import Path
from typing import Any, Callable

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from jar_core.errors import JarError  # noqa: E402

DIALECTS = [None, "sqlite", "mysql", "postgres", "tsql", "oracle", "bigquery"]


class HashEmbedder:
    """A deterministic bag-of-words embedder (no model): each word hashes to a dimension."""

    name = "fuzz-bow"

    def __init__(self, dim: int = 16) -> None:
        self.dim = dim

    def _encode(self, texts: Any) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                out[i, zlib.crc32(w.encode("utf-8", "surrogatepass")) % self.dim] += 1.0
            out[i, 0] += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    embed_documents = _encode
    embed_queries = _encode


# -- inputs -------------------------------------------------------------------------------------

# names: mostly plain words, sometimes any text (control characters, escapes, surrogates, empty)
_any_text = st.text(st.characters(codec=None, exclude_categories=()), max_size=12)
_word = st.sampled_from(["id", "name", "book", "books", "author_id", "Orders", "order id", "#t", "null", "café",
                         "x\x1b[2J", "a.b", "SELECT", "\ud800", "", " ", "t", "price", "year"])
names = st.one_of(_word, _any_text)
types = st.one_of(st.sampled_from(["int", "INTEGER", "text", "varchar(20)", "NUMBER(10,0)", "decimal(5,2)",
                                   "date", "bool", "", "blob", "ARRAY<ARRAY<INT>>", "enum('a','b')"]), _any_text)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8))
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                           st.dictionaries(st.text(max_size=4), inner, max_size=3)),
                           max_leaves=6)


def _column() -> Any:
    return st.fixed_dictionaries(
        {"name": names},
        optional={"type": st.one_of(types, json_values), "nl_name": st.one_of(names, st.none()),
                  "primary_key": st.booleans(), "unique_ratio": st.one_of(st.floats(), st.integers(), st.none()),
                  "sample": st.lists(scalars, max_size=4), "comment": st.one_of(names, json_values)},
    )


def _table() -> Any:
    fk = st.fixed_dictionaries({"columns": st.lists(names, max_size=2), "ref_table": names,
                                "ref_columns": st.lists(names, max_size=2)})
    return st.fixed_dictionaries(
        {"database": st.one_of(st.sampled_from(["main", "shop"]), names), "name": names,
         "columns": st.one_of(st.lists(_column(), max_size=5), json_values)},
        optional={"foreign_keys": st.one_of(st.lists(fk, max_size=2), json_values),
                  "nl_name": st.one_of(names, st.none()), "row_count": st.one_of(st.integers(), json_values)},
    )


_plain = st.sampled_from(["id", "name", "book", "books", "author", "authors", "author_id", "book_id", "title",
                          "Orders", "order id", "price", "year", "t", "#t", "café", "x\x1b[2J", "a.b"])
_plain_table = st.fixed_dictionaries({
    "database": st.sampled_from(["main", "shop"]), "name": _plain,
    "columns": st.lists(st.fixed_dictionaries({"name": _plain}, optional={
        "type": st.sampled_from(["int", "text", "real", "", "date"]), "primary_key": st.booleans(),
        "unique_ratio": st.floats(0, 1), "sample": st.lists(scalars, max_size=3)}), min_size=1, max_size=4),
    "foreign_keys": st.lists(st.fixed_dictionaries({
        "columns": st.lists(_plain, min_size=1, max_size=1), "ref_table": _plain,
        "ref_columns": st.lists(_plain, min_size=1, max_size=1)}), max_size=2),
})
schema_dicts = st.one_of(
    st.fixed_dictionaries({"tables": st.lists(_plain_table, min_size=1, max_size=6), "dialect": st.sampled_from(DIALECTS)}),
    st.fixed_dictionaries({"tables": st.lists(_table(), max_size=5)}, optional={"dialect": st.one_of(
        st.sampled_from(DIALECTS), json_values)}),
    json_values,
)
questions = st.one_of(
    st.text(max_size=60),
    st.text(st.characters(codec=None, exclude_categories=()), max_size=30),
    st.lists(st.sampled_from(["books", "by", "authors", "of", "'Ireland'", "2020", "the", "price", "\x1b[2J",
                              "\ud800", "?", "order id", '"quoted"', "-", "  "]), max_size=12).map(" ".join),
)
_sql_words = ["CREATE", "TABLE", "IF", "NOT", "EXISTS", "(", ")", ",", ";", "PRIMARY", "KEY", "REFERENCES",
              "FOREIGN", "CONSTRAINT", "ALTER", "ADD", "COLUMN", "COMMENT", "ON", "IS", "'text'", "INT", "TEXT",
              "VARCHAR(10)", "DEFAULT", "NULL", "UNIQUE", "a", "b", "t", "#tmp", "s.t", '"q t"', "`m`", "[x]",
              "GO", "SELECT", "FROM", "WHERE", "JOIN", "USING", "AS", "WITH", "UNION", "IN", "*", "=", "1",
              "'", '"', "--", "/*", "*/", "\n", "ARRAY<", ">", "STRUCT<", "$$", "@v", "\x00", "\ud800"]
sql_text = st.one_of(st.lists(st.sampled_from(_sql_words), max_size=40).map(" ".join), st.text(max_size=80))
_ddl_types = st.sampled_from(["INT", "TEXT", "VARCHAR(20)", "DECIMAL(10,2)", "DATE", "INT PRIMARY KEY",
                              "INT REFERENCES t(id)", "INT NOT NULL DEFAULT 0", "TEXT COMMENT 'x'"])
ddl_text = st.one_of(
    sql_text,
    st.lists(st.tuples(_plain, st.lists(st.tuples(_plain, _ddl_types), min_size=1, max_size=4)), min_size=1,
             max_size=4).map(
        lambda ts: "\n".join(f'CREATE TABLE "{t}" ({", ".join(f"{chr(34)}{c}{chr(34)} {ty}" for c, ty in cols)});'
                             for t, cols in ts)
    ),
    st.lists(st.tuples(names, st.lists(st.tuples(names, types), min_size=1, max_size=4)), min_size=1, max_size=3).map(
        lambda ts: "\n".join(f'CREATE TABLE "{t}" ({", ".join(f"{c} {ty}" for c, ty in cols)});' for t, cols in ts)
    ),
)


# -- targets: each runs the library on one input ------------------------------------------------

def target_schema(d: Any) -> None:
    """A schema dictionary through the whole pipeline: index, save/load, retrieval, documents."""
    from jar_core.output.documents import result_documents
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.retriever import TableRetriever
    from jar_core.schema import Schema

    schema = Schema.from_dict(d)
    retriever = TableRetriever(schema, embedder=HashEmbedder())
    with tempfile.TemporaryDirectory() as tmp:
        retriever.save_index(Path(tmp) / "idx")
        loaded = SchemaIndex.load(Path(tmp) / "idx", schema=schema, model_name="fuzz-bow")
        SchemaIndex.load(Path(tmp) / "idx")
    result = TableRetriever(schema, embedder=HashEmbedder(), index=loaded).retrieve("books by authors", k=3)
    result.to_dict()
    result.join_clause()
    result_documents(result)


_RETRIEVER: Any = None


def target_question(q: str) -> None:
    """A question to a retriever over a small DDL schema."""
    global _RETRIEVER
    from jar_core.retriever import TableRetriever

    if _RETRIEVER is None:
        _RETRIEVER = TableRetriever.from_ddl(
            "CREATE TABLE authors (id INT PRIMARY KEY, name TEXT, country TEXT);"
            "CREATE TABLE books (id INT PRIMARY KEY, title TEXT, year INT, price REAL);"
            "CREATE TABLE book_authors (book_id INT REFERENCES books(id), author_id INT REFERENCES authors(id));",
            embedder=HashEmbedder(),
        )
    _RETRIEVER.retrieve(q, k=2).to_dict()


def target_ddl(text: str, dialect: str | None) -> None:
    """DDL text in a dialect, then the tables written back as DDL."""
    from jar_core.loaders import load_ddl
    from jar_core.output.sql import create_table_ddl

    schema = load_ddl(text, dialect=dialect)
    for t in schema:
        create_table_ddl(t, dialect)


def target_gold(sql: str, dialect: str | None) -> None:
    """Gold SQL through the evaluation's table extraction."""
    from jar_core.eval.gold import extract_gold_tables

    extract_gold_tables(sql, dialect=dialect or "sqlite")
    extract_gold_tables(sql, dialect=dialect or "sqlite", tables=["t", "a", "b"])


TARGETS: dict[str, tuple[Callable[..., None], tuple[Any, ...]]] = {
    "schemas": (target_schema, (schema_dicts,)),
    "questions": (target_question, (questions,)),
    "ddl": (target_ddl, (ddl_text, st.sampled_from(DIALECTS))),
    "gold_sql": (target_gold, (sql_text, st.sampled_from(DIALECTS))),
}


def run(name: str, examples: int, *, seed: int | None = None) -> dict[str, Any]:
    """Run target ``name`` on ``examples`` generated inputs (no shrinking); count errors and crashes."""
    func, strategies = TARGETS[name]
    stats: dict[str, Any] = {"target": name, "examples": 0, "library_errors": 0, "crashes": 0, "first": []}

    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(st.tuples(*strategies))
    def body(args: tuple[Any, ...]) -> None:
        stats["examples"] += 1
        try:
            func(*args)
        except JarError:
            stats["library_errors"] += 1
        except Exception as e:  # noqa: BLE001 - a crash: counted and shown
            stats["crashes"] += 1
            if len(stats["first"]) < 3:
                stats["first"].append((args, "".join(traceback.format_exception_only(type(e), e)).strip()))

    if seed is not None:
        from hypothesis import seed as hypothesis_seed

        body = hypothesis_seed(seed)(body)
    body()
    return stats


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--examples", type=int, default=500, help="inputs per target (default 500)")
    p.add_argument("--targets", default=",".join(TARGETS), help=f"comma-separated, among {', '.join(TARGETS)}")
    p.add_argument("--seed", type=int, help="hypothesis seed (default: random)")
    args = p.parse_args(argv)
    import warnings

    import logging

    warnings.simplefilter("ignore")  # duplicate-definition warnings of fuzzed DDL are expected
    logging.getLogger("sqlglot").setLevel(logging.CRITICAL)  # "falling back to Command" on fuzzed SQL
    total = {"examples": 0, "library_errors": 0, "crashes": 0}
    for name in args.targets.split(","):
        stats = run(name.strip(), args.examples, seed=args.seed)
        print(f"{stats['target']}: {stats['examples']} inputs, {stats['library_errors']} library errors "
              f"(JarError), {stats['crashes']} crashes")
        for inputs, error in stats["first"]:
            print(f"  crash: {error} on {inputs!r}"[:400])
        for key in total:
            total[key] += stats[key]
    print(f"total: {total['examples']} inputs, {total['library_errors']} library errors, "
          f"{total['crashes']} crashes outside the library's error hierarchy")
    return 1 if total["crashes"] else 0


if __name__ == "__main__":
    sys.exit(main())
