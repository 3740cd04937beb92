#!/usr/bin/env python3
"""Build and save the index of the synthetic data lake of N tables (``scripts/lake_bench.py``'s
``lake_schema``), as ``jar-retrieval index`` does (:func:`jar_core.index.schema_index.build_index`: disk-backed,
resumable from ``.DIR.partial`` when killed and run again), and print one JSON line:
``{"tables", "columns", "build_seconds", "peak_rss_mb", "disk_mb", ...}`` (an update: the
seconds of the update after ``load_seconds`` of loading the old index).

The progress of the embedding goes to stderr (a bar on a terminal, a line every 10 s in a log).
``--fake`` embeds with a hashing stand-in instead of the model (the cost of everything else).
``--update-from DIR`` updates the index saved at DIR instead (``--out`` may be DIR itself);
``--change`` first changes the lake a little: one table added, one dropped, one column renamed.

    OMP_NUM_THREADS=1 python scripts/build_lake_index.py --lake 100000 --out /tmp/lake-index 2> build.log
"""
from __future__ import annotations

import argparse
import json
import resource
import sys
import time
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))


class HashingEmbedder:
    """A fast deterministic stand-in for the model (384 dimensions, words hashed)."""

    name = "hashing-384"
    dim = 384

    def embed_documents(self, texts):
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
            out[i, 0] += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    embed_queries = embed_documents


def changed(lake):
    """``lake`` with a table dropped (the first that no foreign key references), the last column
    of its 500th table renamed and a table added to its last database."""
    import dataclasses

    from jar_core.schema import Column, Schema, Table

    tables = list(lake.tables)
    referenced = {fk.ref_table for t in tables for fk in t.foreign_keys}
    tables.pop(next(i for i, t in enumerate(tables) if t.id not in referenced))
    t = tables[500]
    cols = list(t.columns)  # every other fact of the columns kept (unique, computed, ...)
    cols[-1] = dataclasses.replace(cols[-1], name=f"{cols[-1].name}_renamed", nl_name=None)
    tables[500] = dataclasses.replace(t, columns=cols)
    tables.append(Table(tables[-1].database, "brand_new_table", [Column("id", "int", primary_key=True),
                                                                  Column("label", "text")]))
    return Schema(tables)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lake", type=int, required=True, metavar="N", help="tables in the lake")
    p.add_argument("--out", required=True, metavar="DIR", help="where to save the index")
    p.add_argument("--fake", action="store_true", help="a hashing stand-in instead of the model")
    p.add_argument("--update-from", metavar="DIR", help="update the index saved there instead of building one")
    p.add_argument("--change", action="store_true", help="a table added, one dropped, a column renamed")
    p.add_argument("--quiet", action="store_true", help="no progress")
    args = p.parse_args()
    from jar_core.embed.embedders import get_embedder
    from jar_core.index.schema_index import SchemaIndex, build_index
    from lake_bench import lake_schema

    t0 = time.perf_counter()
    _, lake = lake_schema(args.lake)
    if args.change:
        lake = changed(lake)
    schema_seconds = time.perf_counter() - t0
    embedder = HashingEmbedder() if args.fake else get_embedder(None)
    t0 = time.perf_counter()
    old = SchemaIndex.load(args.update_from) if args.update_from else None
    load = time.perf_counter() - t0
    t0 = time.perf_counter()
    index = build_index(lake, args.out, embedder, old=old, progress=not args.quiet)
    build = time.perf_counter() - t0
    out = Path(args.out)
    report = index.report
    print(json.dumps({
        "tables": len(lake.tables), "columns": int(index.col_offsets[-1]), "build_seconds": round(build, 1),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "disk_mb": round(sum(f.stat().st_size for f in out.iterdir()) / 2**20, 1),
        "schema_seconds": round(schema_seconds, 1), "texts": report.texts if report else None,
        "embedded": report.embedded if report else None, "resumed": report.resumed if report else None,
        "reused": report.reused if report else None, "model": index.model_name,
        **({"load_seconds": round(load, 1), **{k: list(getattr(report, k)) for k in ("added", "dropped", "changed")}}
           if old and report else {}),
    }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
