#!/usr/bin/env python3
"""Time and memory of the value index (``jar_core.candidates.values.ValueIndex``) of a database with many
text columns, and of one question's value matching over it.

A synthetic schema of ``--columns`` text columns (10 a table), each holding ``--values`` distinct
two-word names (as a database read with ``sample_values`` = that many gives), deterministic. One
process per size: the resident-memory growth is the index's (and what building it left behind).

    OMP_NUM_THREADS=1 python scripts/time_values.py --columns 1000 5000 --values 20 100
"""
from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import time


def one(columns: int, values: int) -> str:
    from jar_core.schema import Column, Schema, Table
    from jar_core.candidates.values import ValueIndex, match_values

    rng = random.Random(7)
    syllables = ["ka", "lo", "mi", "ne", "ra", "to", "su", "vi", "pe", "do", "ga", "lu"]

    def word() -> str:
        return "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))).capitalize()

    tables = [
        Table("db", f"t{t}", [Column(f"c{j}", "text", sample=tuple(f"{word()} {word()}" for _ in range(values)))
                              for j in range(10)])
        for t in range(columns // 10)
    ]
    schema = Schema(tables)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    index = ValueIndex.from_schema(schema)
    build = time.perf_counter() - t0
    grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    name = next(iter(index.original.values()))
    question = f"Which rows are about {name[:-1]}x and {name.split()[0]}?"  # one letter changed
    t0 = time.perf_counter()
    found = match_values(index, question)
    query = time.perf_counter() - t0
    assert any(m.value == name for m in found), "the name within one edit was not found"
    return f"| {columns} | {values} | {len(index)} | {build:.2f} | {grown:.0f} | {1000 * query:.2f} |"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--columns", type=int, nargs="+", default=[1000, 5000])
    p.add_argument("--values", type=int, nargs="+", default=[20, 100])
    p.add_argument("--one", nargs=2, type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(one(*args.one))
        return 0
    print("| text columns | values a column | distinct values | build s | memory MiB | question ms |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for columns in args.columns:
        for values in args.values:
            out = subprocess.run([sys.executable, __file__, "--one", str(columns), str(values)],
                                 capture_output=True, text=True, check=True)
            print(out.stdout.strip(), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
