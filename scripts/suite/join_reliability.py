#!/usr/bin/env python3
"""How often the joins the default prints are right, by their confidence: a reliability table.

    JAR_RETRIEVAL_THREADS=1 python scripts/suite/join_reliability.py [FOLDER ...] [--json out.json]
        [--points points.json]

Without folders: every ``*_nokeys`` folder of the suite (as ``run_suite.py`` finds them). For
each question the default selects K = 2, 3, 5, 10 tables and the joins its answer shows over them
(:func:`jar_core.output.assemble.shown_joins`, every table needed: the trusted keys of the join
path, and the unverified candidates where no key is trusted); a shown join between two gold
tables is *judged*, and *right* when the two columns are equal by the gold SQL's equalities and
the foreign keys the folder's keyed twin (the folder without ``_nokeys``) declares, alone or in a
chain (:func:`equal_columns`): the gold SQL equates them, the twin declares that key, or both
equal one third column (``city.CountryCode`` and ``countrylanguage.CountryCode``, two references
of ``country.Code``, hold one country's code however the gold SQL reaches it).
Joins are counted once per question and K, as a model would read them.

Prints, per bin of 0.1 of the confidence shown (``JoinEdge.confidence``), the joins judged,
the share right and the mean confidence, over the whole suite and per benchmark. ``--points``
writes every judged join ``(benchmark, evidence, raw score, shown confidence, right)``: the
data :mod:`scripts.suite.calibrate_joins` fits the calibration on.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Hashable, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run_suite import DEFAULT_ROOTS, find_folders  # noqa: E402

from jar_core.eval.harness import DEFAULT_SEARCH, prepare  # noqa: E402
from jar_core.index.store import cache_path  # noqa: E402
import numpy as np  # noqa: E402
from scipy import sparse  # noqa: E402
from scipy.sparse.csgraph import connected_components  # noqa: E402

from jar_core.output.assemble import shown_joins  # noqa: E402
from jar_core.loaders import load_benchmark  # noqa: E402
from jar_core.retriever import TableRetriever  # noqa: E402
from jar_core.strategies import JoinAwareStrategy  # noqa: E402

KS = (2, 3, 5, 10)


def declared_keys(schema: Any) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """Every declared foreign key's column pairs, referencing end first, as
    ``((db.table, column), (db.table, column))``."""
    out = []
    for t in schema.tables:
        for fk in t.foreign_keys:
            ref = schema.tables[schema.position(fk.ref_table)]
            out.extend(((t.id, a), (ref.id, b)) for a, b in zip(fk.columns, fk.ref_columns))
    return out


def equal_columns(pairs: Sequence[tuple[Hashable, Hashable]]) -> dict[Any, int]:
    """Each column of the equalities ``pairs`` (``(db.table, column)`` names, or positions) mapped to
    its class: two columns of one class are equal by the pairs alone or by a chain of them (the
    connected components of the pairs)."""
    ids: dict[Any, int] = {}
    for a, b in pairs:
        ids.setdefault(a, len(ids))
        ids.setdefault(b, len(ids))
    ends = np.asarray([(ids[a], ids[b]) for a, b in pairs], dtype=np.int64).reshape(-1, 2)
    graph = sparse.coo_matrix((np.ones(len(ends)), (ends[:, 0], ends[:, 1])), shape=(len(ids), len(ids)))
    _, label = connected_components(graph, directed=False)
    return {col: int(label[i]) for col, i in ids.items()}


def are_equal(classes: dict[Any, int], a: Hashable, b: Hashable) -> bool:
    """Whether columns ``a`` and ``b`` are of one class of :func:`equal_columns` (a column of no
    equality is equal to none)."""
    ca = classes.get(a)
    return ca is not None and ca == classes.get(b)


def judged_joins(folder: Path, keyed: Path | None, *, candidates: int = 20, embedder: Any = None,
                 limit: int | None = None) -> tuple[list[dict[str, Any]], Any]:
    """Every printed join between two gold tables of ``folder``'s questions, with whether it is right."""
    bench = load_benchmark(folder)
    truth = declared_keys(load_benchmark(keyed).schema) if keyed else []
    r = TableRetriever(bench.schema, embedder=embedder, candidates=candidates)
    r.load_or_build_index(cache_path(r.schema, r.embedder.name))
    prep = prepare(bench, r, candidates=candidates, limit=limit, default=True, warn=None)
    strat, tables, keys = JoinAwareStrategy(), bench.schema.tables, r._key_joins
    points = []
    for q in prep.questions:
        sig, gold = q.default_signals, set(q.gold)
        equal = equal_columns([*truth, *(tuple(j) for j in q.gold_joins)])
        for k in KS:
            order = np.asarray(strat.select(sig, min(k, sig.n)).order, dtype=np.int64)
            positions = [int(sig.candidates[i]) for i in order]
            shown = shown_joins(q.question, sig, order, [tables[p] for p in positions], positions, keys,
                                np.ones(len(order), dtype=bool))
            for e in [*shown.joins, *shown.unverified_joins]:
                if e.left_table.id not in gold or e.right_table.id not in gold:
                    continue
                points.append({"benchmark": bench.name, "question": q.position, "k": k, "evidence": e.evidence,
                               "score": round(float(e.score), 4), "shown": round(float(e.confidence), 4),
                               "trusted": bool(e.trusted), "right": are_equal(equal, (e.left_table.id, e.left_column), (e.right_table.id, e.right_column)),
                               "join": [[e.left_table.id, e.left_column], [e.right_table.id, e.right_column]]})
    return points, r.embedder


def reliability(points: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per bin of 0.1 of the shown confidence: joins, right share and mean confidence (%)."""
    rows = []
    for b in range(10):
        lo, hi = b / 10, (b + 1) / 10
        inb = [p for p in points if lo <= p["shown"] < hi or (b == 9 and p["shown"] == 1.0)]
        if inb:
            rows.append({"bin": f"{lo:.1f}-{hi:.1f}", "joins": len(inb),
                         "right": round(100 * sum(p["right"] for p in inb) / len(inb), 1),
                         "confidence": round(100 * sum(p["shown"] for p in inb) / len(inb), 1)})
    return rows


def _print_table(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{title}\n")
    print("| confidence shown | joins | right (%) | mean confidence (%) | gap |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(f"| {r['bin']} | {r['joins']} | {r['right']:.1f} | {r['confidence']:.1f} | "
              f"{r['right'] - r['confidence']:+.1f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--json", type=Path, metavar="OUT.json", help="the tables as JSON")
    ap.add_argument("--points", type=Path, metavar="POINTS.json", help="every judged join")
    ap.add_argument("--per-benchmark", action="store_true", help="also a table per benchmark")
    args = ap.parse_args(argv)
    folders = find_folders(args.folders or [p for p in DEFAULT_ROOTS if p.exists()])
    folders = [f for f in folders if f.name.endswith("_nokeys")]
    if not folders:
        ap.error("no _nokeys benchmark folder found")
    points, embedder = [], None
    for i, folder in enumerate(folders, 1):
        keyed = folder.with_name(folder.name[: -len("_nokeys")])
        print(f"reliability: [{i}/{len(folders)}] {folder}", file=sys.stderr, flush=True)
        got, embedder = judged_joins(folder, keyed if (keyed / "dev.json").is_file() else None,
                                     embedder=embedder, limit=args.limit)
        points += got
    total = reliability(points)
    _print_table(f"All {len(folders)} benchmarks without keys: {len(points)} printed joins between gold tables "
                 f"({sum(p['right'] for p in points)} right)", total)
    per = {}
    for name in dict.fromkeys(p["benchmark"] for p in points):
        per[name] = reliability([p for p in points if p["benchmark"] == name])
        if args.per_benchmark:
            _print_table(name, per[name])
    if args.json:
        args.json.write_text(json.dumps({"all": total, "benchmarks": per}, indent=1) + "\n")
    if args.points:
        args.points.write_text(json.dumps(points) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
