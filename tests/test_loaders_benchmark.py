"""Benchmark folders: the shipped ones, a minimal one, and malformed ones."""
import json

import numpy as np
import pytest

from jar_core.errors import BenchmarkFormatError
from jar_core.index.schema_index import SchemaIndex
from jar_core.loaders import load_benchmark
from jar_core.signals.matrices import fine_relevance


def test_spider_with_all_optional_files(benchmarks_dir):
    b = load_benchmark(benchmarks_dir / "spider")
    assert (b.name, b.dialect, len(b.schema), len(b.schema.databases)) == ("spider", "sqlite", 81, 20)
    assert len(b.questions) == 1034 and len(b.decompositions) == 1034
    assert b.has_uniqueness and b.has_samples
    breeds = b.schema["dog_kennels.Breeds"]
    assert breeds.nl_name == "breeds" and breeds.columns[0].nl_name == "breed code"
    assert breeds.columns[0].unique_ratio == 1.0 and breeds.columns[0].sample[:3] == ("ESK", "HUS", "BUL")


def test_beaver_without_extras(benchmarks_dir):
    b = load_benchmark(benchmarks_dir / "beaver_dw")
    assert (b.dialect, len(b.schema), b.schema.databases) == ("mysql", 97, ["dw"])
    assert b.decompositions is None and not b.has_uniqueness and not b.has_samples
    assert b.questions[0].gold_tables and b.table_id(b.questions[0].gold_tables[0]).startswith("dw.")


def write(folder, tables=None, questions=None, **extra):
    folder.mkdir(parents=True, exist_ok=True)
    tables = tables or {
        "db#sep#a": {"db_id": "db", "table_name_original": "a", "column_names_original": ["id", "x"],
                     "column_types": ["int", "text"], "primary_key": ["id"]},
        "db#sep#b": {"db_id": "db", "table_name_original": "b", "column_names_original": ["a_id"],
                     "column_types": ["int"],
                     "foreign_key": [{"column_name": "a_id", "referenced_table_name": "db#sep#a", "referenced_column_name": "id"}]},
    }
    (folder / "dev_tables.json").write_text(json.dumps(tables))
    (folder / "dev.json").write_text(json.dumps(questions or [{"question": "q", "sql": "SELECT * FROM a", "db_id": "db"}]))
    for name, content in extra.items():
        (folder / f"{name}.json").write_text(content if isinstance(content, str) else json.dumps(content))
    return folder


def test_minimal_folder_with_keys(tmp_path):
    b = load_benchmark(write(tmp_path / "mini"))
    assert b.name == "mini" and b.dialect == "sqlite" and b.decompositions is None
    assert b.schema["db.a"].primary_key == ("id",)
    assert b.schema["db.b"].foreign_keys[0].ref_table == "db.a"


@pytest.mark.parametrize(
    "setup,message",
    [
        (lambda d: (d / "dev.json").unlink(), "dev.json is missing"),
        (lambda d: (d / "dev_tables.json").write_text("{oops"), "dev_tables.json is not valid JSON"),
        (lambda d: (d / "decomp.json").write_text("[[], []]"), "aligned with dev.json"),
        (lambda d: (d / "dev.json").write_text('[{"question": "q"}]'), "dev.json entry 0"),
        (lambda d: (d / "dev_tables.json").write_text('{"db#sep#t": {"db_id": "db"}}'), "no 'column_names_original'"),
    ],
)
def test_malformed_folders(tmp_path, setup, message):
    d = write(tmp_path / "bad")
    setup(d)
    with pytest.raises(BenchmarkFormatError, match=message):
        load_benchmark(d)


def test_fine_relevance_is_the_best_column_per_table(tmp_path):
    b = load_benchmark(write(tmp_path / "mini"))
    # columns in index order: a.id, a.x, b.a_id ; sub-query vectors chosen by hand
    cols = np.array([[1, 0], [0, 1], [0.6, 0.8]], dtype=np.float32)
    idx = SchemaIndex(b.schema, "hand", np.zeros((2, 2), np.float32), cols, cols)
    q = np.array([[1, 0], [0, 1]], dtype=np.float32)
    F = fine_relevance(idx, q, np.array([1, 0]))
    # candidate order (b, a): q0 -> b: 0.6, a: max(1, 0) = 1 ; q1 -> b: 0.8, a: max(0, 1) = 1
    np.testing.assert_allclose(F, [[0.6, 1.0], [0.8, 1.0]])


# -- malformed input --------------------------------------------------------------------------------


def _bench(tmp_path, tables, questions=b"[]"):
    (tmp_path / "dev_tables.json").write_bytes(tables if isinstance(tables, bytes) else json.dumps(tables).encode())
    (tmp_path / "dev.json").write_bytes(questions)
    return tmp_path


def test_a_column_named_null_is_an_error(tmp_path):
    tables = {"d#sep#t": {"column_names_original": ["id", None], "column_types": ["int", "text"]}}
    with pytest.raises(BenchmarkFormatError, match="column 1 has the name null"):
        load_benchmark(_bench(tmp_path, tables))


@pytest.mark.parametrize("tables,questions,message", [
    (b'{"d#sep#caf\xe9": {}}', b"[]", "not UTF-8"),
    ({"d#sep#t": {"column_names_original": ["id"]}}, b'[{"question": "caf\xe9"}]', "not UTF-8"),
    ({"d#sep#t": {"column_names_original": ["id"], "primary_key": [["id"]]}}, b"[]", "malformed"),
    ({"d#sep#t": {"column_names_original": ["id"]}},
     b'[{"question": "q", "sql": "s", "db_id": "d", "gold_tables": 5}]', "gold_tables"),
    ([[[]]] * 1, b"[]", "must map table ids"),
    (b"[" * 100000 + b"]" * 100000, b"[]", "nests too deeply"),
])
def test_malformed_benchmark_files_are_benchmark_format_errors(tmp_path, tables, questions, message):
    with pytest.raises(BenchmarkFormatError, match=message):
        load_benchmark(_bench(tmp_path, tables, questions))
