#!/usr/bin/env python3
"""Time, peak memory and edges of the join graph of a data lake, within and across databases.

The lake is ``scripts/lake_bench.py``'s (Spider's databases and renamed copies of the shared
benchmarks' until N tables; no embedding: the join graph needs none). Each graph is inferred in a
process of its own, so its peak memory is its own: ``schema MiB`` is the process's resident memory
once the schema is built, ``peak MiB`` its peak after the graph. ``edges across`` are the edges
between two databases (0 within); ``pairs compared across`` the candidate column pairs blocking
gave the rules across databases (name and value blocks, before the rules; ``-`` within).

    OMP_NUM_THREADS=1 python scripts/time_join_graph.py [--tables 1000 10000 100000]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(n_tables: int, cross: bool) -> dict:
    """Build the lake of ``n_tables`` tables and its join graph; what it took."""
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "scripts"))
    import numpy as np

    from jar_core.joins import blocking
    from jar_core.joins.graph import build_join_graph
    from lake_bench import lake_schema

    pairs = [0]
    windowed = blocking.windowed_pairs

    def counted(*a, **kw):
        i, j = windowed(*a, **kw)
        pairs[0] += len(i)
        return i, j

    blocking.windowed_pairs = counted  # what blocking hands the rules, counted
    _, schema = lake_schema(n_tables)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    g = build_join_graph(schema, cross_database=cross)
    seconds = time.perf_counter() - t0
    db = np.array([t.database for t in schema.tables], dtype=object)
    return {
        "tables": len(schema.tables), "databases": len(schema.databases),
        "columns": sum(len(t.columns) for t in schema.tables), "cross": cross,
        "seconds": round(seconds, 2), "schema_mib": round(before), "peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "edges": len(g), "edges_across": int((db[g.table_a] != db[g.table_b]).sum()), "pairs": pairs[0],
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, nargs="+", default=[1000, 10000, 100000])
    p.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(one(int(args.one[0]), args.one[1] == "across")))
        return 0
    print("| tables | databases | columns | graph | seconds | schema MiB | peak MiB | pairs compared across | edges | "
          "edges across |")
    print("| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |", flush=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for n in args.tables:
        for mode in ("within", "across"):
            out = subprocess.run([sys.executable, __file__, "--one", str(n), mode], check=True, env=env,
                                 capture_output=True, text=True).stdout
            r = json.loads(out.strip().splitlines()[-1])
            compared = r["pairs"] if mode == "across" else "-"
            print(f"| {r['tables']} | {r['databases']} | {r['columns']} | {mode} | {r['seconds']:.2f} | {r['schema_mib']} | "
                  f"{r['peak_mib']} | {compared} | {r['edges']} | {r['edges_across']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
