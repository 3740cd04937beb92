#!/usr/bin/env python3
"""The data-lake benchmark: Spider's questions asked of a lake of N tables.

The lake holds Spider's 20 databases as they are (so every Spider question stays answerable)
and renamed copies of the shared benchmarks' databases (Spider's and BEAVER-DW's, table and
column names kept, the database renamed ``<db>_<n>``) until it has N tables: realistic
distractors, with the same names as the right tables. The real default model embeds everything.

Measured: index build time and the build's peak memory, the index's size on disk; then, in a
process of its own, load time and the load's peak memory (before the model is read), the first
question's time (what questions share is built then), warm ``retrieve`` p50 / p95 over the
questions (default configuration, K given; each question new to the encoder's cache) and the
peak memory while asking, and complete recall of Spider's multi-table questions in the lake
against the same questions over Spider alone. A question is complete when all its gold tables are
retrieved from one database that is the question's or a renamed copy of it (the copies answer it
equally well; tables mixed from two copies do not count).

    OMP_NUM_THREADS=1 python scripts/lake_bench.py --lake 1000 [--k 5] [--questions 200] [--json OUT]
    OMP_NUM_THREADS=1 python scripts/lake_bench.py --lake 300000 --index /data/lake300k --json OUT  # resumable
    python scripts/lake_bench.py --summarize 10k.json 100k.json 300k.json   # and the line to 1M tables
"""
from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
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
    extrapolation to 1,000,000 tables: the least-squares line through all the runs (an
    extrapolation, not a run; a figure that falls with size stays flat)."""
    runs = sorted((json.loads(Path(p).read_text(encoding="utf-8")) for p in paths), key=lambda r: r["tables"])
    head = ("| tables | build s | build peak MB | disk MB | load s | load peak MB | first question ms | p50 ms "
            "| p95 ms | query peak MB | CR lake % | CR own % |\n"
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    keys = ("build_seconds", "build_peak_mb", "disk_mb", "load_seconds", "load_peak_mb", "first_question_ms",
            "p50_ms", "p95_ms", "query_peak_mb")
    digits = {"load_seconds": 2, "p50_ms": 1, "p95_ms": 1}

    def cells(values: dict) -> str:
        return " | ".join(f"{values[k]:,.{digits.get(k, 0)}f}" for k in keys)

    rows = [f"| {r['tables']:,} | {cells(r)} | {r['complete_recall_lake']:.1f} | {r['complete_recall_own']:.1f} |"
            for r in runs]
    out = [head, *rows]
    if len(runs) >= 2:
        n = 1_000_000
        x = [float(r["tables"]) for r in runs]
        mx = sum(x) / len(x)

        def line(key: str) -> float:
            y = [float(r[key]) for r in runs]
            my = sum(y) / len(y)
            slope = sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)
            return my + max(slope, 0.0) * (n - mx)

        out.append(f"| 1,000,000 (extrapolated) | {cells({k: line(k) for k in keys})} | - | - |")
    return "\n".join(out)


def step(message: str) -> None:
    """One line of progress on stderr, with the time since the start."""
    print(f"[{time.perf_counter() - _START:7.1f}s] {message}", file=sys.stderr, flush=True)


_START = time.perf_counter()


#: The first question, not one of those timed (its text is new to the encoder's cache).
WARM_UP = "Which tables list the names and addresses of customers?"


def peak_mb() -> float:
    """This process's peak resident memory so far (MiB): Linux's ``VmHWM`` (that of this program,
    not of the process it was started from, which ``ru_maxrss`` keeps across ``exec``), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def ask(index_dir: str, k: int, limit: int | None) -> dict:
    """Load the index at ``index_dir`` and ask the lake's questions, in this process (a fresh one:
    its peak memory is the load's, then the questions'): load time and peak, the first question's
    time, p50 / p95, the peak while asking, and complete recall."""
    from jar_core.index.schema_index import SchemaIndex

    t0 = time.perf_counter()
    loaded = SchemaIndex.load(index_dir)
    load = time.perf_counter() - t0
    load_peak = peak_mb()  # before the model, the questions or Spider are read
    step(f"loaded in {load:.2f}s, peak {load_peak:.0f} MiB")
    from jar_core.embed.embedders import get_embedder
    from jar_core.loaders import load_benchmark
    from jar_core.retriever import TableRetriever

    asked = questions(load_benchmark(BENCHMARKS / "spider"), limit)
    retriever = TableRetriever(loaded.schema, embedder=get_embedder(None), index=loaded)
    t0 = time.perf_counter()
    retriever.retrieve(WARM_UP, k=k)  # the first question builds what questions share, then the clock
    first = time.perf_counter() - t0
    cr, times = complete_recall(asked, retriever, k, "questions in the lake")
    times_ms = sorted(1000 * t for t in times)
    return {
        "load_seconds": round(load, 3), "load_peak_mb": load_peak, "first_question_ms": round(1000 * first, 1),
        "p50_ms": round(statistics.median(times_ms), 1),
        "p95_ms": round(times_ms[min(len(times_ms) - 1, int(0.95 * len(times_ms)))], 1),
        "query_peak_mb": peak_mb(), "questions": len(times), "k": k, "complete_recall_lake": round(cr, 1),
    }


def build(n: int, index_dir: Path) -> dict:
    """Build the index of the lake of ``n`` tables at ``index_dir`` (resumed from its work
    directory when an earlier run was stopped), or read the figures of the build done there."""
    record = index_dir.with_name(index_dir.name + ".build.json")
    if (index_dir / "meta.json").is_file() and record.is_file():
        step(f"index already built at {index_dir}: its build figures are read from {record}")
        return json.loads(record.read_text(encoding="utf-8"))
    from jar_core.embed.embedders import get_embedder
    from jar_core.index.schema_index import build_index

    _, lake = lake_schema(n)
    step(f"lake: {len(lake.tables)} tables in {len(lake.databases)} databases")
    t0 = time.perf_counter()
    step("building the index (embedding, then the join graph, then saving)")
    build_index(lake, index_dir, get_embedder(None), progress=True)  # as 'jar-retrieval index'; the join graph too
    out = {"tables": len(lake.tables), "build_seconds": round(time.perf_counter() - t0, 2), "build_peak_mb": peak_mb()}
    record.write_text(json.dumps(out) + "\n", encoding="utf-8")
    return out


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
    p.add_argument("--index", metavar="DIR", default=None,
                   help="build the index there and keep it; a build stopped midway resumes, a finished one is reused")
    p.add_argument("--ask", metavar="DIR", help=argparse.SUPPRESS)  # the questions' process
    args = p.parse_args()
    if args.summarize:
        print(summarize(args.summarize))
        return 0
    if args.ask:
        print(json.dumps(ask(args.ask, args.k, args.questions)))
        return 0
    if args.lake is None:
        p.error("--lake N is required (or --summarize JSON...)")
    if args.json and not Path(args.json).resolve().parent.is_dir():
        print(f"lake_bench: error: folder of {args.json} does not exist", file=sys.stderr)
        return 1
    folder = Path(args.index).resolve().parent if args.index else Path(tempfile.mkdtemp(prefix="lake-", dir=args.work_dir))
    index_dir = Path(args.index).resolve() if args.index else folder / "index"
    try:
        built = build(args.lake, index_dir)
        disk = sum(f.stat().st_size for f in index_dir.iterdir()) / 2**20
        step(f"built in {built['build_seconds']:.1f}s, {disk:.1f} MiB on disk; loading it in a process of its own")
        child = subprocess.run(
            [sys.executable, __file__, "--ask", str(index_dir), "--k", str(args.k),
             *(["--questions", str(args.questions)] if args.questions else [])],
            stdout=subprocess.PIPE, check=True, text=True,
        )
        asked = json.loads(child.stdout.strip().splitlines()[-1])
        # the same questions over Spider alone (a fresh cache, so the times are comparable)
        from jar_core.embed.embedders import get_embedder
        from jar_core.loaders import load_benchmark
        from jar_core.retriever import TableRetriever

        spider = load_benchmark(BENCHMARKS / "spider")
        own = TableRetriever(spider.schema, embedder=get_embedder(None))
        cr_own, _ = complete_recall(questions(spider, args.questions), own, args.k, "questions in their own corpus")
    finally:
        if args.keep or args.index:
            step(f"index kept in {index_dir}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    out = {
        "tables": built["tables"], "build_seconds": built["build_seconds"], "build_peak_mb": built["build_peak_mb"],
        "disk_mb": round(disk, 1), **asked, "complete_recall_own": round(cr_own, 1),
    }
    print(json.dumps(out, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
