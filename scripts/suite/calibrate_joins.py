#!/usr/bin/env python3
"""Fit the join confidence calibration (:mod:`jar_core.joins.calibration`) on the suite's judged joins.

    python scripts/suite/join_reliability.py --points points.json     # the joins, judged
    python scripts/suite/calibrate_joins.py points.json --write        # fit, check, save

For each rule of evidence with at least ``--min-joins`` judged joins, the share of its joins
that were right as a monotone (isotonic, :func:`scipy.optimize.isotonic_regression`) function of
the rule's score, each distinct score weighted by its joins; the other rules share one fit of all
inferred joins pooled. Every judged join counts once per question and K, as the answers showed it.

Before saving, the fit is checked by leaving one benchmark out at a time: the joins of each
benchmark are calibrated by the fit on the others, and the reliability table of those
out-of-benchmark confidences is printed (per bin of 0.1: joins, right, mean confidence). With
``--write`` the fit on every benchmark is saved to ``jar_core/data/join_calibration.json``.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import isotonic_regression

from jar_core.joins.calibration import SEARCH_ONLY, apply_fit

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "jar_core" / "data" / "join_calibration.json"
#: The threshold below which a join is not shown as a key: more likely wrong than right.
THRESHOLD = 0.5


def fit_curve(points: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Breakpoints ``{"score": [...], "right": [...], "joins": [...]}`` of the monotone fit."""
    by: dict[float, list[int]] = defaultdict(lambda: [0, 0])
    for p in points:
        by[p["score"]][0] += int(p["right"])
        by[p["score"]][1] += 1
    xs = sorted(by)
    y = np.array([by[x][0] / by[x][1] for x in xs])
    w = np.array([by[x][1] for x in xs], dtype=np.float64)
    fitted = isotonic_regression(y, weights=w, increasing=True).x
    return {"score": [float(x) for x in xs], "right": [round(float(v), 4) for v in fitted],
            "joins": [int(v) for v in w]}


def fit(points: list[dict[str, Any]], min_joins: int) -> dict[str, Any]:
    inferred = [p for p in points if p["evidence"] not in ("declared", "score")]
    per: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for p in inferred:
        per[p["evidence"]].append(p)
    return {
        "threshold": THRESHOLD,
        "evidence": {ev: fit_curve(ps) for ev, ps in sorted(per.items()) if len(ps) >= min_joins},
        "pooled": fit_curve(inferred),
        "joins": len(inferred),
        "benchmarks": sorted({p["benchmark"] for p in points}),
    }


def apply(table: dict[str, Any], p: dict[str, Any]) -> float:
    return float(apply_fit(np.asarray([p["score"]]), p["evidence"], table)[0])


def reliability(pairs: list[tuple[float, bool]]) -> list[tuple[str, int, float, float]]:
    rows = []
    for b in range(10):
        lo, hi = b / 10, (b + 1) / 10
        inb = [(c, r) for c, r in pairs if lo <= c < hi or (b == 9 and c >= 1.0)]
        if inb:
            rows.append((f"{lo:.1f}-{hi:.1f}", len(inb), 100 * sum(r for _, r in inb) / len(inb),
                         100 * sum(c for c, _ in inb) / len(inb)))
    return rows


def print_reliability(title: str, rows: list[tuple[str, int, float, float]]) -> None:
    print(f"\n{title}\n")
    print("| confidence | joins | right (%) | mean confidence (%) | gap |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for b, n, right, conf in rows:
        print(f"| {b} | {n} | {right:.1f} | {conf:.1f} | {right - conf:+.1f} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("points", type=Path)
    ap.add_argument("--min-joins", type=int, default=50)
    ap.add_argument("--write", action="store_true", help=f"save the fit to {OUT.relative_to(REPO)}")
    args = ap.parse_args(argv)
    points = [p for p in json.loads(args.points.read_text()) if p["evidence"] != "score"]
    benches = sorted({p["benchmark"] for p in points})
    print(f"{len(points)} judged joins from {len(benches)} benchmarks")
    print_reliability("The rules' scores as they were (uncalibrated)",
                      reliability([(p["score"] if p["evidence"] != "declared" else 1.0, p["right"]) for p in points]))
    held = []
    for b in benches:
        table = fit([p for p in points if p["benchmark"] != b], args.min_joins)
        held += [(apply(table, p), p["right"]) for p in points if p["benchmark"] == b]
    print_reliability("Calibrated, each benchmark by the fit on the others (leave one benchmark out)",
                      reliability(held))
    table = fit(points, args.min_joins)
    print_reliability("Calibrated by the fit on every benchmark (the saved fit)",
                      reliability([(apply(table, p), p["right"]) for p in points]))
    # what a model is shown as a key: never the search's own evidence (SEARCH_ONLY)
    shown = [p for p in points if apply(table, p) >= THRESHOLD and p["evidence"] not in SEARCH_ONLY]
    print(f"\nat threshold {THRESHOLD}: {len(shown)} of {len(points)} judged joins shown as keys, "
          f"{100 * sum(p['right'] for p in shown) / max(1, len(shown)):.1f}% right "
          f"(all: {100 * sum(p['right'] for p in points) / max(1, len(points)):.1f}%)")
    for ev, c in table["evidence"].items():
        print(f"{ev}: " + ", ".join(f"{s:.2f}->{r:.2f} ({n})" for s, r, n in zip(c["score"], c["right"], c["joins"])))
    c = table["pooled"]
    print("pooled: " + ", ".join(f"{s:.2f}->{r:.2f} ({n})" for s, r, n in zip(c["score"], c["right"], c["joins"])))
    if args.write:
        OUT.write_text(json.dumps(table, indent=1) + "\n")
        print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
