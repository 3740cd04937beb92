#!/usr/bin/env python3
"""The parts beyond the paper, each taken out of the default, on every benchmark of the suite.

    JAR_RETRIEVAL_THREADS=1 python scripts/suite/ablation_suite.py [FOLDER ...] [--limit 100] [--json out.json]

For every benchmark folder (as ``run_suite.py`` finds them) and K, the complete recall of the
paper's greedy, of the default, and of the default without one part at a time:

* ``honest joins``: the paper's pair-score joins (``joins="paper"``, ``min_join_score=0``) in place
  of the join graph of :mod:`jar_core.joins`;
* ``expansion``, ``value matching``, ``BM25 fusion``: the search options ``expand``,
  ``match_values``, ``lexical`` at 0 / off;
* ``connection gain``: the paper's join sum and weights (2, 1, 4) in place of the ``max`` gain
  and (3, 1, 4);
* ``bridges``, ``lookahead``, ``family gain``, ``near copies``, ``central sum``, ``link relevance``: the steps of
  :class:`~jar_core.strategies.JoinAwareStrategy` switched off;
* ``hub correction``, ``BM25 in relevance``: ``hubness`` and ``lexical_relevance`` at 0;
* ``kind values``: the search option ``kind_values`` at 0 (:mod:`jar_core.signals.kinds`);
* ``parents first``: ``JoinAwareStrategy(child_share=1.0)``, every join weighed alike at filler steps.

The rule of issue 47 reads this table: a part stays on by default only if the default without it
is not better by more than a point against the paper's greedy anywhere. Prints one Markdown
table per benchmark (CR at each K per configuration) and, per configuration, its worst CR minus
the paper greedy's over the suite. Progress goes to stderr.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_suite import DEFAULT_ROOTS, EVAL, PAPER, find_folders  # noqa: E402

from jar_core.eval.harness import DEFAULT_SEARCH, prepare  # noqa: E402
from jar_core.eval.metrics import aggregate  # noqa: E402
from jar_core.index.store import cache_path  # noqa: E402
from jar_core.loaders import load_benchmark  # noqa: E402
from jar_core.retriever import TableRetriever  # noqa: E402
from jar_core.strategies import GreedyStrategy, JoinAwareStrategy  # noqa: E402
from jar_core.strategies.greedy import DEFAULT_WEIGHTS, DenseStrategy  # noqa: E402


class _SumJoinAware(JoinAwareStrategy):
    """The default's search with the paper's join sum and weights (no connection gain)."""

    join_mode = "sum"

    def __init__(self) -> None:
        super().__init__(*DEFAULT_WEIGHTS)


#: name -> (retriever options, search options or None for the default's, strategy factory)
Config = tuple[dict[str, Any], dict[str, Any] | None, Callable[[], Any]]
CONFIGS: dict[str, Config] = {
    "dense": (PAPER, dict(EVAL), DenseStrategy),
    "paper greedy": (PAPER, dict(EVAL), GreedyStrategy),
    "default": ({}, None, JoinAwareStrategy),
    "- honest joins": (dict(joins="paper", min_join_score=0.0), None, JoinAwareStrategy),
    "- expansion": ({}, dict(DEFAULT_SEARCH, expand=0), JoinAwareStrategy),
    "- value matching": ({}, dict(DEFAULT_SEARCH, match_values=False), JoinAwareStrategy),
    "- BM25 fusion": ({}, dict(DEFAULT_SEARCH, lexical=0.0), JoinAwareStrategy),
    "- connection gain": ({}, None, _SumJoinAware),
    "- bridges": ({}, None, lambda: JoinAwareStrategy(bridges=False)),
    "- lookahead": ({}, None, lambda: JoinAwareStrategy(lookahead=False)),
    "- family gain": ({}, None, lambda: JoinAwareStrategy(l_family=0.0)),
    "- near copies": ({}, None, lambda: JoinAwareStrategy(near_copies=False)),
    "- central sum": ({}, None, lambda: JoinAwareStrategy(central_sum=False)),
    "- link relevance": ({}, None, lambda: JoinAwareStrategy(link_relevance=False)),
    "- parents first": ({}, None, lambda: JoinAwareStrategy(child_share=1.0)),
    "- hub correction": (dict(hubness=0.0), None, JoinAwareStrategy),
    "- BM25 in relevance": (dict(lexical_relevance=0.0), None, JoinAwareStrategy),
    "- kind values": ({}, dict(DEFAULT_SEARCH, kind_values=0.0), JoinAwareStrategy),
}


def _share(share: float, **kw: Any) -> Callable[[], Any]:
    def make() -> Any:
        s = JoinAwareStrategy(**kw)
        s.join_sum_share = share
        return s
    return make


class _NoSiblings:
    """A strategy run on signals whose sibling joins (two references of one key) count no join."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def select(self, sig: Any, k: int) -> Any:
        import dataclasses

        import numpy as np

        from jar_core.joins.edges import EVIDENCE

        if sig.evidence is not None:
            sib = sig.evidence == EVIDENCE.index("sibling")
            sig = dataclasses.replace(sig, w=np.where(sib, 0.0, sig.w).astype(sig.w.dtype))
        return self.inner.select(sig, k)


#: Variants to compare with the default (``--configs``), not run unless named.
VARIANTS: dict[str, Config] = {
    f"join sum share {x}": ({}, None, _share(x)) for x in (0.25, 0.5, 1.0)
}
VARIANTS.update({
    "share 0.5 - hub": (dict(hubness=0.0), None, _share(0.5)),
    "share 1 - hub": (dict(hubness=0.0), None, _share(1.0)),
    "no sibling gain": ({}, None, lambda: _NoSiblings(JoinAwareStrategy())),
    "no sibling gain share 0.5": ({}, None, lambda: _NoSiblings(_share(0.5)())),
    "no sibling gain - hub": (dict(hubness=0.0), None, lambda: _NoSiblings(JoinAwareStrategy())),
})
VARIANTS.update({
    f"child share {x}": ({}, None, (lambda x=x: JoinAwareStrategy(child_share=x))) for x in (0.7, 0.8, 0.9)
})



def _log(msg: str) -> None:
    print(f"ablation: {msg}", file=sys.stderr, flush=True)


def _key(d: dict[str, Any]) -> str:
    return json.dumps(d, sort_keys=True)


def run_benchmark(folder: Path, ks: list[int], names: list[str], *, limit: int | None, candidates: int,
                  embedder: Any = None) -> tuple[dict[str, Any], Any]:
    """CR (and R) of each configuration at each K on one folder; the embedder is reused."""
    bench = load_benchmark(folder)
    t0 = time.perf_counter()
    retrievers: dict[str, TableRetriever] = {}
    prep = None
    signals: dict[tuple[str, str], list[Any]] = {}
    out: dict[str, dict[int, tuple[float, float]]] = {}
    for name in names:
        ropts, search, make = {**CONFIGS, **VARIANTS}[name]
        rk = _key(ropts)
        if rk not in retrievers:
            r = TableRetriever(bench.schema, embedder=embedder, candidates=candidates, **ropts)
            embedder = r.embedder
            r.load_or_build_index(cache_path(r.schema, r.embedder.name))
            retrievers[rk] = r
            if prep is None:
                prep = prepare(bench, r, candidates=candidates, limit=limit, warn=None)
        r = retrievers[rk]
        search = DEFAULT_SEARCH if search is None else search
        sk = (rk, _key(search))
        if sk not in signals:
            signals[sk] = [r.signals(q.question, q.subqueries, candidates=candidates, **search)
                           for q in prep.questions]
        strat = make()
        golds = [q.gold for q in prep.questions]
        out[name] = {}
        for k in ks:
            preds = [prep.table_ids(sig, strat.select(sig, min(k, sig.n)).order) for sig in signals[sk]]
            out[name][k] = aggregate(preds, golds, k)
    result = {
        "benchmark": bench.name, "folder": str(folder), "questions": len(prep.questions),
        "tables": len(bench.schema.tables), "seconds": round(time.perf_counter() - t0, 1),
        "results": [{"config": n, "k": k, "recall": out[n][k][0], "complete_recall": out[n][k][1]}
                    for n in names for k in ks],
    }
    return result, embedder


def table(result: dict[str, Any], ks: list[int], names: list[str]) -> str:
    """CR of each configuration at each K, and its difference to the paper greedy's."""
    cr = {(r["config"], r["k"]): r["complete_recall"] for r in result["results"]}
    head = ["configuration"] + [f"CR@{k}" for k in ks] + ["worst vs paper greedy"]
    lines = ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * (len(head) - 1)]
    for n in names:
        diff = min(cr[(n, k)] - cr[("paper greedy", k)] for k in ks)
        lines.append("| " + " | ".join([n, *(f"{cr[(n, k)]:.1f}" for k in ks), f"{diff:+.1f}"]) + " |")
    return "\n".join(lines)


def worst_by_config(results: list[dict[str, Any]], ks: list[int], names: list[str]) -> dict[str, dict[str, Any]]:
    """Each configuration's lowest CR minus the paper greedy's over every benchmark and K."""
    out: dict[str, dict[str, Any]] = {}
    for n in names:
        for res in results:
            cr = {(r["config"], r["k"]): r["complete_recall"] for r in res["results"]}
            for k in ks:
                d = cr[(n, k)] - cr[("paper greedy", k)]
                if n not in out or d < out[n]["difference"]:
                    out[n] = {"benchmark": res["benchmark"], "k": k, "difference": round(d, 1)}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--k", default="2,3,5,10")
    ap.add_argument("--limit", type=int, help="the first N multi-table questions of each benchmark only")
    ap.add_argument("--candidates", type=int, default=20)
    ap.add_argument("--configs", help="comma-separated configuration names (default: all)")
    ap.add_argument("--json", type=Path, metavar="OUT.json")
    args = ap.parse_args(argv)
    ks = [int(x) for x in args.k.split(",")]
    names = list(CONFIGS) if not args.configs else [n.strip() for n in args.configs.split(",")]
    for n in names:
        if n not in CONFIGS and n not in VARIANTS:
            ap.error(f"unknown configuration {n!r} (choose from {', '.join(CONFIGS)})")
    for must in ("paper greedy",):
        if must not in names:
            names.insert(0, must)
    folders = find_folders(args.folders or [p for p in DEFAULT_ROOTS if p.exists()])
    if not folders:
        ap.error("no benchmark folder found")
    _log(f"{len(folders)} benchmarks; {len(names)} configurations; K {ks}; limit {args.limit}; "
         f"threads {os.environ.get('JAR_RETRIEVAL_THREADS', 'default')}")
    results, embedder = [], None
    for i, folder in enumerate(folders, 1):
        _log(f"[{i}/{len(folders)}] {folder}")
        res, embedder = run_benchmark(folder, ks, names, limit=args.limit, candidates=args.candidates,
                                      embedder=embedder)
        results.append(res)
        print(f"\n## {res['benchmark']} ({res['questions']} questions, {res['tables']} tables)\n", flush=True)
        print(table(res, ks, names), flush=True)
        _log(f"{res['benchmark']}: {res['seconds']} s")
    worst = worst_by_config(results, ks, names)
    print("\n## Worst CR minus the paper greedy's over the suite\n")
    print("| configuration | worst | where |")
    print("| --- | ---: | --- |")
    for n in names:
        w = worst[n]
        print(f"| {n} | {w['difference']:+.1f} | {w['benchmark']} K={w['k']} |")
    if args.json:
        args.json.write_text(json.dumps({"k": ks, "limit": args.limit, "configs": names, "benchmarks": results,
                                         "worst": worst}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
