#!/usr/bin/env python3
"""Choose what is on by default, on the whole suite: parts added to the paper's greedy one at a
time while none lowers complete recall below the paper's greedy by more than a point anywhere.

    JAR_RETRIEVAL_THREADS=1 python scripts/suite/choose_defaults.py [FOLDER ...] [--json out.json]

The parts beyond the paper (``PARTS``): the join graph of :mod:`jar_core.joins` in place of the
paper's pair score, expansion, value matching, BM25 fusion, the connection gain, bridges, the
bridge lookahead, the family gain, the hub correction, BM25 in the relevance, near copies, the
central tables' join sum, the link tables' relevance, the kinds tables' values and parents first
at filler steps. Starting from the paper's greedy, each round tries every part not yet on, on every benchmark of
the suite at every K; a part may join only if the configuration it makes stays within
``--tolerance`` (1 point) of the paper greedy's complete recall on every benchmark and K; of
those, the one with the highest mean complete recall joins. It stops when no part may join.
Prints each round's candidates (worst difference, where, mean CR) and the chosen set.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_suite import DEFAULT_ROOTS, find_folders  # noqa: E402

from jar_core.eval.harness import prepare  # noqa: E402
from jar_core.eval.metrics import aggregate  # noqa: E402
from jar_core.index.store import cache_path  # noqa: E402
from jar_core.loaders import load_benchmark  # noqa: E402
from jar_core.options import DEFAULT_EXPAND, option  # noqa: E402
from jar_core.retriever import TableRetriever  # noqa: E402
from jar_core.strategies import JoinAwareStrategy  # noqa: E402
from jar_core.strategies.greedy import CHILD_SHARE, DEFAULT_WEIGHTS, JOIN_AWARE_WEIGHTS  # noqa: E402

PARTS = ("honest joins", "expansion", "value matching", "BM25 fusion", "connection gain", "bridges",
         "lookahead", "family gain", "hub correction", "BM25 in relevance", "near copies", "central sum",
         "link relevance", "kind values", "parents first")


def retriever_options(parts: frozenset[str]) -> dict[str, Any]:
    o: dict[str, Any] = {}
    if "honest joins" not in parts:
        o.update(joins="paper", min_join_score=0.0)
    o["hubness"] = option("hubness").default if "hub correction" in parts else 0.0
    o["lexical_relevance"] = option("lexical_relevance").default if "BM25 in relevance" in parts else 0.0
    return o


def search_options(parts: frozenset[str]) -> dict[str, Any]:
    return dict(expand=DEFAULT_EXPAND if "expansion" in parts else 0,
                match_values="value matching" in parts,
                lexical=option("lexical").default if "BM25 fusion" in parts else 0.0,
                kind_values=option("kind_values").default if "kind values" in parts else 0.0)


def strategy(parts: frozenset[str]) -> Any:
    conn = "connection gain" in parts
    s = JoinAwareStrategy(*(JOIN_AWARE_WEIGHTS if conn else DEFAULT_WEIGHTS),
                          l_family=0.4 if "family gain" in parts else 0.0, bridges="bridges" in parts,
                          lookahead="lookahead" in parts, near_copies="near copies" in parts,
                          central_sum="central sum" in parts, link_relevance="link relevance" in parts,
                          child_share=CHILD_SHARE if "parents first" in parts else 1.0)
    s.join_mode = "max" if conn else "sum"
    return s


class Bench:
    """One benchmark's questions, with its signals per configuration kept for the next rounds."""

    def __init__(self, folder: Path, candidates: int, limit: int | None, embedder: Any) -> None:
        self.bench = load_benchmark(folder)
        self.candidates, self.embedder = candidates, embedder
        self.retrievers: dict[str, TableRetriever] = {}
        self.signals: dict[tuple[str, str], list[Any]] = {}
        r = self._retriever(retriever_options(frozenset()))
        self.prep = prepare(self.bench, r, candidates=candidates, limit=limit, warn=None)
        self.golds = [q.gold for q in self.prep.questions]

    def _retriever(self, ropts: dict[str, Any]) -> TableRetriever:
        key = json.dumps(ropts, sort_keys=True)
        if key not in self.retrievers:
            r = TableRetriever(self.bench.schema, embedder=self.embedder, candidates=self.candidates, **ropts)
            self.embedder = r.embedder
            r.load_or_build_index(cache_path(r.schema, r.embedder.name))
            self.retrievers[key] = r
        return self.retrievers[key]

    def complete_recall(self, parts: frozenset[str], ks: list[int]) -> dict[int, float]:
        ropts, sopts = retriever_options(parts), search_options(parts)
        key = (json.dumps(ropts, sort_keys=True), json.dumps(sopts, sort_keys=True))
        if key not in self.signals:
            r = self._retriever(ropts)
            self.signals[key] = [r.signals(q.question, q.subqueries, candidates=self.candidates, **sopts)
                                 for q in self.prep.questions]
        strat = strategy(parts)
        orders = [strat.select(sig, min(max(ks), sig.n)).order for sig in self.signals[key]]
        out = {}
        for k in ks:
            # a greedy's first k choices are its choice at K = k, except where bridges or near copies rework it
            if parts & {"bridges", "near copies", "lookahead"}:
                preds = [self.prep.table_ids(sig, strat.select(sig, min(k, sig.n)).order) for sig in self.signals[key]]
            else:
                preds = [self.prep.table_ids(sig, o[:k]) for sig, o in zip(self.signals[key], orders)]
            out[k] = aggregate(preds, self.golds, k)[1]
        return out


def evaluate(benches: list[Bench], parts: frozenset[str], ks: list[int]) -> dict[str, dict[int, float]]:
    return {b.bench.name: b.complete_recall(parts, ks) for b in benches}


def _worst(fig: dict[str, dict[int, float]], base: dict[str, dict[int, float]], ks: list[int]) -> tuple[float, str]:
    return min((fig[b][k] - base[b][k], f"{b} K={k}") for b in fig for k in ks)


def _mean(fig: dict[str, dict[int, float]], ks: list[int]) -> float:
    return sum(fig[b][k] for b in fig for k in ks) / (len(fig) * len(ks))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--k", default="2,3,5,10")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--candidates", type=int, default=20)
    ap.add_argument("--tolerance", type=float, default=1.0)
    ap.add_argument("--json", type=Path, metavar="OUT.json")
    args = ap.parse_args(argv)
    ks = [int(x) for x in args.k.split(",")]
    folders = find_folders(args.folders or [p for p in DEFAULT_ROOTS if p.exists()])
    print(f"choose: {len(folders)} benchmarks; K {ks}; threads {os.environ.get('JAR_RETRIEVAL_THREADS', 'default')}",
          file=sys.stderr, flush=True)
    benches, embedder = [], None
    for f in folders:
        b = Bench(f, args.candidates, args.limit, embedder)
        embedder = b.embedder
        benches.append(b)
    t0 = time.perf_counter()
    base = evaluate(benches, frozenset(), ks)
    chosen: frozenset[str] = frozenset()
    rounds = []
    print(f"paper greedy: mean CR {_mean(base, ks):.2f}")
    while True:
        trials = []
        for part in PARTS:
            if part in chosen:
                continue
            fig = evaluate(benches, chosen | {part}, ks)
            worst, where = _worst(fig, base, ks)
            trials.append({"part": part, "worst": round(worst, 1), "where": where, "mean": round(_mean(fig, ks), 2)})
        rounds.append(trials)
        print(f"\nround {len(rounds)} (on: {', '.join(sorted(chosen)) or 'nothing'})")
        print("| part added | worst vs paper greedy | where | mean CR |")
        print("| --- | ---: | --- | ---: |")
        for t in sorted(trials, key=lambda t: -t["mean"]):
            print(f"| {t['part']} | {t['worst']:+.1f} | {t['where']} | {t['mean']:.2f} |", flush=True)
        ok = [t for t in trials if t["worst"] >= -args.tolerance]
        if not ok:
            break
        best = max(ok, key=lambda t: t["mean"])
        if best["mean"] <= round(_mean(evaluate(benches, chosen, ks), ks), 2):  # a part that changes nothing stays off
            break
        chosen = chosen | {best["part"]}
    final = evaluate(benches, chosen, ks)
    worst, where = _worst(final, base, ks)
    print(f"\nchosen: {', '.join(p for p in PARTS if p in chosen) or 'nothing'}; worst {worst:+.1f} ({where}); "
          f"mean CR {_mean(final, ks):.2f} against the paper greedy's {_mean(base, ks):.2f} "
          f"({time.perf_counter() - t0:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps({"k": ks, "chosen": sorted(chosen), "rounds": rounds, "final": final,
                                         "paper_greedy": base}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
