#!/usr/bin/env python3
"""Compare the join graphs two versions of the library infer, and how long they take.

For every shared benchmark (Spider, BEAVER-DW, KaggleDBQA, ...), the bundled demo database and the synthetic
schema of ``scripts/time_ready.py`` (``--tables``), each version infers the join graph within
databases and across them (the synthetic schema: within only) in a process of its own; the
graphs must be equal array for array (columns, confidences, evidence, tables) for a change
meant for speed only.

Usage::

    git archive <commit> | tar -x -C /tmp/jar-before
    python scripts/compare_join_graphs.py --before /tmp/jar-before [--after .] [--tables 10000]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
FIELDS = ("a", "b", "confidence", "evidence", "table_a", "table_b")


def dump(out: str, tables: int) -> None:
    """Infer every graph with the ``jar_core`` on ``sys.path``; save them (and the seconds) to ``out``."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import time_ready
    from jar_core.demo import demo_url
    from jar_core.joins.graph import build_join_graph
    from jar_core.loaders import load_benchmark, load_database

    schemas = {  # every shared benchmark (Spider, BEAVER-DW, KaggleDBQA and its no-key twin, ...)
        folder.name: load_benchmark(folder).schema
        for folder in sorted(time_ready.BENCHMARKS.iterdir()) if (folder / "dev_tables.json").is_file()
    }
    schemas["demo"] = load_database(demo_url())
    if tables:
        schemas[f"synthetic {tables}"] = time_ready.synthesize(tables)[0]
    arrays = {}
    for name, schema in schemas.items():
        for cross in (False, True) if not name.startswith("synthetic") else (False,):
            t0 = time.perf_counter()
            g = build_join_graph(schema, cross_database=cross)
            arrays[f"{name}|{cross}|seconds"] = np.array(time.perf_counter() - t0)
            for f in FIELDS:
                arrays[f"{name}|{cross}|{f}"] = getattr(g, f)
    np.savez(out, **arrays)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", type=Path, required=True, help="a checkout of the version to compare with")
    p.add_argument("--after", type=Path, default=ROOT)
    p.add_argument("--tables", type=int, default=10000, help="tables of the synthetic schema (0: none)")
    p.add_argument("--dump", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.dump:
        dump(args.dump, args.tables)
        return 0
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for label, code in (("before", args.before), ("after", args.after)):
            out = str(Path(tmp) / f"{label}.npz")
            env = {**os.environ, "PYTHONPATH": str(code.resolve())}
            subprocess.run([sys.executable, __file__, "--dump", out, "--tables", str(args.tables), "--before",
                            str(args.before)], check=True, env=env)
            with np.load(out) as z:
                results[label] = {k: z[k] for k in z.files}
    before, after = results["before"], results["after"]
    print(f"before: {args.before.resolve()}\nafter: {args.after.resolve()}\n")
    print("| schema | across databases | joins before | joins after | identical | seconds before | seconds after |")
    print("| --- | --- | ---: | ---: | --- | ---: | ---: |")
    differ = 0
    for key in sorted({k.rsplit("|", 1)[0] for k in before}, key=lambda k: list(before).index(f"{k}|a")):
        same = all(np.array_equal(before[f"{key}|{f}"], after[f"{key}|{f}"])
                   and before[f"{key}|{f}"].dtype == after[f"{key}|{f}"].dtype for f in FIELDS)
        differ += not same
        name, cross = key.split("|")
        print(f"| {name} | {'yes' if cross == 'True' else 'no'} | {len(before[f'{key}|a'])} | {len(after[f'{key}|a'])} | "
              f"{'yes' if same else 'NO'} | {float(before[f'{key}|seconds']):.2f} | {float(after[f'{key}|seconds']):.2f} |")
    print(f"\n{differ} graph(s) differ")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
