#!/usr/bin/env python3
"""Questions answered one by one through the library (``TableRetriever.retrieve``), per embedder.

For each configuration: a fresh embedder, a retriever over the benchmark's schema with its
(cached) index, then the first N multi-database questions of ``dev.json`` retrieved one at a
time, each question new to the embedder's cache. Prints the total and the per-question median.
Configurations: ``onnx`` and ``torch`` (the library's thread choice: one thread per question),
``torch-threads=N`` (PyTorch with N threads for every call, as before the library chose).

Usage::

    python scripts/time_questions.py ../shared/benchmarks/spider [--n 200] [--configs onnx,torch,torch-threads=2]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path)
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--configs", default="onnx,torch,torch-threads=2")
    args = p.parse_args()

    from jar_core import TableRetriever
    from jar_core.embed.embedders import get_embedder
    from jar_core.index.store import cache_path
    from jar_core.loaders import load_benchmark

    bench = load_benchmark(args.folder)
    questions = [q.question for q in bench.questions][: args.n]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}")
    print(f"{len(questions)} questions of {args.folder.name}, retrieve(k=5) one at a time\n")
    print("| embedder | questions | total s | median ms per question |")
    print("| --- | ---: | ---: | ---: |")
    for config in args.configs.split(","):
        backend, _, threads = config.partition("-threads=")
        embedder = get_embedder(None, backend=backend, threads=int(threads) if threads else None)
        retriever = TableRetriever(bench.schema, embedder=embedder)
        retriever.load_or_build_index(cache_path(bench.schema, embedder.name))
        retriever.index.join_graph()
        retriever.retrieve("warm up the model", k=5)
        times = []
        t_all = time.perf_counter()
        for q in questions:
            t0 = time.perf_counter()
            retriever.retrieve(q, k=5)
            times.append(time.perf_counter() - t0)
        total = time.perf_counter() - t_all
        print(f"| {config} | {len(times)} | {total:.1f} | {statistics.median(times) * 1000:.1f} |")
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
