#!/usr/bin/env python3
"""Convert Spider's train databases (Yu et al., 2018) into a benchmark folder, ``spider_train``.

    python scripts/suite/convert_spider_train.py --spider /path/to/spider [--out /work/suite]
    python scripts/suite/convert_spider_train.py --tables-repo valuenet --questions-repo sql_chatbot

The 140 databases of Spider's ``train_spider.json`` (737 tables, declared primary and foreign keys,
natural-language column names), all in one folder as Spider's dev set is in ``../shared``: a
question is asked of every table of every train database. A ``_nokeys`` twin drops the keys. No
sample rows (the SQLite files are not read).

Where the files come from: ``--spider DIR``, the official release (``tables.json`` and
``train_spider.json``); or two repositories that carry them (bare git directories or checkouts):
``--tables-repo`` with ``--tables-path`` (default ``data/spider/original/tables.json``, as in
brunnurs/valuenet) and ``--questions-repo`` with ``--questions-path`` (default
``data/spider/train.json``, as in sohv/sql_chatbot, whose items keep ``db_id``, ``question`` and
``query`` of ``train_spider.json``). Dev databases in ``tables.json`` are left out: only databases
that train questions are asked of are converted.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))
from _layout import DEFAULT_LIMIT, DEFAULT_SUITE, GitSource, progress, write_benchmark  # noqa: E402
from spider_layout import LayoutError, questions_of, tables_of  # noqa: E402

NAME = "spider_train"
LICENCE = "CC BY-SA 4.0 (Spider's licence)"


def _read(source: GitSource | Path, path: str) -> tuple[str, str]:
    """Text of ``path`` and a description of where it was read."""
    if isinstance(source, Path):
        f = source / path
        if not f.is_file():
            raise SystemExit(f"--spider {source}: no {path}")
        return f.read_text(encoding="utf-8"), f"{path} of the release folder"
    return source.read(path), f"{path} of {source.path.name} at {source.commit()[:12]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spider", type=Path, help="the official Spider release folder (tables.json, train_spider.json)")
    ap.add_argument("--tables-repo", help="a repository carrying Spider's tables.json")
    ap.add_argument("--tables-path", default="data/spider/original/tables.json")
    ap.add_argument("--questions-repo", help="a repository carrying Spider's train questions")
    ap.add_argument("--questions-path", default="data/spider/train.json")
    ap.add_argument("--out", type=Path, default=DEFAULT_SUITE, help=f"suite folder (default {DEFAULT_SUITE})")
    ap.add_argument("--limit", type=int, default=DEFAULT_LIMIT, help=f"questions kept (default {DEFAULT_LIMIT})")
    ap.add_argument("--counts", type=Path, help="also write the counts as JSON")
    args = ap.parse_args(argv)
    if args.spider is not None:
        if not args.spider.is_dir():
            raise SystemExit(f"--spider {args.spider}: not a folder")
        tables_src: GitSource | Path = args.spider
        questions_src: GitSource | Path = args.spider
        tables_path, questions_path = "tables.json", "train_spider.json"
    elif args.tables_repo and args.questions_repo:
        tables_src, questions_src = GitSource(args.tables_repo), GitSource(args.questions_repo)
        tables_path, questions_path = args.tables_path, args.questions_path
    else:
        ap.error("give --spider, or both --tables-repo and --questions-repo")
    progress("Spider train: reading the schemas and questions")
    tables_text, tables_from = _read(tables_src, tables_path)
    questions_text, questions_from = _read(questions_src, questions_path)
    try:
        every = tables_of(json.loads(tables_text), keys=True)
        items = [{"question": " ".join(q["question"].split()), "sql": " ".join(q["sql"].split()), "db_id": q["db_id"]}
                 for q in questions_of(json.loads(questions_text), {t["db_id"] for t in every.values()})]
    except (LayoutError, json.JSONDecodeError) as e:
        raise SystemExit(f"convert_spider_train: {e}") from None
    asked = {q["db_id"] for q in items}
    tables = {tid: t for tid, t in every.items() if t["db_id"] in asked}
    source = (f"Spider (Yu et al., EMNLP 2018), {LICENCE}: the {len(asked)} train databases ({tables_from}) with "
              f"their primary and foreign keys and natural-language column names; train questions ({questions_from}) "
              "with SQLite gold SQL; no sample rows.")
    counts = write_benchmark(args.out, NAME, dialect="sqlite", source=source, items=items, tables=tables,
                             limit=args.limit, group=[q["sql"] for q in items])
    if args.counts:
        args.counts.write_text(json.dumps([counts], indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
