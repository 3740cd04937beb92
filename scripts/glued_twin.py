#!/usr/bin/env python3
"""Write a benchmark folder's run-together twin: every table and column name written as one
upper-case word, as some data marts and PostgreSQL's folded CamelCase have them
(``singer_in_concert`` -> ``SINGERINCONCERT``, ``FCLT_BUILDING_ADDRESS`` -> ``FCLTBUILDINGADDRESS``).

What the twin measures is what reading run-together names as words (:mod:`jar_core.glued`) gives
back of the recall the names lose when written so. The gold SQL's tables are renamed with sqlglot
(columns are left: the metrics read the gold tables only); natural-language names
(``table_name``, ``column_names``) are dropped, so the texts read the names; keys, uniqueness
ratios and sample rows follow their renamed columns; ``decomp.json`` is copied as it is.

    python scripts/glued_twin.py ../shared/benchmarks/spider /tmp/glued/spider
    python scripts/suite/run_suite.py /tmp/glued/spider
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import sys
from pathlib import Path

SEP = "#sep#"


def glued(name: str) -> str:
    """``name`` without separators, upper case (``Treatment_Types`` -> ``TREATMENTTYPES``)."""
    return re.sub(r"[^0-9A-Za-z]", "", name).upper() or name


def twin_tables(tables: dict) -> dict:
    """``dev_tables.json`` with glued table and column names (ids and keys renamed alike)."""
    out = {}
    for tid, t in tables.items():
        db = t["db_id"]
        new = {k: v for k, v in t.items() if k not in ("table_name", "column_names")}
        new["table_name_original"] = glued(t["table_name_original"])
        new["column_names_original"] = [glued(c) for c in t["column_names_original"]]
        if "primary_key" in t:
            new["primary_key"] = [glued(c) for c in t["primary_key"]]
        if "foreign_key" in t:
            new["foreign_key"] = [
                {"column_name": glued(fk["column_name"]), "referenced_column_name": glued(fk["referenced_column_name"]),
                 "referenced_table_name": _table_id(fk["referenced_table_name"])}
                for fk in t["foreign_key"]
            ]
        out[f"{db}{SEP}{new['table_name_original']}"] = new
        assert _table_id(tid) == f"{db}{SEP}{new['table_name_original']}"
    return out


def _table_id(tid: str) -> str:
    db, _, name = tid.partition(SEP)
    return f"{db}{SEP}{glued(name)}"


def twin_sql(sql: str, dialect: str, names: set[str]) -> str:
    """``sql`` with the tables of ``names`` (lower case) renamed; the SQL as it is if it does not parse."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except Exception:  # noqa: BLE001 - the gold extractor reports it as it would for the original
        return sql
    for t in tree.find_all(exp.Table):
        if t.name.lower() in names:
            t.set("this", exp.to_identifier(glued(t.name)))
    return tree.sql(dialect=dialect)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source", type=Path)
    p.add_argument("out", type=Path)
    args = p.parse_args()
    src, out = args.source, args.out
    out.mkdir(parents=True, exist_ok=True)
    meta = json.loads((src / "benchmark.json").read_text()) if (src / "benchmark.json").is_file() else {}
    dialect = meta.get("dialect", "sqlite")
    tables = json.loads((src / "dev_tables.json").read_text())
    (out / "dev_tables.json").write_text(json.dumps(twin_tables(tables), indent=1))
    names: dict[str, set[str]] = {}
    for t in tables.values():
        names.setdefault(t["db_id"], set()).add(t["table_name_original"].lower())
    questions = json.loads((src / "dev.json").read_text())
    for q in questions:
        q["sql"] = twin_sql(q["sql"], dialect, names.get(q["db_id"], set()))
        if "gold_tables" in q:
            q["gold_tables"] = [_table_id(g) for g in q["gold_tables"]]
    (out / "dev.json").write_text(json.dumps(questions, indent=1))
    meta["name"] = f"{meta.get('name', src.name)} (run-together names)"
    (out / "benchmark.json").write_text(json.dumps(meta, indent=1))
    if (src / "decomp.json").is_file():
        shutil.copy(src / "decomp.json", out / "decomp.json")
    if (src / "dev_uniqueness.json").is_file():
        u = json.loads((src / "dev_uniqueness.json").read_text())
        (out / "dev_uniqueness.json").write_text(json.dumps(
            {SEP.join([k.split(SEP)[0]] + [glued(x) for x in k.split(SEP)[1:]]): v for k, v in u.items()}))
    if (src / "tapas" / "test_t.csv").is_file():
        (out / "tapas").mkdir(exist_ok=True)
        with open(src / "tapas" / "test_t.csv", newline="") as f, \
                open(out / "tapas" / "test_t.csv", "w", newline="") as g:
            w = csv.writer(g)
            for i, row in enumerate(csv.reader(f)):
                if i:
                    parts = row[0].split(",")
                    row = [",".join(parts[:1] + [glued(x) for x in parts[1:]]),
                           json.dumps({glued(k): v for k, v in json.loads(row[1]).items()})]
                w.writerow(row)
    print(f"{out}: {len(tables)} tables, {len(questions)} questions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
