#!/usr/bin/env python3
"""The agent-facing default k, measured: the default's complete recall and the prompt characters
per question at K = 3, 5 and ``auto`` on every benchmark folder given (a markdown table).

Usage::

    JAR_RETRIEVAL_THREADS=1 python scripts/k_choice.py ../shared/benchmarks/* /work/suite/* [--limit 100]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

KS = ("3", "5", "auto")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("folders", nargs="+", type=Path)
    p.add_argument("--limit", type=int, default=100, help="multi-table questions per benchmark (default 100)")
    args = p.parse_args()
    print("| benchmark | questions | " + " | ".join(f"CR@{k}" for k in KS) + " | "
          + " | ".join(f"chars@{k}" for k in KS) + " |")
    print("| --- | ---: |" + " ---: |" * (2 * len(KS)))
    worse = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for folder in args.folders:
            if not (folder / "dev.json").is_file():
                continue
            out = Path(tmp) / f"{folder.name}.json"
            cmd = [sys.executable, "-m", "jar_core.cli", "eval", str(folder), "--methods", "default",
                   "--k", ",".join(KS), "--limit", str(args.limit), "--json-file", str(out), "-q", "--no-cache"]
            print(f"{folder.name} ...", file=sys.stderr, flush=True)
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
            d = json.loads(out.read_text())
            cell = {str(r["k"]): r for r in d["results"] if r["method"] == "default"}
            cr = [cell[k]["complete_recall"] for k in KS]
            chars = [cell[k]["prompt_chars"] for k in KS]
            worse += cr[2] < cr[1]
            total += 1
            print(f"| {d['benchmark']} | {d['questions']} | " + " | ".join(f"{v:.1f}" for v in cr) + " | "
                  + " | ".join(f"{v:.0f}" for v in chars) + " |", flush=True)
    print(f"\nk=auto completes fewer questions than K=5 on {worse} of {total} benchmarks")
    return 0


if __name__ == "__main__":
    sys.exit(main())
