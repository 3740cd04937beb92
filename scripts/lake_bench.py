#!/usr/bin/env python3
"""The data-lake benchmark: Spider's questions asked of a lake of N tables.

The lake holds Spider's 20 databases as they are (so every Spider question stays answerable)
and renamed copies of the shared benchmarks' databases (Spider's and BEAVER-DW's, table and
column names kept, the database renamed ``<db>_<n>``) until it has N tables: realistic
distractors, with the same names as the right tables. The real default model embeds everything.

Measured: index build time and the process's peak memory, the index's size on disk, load time,
warm ``retrieve`` p50 / p95 over the questions (default configuration, K given; each question new
to the encoder's cache), and complete recall of Spider's multi-table questions in the lake
against the same questions over Spider alone. A question is complete when all its gold tables are
retrieved from one database that is the question's or a renamed copy of it (the copies answer it
equally well; tables mixed from two copies do not count).

    OMP_NUM_THREADS=1 python scripts/lake_bench.py --lake 1000 [--k 5] [--questions 200] [--json OUT]
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"


def lake_schema(n_tables: int):
    """Spider's databases, then renamed copies of Spider's and BEAVER-DW's until ``n_tables``."""
    from jar_core.loaders import load_benchmark
    from jar_core.schema import Schema

    spider = load_benchmark(BENCHMARKS / "spider")
    sources = []
    for name in ("spider", "beaver_dw"):
        s = spider.schema if name == "spider" else load_benchmark(BENCHMARKS / name).schema
        sources += [(db, [t for t in s.tables if t.database == db]) for db in s.databases]
    tables = list(spider.schema.tables)
    copy = 0
    while len(tables) < n_tables:
        db, src = sources[copy % len(sources)]
        copy += 1
        name = f"{db}_{copy}"
        tables += [t.copy_to(name) for t in src[: n_tables - len(tables)]]
    return spider, Schema(tables)


def questions(bench, limit: int | None) -> list[tuple[object, list[str]]]:
    """``bench``'s multi-table questions (the first ``limit``) with their gold tables."""
    from jar_core.eval.gold import extract_gold_tables

    by_db: dict[str, list[str]] = {}
    for t in bench.schema.tables:
        by_db.setdefault(t.database, []).append(t.name)
    out = []
    for q in bench.questions:
        gold = extract_gold_tables(q.sql, dialect=bench.dialect, tables=by_db.get(q.db_id, []))
        if len(gold) >= 2:
            out.append((q, gold))
    return out[:limit]


def complete_recall(asked, retriever, k: int, desc: str) -> tuple[float, list[float]]:
    """CR (%) of ``retriever`` (the default configuration) over the questions ``asked``, and the
    wall time of each ``retrieve`` (seconds)."""
    from jar_core.progress import progress

    retriever.index  # built (or given) before the clock
    retriever.index.join_graph()
    preds, golds, times = [], [], []
    for q, gold in progress(asked, total=len(asked), desc=desc, enabled=True, unit="question"):
        t0 = time.perf_counter()
        res = retriever.retrieve(q.question, k=k)
        times.append(time.perf_counter() - t0)
        preds.append(res.table_ids)
        golds.append((q.db_id, gold))
    # a renamed copy of the question's database answers it as well as the original: complete when
    # all gold tables are retrieved from one copy (the original or ``<db>_<n>``)
    complete = []
    for pred, (db, gold) in zip(preds, golds):
        got = set(pred[:k])
        copies = {tid.rsplit(".", 1)[0] for tid in got}
        ok = any(all(f"{c}.{g}" in got for g in gold) for c in copies if c == db or c.rsplit("_", 1)[0] == db)
        complete.append(ok)
    return 100.0 * sum(complete) / max(len(complete), 1), times


def summarize(paths: list[str]) -> str:
    """A Markdown table of several runs' JSON (how each figure grows with the lake) and a linear
    extrapolation to 1,000,000 tables from the two largest runs (an extrapolation, not a run)."""
    runs = sorted((json.loads(Path(p).read_text(encoding="utf-8")) for p in paths), key=lambda r: r["tables"])
    head = ("| tables | build s | build ms/table | peak MB | disk MB | disk kB/table | load s | p50 ms | p95 ms "
            "| CR lake % | CR own % |\n| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    rows = [
        f"| {r['tables']:,} | {r['build_seconds']:.0f} | {1000 * r['build_seconds'] / r['tables']:.1f} "
        f"| {r['peak_rss_mb']:.0f} | {r['disk_mb']:.0f} | {1024 * r['disk_mb'] / r['tables']:.1f} "
        f"| {r['load_seconds']:.2f} | {r['p50_ms']:.1f} | {r['p95_ms']:.1f} "
        f"| {r['complete_recall_lake']:.1f} | {r['complete_recall_own']:.1f} |"
        for r in runs
    ]
    out = [head, *rows]
    if len(runs) >= 2:
        a, b = runs[-2], runs[-1]
        n = 1_000_000

        def line(key: str) -> float:  # through the two largest runs (a figure that fell stays flat)
            slope = max((b[key] - a[key]) / (b["tables"] - a["tables"]), 0.0)
            return b[key] + slope * (n - b["tables"])

        out.append(
            f"| 1,000,000 (extrapolated) | {line('build_seconds'):.0f} | {1000 * line('build_seconds') / n:.1f} "
            f"| {line('peak_rss_mb'):.0f} | {line('disk_mb'):.0f} | {1024 * line('disk_mb') / n:.1f} "
            f"| {line('load_seconds'):.1f} | {line('p50_ms'):.1f} | {line('p95_ms'):.1f} | - | - |"
        )
    return "\n".join(out)


def step(message: str) -> None:
    """One line of progress on stderr, with the time since the start."""
    print(f"[{time.perf_counter() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)


_START = time.perf_counter()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lake", type=int, metavar="N", help="tables in the lake")
    p.add_argument("--summarize", nargs="+", metavar="JSON",
                   help="print a table of several runs' --json output and a linear extrapolation to 1M tables")
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--questions", type=int, default=None, help="the first N multi-table questions (default all)")
    p.add_argument("--json", metavar="OUT")
    p.add_argument("--work-dir", metavar="DIR", default=None,
                   help="where the index is built (default: the system's temporary folder)")
    p.add_argument("--keep", action="store_true",
                   help="keep the built index (its folder is printed) to profile or query it afterwards")
    args = p.parse_args()
    if args.summarize:
        print(summarize(args.summarize))
        return 0
    if args.lake is None:
        p.error("--lake N is required (or --summarize JSON...)")
    if args.json and not Path(args.json).resolve().parent.is_dir():
        print(f"lake_bench: error: folder of {args.json} does not exist", file=sys.stderr)
        return 1
    from jar_core.embed.embedders import get_embedder
    from jar_core.index.schema_index import SchemaIndex, build_index
    from jar_core.retriever import TableRetriever

    embedder = get_embedder(None)
    spider, lake = lake_schema(args.lake)
    n_tables, n_dbs = len(lake.tables), len(lake.databases)
    asked = questions(spider, args.questions)
    step(f"lake: {n_tables} tables in {n_dbs} databases; {len(asked)} questions")
    folder = Path(tempfile.mkdtemp(prefix="lake-", dir=args.work_dir))
    try:
        t0 = time.perf_counter()
        step("building the index (embedding, then the join graph, then saving)")
        build_index(lake, folder / "index", embedder, progress=True)  # as 'jar-retrieval index'; the join graph too
        build = time.perf_counter() - t0
        del lake  # the loaded index's schema is the one asked; nothing else holds the lake
        disk = sum(f.stat().st_size for f in (folder / "index").iterdir()) / 2**20
        step(f"built in {build:.1f}s, {disk:.1f} MiB on disk; loading it")
        t0 = time.perf_counter()
        loaded = SchemaIndex.load(folder / "index")
        load = time.perf_counter() - t0
        step(f"loaded in {load:.2f}s")
        retriever = TableRetriever(loaded.schema, embedder=embedder, index=loaded)
        cr_lake, times = complete_recall(asked, retriever, args.k, "questions in the lake")
        # the same questions over Spider alone (a fresh cache, so the times are comparable)
        own = TableRetriever(spider.schema, embedder=get_embedder(None))
        cr_own, _ = complete_recall(asked, own, args.k, "questions in their own corpus")
    finally:
        if args.keep:
            step(f"index kept in {folder / 'index'}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    times_ms = sorted(1000 * t for t in times)
    out = {
        "tables": n_tables, "build_seconds": round(build, 2),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "disk_mb": round(disk, 1), "load_seconds": round(load, 3),
        "p50_ms": round(statistics.median(times_ms), 1),
        "p95_ms": round(times_ms[min(len(times_ms) - 1, int(0.95 * len(times_ms)))], 1),
        "questions": len(times), "k": args.k,
        "complete_recall_lake": round(cr_lake, 1), "complete_recall_own": round(cr_own, 1),
    }
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
