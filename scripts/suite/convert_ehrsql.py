#!/usr/bin/env python3
"""Convert glee4810/EHRSQL (Lee et al., 2022) into two benchmark folders: MIMIC-III and eICU.

    python scripts/suite/convert_ehrsql.py --repo /path/to/EHRSQL [--out /work/suite] [--split valid]

The schemas come from ``dataset/ehrsql/tables.json`` (Spider's layout, with primary and foreign
keys, kept; a ``_nokeys`` twin drops them); the questions from
``dataset/ehrsql/<mimic_iii|eicu>/<split>.json`` (the hospital staff's questions, paraphrased,
with SQLite gold SQL whose values are already filled in). Unanswerable questions (``is_impossible``,
no SQL) are left out.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _layout import DEFAULT_LIMIT, DEFAULT_SUITE, GitSource, progress, table_entry, table_id, write_benchmark  # noqa: E402

DATABASES = {"mimic_iii": "ehrsql_mimic3", "eicu": "ehrsql_eicu"}


def read_tables(databases: list[dict[str, Any]], db_id: str) -> dict[str, dict[str, Any]]:
    """``dev_tables.json`` entries of one database of a Spider-layout ``tables.json``."""
    db = next((d for d in databases if d["db_id"] == db_id), None)
    if db is None:
        raise SystemExit(f"tables.json has no database {db_id!r}")
    names = db["table_names_original"]
    cols = db["column_names_original"]  # [table index, column name]; index 0 is "*"
    nl = db.get("column_names", cols)
    types = db["column_types"]
    pks: set[int] = set()
    for pk in db.get("primary_keys", []):
        pks.update(pk if isinstance(pk, list) else [pk])
    fks: dict[int, list[tuple[str, str, str]]] = {}
    for a, b in db.get("foreign_keys", []):
        fks.setdefault(cols[a][0], []).append((cols[a][1], names[cols[b][0]], cols[b][1]))
    out = {}
    for ti, name in enumerate(names):
        idx = [i for i, (t, _) in enumerate(cols) if t == ti]
        out[table_id(db_id, name)] = table_entry(
            db_id, name, [cols[i][1] for i in idx], [types[i] for i in idx],
            primary_key=[cols[i][1] for i in idx if i in pks], foreign_keys=fks.get(ti, []),
            column_names=[nl[i][1] for i in idx],
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repo", required=True, help="EHRSQL: a bare git directory or a checkout")
    ap.add_argument("--out", type=Path, default=DEFAULT_SUITE, help=f"suite folder (default {DEFAULT_SUITE})")
    ap.add_argument("--split", default="valid", choices=("train", "valid", "test"), help="question split (default valid)")
    ap.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help=f"questions kept per benchmark (default {DEFAULT_LIMIT})")
    ap.add_argument("--counts", type=Path, help="also write the counts as JSON")
    args = ap.parse_args(argv)
    src = GitSource(args.repo)
    commit = src.commit()
    databases = json.loads(src.read("dataset/ehrsql/tables.json"))
    all_counts = []
    for db_id, name in DATABASES.items():
        progress(f"EHRSQL: {db_id} {args.split}")
        tables = read_tables(databases, db_id)
        raw = json.loads(src.read(f"dataset/ehrsql/{db_id}/{args.split}.json"))
        impossible = sum(1 for q in raw if q.get("is_impossible") or q.get("query") in (None, "", "null"))
        items = [{"question": " ".join(q["question"].split()), "sql": " ".join(q["query"].split()), "db_id": db_id}
                 for q in raw if not (q.get("is_impossible") or q.get("query") in (None, "", "null"))]
        source = (f"EHRSQL (Lee et al., NeurIPS 2022 Datasets and Benchmarks), glee4810/EHRSQL at {commit[:12]}, "
                  f"CC-BY-4.0 (LICENSE): the {db_id} schema of dataset/ehrsql/tables.json with its primary and foreign "
                  f"keys; questions of the {args.split} split with SQLite gold SQL, unanswerable ones left out; "
                  "no sample rows (the MIMIC-III / eICU data are credentialed).")
        all_counts.append(write_benchmark(args.out, name, dialect="sqlite", source=source, items=items, tables=tables,
                                          limit=args.limit, group=None,
                                          dropped={"unanswerable (no gold SQL)": impossible} if impossible else None))
    if args.counts:
        args.counts.write_text(json.dumps(all_counts, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
