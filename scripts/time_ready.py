#!/usr/bin/env python3
"""Index load-to-ready at scale: a saved index of N tables, loaded in a fresh process until the
first question is answered.

The schema is synthesized from the shared benchmarks and the bundled demo database: their
databases (Spider's 20, BEAVER-DW's data warehouse, the demo bookstore with its declared foreign
keys) are copied in turn, each copy renamed ``db_00001``, ``db_00002``... (so table names repeat
from one database to the next, as in a data lake), columns with their types, uniqueness ratios and
sample values, until N tables; the last copy is cut to N.

The index is built with a *stand-in* embedder: each text gets one of 4096 fixed random unit
vectors of dimension 384 (picked by a CRC-32 of the text), because embedding 10,000 tables with
the real model would take an hour on this machine. Load-to-ready does not depend on the vectors'
values, only on their number and dimension, which are the real model's.

Then, ``--runs`` times, a fresh Python process (imports timed apart) does what a service does at
start-up and reports the seconds of each step:

* ``load``: ``SchemaIndex.load(path)`` (read, check and parse every file of the index);
* ``retriever``: ``TableRetriever(schema, index=index, embedder=<stand-in>)`` (the stand-in is
  made before the clock starts, as a service loads its model at start-up: the model's own load
  time is the "Fast start" figure of docs/results.md);
* ``first retrieve``: ``retrieve(question, k=5)``, which decomposes the question, embeds it
  with the stand-in and computes the join signals (building whatever the index lacks);
* ``ready``: the sum of the three: from the call to ``load`` until the first answer;
* ``ready CPU``: the CPU time of the process (all its threads) over the same span: less
  sensitive than the wall time to other jobs on the machine;
* ``next retrieve``: a second question, for comparison with the first;
* peak memory: the process's maximum resident set size (``wait4``; the index is built by a
  process of its own, so that the timed ones start from a small parent).

Usage::

    OMP_NUM_THREADS=1 python scripts/time_ready.py --tables 10000 [--runs 3] [--joins rules|paper]

The code measured is the ``jar_core`` that Python imports (``PYTHONPATH``), so the same script
measures two versions of the library.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

DIM = 384
ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"
QUESTIONS = (
    "Which singers performed in concerts held in stadiums with a capacity above 10000?",
    "List the authors of books published by each publisher and the country of the author.",
)


class StandInEmbedder:
    """Fixed random unit vectors (one of 4096, chosen by a CRC-32 of the text): no model, no cost."""

    def __init__(self, name: str = "stand-in-hash-384") -> None:
        self.name = name
        rng = np.random.default_rng(0)
        table = rng.standard_normal((4096, DIM)).astype(np.float32)
        self._table = table / np.linalg.norm(table, axis=1, keepdims=True)

    def _encode(self, texts):
        rows = np.fromiter((zlib.crc32(t.encode("utf-8", "surrogatepass")) & 4095 for t in texts), dtype=np.int64,
                           count=len(texts))
        return self._table[rows]

    embed_documents = _encode
    embed_queries = _encode


def source_databases():
    """``[(database name, [Table, ...]), ...]`` of the shared benchmarks and the demo database."""
    from jar_core.demo import demo_url
    from jar_core.loaders import load_benchmark, load_database

    schemas = [load_benchmark(BENCHMARKS / name).schema for name in ("spider", "beaver_dw")]
    schemas.append(load_database(demo_url()))
    out = []
    for s in schemas:
        for db in s.databases:
            out.append((db, [t for t in s.tables if t.database == db]))
    return out


def synthesize(n_tables: int):
    """A schema of ``n_tables`` tables: copies of the source databases, renamed ``db_00001``..."""
    from jar_core.schema import Schema

    sources = source_databases()
    tables: list = []
    copy = 0
    while len(tables) < n_tables:
        db, src = sources[copy % len(sources)]
        copy += 1
        name = f"db_{copy:05d}"
        tables += [t.copy_to(name) for t in src[: n_tables - len(tables)]]
    return Schema(tables), copy


def build(n_tables: int, path: Path) -> None:
    from jar_core.index.schema_index import SchemaIndex

    t0 = time.perf_counter()
    schema, copies = synthesize(n_tables)
    t_schema = time.perf_counter() - t0
    n_cols = sum(len(t.columns) for t in schema.tables)
    n_fk = sum(len(t.foreign_keys) for t in schema.tables)
    n_sampled = sum(1 for t in schema.tables for c in t.columns if c.sample)
    print(f"schema: {len(schema.tables)} tables in {copies} databases, {n_cols} columns "
          f"({n_sampled} with sample values), {n_fk} declared foreign keys; synthesized in {t_schema:.1f} s")
    t0 = time.perf_counter()
    index = SchemaIndex.build(schema, StandInEmbedder())
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    index.save(path)
    t_save = time.perf_counter() - t0
    size = sum(f.stat().st_size for f in path.iterdir())
    files = ", ".join(f"{f.name} {f.stat().st_size / 2**20:.0f} MiB" for f in sorted(path.iterdir()))
    print(f"index: built with the stand-in embedder in {t_build:.1f} s, saved in {t_save:.1f} s; "
          f"{size / 2**20:.0f} MiB ({files})")


def child(path: str, joins: str) -> None:
    """One fresh process: the timings of one start, as a JSON line on stdout."""
    t0 = time.perf_counter()
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.retriever import TableRetriever

    t_import = time.perf_counter() - t0
    out = {"import": t_import}
    embedder = StandInEmbedder("?")
    c0 = time.process_time()
    t0 = time.perf_counter()
    index = SchemaIndex.load(path)
    out["load"] = time.perf_counter() - t0
    has = getattr(index, "has_join_graph", None)  # absent before join graphs were saved
    out["graph saved"] = bool(has and has(cross_database=False))
    embedder.name = index.model_name
    t0 = time.perf_counter()
    retriever = TableRetriever(index.schema, index=index, embedder=embedder, joins=joins)
    out["retriever"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    first = retriever.retrieve(QUESTIONS[0], k=5)
    out["first retrieve"] = time.perf_counter() - t0
    out["ready"] = out["load"] + out["retriever"] + out["first retrieve"]
    out["ready CPU"] = time.process_time() - c0
    t0 = time.perf_counter()
    retriever.retrieve(QUESTIONS[1], k=5)
    out["next retrieve"] = time.perf_counter() - t0
    out["tables"] = len(first.tables)
    print(json.dumps(out))


def run_child(path: Path, joins: str) -> dict:
    cmd = [sys.executable, __file__, "--child", str(path), "--joins", joins]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(proc.pid, 0)
    out, err = proc.stdout.read(), proc.stderr.read()
    proc.stdout.close()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"the timed process failed:\n{err}")
    result = json.loads(out.strip().splitlines()[-1])
    result["peak MiB"] = usage.ru_maxrss / 1024
    return result


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=10000)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--joins", choices=("rules", "paper"), default="rules")
    p.add_argument("--dir", type=Path, default=None, help="where to write the index (default: a temporary folder)")
    p.add_argument("--keep", action="store_true", help="keep the index afterwards")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--build", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        child(args.child, args.joins)
        return 0
    if args.build:
        import jar_core

        print(f"code: {Path(jar_core.__file__).parent}; joins={args.joins}")
        build(args.tables, Path(args.build))
        return 0
    if args.runs < 1:
        p.error("--runs must be at least 1")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}")
    folder = Path(tempfile.mkdtemp(prefix="time-ready-", dir=args.dir))
    path = folder / f"index-{args.tables}"
    try:
        sys.stdout.flush()
        subprocess.run([sys.executable, __file__, "--build", str(path), "--tables", str(args.tables), "--joins",
                        args.joins], check=True)
        runs = [run_child(path, args.joins) for _ in range(args.runs)]
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)
    keys = ["import", "load", "retriever", "first retrieve", "ready", "ready CPU", "next retrieve", "peak MiB"]
    print(f"\n{args.runs} fresh processes, seconds (median, min, max):\n")
    print("| step | median | min | max |")
    print("| --- | ---: | ---: | ---: |")
    for k in keys:
        vals = [r[k] for r in runs]
        fmt = "{:.0f}" if k == "peak MiB" else "{:.3f}"
        name = "peak RSS, MiB" if k == "peak MiB" else k
        print(f"| {name} | {fmt.format(statistics.median(vals))} | {fmt.format(min(vals))} | {fmt.format(max(vals))} |")
    saved = sum(r["graph saved"] for r in runs)
    print(f"\njoin graph read from the index in {saved} of {len(runs)} runs (else inferred in the first retrieve)")
    print(f"ready (load + retriever + first retrieve) at {args.tables} tables: "
          f"{statistics.median(r['ready'] for r in runs):.2f} s median")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if args.keep:
        print(f"index kept at {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
