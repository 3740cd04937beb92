"""Benchmark folders in the layout of ``shared/benchmarks/README.md`` (the JAR code release's).

Required: ``dev.json`` and ``dev_tables.json``. Optional and honoured when present:
``decomp.json``, ``dev_uniqueness.json``, ``tapas/test_t.csv`` (sample values) and
``benchmark.json`` (name, SQL dialect).
"""
from __future__ import annotations

import csv
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlglot.dialects.dialect import Dialect

from jar_core.errors import BenchmarkFormatError, SchemaError
from jar_core.schema import MAX_SAMPLE_VALUES, Column, ForeignKey, Schema, Table

__all__ = ["Benchmark", "BenchmarkQuestion", "load_benchmark", "SEP"]

#: Separator of table ids (``"<db_id>#sep#<table>"``) and uniqueness keys in the layout.
SEP = "#sep#"


@dataclass(frozen=True)
class BenchmarkQuestion:
    """One question of ``dev.json``; ``gold_tables`` holds annotated table ids when the file has them."""

    question: str
    sql: str
    db_id: str
    gold_tables: tuple[str, ...] | None = None


@dataclass
class Benchmark:
    """A loaded benchmark folder."""

    name: str
    dialect: str
    path: Path
    schema: Schema
    questions: list[BenchmarkQuestion]
    decompositions: list[list[str]] | None
    has_uniqueness: bool
    has_samples: bool

    def table_id(self, layout_id: str) -> str:
        """``"db#sep#table"`` -> the schema's ``"db.table"``."""
        db, _, name = layout_id.partition(SEP)
        return f"{db}.{name}"


def _read_json(path: Path) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise BenchmarkFormatError(f"{path} is not valid JSON ({e.msg} at line {e.lineno})") from e
    except UnicodeDecodeError as e:
        raise BenchmarkFormatError(f"{path} is not UTF-8 text (byte {e.start}: {e.reason})") from e
    except RecursionError as e:
        raise BenchmarkFormatError(f"{path} nests too deeply to be read") from e
    except OSError as e:
        raise BenchmarkFormatError(f"cannot read {path}: {e.strerror}") from e


def _samples(path: Path) -> dict[tuple[str, str], dict[str, list[Any]]]:
    out: dict[tuple[str, str], dict[str, list[Any]]] = {}
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    try:
        with open(path, encoding="utf-8", newline="") as f:
            reader = csv.DictReader(f)
            if not reader.fieldnames or not {"schema", "instance_tapas"} <= set(reader.fieldnames):
                raise BenchmarkFormatError(f"{path} needs the columns 'schema' and 'instance_tapas'")
            for row_no, row in enumerate(reader, start=2):
                parts = next(csv.reader([row["schema"]]))
                if len(parts) < 2:
                    raise BenchmarkFormatError(f"{path} line {row_no}: schema {row['schema']!r} lacks db,table")
                try:
                    values = json.loads(row["instance_tapas"] or "{}")
                except json.JSONDecodeError as e:
                    raise BenchmarkFormatError(f"{path} line {row_no}: instance_tapas is not JSON ({e.msg})") from e
                if isinstance(values, dict):
                    out[(parts[0], parts[1])] = values
    except UnicodeDecodeError as e:
        raise BenchmarkFormatError(f"{path} is not UTF-8 text (byte {e.start}: {e.reason})") from e
    except csv.Error as e:
        raise BenchmarkFormatError(f"{path} is not a valid CSV file ({e})") from e
    except OSError as e:
        raise BenchmarkFormatError(f"cannot read {path}: {e.strerror}") from e
    return out


def _str_list(entry: dict[str, Any], key: str, tid: str, required: bool = False) -> list[Any]:
    v = entry.get(key)
    if v is None:
        if required:
            raise BenchmarkFormatError(f"dev_tables.json: table {tid!r} has no {key!r}")
        return []
    if not isinstance(v, list):
        raise BenchmarkFormatError(f"dev_tables.json: {tid!r}.{key} must be a list")
    return v


def _table(tid: str, entry: Any, uniq: Any, samples: dict[tuple[str, str], dict[str, list[Any]]] | None) -> Table:
    """One table of ``dev_tables.json``."""
    if not isinstance(entry, dict):
        raise BenchmarkFormatError(f"dev_tables.json: {tid!r} must be an object")
    db = entry.get("db_id") or tid.partition(SEP)[0]
    name = entry.get("table_name_original") or tid.partition(SEP)[2]
    cols = _str_list(entry, "column_names_original", tid, required=True)
    types = _str_list(entry, "column_types", tid)
    nl = _str_list(entry, "column_names", tid)
    pk = set(_str_list(entry, "primary_key", tid))
    vals = (samples or {}).get((db, name), {})
    columns = []
    for i, c in enumerate(cols):
        if not isinstance(c, str):
            raise BenchmarkFormatError(
                f"dev_tables.json: {tid!r}: column {i} has the name {json.dumps(c)}, not a string"
            )
        ratio = uniq.get(f"{tid}{SEP}{c}") if isinstance(uniq, dict) else None
        sample = vals.get(c) if isinstance(vals.get(c), list) else []
        columns.append(
            Column(
                name=str(c),
                type=str(types[i]) if i < len(types) and types[i] is not None else "",
                nl_name=str(nl[i]) if i < len(nl) and nl[i] else None,
                primary_key=c in pk,
                unique_ratio=float(ratio) if isinstance(ratio, (int, float)) else None,
                sample=tuple(dict.fromkeys(v for v in sample if v is not None and not isinstance(v, (list, dict))))[
                    :MAX_SAMPLE_VALUES
                ],
            )
        )
    fks = []
    for fk in _str_list(entry, "foreign_key", tid):
        try:
            ref = fk["referenced_table_name"]
            ref_db, _, ref_name = ref.partition(SEP) if SEP in ref else (db, "", ref)
            fks.append(ForeignKey((fk["column_name"],), f"{ref_db}.{ref_name}", (fk["referenced_column_name"],)))
        except (KeyError, TypeError, AttributeError) as e:
            raise BenchmarkFormatError(f"dev_tables.json: {tid!r} has a malformed foreign_key entry {fk!r}") from e
    return Table(database=str(db), name=str(name), columns=columns, foreign_keys=fks,
                 nl_name=entry.get("table_name") or None)


def load_benchmark(path: str | os.PathLike[str]) -> Benchmark:
    """Read a benchmark folder into a :class:`Benchmark` (schema of every database, questions, extras)."""
    root = Path(path)
    if not root.is_dir():
        raise BenchmarkFormatError(f"benchmark folder {root} does not exist")
    for required in ("dev.json", "dev_tables.json"):
        if not (root / required).is_file():
            raise BenchmarkFormatError(f"{root} is not a benchmark folder: {required} is missing")
    meta = _read_json(root / "benchmark.json") if (root / "benchmark.json").is_file() else {}
    if not isinstance(meta, dict):
        raise BenchmarkFormatError(f"{root / 'benchmark.json'} must hold an object")
    raw_tables = _read_json(root / "dev_tables.json")
    if not isinstance(raw_tables, dict):
        raise BenchmarkFormatError(f"{root / 'dev_tables.json'} must map table ids to tables")
    uniq = _read_json(root / "dev_uniqueness.json") if (root / "dev_uniqueness.json").is_file() else None
    samples = _samples(root / "tapas" / "test_t.csv") if (root / "tapas" / "test_t.csv").is_file() else None

    tables: list[Table] = []
    for tid, entry in raw_tables.items():
        try:
            tables.append(_table(tid, entry, uniq, samples))
        except SchemaError as e:
            raise BenchmarkFormatError(f"dev_tables.json: {tid!r}: {e}") from e
        except (TypeError, ValueError, AttributeError) as e:
            raise BenchmarkFormatError(f"dev_tables.json: {tid!r} is malformed ({type(e).__name__}: {e})") from e
    dialect = meta.get("dialect") or "sqlite"
    if not isinstance(dialect, str):
        raise BenchmarkFormatError(f"{root / 'benchmark.json'}: dialect must be a string")
    try:  # here, not at the first question
        Dialect.get_or_raise(dialect)
    except ValueError as e:
        raise BenchmarkFormatError(f"{root / 'benchmark.json'}: {str(e).splitlines()[0]}") from None
    schema = Schema(tables, dialect=dialect)

    raw_questions = _read_json(root / "dev.json")
    if not isinstance(raw_questions, list):
        raise BenchmarkFormatError(f"{root / 'dev.json'} must hold a list of questions")
    questions = []
    for i, q in enumerate(raw_questions):
        if not isinstance(q, dict) or not all(isinstance(q.get(k), str) for k in ("question", "sql", "db_id")):
            raise BenchmarkFormatError(f"dev.json entry {i} needs string fields question, sql and db_id")
        gold = q.get("gold_tables")
        if gold is not None and not (isinstance(gold, list) and all(isinstance(g, str) for g in gold)):
            raise BenchmarkFormatError(f"dev.json entry {i}: gold_tables must be a list of table names")
        questions.append(BenchmarkQuestion(q["question"], q["sql"], q["db_id"], tuple(gold) if gold else None))
    decomps = None
    if (root / "decomp.json").is_file():
        raw_dec = _read_json(root / "decomp.json")
        if not isinstance(raw_dec, list) or len(raw_dec) != len(questions):
            raise BenchmarkFormatError(
                f"{root / 'decomp.json'} must be a list aligned with dev.json ({len(questions)} entries)"
            )
        decomps = [[s for s in (d if isinstance(d, list) else []) if isinstance(s, str) and s.strip()] for d in raw_dec]
    return Benchmark(
        name=str(meta.get("name") or root.name), dialect=dialect, path=root, schema=schema, questions=questions,
        decompositions=decomps, has_uniqueness=uniq is not None, has_samples=samples is not None,
    )
