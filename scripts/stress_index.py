"""Save and load one index path from two processes for a bounded time; count what goes wrong.

Each worker process builds its own index (schema ``a`` or ``b``: same shape, its own vector
values), then until the time is up saves it to the shared path and loads the path a few times.
A load is a *mismatch* when the vectors it returns belong to the other schema than the one it
returns (the silent wrong index of issue 11); it is an *error* when it raises (an index that is
briefly missing, or a mix of two saves caught by a checksum). Afterwards the path must hold a
valid index and no temporary directory may be left beside it.

    python scripts/stress_index.py --seconds 20

Prints one line per worker and a summary; exits 1 if any mismatch, error or leftover is seen.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TABLES, COLUMNS, DIM = 60, 8, 384


def make_index(tag: str):
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.schema import Column, Schema, Table

    schema = Schema([Table(tag, f"t{i}", [Column(f"c{j}", "int") for j in range(COLUMNS)]) for i in range(TABLES)])
    value = {"a": 1.0, "b": 2.0}[tag]
    n_cols = TABLES * COLUMNS
    return SchemaIndex(
        schema, "stress", np.full((TABLES, DIM), value, np.float32),
        np.full((n_cols, DIM), value, np.float32), np.full((n_cols, DIM), value, np.float32),
    )


def worker(tag: str, path: Path, seconds: float, loads_per_save: int) -> dict[str, object]:
    from jar_core.errors import JarError
    from jar_core.index.schema_index import SchemaIndex

    index = make_index(tag)
    stats: dict[str, object] = {"worker": tag, "saves": 0, "save_errors": 0, "loads": 0, "mismatches": 0,
                                "load_errors": 0, "errors_seen": []}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            index.save(path)
            stats["saves"] += 1  # type: ignore[operator]
        except Exception as e:  # noqa: BLE001 - counted, not raised
            stats["save_errors"] += 1  # type: ignore[operator]
            _remember(stats, e)
        for _ in range(loads_per_save):
            stats["loads"] += 1  # type: ignore[operator]
            try:
                loaded = SchemaIndex.load(path)
            except (JarError, OSError) as e:
                stats["load_errors"] += 1  # type: ignore[operator]
                _remember(stats, e)
                continue
            owner = loaded.schema.tables[0].database
            expected = {"a": 1.0, "b": 2.0}[owner]
            if not all(np.all(v == expected) for v in (loaded.table_vectors, loaded.column_vectors, loaded.name_vectors)):
                stats["mismatches"] += 1  # type: ignore[operator]
    return stats


def _remember(stats: dict[str, object], e: BaseException) -> None:
    seen = stats["errors_seen"]
    text = f"{type(e).__name__}: {e}"
    if isinstance(seen, list) and len(seen) < 3 and text not in seen:
        seen.append(text)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=20.0, help="how long each worker runs (default 20)")
    p.add_argument("--loads-per-save", type=int, default=3, help="loads after each save (default 3)")
    p.add_argument("--dir", help="folder to work in (default: a new temporary folder)")
    p.add_argument("--worker", nargs=2, metavar=("TAG", "PATH"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], Path(args.worker[1]), args.seconds, args.loads_per_save)))
        return 0

    from jar_core.errors import JarError
    from jar_core.index.schema_index import SchemaIndex

    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        path = Path(folder) / "idx"
        cmd = [sys.executable, os.path.abspath(__file__), "--seconds", str(args.seconds),
               "--loads-per-save", str(args.loads_per_save)]
        procs = [subprocess.Popen([*cmd, "--worker", tag, str(path)], stdout=subprocess.PIPE, text=True)
                 for tag in ("a", "b")]
        results = [json.loads(proc.communicate()[0]) for proc in procs]
        leftovers = sorted(e.name for e in Path(folder).iterdir() if e.name != "idx")
        try:
            final = SchemaIndex.load(path).schema.tables[0].database
        except JarError as e:
            final = f"invalid ({e})"
    for r in results:
        print(f"worker {r['worker']}: {r['saves']} saves ({r['save_errors']} failed), {r['loads']} loads, "
              f"{r['mismatches']} mismatches, {r['load_errors']} load errors"
              + (f"; e.g. {r['errors_seen'][0]}" if r["errors_seen"] else ""))
    total = {k: sum(int(r[k]) for r in results) for k in ("saves", "save_errors", "loads", "mismatches", "load_errors")}
    print(f"total: {total['saves']} saves, {total['loads']} loads in {args.seconds:g} s per worker: "
          f"{total['mismatches']} mismatches, {total['load_errors']} load errors, {total['save_errors']} save errors, "
          f"{len(leftovers)} leftover temporary directories; final index: {final}")
    bad = total["mismatches"] or total["load_errors"] or total["save_errors"] or leftovers or final not in ("a", "b")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
