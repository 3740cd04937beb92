#!/usr/bin/env python3
"""Whole-process time and peak memory of ``jar-retrieval retrieve`` per embedding backend.

Each backend first runs once untimed (the demo index is cached and the files are in the page
cache: a warm start), then the timed runs alternate between the backends so that both see the
same machine load. Wall time is measured around the child process; peak memory is the child's
maximum resident set size as the kernel reports it (``wait4``, the figure ``/usr/bin/time -v``
prints as "Maximum resident set size"). Prints a markdown table and the ratios.

Usage::

    OMP_NUM_THREADS=1 python scripts/time_startup.py [--runs 5] [--backends onnx,torch] [-- CLI args]
"""
from __future__ import annotations

import argparse
import os
import tempfile
import statistics
import subprocess
import sys
import time
from pathlib import Path


def command(backend: str, extra: list[str]) -> list[str]:
    exe = Path(sys.executable).with_name("jar-retrieval")
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "jar_core.cli"]
    return [*head, "retrieve", "-q", "--backend", backend, *extra]


def run_once(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS MiB) of one run of ``cmd``."""
    with tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--backends", default="onnx,torch")
    p.add_argument("extra", nargs="*", help="more arguments for 'jar-retrieval retrieve' (after --)")
    args = p.parse_args()
    backends = args.backends.split(",")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}; {os.cpu_count()} cores")
    print(f"command: {' '.join(command('<backend>', args.extra))}\n")
    for b in backends:
        run_once(command(b, args.extra))  # warm: index cached, files in the page cache
    results: dict[str, list[tuple[float, float, float]]] = {b: [] for b in backends}
    for _ in range(args.runs):
        for b in backends:
            results[b].append(run_once(command(b, args.extra)))
    print("| backend | runs | median wall s | min s | max s | median CPU s | median peak MiB | max peak MiB |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    med: dict[str, tuple[float, float]] = {}
    for b, rows in results.items():
        walls, cpus, peaks = zip(*rows)
        med[b] = (statistics.median(walls), statistics.median(peaks))
        print(f"| {b} | {len(rows)} | {med[b][0]:.2f} | {min(walls):.2f} | {max(walls):.2f} | "
              f"{statistics.median(cpus):.2f} | {med[b][1]:.0f} | {max(peaks):.0f} |")
    if len(backends) == 2:
        a, b = backends
        print(f"\n{b} / {a}: wall x{med[b][0] / med[a][0]:.1f}, peak memory x{med[b][1] / med[a][1]:.1f}")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
