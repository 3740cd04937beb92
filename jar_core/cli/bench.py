"""``jar-retrieval bench``: the speed figures of docs/results.md.

1. Selection alone: the greedy search over 20 candidates at K=10 with the signals given.
2. ``retrieve`` on the demo database with a warm index: each phase timed separately, every
   question new to the embedder's cache (no repeated query is ever timed).
"""
from __future__ import annotations

import statistics
import time
from typing import Callable

import numpy as np

__all__ = ["run_bench"]

DEMO_QUESTIONS = (
    "Which books were written by authors born in Ireland?",
    "Which customers from Berlin ordered books published by Penguin?",
    "List the categories of the books reviewed with five stars.",
    "Which employees handled orders shipped by Speedy Express?",
    "What is the total freight of orders containing science fiction books?",
    "Which authors have books in the Mystery category?",
    "Show the publishers of books bought by customers in the gold loyalty tier.",
    "Which countries do the authors of the best-selling books come from?",
    "How many orders did each shipper deliver to Paris?",
    "Which books were translated and who translated them?",
)


def _time(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def _row(label: str, seconds: list[float]) -> str:
    ms = [s * 1000 for s in seconds]
    return f"| {label} | {len(ms)} | {statistics.median(ms):.3f} | {min(ms):.3f} | {max(ms):.3f} |"


def run_bench(
    repeat: int = 200, *, model: str | None = None, backend: str | None = None, threads: int | None = None,
) -> None:
    """Print the speed tables (markdown) to stdout; the embedder is ``get_embedder(model,
    backend=backend, threads=threads)``, loaded (and timed) here."""
    t_start = time.perf_counter()
    from jar_core.signals.matrices import Signals
    from jar_core.strategies import GreedyStrategy

    rng = np.random.default_rng(0)
    n, m = 20, 4
    w = rng.random((n, n)).astype(np.float32)
    w = np.triu(w * (w > 0.6), 1)
    sig = Signals(
        candidates=np.arange(n), r=rng.random(n).astype(np.float32), F=rng.random((m, n)).astype(np.float32),
        w=w + w.T, join_columns=np.full((n, n, 2), -1),
    )
    greedy, greedy_notrace = GreedyStrategy(), GreedyStrategy(trace_width=0)
    print("### Selection only (signals given): 20 candidates, 4 sub-queries, K = 10\n")
    print("| what | runs | median ms | min ms | max ms |")
    print("| --- | --- | --- | --- | --- |")
    print(_row("greedy select, with explain trace", _time(lambda: greedy.select(sig, 10), repeat)))
    print(_row("greedy select, no trace", _time(lambda: greedy_notrace.select(sig, 10), repeat)))

    from jar_core.demo import demo_url
    from jar_core.embed.embedders import get_embedder
    from jar_core.loaders import load_database
    from jar_core.retriever import TableRetriever
    from jar_core.index.store import cache_path

    t0 = time.perf_counter()
    emb = get_embedder(model, backend=backend, threads=threads)
    emb.embed_queries(["warm up"])
    t_model = time.perf_counter() - t0
    t0 = time.perf_counter()
    schema = load_database(demo_url())
    t_schema = time.perf_counter() - t0
    retriever = TableRetriever(schema, embedder=emb)
    path = cache_path(schema, emb.name)
    retriever.load_or_build_index(path)  # make sure the index is on disk: the timed load below is warm
    t0 = time.perf_counter()
    retriever = TableRetriever(schema, embedder=emb)
    retriever.load_or_build_index(path)
    retriever.index.join_graph()  # saved with the index: read, not inferred
    t_index = time.perf_counter() - t0
    per_q = []
    for q in DEMO_QUESTIONS:
        t0 = time.perf_counter()
        retriever.retrieve(q, k=5)
        per_q.append(time.perf_counter() - t0)
    print("\n### `jar-retrieval retrieve` on the demo database, index warm (K = 5)\n")
    print("| phase | runs | median ms | min ms | max ms |")
    print("| --- | --- | --- | --- | --- |")
    print(_row("start-up: load the embedding model", [t_model]))
    print(_row("load schema from SQLite (bounded samples)", [t_schema]))
    print(_row("load saved index + join graph", [t_index]))
    print(_row("retrieve (decompose, embed, signals, greedy, join tree), new question each", per_q))
    work = t_schema + t_index + statistics.median(per_q)
    print(f"\nWork after start-up for one question (schema + index + median retrieve): {work * 1000:.1f} ms")
    print(f"Bench wall time: {time.perf_counter() - t_start:.1f} s")
