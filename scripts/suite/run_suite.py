#!/usr/bin/env python3
"""Run the development suite: dense, the paper's greedy and the default on every benchmark folder.

    JAR_RETRIEVAL_THREADS=1 python scripts/suite/run_suite.py [FOLDER ...] [--limit 30] [--json suite.json]

Without folders, every folder holding a ``dev.json`` under ``../shared/benchmarks`` (beside the
repository) and ``/work/suite`` (the converters' default output), in name order. Each benchmark
is read as ``jar-retrieval eval`` reads it (multi-table questions only, top-20 candidates,
``decomp.json`` when present, the heuristic decomposer otherwise), and three methods run at each
K on the same questions:

* ``dense``: top-K by the question's similarity to the tables;
* ``greedy``: the paper's greedy over the paper's pair-score joins and candidates, configured as
  the "paper greedy" row of ``scripts/ablation_beyond.py`` (``joins="paper"``,
  ``min_join_score=0``, no expansion, no value matching, no BM25, no hub correction); this is
  not ``eval --methods greedy``, whose greedy runs over the library's join graph
  (declared / naming / inclusion rules, ``min_join_score`` 0.5) with the hub correction;
* ``default``: the library's default configuration, as ``eval --methods default`` runs it.

Prints, per benchmark and K, recall (R) and complete recall (CR) of each method in percent and
the default's CR minus the paper greedy's, then the default's worst such difference over the
whole suite. Progress goes to stderr. Deterministic for a given machine and thread count.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from jar_core.cli.eval import PAPER_CANDIDATES
from jar_core.eval.harness import prepare, run_method
from jar_core.index.store import cache_path
from jar_core.loaders import load_benchmark
from jar_core.retriever import TableRetriever

REPO = Path(__file__).resolve().parents[2]
#: Where benchmark folders are looked for when none is given.
DEFAULT_ROOTS = (REPO.parent / "shared" / "benchmarks", Path("/work/suite"))
METHODS = ("dense", "greedy", "default")
#: The paper's greedy: its pair-score joins over its candidates (scripts/ablation_beyond.py, "paper greedy").
PAPER = dict(PAPER_CANDIDATES, joins="paper", min_join_score=0.0, hubness=0.0, lexical_relevance=0.0)
#: As ``jar-retrieval eval`` builds its retriever; the ``default`` method adds expansion, values, BM25
#: and the kinds tables' values itself (:data:`jar_core.eval.harness.DEFAULT_SEARCH`).
EVAL = dict(PAPER_CANDIDATES)


def _log(msg: str) -> None:
    print(f"suite: {msg}", file=sys.stderr, flush=True)


def find_folders(roots: list[Path]) -> list[Path]:
    """Benchmark folders (holding a ``dev.json``) directly under each root, or the root itself."""
    out: list[Path] = []
    for root in roots:
        if (root / "dev.json").is_file():
            out.append(root)
        elif root.is_dir():
            out.extend(sorted(p for p in root.iterdir() if (p / "dev.json").is_file()))
    return out


def _retriever(schema: Any, embedder: Any, candidates: int, options: dict[str, Any]) -> TableRetriever:
    r = TableRetriever(schema, embedder=embedder, candidates=candidates, **options)
    r.load_or_build_index(cache_path(r.schema, r.embedder.name))
    return r


def run_benchmark(folder: Path, ks: list[int], *, limit: int | None, candidates: int,
                  embedder: Any = None) -> tuple[dict[str, Any], Any]:
    """The three methods on one folder: its figures and the embedder (shared with the next folder)."""
    bench = load_benchmark(folder)
    warnings: list[str] = []
    t0 = time.perf_counter()
    paper = _retriever(bench.schema, embedder, candidates, PAPER)
    prep = prepare(bench, paper, candidates=candidates, limit=limit, warn=warnings.append)
    rows = []
    for m in ("dense", "greedy"):
        rows += [r.to_dict() for r in run_method(prep, m, ks)]
    lib = _retriever(bench.schema, paper.embedder, candidates, EVAL)
    prep_default = prepare(bench, lib, candidates=candidates, limit=limit, default=True, warn=None)
    if [q.position for q in prep_default.questions] != [q.position for q in prep.questions]:
        raise RuntimeError(f"{folder}: the two preparations chose different questions")
    rows += [r.to_dict() for r in run_method(prep_default, "default", ks)]
    result = {
        "benchmark": bench.name,
        "folder": str(folder),
        "dialect": bench.dialect,
        "questions": len(prep.questions),
        "multi_table_questions": prep.multi_table_questions,
        "total_questions": prep.total_questions,
        "unparseable": len(prep.unparseable),
        "unknown_tables": len(prep.unknown_tables),
        "tables": len(bench.schema.tables),
        "decomposer": prep.decomposer,
        "warnings": warnings,
        "seconds": round(time.perf_counter() - t0, 1),
        "results": [{k: v for k, v in r.items() if k in ("method", "k", "recall", "complete_recall")} for r in rows],
    }
    return result, paper.embedder


def _figures(result: dict[str, Any]) -> dict[tuple[str, int], tuple[float, float]]:
    return {(r["method"], r["k"]): (r["recall"], r["complete_recall"]) for r in result["results"]}


def table(result: dict[str, Any], ks: list[int]) -> str:
    """One benchmark's figures as a Markdown table."""
    fig = _figures(result)
    head = ["K"] + [f"{m} {x}" for m in METHODS for x in ("R", "CR")] + ["default - greedy CR"]
    lines = ["| " + " | ".join(head) + " |", "|" + " ---: |" * len(head)]
    for k in ks:
        cells = [str(k)] + [f"{v:.1f}" for m in METHODS for v in fig[(m, k)]]
        cells.append(f"{fig[('default', k)][1] - fig[('greedy', k)][1]:+.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def worst(results: list[dict[str, Any]], ks: list[int]) -> dict[str, Any] | None:
    """The default's lowest CR minus the paper greedy's over every benchmark and K (ties: first)."""
    best: dict[str, Any] | None = None
    for res in results:
        fig = _figures(res)
        for k in ks:
            d = fig[("default", k)][1] - fig[("greedy", k)][1]
            if best is None or d < best["difference"]:
                best = {"benchmark": res["benchmark"], "k": k, "difference": d,
                        "default_cr": fig[("default", k)][1], "greedy_cr": fig[("greedy", k)][1]}
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path,
                    help="benchmark folders, or folders of them (default: ../shared/benchmarks and /work/suite)")
    ap.add_argument("--k", default="2,3,5,10", help="comma-separated K values (default 2,3,5,10)")
    ap.add_argument("--limit", type=int, help="evaluate the first N multi-table questions of each benchmark only")
    ap.add_argument("--candidates", type=int, default=20, help="candidate set size N (default 20)")
    ap.add_argument("--json", type=Path, metavar="OUT.json", help="write every figure as JSON")
    args = ap.parse_args(argv)
    ks = list(dict.fromkeys(int(x) for x in args.k.split(",")))
    folders = find_folders(args.folders or [p for p in DEFAULT_ROOTS if p.exists()])
    if not folders:
        ap.error("no benchmark folder found")
    _log(f"{len(folders)} benchmarks; K {ks}; limit {args.limit}; threads {os.environ.get('JAR_RETRIEVAL_THREADS', 'default')}")
    results, embedder = [], None
    for i, folder in enumerate(folders, 1):
        _log(f"[{i}/{len(folders)}] {folder}")
        res, embedder = run_benchmark(folder, ks, limit=args.limit, candidates=args.candidates, embedder=embedder)
        for w in res["warnings"]:
            _log(f"  {res['benchmark']}: {w}")
        _log(f"  {res['benchmark']}: {res['questions']} questions in {res['seconds']} s")
        results.append(res)
        print(f"\n## {res['benchmark']} ({res['questions']} of {res['multi_table_questions']} multi-table questions, "
              f"{res['total_questions']} in all; {res['tables']} tables; {res['dialect']})\n", flush=True)
        print(table(res, ks), flush=True)
    w = worst(results, ks)
    if w is not None:
        print(f"\nworst default - greedy CR over the suite: {w['difference']:+.1f} ({w['benchmark']}, K={w['k']}: "
              f"default {w['default_cr']:.1f}, greedy {w['greedy_cr']:.1f})")
    if args.json:
        payload = {"k": ks, "limit": args.limit, "candidates": args.candidates, "methods": list(METHODS),
                   "benchmarks": results, "worst_default_minus_greedy_cr": w}
        tmp = args.json.with_name(f".{args.json.name}.tmp")
        tmp.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
