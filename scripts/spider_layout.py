#!/usr/bin/env python3
"""Write a benchmark folder (the layout of ``../shared/benchmarks/README.md``) from a benchmark
published in Spider's layout: a ``tables.json`` (a list of databases with ``table_names_original``,
``column_names_original``, ``column_types``, ``primary_keys``, ``foreign_keys``) and a list of
questions (``question``, the gold SQL as ``SQL`` or ``query``, ``db_id``). BIRD and its mini-dev
are published so, as are Spider's own splits; ``jar-retrieval eval`` then reads the folder.

    python scripts/spider_layout.py --tables dev_tables.json --questions mini_dev_sqlite.json \
        --out bird_mini_dev --name bird_mini_dev [--keys]

Without ``--keys`` the declared keys are left out, as in the shared Spider folder, so that the
joins are inferred; with ``--keys`` each table keeps its primary key and foreign keys. A folder
that already holds a ``dev.json`` is left as it is unless ``--force`` is given; the files are
written whole or not at all.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

SEP = "#sep#"


class LayoutError(Exception):
    """The input is not in Spider's layout; the message names what is wrong."""


def _read(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LayoutError(f"{what} {path} does not exist") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise LayoutError(f"{what} {path} cannot be read as JSON: {e}") from None


def tables_of(databases: Any, *, keys: bool) -> dict[str, dict[str, Any]]:
    """``dev_tables.json``'s mapping (table id -> table) from Spider's list of databases."""
    if not isinstance(databases, list):
        raise LayoutError("tables.json must hold a list of databases")
    out: dict[str, dict[str, Any]] = {}
    for n, db in enumerate(databases):
        try:
            db_id, names = db["db_id"], db["table_names_original"]
            cols, types = db["column_names_original"], db["column_types"]
            nl = db.get("column_names") or cols
            nl_tables = db.get("table_names") or names
            primary = {c for p in db.get("primary_keys", []) for c in (p if isinstance(p, list) else [p])}
            foreign = db.get("foreign_keys", [])
            if len(types) != len(cols) or len(nl) != len(cols):
                raise LayoutError(f"database {db_id!r}: column_names_original, column_names and column_types "
                                  "differ in length")
            for t, name in enumerate(names):
                own = [i for i, (table, _) in enumerate(cols) if table == t]
                entry: dict[str, Any] = {
                    "db_id": db_id, "table_name_original": name, "table_name": nl_tables[t],
                    "column_names_original": [cols[i][1] for i in own],
                    "column_names": [nl[i][1] for i in own],
                    "column_types": [types[i] for i in own],
                }
                if keys:
                    entry["primary_key"] = [cols[i][1] for i in own if i in primary]
                    entry["foreign_key"] = [
                        {"column_name": cols[a][1], "referenced_table_name": f"{db_id}{SEP}{names[cols[b][0]]}",
                         "referenced_column_name": cols[b][1]}
                        for a, b in foreign if cols[a][0] == t
                    ]
                out[f"{db_id}{SEP}{name}"] = entry
        except LayoutError:
            raise
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise LayoutError(f"tables.json: database {n} is not in Spider's layout "
                              f"({type(e).__name__}: {e})") from None
    return out


def questions_of(items: Any, databases: set[str]) -> list[dict[str, str]]:
    """``dev.json``'s list from Spider's or BIRD's questions (gold SQL under ``SQL`` or ``query``)."""
    if not isinstance(items, list):
        raise LayoutError("the questions file must hold a list of questions")
    out = []
    for n, q in enumerate(items):
        if not isinstance(q, dict):
            raise LayoutError(f"question {n} is not an object")
        sql = q.get("SQL", q.get("query"))
        missing = [f for f, v in (("question", q.get("question")), ("SQL or query", sql), ("db_id", q.get("db_id")))
                   if not isinstance(v, str)]
        if missing:
            raise LayoutError(f"question {n} has no {', '.join(missing)}")
        if q["db_id"] not in databases:
            raise LayoutError(f"question {n} is about database {q['db_id']!r}, which tables.json does not hold")
        out.append({"question": q["question"], "sql": sql, "db_id": q["db_id"]})
    return out


def write_folder(out: Path, files: dict[str, Any], *, force: bool) -> None:
    """Write ``files`` (name -> JSON value) into ``out``: each written to a temporary file first,
    then all moved into place, so a failure leaves the folder as it was."""
    if (out / "dev.json").exists() and not force:
        raise LayoutError(f"{out} already holds a benchmark (dev.json); pass --force to replace it")
    staged = []
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name, value in files.items():
            fd, tmp = tempfile.mkstemp(dir=out, prefix=f".{name}.")
            staged.append((tmp, out / name))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(value, f, indent=1)
        for tmp, final in staged:
            os.replace(tmp, final)
    except OSError as e:
        raise LayoutError(f"cannot write {out}: {e.strerror or e}") from None
    finally:
        for tmp, _ in staged:
            if os.path.exists(tmp):
                os.unlink(tmp)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", required=True, type=Path, help="Spider-layout tables.json (a list of databases)")
    ap.add_argument("--questions", required=True, type=Path, help="questions with question, SQL (or query), db_id")
    ap.add_argument("--out", required=True, type=Path, help="the benchmark folder to write")
    ap.add_argument("--name", help="the benchmark's name (default: the folder's name)")
    ap.add_argument("--dialect", default="sqlite", help="sqlglot dialect of the gold SQL (default sqlite)")
    ap.add_argument("--keys", action="store_true", help="keep the declared primary and foreign keys")
    ap.add_argument("--force", action="store_true", help="replace a benchmark already in --out")
    args = ap.parse_args(argv)
    try:
        tables = tables_of(_read(args.tables, "tables file"), keys=args.keys)
        dev = questions_of(_read(args.questions, "questions file"), {t["db_id"] for t in tables.values()})
        meta = {"name": args.name or args.out.name, "dialect": args.dialect,
                "source": f"{args.tables.name} and {args.questions.name}" + (" (declared keys kept)" if args.keys else "")}
        write_folder(args.out, {"dev_tables.json": tables, "dev.json": dev, "benchmark.json": meta}, force=args.force)
    except LayoutError as e:
        print(f"spider_layout: {e}", file=sys.stderr)
        return 2
    print(f"{args.out}: {len(dev)} questions, {len(tables)} tables in "
          f"{len({t['db_id'] for t in tables.values()})} databases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
