#!/usr/bin/env python3
"""Agreement of the approximate first stage with brute force on the shared benchmarks' questions.

The approximate index is forced on (``ApproximateCandidates(exact_rows=0)``: no threshold, no
exact scoring of small corpora). For each question of Spider and BEAVER-DW, over its own
benchmark's tables (every database):

* ``top-20``: the first stage's 20 tables (positions and order) are those of brute force;
* ``top-200``: the same for the 200 of the BM25 shortlist (the default configuration's request);
* ``candidates``: the default retriever's candidate set (shortlist, BM25 fusion, expansion, values)
  is the same set;
* ``tables@5``: ``retrieve(question, k=5)`` returns the same tables in the same order.

Then Spider's questions over ``lake_schema(N)`` (scripts/lake_bench.py: N tables, renamed copies
of the benchmarks' databases): with ``--lake-retriever N`` the four checks (the lake's index is
built once, every column embedded, and cached); with ``--lake N`` the first stage only (the table
vectors of the lake, cached by scripts/ann_choice.py; beyond 20,000 tables, noisy copies).

    OMP_NUM_THREADS=1 python scripts/ann_agreement.py [--lake 20000] [--lake-retriever 5000] [--limit N]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"


def _share(flags: list[bool]) -> str:
    return f"{100 * sum(flags) / max(len(flags), 1):6.2f}% ({sum(flags)}/{len(flags)})"


def benchmark(name: str, limit: int | None, lake_index: Path | None = None) -> dict[str, list[bool]]:
    """The four checks for ``name``'s questions over its own tables, or over the lake whose
    index is saved at ``lake_index``."""
    from jar_core.candidates.ann import ApproximateCandidates
    from jar_core.candidates.first_stage import BruteForceCandidates
    from jar_core.index.store import cache_path
    from jar_core.loaders import load_benchmark
    from jar_core.retriever import TableRetriever

    bench = load_benchmark(BENCHMARKS / name)
    if lake_index is None:
        exact = TableRetriever.from_benchmark(BENCHMARKS / name, candidate_generator="exact")
        exact.load_or_build_index(cache_path(exact.schema, exact.embedder.name))
    else:
        exact = TableRetriever.from_index(lake_index, candidate_generator="exact")
    approx_gen = ApproximateCandidates(exact_rows=0)
    approx = TableRetriever(exact.schema, embedder=exact.embedder, decomposer=exact.decomposer, index=exact.index,
                            candidate_generator=approx_gen)
    questions = [q.question for q in bench.questions][:limit]
    exact.prefetch(questions)
    idx = exact.index
    allowed = np.ones(len(exact.schema), dtype=bool)
    out: dict[str, list[bool]] = {"top-20": [], "top-200": [], "candidates": [], "tables@5": []}
    for q in questions:
        v = exact.embedder.embed_queries([q])[0]
        for n in (20, 200):
            a = BruteForceCandidates().search(idx, v, n, allowed)[0]
            b = approx_gen.search(idx, v, n, allowed)[0]
            out[f"top-{n}"].append(bool(np.array_equal(a, b)))
        subs = list(exact.decompose(q).subqueries)
        sa, sb = exact.signals(q, subs), approx.signals(q, subs)
        out["candidates"].append(set(sa.candidates.tolist()) == set(sb.candidates.tolist()))
        out["tables@5"].append(exact.retrieve(q, k=5).table_ids == approx.retrieve(q, k=5).table_ids)
    print(f"{name}: {len(exact.schema)} tables, {len(questions)} questions", flush=True)
    return out


def lake_index(n_tables: int, cache: Path) -> Path:
    """The saved index of ``lake_schema(n_tables)`` (built once with the default model; cached)."""
    path = cache / f"lake-index-{n_tables}"
    if (path / "meta.json").exists():
        return path
    from lake_bench import lake_schema

    from jar_core.embed.embedders import get_embedder
    from jar_core.index.schema_index import SchemaIndex

    _, schema = lake_schema(n_tables)
    t0 = time.perf_counter()
    SchemaIndex.build(schema, get_embedder(None), progress=True).save(path, ann=False)
    print(f"lake index of {n_tables} tables built in {time.perf_counter() - t0:.0f} s", flush=True)
    return path


def lake(n_tables: int, limit: int | None, cache: Path) -> dict[str, list[bool]]:
    from types import SimpleNamespace

    from ann_choice import corpus, query_vectors

    from jar_core.candidates.ann import ApproximateCandidates
    from jar_core.candidates.first_stage import BruteForceCandidates

    index = SimpleNamespace(table_vectors=corpus(n_tables, cache, 0.1))
    qv, dbs = query_vectors(cache)
    from jar_core.loaders import load_benchmark

    n_spider = len(load_benchmark(BENCHMARKS / "spider").questions)
    qv = qv[:n_spider][:limit]
    gen = ApproximateCandidates(exact_rows=0)
    allowed = np.ones(n_tables, dtype=bool)
    out: dict[str, list[bool]] = {"top-20": [], "top-200": []}
    for v in qv:
        for n in (20, 200):
            a = BruteForceCandidates().search(index, v, n, allowed)[0]
            b = gen.search(index, v, n, allowed)[0]
            out[f"top-{n}"].append(bool(np.array_equal(a, b)))
    print(f"lake: {n_tables} tables, {len(qv)} Spider questions (first stage)", flush=True)
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lake", type=int, default=20000, metavar="N", help="tables of the lake (0: none)")
    p.add_argument("--lake-retriever", type=int, default=0, metavar="N",
                   help="also the four checks of Spider's questions over lake_schema(N) (embeds the lake: "
                   "about 12 texts a table)")
    p.add_argument("--limit", type=int, default=None, help="the first N questions of each benchmark")
    p.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "jar-ann"),
                   help="the lake's table vectors (scripts/ann_choice.py's cache)")
    args = p.parse_args()
    t0 = time.perf_counter()
    results = {name: benchmark(name, args.limit) for name in ("spider", "beaver_dw")}
    if args.lake_retriever:
        path = lake_index(args.lake_retriever, Path(args.cache))
        results[f"spider in lake_schema({args.lake_retriever})"] = benchmark("spider", args.limit, path)
    if args.lake:
        results[f"spider in lake_schema({args.lake})"] = lake(args.lake, args.limit, Path(args.cache))
    print()
    print(f"{'corpus':32}  {'check':10}  same as brute force")
    for name, checks in results.items():
        for check, flags in checks.items():
            print(f"{name:32}  {check:10}  {_share(flags)}")
    print(f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
