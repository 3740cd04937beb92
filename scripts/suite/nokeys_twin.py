#!/usr/bin/env python3
"""A benchmark folder's twin without keys: the same questions and tables, every primary and
foreign key removed (the layout's ``_nokeys`` twins), for a folder that has none yet.

    python scripts/suite/nokeys_twin.py ../shared/benchmarks/spider ../shared/benchmarks/beaver_dw --out /work/suite

Writes ``<out>/<name>_nokeys`` (``dev.json`` and ``decomp.json`` as they are, ``dev_tables.json``
less its keys, ``benchmark.json`` with the note); the source folder is read only.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _layout import DEFAULT_SUITE, _write_json, _without_keys  # noqa: E402


def twin(folder: Path, out: Path) -> Path:
    meta = json.loads((folder / "benchmark.json").read_text(encoding="utf-8"))
    name = f"{meta.get('name', folder.name)}_nokeys"
    dest = out / name
    dest.mkdir(parents=True, exist_ok=True)
    for f in ("dev.json", "decomp.json"):
        if (folder / f).is_file():
            shutil.copyfile(folder / f, dest / f)
    tables = json.loads((folder / "dev_tables.json").read_text(encoding="utf-8"))
    _write_json(dest / "dev_tables.json", _without_keys(tables))
    _write_json(dest / "benchmark.json", {**meta, "name": name,
                                          "source": meta.get("source", "") + " Every primary and foreign key removed."})
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, default=DEFAULT_SUITE)
    args = ap.parse_args(argv)
    for f in args.folders:
        print(twin(f, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
