"""Ablation of the parts beyond the paper, on a benchmark folder: R / CR at each K and the warm
per-question time (signals + selection, query embeddings cached) of each configuration.

    OMP_NUM_THREADS=1 python scripts/ablation_beyond.py ../shared/benchmarks/spider

Configurations, each adding one part to the one above it:

* ``paper greedy``: the paper's greedy over the paper's pair-score joins (the reproduction);
* ``+ honest joins``: the join graph of ``jar_core.joins`` (declared, naming, inclusion);
* ``+ expansion``: the candidates plus up to 10 tables joinable to the 5 strongest;
* ``+ connection gain``: ``join-aware``'s ``max`` join gain and weights (3, 1, 4), no bridges;
* ``+ bridges``: the bridge step, and the bridge lookahead (a bridge taken for the table behind it);
* ``+ value matching``: the question's values found in the columns' samples;
* ``+ BM25 fusion``: candidates ranked by dense similarity fused with BM25 (weight 0.7);
* ``+ family gain``: a table of a chosen table's family (same leading name word) gains 0.4;
* ``+ hub correction``: fine relevance corrected for hub tables (``hubness`` 0.5, :mod:`jar_core.signals.hubness`);
* ``+ BM25 in relevance``: the search's coarse relevance mixes in the question's BM25 (weight
  0.1);
* ``+ near copies``: a chosen table's near copy (nearly the same columns) that joins the other
  chosen tables more surely takes its place (:mod:`jar_core.strategies.near_copies`);
* ``+ kind values``: a sub-query no candidate's column matches well counts as a value of its
  database's one kinds table (:mod:`jar_core.signals.kinds`); this is the default configuration
  (``--methods default``);

and the default without expansion, without bridges, without the lookahead alone, without value matching, without the family
gain, without the hub correction, without near copies, and with other BM25, family, hub and relevance weights, to
see each part alone; then the
default with ``k="auto"``: the average number of tables returned against R and CR.
"""
from __future__ import annotations

import argparse
import sys
import time

from jar_core.eval.harness import prepare
from jar_core.eval.metrics import aggregate
from jar_core.index.store import cache_path
from jar_core.loaders import load_benchmark
from jar_core.retriever import TableRetriever
from jar_core.options import DEFAULT_EXPAND
from jar_core.strategies import GreedyStrategy, JoinAwareStrategy

#: The options the parts below add to: the paper's fine and coarse relevance.
PAPER_RELEVANCE = dict(hubness=0.0, lexical_relevance=0.0, kind_values=0.0)
HUB = dict(lexical_relevance=0.0, kind_values=0.0)  # the hub correction at its default weight, no BM25 in r
NO_KINDS = dict(kind_values=0.0)  # no value of a kinds table (jar_core.signals.kinds)

CONFIGS = (
    ("paper greedy", dict(joins="paper", min_join_score=0.0, expand=0, match_values=False, lexical=0.0,
                          **PAPER_RELEVANCE), lambda: GreedyStrategy()),
    ("+ honest joins", dict(expand=0, match_values=False, lexical=0.0, **PAPER_RELEVANCE), lambda: GreedyStrategy()),
    ("+ expansion", dict(expand=DEFAULT_EXPAND, match_values=False, lexical=0.0, **PAPER_RELEVANCE),
     lambda: GreedyStrategy()),
    ("+ connection gain", dict(expand=DEFAULT_EXPAND, match_values=False, lexical=0.0, **PAPER_RELEVANCE),
     lambda: JoinAwareStrategy(l_family=0, bridges=False, near_copies=False)),
    ("+ bridges", dict(expand=DEFAULT_EXPAND, match_values=False, lexical=0.0, **PAPER_RELEVANCE),
     lambda: JoinAwareStrategy(l_family=0, near_copies=False)),
    ("+ value matching", dict(expand=DEFAULT_EXPAND, lexical=0.0, **PAPER_RELEVANCE),
     lambda: JoinAwareStrategy(l_family=0, near_copies=False)),
    ("+ BM25 fusion", dict(expand=DEFAULT_EXPAND, **PAPER_RELEVANCE), lambda: JoinAwareStrategy(l_family=0, near_copies=False)),
    ("+ family gain", dict(expand=DEFAULT_EXPAND, **PAPER_RELEVANCE), lambda: JoinAwareStrategy(near_copies=False)),
    ("+ hub correction", dict(expand=DEFAULT_EXPAND, **HUB), lambda: JoinAwareStrategy(near_copies=False)),
    ("+ BM25 in relevance", dict(expand=DEFAULT_EXPAND, **NO_KINDS), lambda: JoinAwareStrategy(near_copies=False)),
    ("+ near copies", dict(expand=DEFAULT_EXPAND, **NO_KINDS), lambda: JoinAwareStrategy()),
    ("+ kind values (default)", dict(expand=DEFAULT_EXPAND), lambda: JoinAwareStrategy()),
    ("default - expansion", dict(expand=0), lambda: JoinAwareStrategy()),
    ("default - bridges", dict(expand=DEFAULT_EXPAND), lambda: JoinAwareStrategy(bridges=False)),
    ("default - lookahead", dict(expand=DEFAULT_EXPAND), lambda: JoinAwareStrategy(lookahead=False)),
    ("default - value matching", dict(expand=DEFAULT_EXPAND, match_values=False), lambda: JoinAwareStrategy()),
    ("default - family gain", dict(expand=DEFAULT_EXPAND), lambda: JoinAwareStrategy(l_family=0)),
    ("default - hub correction", dict(expand=DEFAULT_EXPAND, hubness=0.0), lambda: JoinAwareStrategy()),
    ("default - near copies", dict(expand=DEFAULT_EXPAND), lambda: JoinAwareStrategy(near_copies=False)),
    ("default, BM25 weight 0.3", dict(expand=DEFAULT_EXPAND, lexical=0.3), lambda: JoinAwareStrategy()),
    ("default, BM25 weight 0.5", dict(expand=DEFAULT_EXPAND, lexical=0.5), lambda: JoinAwareStrategy()),
    ("default, family weight 0.2", dict(expand=DEFAULT_EXPAND), lambda: JoinAwareStrategy(l_family=0.2)),
    ("default, family weight 0.7", dict(expand=DEFAULT_EXPAND), lambda: JoinAwareStrategy(l_family=0.7)),
    ("default, hubness 0.3", dict(expand=DEFAULT_EXPAND, hubness=0.3), lambda: JoinAwareStrategy()),
    ("default, hubness 0.7", dict(expand=DEFAULT_EXPAND, hubness=0.7), lambda: JoinAwareStrategy()),
    ("default, BM25 in relevance 0.2", dict(expand=DEFAULT_EXPAND, lexical_relevance=0.2), lambda: JoinAwareStrategy()),
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folder")
    ap.add_argument("--k", default="2,3,5,10")
    args = ap.parse_args()
    ks = [int(x) for x in args.k.split(",")]
    bench = load_benchmark(args.folder)
    header = ["configuration"] + [f"{m}@{k}" for k in ks for m in ("R", "CR")] + ["ms/question"]
    print(f"{bench.name}: " + " | ".join(header))
    print("| " + " | ".join(header) + " |")
    print("| --- |" + " ---: |" * (len(header) - 1))
    embedder = None
    for name, options, make in CONFIGS:
        r = TableRetriever(bench.schema, embedder=embedder, **options)
        embedder = r.embedder  # one model, its query cache shared: the per-question time is warm
        r.load_or_build_index(cache_path(r.schema, r.embedder.name))
        prepare(bench, r, warn=None)  # warms the query-embedding cache
        prep = prepare(bench, r, warn=None)
        strat = make()
        cells, select_s = [], 0.0
        for k in ks:
            preds = []
            for q in prep.questions:
                t0 = time.perf_counter()
                sel = strat.select(q.signals, min(k, q.signals.n))
                select_s += time.perf_counter() - t0
                preds.append(prep.table_ids(q.signals, sel.order))
            rec, cr = aggregate(preds, [q.gold for q in prep.questions], k)
            cells += [f"{rec:.1f}", f"{cr:.1f}"]
        n = len(prep.questions)
        ms = 1000 * (prep.signals_seconds / n + select_s / (n * len(ks)))
        print("| " + " | ".join([name, *cells, f"{ms:.2f}"]) + " |", flush=True)
    # adaptive K on the default configuration: tables returned against recall
    from jar_core.strategies.auto_k import AUTO_FLOOR, AUTO_K_MAX, AUTO_THRESHOLD, auto_select

    r = TableRetriever(bench.schema, embedder=embedder)
    r.load_or_build_index(cache_path(r.schema, r.embedder.name))
    prep = prepare(bench, r, warn=None)
    strat = JoinAwareStrategy()
    sizes, rec, comp = [], [], []
    for q in prep.questions:
        order = auto_select(strat, q.signals, AUTO_K_MAX).order
        got, gold = set(prep.table_ids(q.signals, order)), set(q.gold)
        sizes.append(len(order))
        rec.append(len(got & gold) / len(gold))
        comp.append(gold <= got)
    n = len(sizes)
    print(f"k=auto (threshold {AUTO_THRESHOLD}, floor {AUTO_FLOOR}, at most {AUTO_K_MAX}): {sum(sizes) / n:.2f} tables on average, "
          f"R {100 * sum(rec) / n:.1f}, CR {100 * sum(comp) / n:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
