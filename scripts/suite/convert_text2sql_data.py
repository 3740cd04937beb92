#!/usr/bin/env python3
"""Convert the datasets of jkkummerfeld/text2sql-data (Finegan-Dollak et al., 2018) into benchmark folders.

    python scripts/suite/convert_text2sql_data.py --repo /path/to/text2sql-data [--out /work/suite]

Each dataset (ATIS, Advising, Academic, IMDB, Yelp, Scholar, GeoQuery, Restaurants) is one
database and one folder ``<out>/t2s_<dataset>``, with a ``_nokeys`` twin: the source's
``data/<dataset>-schema.csv`` marks primary keys (kept) and foreign-key columns without saying
what they reference (so no foreign key is declared). Questions come from ``data/<dataset>.json``
(every split: the library is not trained on them): each sentence of a query is a question, its
variables (``city_name0``) replaced by the sentence's values, or by the variable's example value
when the sentence gives none, in the question and in the first (canonical) SQL. The SQL is
MySQL's (double-quoted strings).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _layout import DEFAULT_LIMIT, DEFAULT_SUITE, GitSource, progress, table_entry, table_id, write_benchmark  # noqa: E402

DATASETS = ("atis", "advising", "academic", "imdb", "yelp", "scholar", "geography", "restaurants")
LICENCES = {
    "advising": "CC-BY-4.0 (data/advising-LICENSE.txt)",
}
NO_LICENCE = ("no licence stated for this dataset in the repository (LICENSE.md covers tools/, systems/, "
              "data/advising* and data/wikisql* only); data from prior work, shared with its authors' permission")
ORIGINS = {
    "atis": "ATIS (Hemphill et al., 1990; Dahl et al., 1994)",
    "advising": "Advising (Finegan-Dollak et al., 2018)",
    "academic": "Academic / MAS (Li and Jagadish, 2014)",
    "imdb": "IMDB (Yaghmazadeh et al., 2017)",
    "yelp": "Yelp (Yaghmazadeh et al., 2017)",
    "scholar": "Scholar (Iyer et al., 2017)",
    "geography": "GeoQuery (Zelle and Mooney, 1996)",
    "restaurants": "Restaurants (Tang and Mooney, 2000; Popescu et al., 2003)",
}


def read_schema(text: str, db_id: str) -> dict[str, dict[str, Any]]:
    """``dev_tables.json`` entries from a ``<dataset>-schema.csv`` (primary keys only: foreign keys have no target)."""
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    header = [h.strip().lower() for h in rows[0]]
    describe = header[2] == "type"  # advising: MySQL DESCRIBE columns (Field, Type, Null, Key, Default, Extra)
    columns: dict[str, list[tuple[str, str, bool]]] = {}
    for row in rows[1:]:
        row = [c.strip() for c in row]
        if len(row) < 5 or row[0] in ("", "-"):
            continue
        table, col = row[0], row[1]
        if describe:
            ctype, is_pk = row[2], row[4].upper() == "PRI"
        else:
            ctype, is_pk = row[4], row[2].lower() in ("y", "yes", "true")
        columns.setdefault(table, []).append((col, ctype, is_pk))
    return {
        table_id(db_id, t): table_entry(db_id, t, [c for c, _, _ in cols], [ty for _, ty, _ in cols],
                                        primary_key=[c for c, _, pk in cols if pk])
        for t, cols in columns.items()
    }


def _fill(text: str, values: dict[str, str]) -> str:
    """Replace each variable name (a whole word) by its value."""
    for name in sorted(values, key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", lambda _m, v=values[name]: v, text)
    return text


def read_questions(data: list[dict[str, Any]], db_id: str) -> tuple[list[dict[str, str]], list[str], int]:
    """Questions with values filled in, each one's group (its query's position), and how many
    were dropped because a variable had no value (left in the question or the SQL)."""
    items, groups = [], []
    seen: set[tuple[str, str]] = set()
    names = {v["name"] for e in data for v in e.get("variables", [])}
    names |= {k for e in data for s in e["sentences"] for k in s.get("variables", {})}
    leftover = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, sorted(names))) + r")(?![A-Za-z0-9_])") if names else None
    unfilled = 0
    for qi, entry in enumerate(data):
        examples = {v["name"]: str(v.get("example", "")) for v in entry.get("variables", [])}
        for sentence in entry["sentences"]:
            values = dict(examples)
            values.update({k: str(v) for k, v in sentence.get("variables", {}).items() if str(v) != ""})
            question = " ".join(_fill(sentence["text"], values).split())
            sql_values = {k: v.replace('"', '""') for k, v in values.items()}
            sql = " ".join(_fill(entry["sql"][0], sql_values).split()).rstrip(" ;")
            if (question, sql) in seen:
                continue
            if leftover is not None and leftover.search(question + "\n" + sql):
                unfilled += 1
                continue
            seen.add((question, sql))
            items.append({"question": question, "sql": sql, "db_id": db_id})
            groups.append(str(qi))
    return items, groups, unfilled


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="text2sql-data: a bare git directory or a checkout")
    ap.add_argument("--out", type=Path, default=DEFAULT_SUITE, help=f"suite folder (default {DEFAULT_SUITE})")
    ap.add_argument("--datasets", default=",".join(DATASETS), help=f"comma-separated (default {','.join(DATASETS)})")
    ap.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help=f"questions kept per benchmark (default {DEFAULT_LIMIT})")
    ap.add_argument("--counts", type=Path, help="also write the counts as JSON")
    args = ap.parse_args(argv)
    src = GitSource(args.repo)
    commit = src.commit()
    all_counts = []
    for ds in [d.strip() for d in args.datasets.split(",") if d.strip()]:
        if ds not in DATASETS:
            raise SystemExit(f"unknown dataset {ds!r} (choose from {', '.join(DATASETS)})")
        progress(f"text2sql-data: {ds}")
        tables = read_schema(src.read(f"data/{ds}-schema.csv"), ds)
        items, groups, unfilled = read_questions(json.loads(src.read(f"data/{ds}.json")), ds)
        source = (f"{ORIGINS[ds]}, as canonicalised in jkkummerfeld/text2sql-data (Finegan-Dollak et al., 2018) at "
                  f"{commit[:12]}; licence: {LICENCES.get(ds, NO_LICENCE)}. One database; primary keys from "
                  f"data/{ds}-schema.csv (foreign-key columns are marked there without a target: none declared); "
                  "questions of every split with their variables filled by the given values; no sample rows.")
        all_counts.append(write_benchmark(args.out, f"t2s_{ds}", dialect="mysql", source=source, items=items,
                                          tables=tables, limit=args.limit, group=groups,
                                          dropped={"a variable without a value": unfilled} if unfilled else None))
    if args.counts:
        args.counts.write_text(json.dumps(all_counts, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
