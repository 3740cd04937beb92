#!/usr/bin/env python3
"""Choosing the approximate vector index of the first stage, by measurement.

Vectors: the default model's table vectors (``table_text``) of ``lake_schema(20000)``
(scripts/lake_bench.py: Spider's databases and renamed copies of Spider's and BEAVER-DW's, so
many near-duplicate vectors), embedded once and cached (``--cache``). Larger sizes are made of
copies of those 20,000 vectors with a small Gaussian noise (norm ``--noise``, then normalized
again): synthetic, as near-duplicate as the lake's copies are. Queries: Spider's and BEAVER-DW's
questions (``embed_queries``), asked of every size.

Each library is measured in a process of its own: build time (``build_s``: the library's
default threads, 2 cores here), memory (``mem_mb``: peak resident memory during the build less
what the process held before it), file size, load time (``load_ms``: from the file's bytes in
memory; read where they lie where the library can view a buffer: FAISS's zero-copy reader,
usearch's view; hnswlib reads its file), single-query latency on one thread (``p50_ms`` /
``p95_ms``: the request of ``2k``, as the first stage makes it, and its exact re-scoring), and
agreement with brute force: ``recall`` = recall@k of the raw top ``k``; ``same`` = the share of
queries whose exact re-scoring of the ``2k`` returned is the exact top ``k``, in order. Filters:
``same_excl``: the 3 best tables and 2 others excluded (request ``2(k+5)``, the excluded
dropped); ``db_recall`` / ``db_p50_ms``: one database allowed (the question's own, 2-30
tables) through the library's own filter where it has one (FAISS: an ID selector; hnswlib: a
Python callback; usearch: none from Python), against the exact scoring of the allowed rows
(the ``exact`` row). ``setting``: HNSW's ``ef`` (raised to the request), IVF's ``nprobe``.

``--threshold`` times the first stage as the retriever runs it (brute force against
:class:`jar_core.candidates.ann.ApproximateCandidates`) at each size, to place ``ANN_THRESHOLD``.

    OMP_NUM_THREADS=1 python scripts/ann_choice.py --tables 20000,100000 [--queries 600]
    OMP_NUM_THREADS=1 python scripts/ann_choice.py --threshold --tables 1000,2000,5000,10000,20000,100000
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))
BENCHMARKS = ROOT.parent / "shared" / "benchmarks"

#: (name, library, parameters): the configurations measured
CONFIGS = {
    "exact": ("numpy", {}),
    "faiss-hnsw": ("faiss", {"kind": "hnsw", "M": 32, "efConstruction": 80}),
    "faiss-hnsw-sq8": ("faiss", {"kind": "hnsw-sq8", "M": 32, "efConstruction": 80}),
    "faiss-ivf": ("faiss", {"kind": "ivf"}),
    "usearch-f32": ("usearch", {"dtype": "f32", "connectivity": 16, "expansion_add": 128}),
    "usearch-i8": ("usearch", {"dtype": "i8", "connectivity": 16, "expansion_add": 128}),
    "hnswlib": ("hnswlib", {"M": 16, "ef_construction": 128}),
}
#: query-time settings: HNSW ef (raised to the request when smaller), IVF nprobe
SEARCH = {"hnsw": (64, 128), "ivf": (16, 64)}


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _peak_mb() -> float:
    """The peak resident memory since the last :func:`_reset_peak`."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _reset_peak() -> None:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def lake_vectors(cache: Path) -> np.ndarray:
    path = cache / "lake-20000.npy"
    if path.exists():
        return np.load(path)
    from jar_core.embed.embedders import get_embedder
    from jar_core.index.texts import table_text
    from lake_bench import lake_schema

    _, lake = lake_schema(20000)
    texts = [table_text(t) for t in lake.tables]
    emb = get_embedder(None)
    vecs = np.concatenate([emb.embed_documents(texts[i:i + 512]) for i in range(0, len(texts), 512)])
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vecs.astype(np.float32))
    return vecs.astype(np.float32)


def query_vectors(cache: Path) -> tuple[np.ndarray, list[str]]:
    """The questions' vectors and each question's database."""
    path = cache / "queries.npz"
    if path.exists():
        z = np.load(path)
        return z["vectors"], list(z["dbs"])
    from jar_core.embed.embedders import get_embedder
    from jar_core.loaders import load_benchmark

    qs = [q for name in ("spider", "beaver_dw") for q in load_benchmark(BENCHMARKS / name).questions]
    vecs = get_embedder(None).embed_queries([q.question for q in qs]).astype(np.float32)
    dbs = [q.db_id for q in qs]
    cache.mkdir(parents=True, exist_ok=True)
    np.savez(path, vectors=vecs, dbs=np.array(dbs))
    return vecs, dbs


def corpus(n: int, cache: Path, noise: float) -> np.ndarray:
    base = lake_vectors(cache)
    if n <= len(base):
        return np.ascontiguousarray(base[:n])
    rng = np.random.default_rng(0)
    parts = [base]
    while sum(len(p) for p in parts) < n:
        m = min(len(base), n - sum(len(p) for p in parts))
        e = rng.standard_normal((m, base.shape[1])).astype(np.float32)
        e *= noise / np.linalg.norm(e, axis=1, keepdims=True)
        c = base[:m] + e
        parts.append(c / np.linalg.norm(c, axis=1, keepdims=True))
    return np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)


def lake_databases(n: int) -> list[str]:
    """The database of each of the first 20,000 tables (copies beyond: the base row's, renamed)."""
    from lake_bench import lake_schema

    _, lake = lake_schema(min(n, 20000))
    return [t.database for t in lake.tables]


def exact_top(scores: np.ndarray, positions: np.ndarray, n: int) -> np.ndarray:
    from jar_core.candidates.first_stage import exact_top as top

    return top(scores, positions, n)[0]


class Ann:
    """One library's index behind build / to_bytes / from_bytes / search(q, k, setting)."""

    def __init__(self, lib: str, params: dict, vectors: np.ndarray) -> None:
        self.lib, self.params, self.vectors = lib, params, vectors
        self.kind = params.get("kind", "hnsw")
        self.index = None

    def build(self) -> None:
        v, p = self.vectors, self.params
        if self.lib == "faiss":
            import faiss

            d = v.shape[1]
            if self.kind == "ivf":
                nlist = int(4 * np.sqrt(len(v)))
                q = faiss.IndexFlatIP(d)
                idx = faiss.IndexIVFFlat(q, d, nlist, faiss.METRIC_INNER_PRODUCT)
                idx.train(v[np.random.default_rng(0).permutation(len(v))[: 64 * nlist]])
            elif self.kind == "hnsw-sq8":
                idx = faiss.IndexHNSWSQ(d, faiss.ScalarQuantizer.QT_8bit, p["M"], faiss.METRIC_INNER_PRODUCT)
                idx.hnsw.efConstruction = p["efConstruction"]
                idx.train(v)
            else:
                idx = faiss.IndexHNSWFlat(d, p["M"], faiss.METRIC_INNER_PRODUCT)
                idx.hnsw.efConstruction = p["efConstruction"]
            idx.add(v)
            self.index = idx
        elif self.lib == "usearch":
            from usearch.index import Index

            idx = Index(ndim=v.shape[1], metric="ip", dtype=p["dtype"], connectivity=p["connectivity"],
                        expansion_add=p["expansion_add"])
            idx.add(np.arange(len(v), dtype=np.uint64), v)
            self.index = idx
        elif self.lib == "hnswlib":
            import hnswlib

            idx = hnswlib.Index(space="ip", dim=v.shape[1])
            idx.init_index(max_elements=len(v), ef_construction=p["ef_construction"], M=p["M"], random_seed=0)
            idx.add_items(v, np.arange(len(v)))
            self.index = idx

    def to_file(self, path: Path) -> None:
        if self.lib == "faiss":
            import faiss

            path.write_bytes(faiss.serialize_index(self.index).tobytes())
        elif self.lib == "usearch":
            self.index.save(str(path))
        elif self.lib == "hnswlib":
            self.index.save_index(str(path))
        else:
            path.write_bytes(b"")

    def from_file(self, path: Path) -> None:
        data = path.read_bytes()
        if self.lib == "faiss":
            import faiss

            buf = np.frombuffer(data, dtype=np.uint8)
            try:  # the lists read where they lie (as jar_core.candidates.ann reads a saved index)
                self._buf = (data, buf)
                self.index = faiss.read_index(faiss.ZeroCopyIOReader(faiss.swig_ptr(buf), buf.size),
                                              faiss.IO_FLAG_MMAP_IFC)
            except (AttributeError, RuntimeError):
                self.index = faiss.deserialize_index(buf)
        elif self.lib == "usearch":
            from usearch.index import Index

            self._buf = data
            self.index = Index.restore(memoryview(data), view=True)
        elif self.lib == "hnswlib":
            import hnswlib

            self.index = hnswlib.Index(space="ip", dim=self.vectors.shape[1])
            self.index.load_index(str(path), max_elements=len(self.vectors))
            self.index.set_num_threads(1)

    def search(self, q: np.ndarray, k: int, setting: int, allowed_ids: np.ndarray | None = None) -> np.ndarray:
        if self.lib == "numpy":
            if allowed_ids is not None:
                return exact_top(self.vectors[allowed_ids] @ q, allowed_ids, k)
            return exact_top(self.vectors @ q, np.arange(len(self.vectors)), k)
        q2 = q[None, :]
        if self.lib == "faiss":
            import faiss

            params = None
            if self.kind == "ivf":
                params = faiss.SearchParametersIVF(nprobe=setting)
            else:
                params = faiss.SearchParametersHNSW(efSearch=max(setting, k))
            if allowed_ids is not None:
                params.sel = faiss.IDSelectorBatch(allowed_ids.astype(np.int64))
            _, ids = self.index.search(q2, k, params=params)
            ids = ids[0]
            return ids[ids >= 0]
        if self.lib == "usearch":
            if allowed_ids is not None:
                return np.zeros(0, np.int64)  # no filter from Python
            self.index.expansion_search = max(setting, k)
            return np.asarray(self.index.search(q, k, threads=1).keys, dtype=np.int64)
        if self.lib == "hnswlib":
            self.index.set_ef(max(setting, k))
            if allowed_ids is not None:
                ok = set(allowed_ids.tolist())
                ids, _ = self.index.knn_query(q2, k=min(k, len(ok)), filter=lambda i: i in ok)
            else:
                ids, _ = self.index.knn_query(q2, k=k)
            return ids[0].astype(np.int64)
        raise ValueError(self.lib)



def rerank(vectors: np.ndarray, q: np.ndarray, ids: np.ndarray, k: int) -> np.ndarray:
    ids = np.unique(ids[ids >= 0])
    return exact_top(vectors[ids] @ q, ids, k)


def measure(name: str, n: int, cache: Path, noise: float, n_queries: int) -> list[dict]:
    """All the rows of one configuration at one size (run in a process of its own)."""
    lib, params = CONFIGS[name]
    try:
        faiss = __import__("faiss")
        faiss.omp_set_num_threads(os.cpu_count() or 1)  # build: the default threads
    except ImportError:
        pass
    v = corpus(n, cache, noise)
    qv, qdb = query_vectors(cache)
    take = np.linspace(0, len(qv) - 1, min(n_queries, len(qv))).astype(int)
    qv, qdb = qv[take], [qdb[i] for i in take]
    dbs = lake_databases(n)
    by_db: dict[str, list[int]] = {}
    for i, d in enumerate(dbs):
        by_db.setdefault(d, []).append(i)
    rng = np.random.default_rng(1)
    base_rss = _rss_mb()
    _reset_peak()
    ann = Ann(lib, params, v)
    t0 = time.perf_counter()
    ann.build()
    build = time.perf_counter() - t0
    mem = max(_peak_mb(), _rss_mb()) - base_rss
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "ann"
        ann.to_file(f)
        size = f.stat().st_size / 2**20
        ann.index = None
        t0 = time.perf_counter()
        ann.from_file(f)
        load = time.perf_counter() - t0
    try:
        import faiss

        faiss.omp_set_num_threads(1)
    except ImportError:
        pass
    rows = []
    kind = "ivf" if params.get("kind") == "ivf" else "hnsw"
    settings = (0,) if lib == "numpy" else SEARCH[kind]
    for k in (20, 200):
        truth = [exact_top(v @ q, np.arange(n), k) for q in qv]
        for s in settings:
            if k == 200 and kind == "hnsw" and s != settings[0]:
                continue  # ef is the request (400) at both settings
            lat, rec, same = [], [], []
            for q, t in zip(qv, truth):
                t0 = time.perf_counter()
                ids = ann.search(q, 2 * k, s)
                top = rerank(v, q, ids, k)
                lat.append(time.perf_counter() - t0)
                rec.append(len(set(ids[:k].tolist()) & set(t.tolist())) / k)
                same.append(np.array_equal(top, t))
            # exclusions: the 3 best and 2 random tables
            rec_x = []
            for q, t in zip(qv, truth):
                excl = set(t[:3].tolist()) | set(rng.integers(0, n, 2).tolist())
                allowed = np.ones(n, bool)
                allowed[list(excl)] = False
                keep = np.flatnonzero(allowed)
                want = exact_top((v @ q)[keep], keep, k)
                ids = ann.search(q, 2 * (k + len(excl)), s)
                ids = ids[allowed[ids]] if len(ids) else ids
                rec_x.append(np.array_equal(rerank(v, q, ids, k), want))
            # one database: the library's own filter
            rec_db, lat_db = [], []
            if k == 20:
                for q, d in zip(qv, qdb):
                    pos = np.array(by_db.get(d, by_db[dbs[0]]), dtype=np.int64)
                    want = exact_top(v[pos] @ q, pos, k)
                    t0 = time.perf_counter()
                    ids = ann.search(q, min(k, len(pos)), s, allowed_ids=pos)
                    lat_db.append(time.perf_counter() - t0)
                    rec_db.append(len(set(ids.tolist()) & set(want.tolist())) / len(want))
            lat_ms = sorted(1000 * x for x in lat)
            rows.append({
                "config": name, "tables": n, "build_s": round(build, 2), "mem_mb": round(mem, 1),
                "file_mb": round(size, 1), "load_ms": round(1000 * load, 1),
                "setting": s, "k": k, "p50_ms": round(statistics.median(lat_ms), 2),
                "p95_ms": round(lat_ms[int(0.95 * (len(lat_ms) - 1))], 2),
                "recall": round(float(np.mean(rec)), 4), "same": round(float(np.mean(same)), 4),
                "same_excl": round(float(np.mean(rec_x)), 4),
                "db_recall": round(float(np.mean(rec_db)), 4) if rec_db and lib != "usearch" else None,
                "db_p50_ms": round(1000 * statistics.median(lat_db), 3) if lat_db and lib != "usearch" else None,
            })
    return rows


def threshold(sizes: list[int], cache: Path, noise: float, n_queries: int) -> list[dict]:
    """The first stage as the retriever runs it: brute force against ApproximateCandidates (its
    approximate index forced on: ``exact_rows=0``), p50 of ``search`` for ``n`` = 20 (the
    candidates) and 200 (the BM25 shortlist), one thread; and the share of identical top-n."""
    from types import SimpleNamespace

    import faiss

    from jar_core.candidates.ann import ApproximateCandidates
    from jar_core.index.ann import ann_for
    from jar_core.candidates.first_stage import BruteForceCandidates

    qv, _ = query_vectors(cache)
    take = np.linspace(0, len(qv) - 1, min(n_queries, len(qv))).astype(int)
    qv = qv[take]
    rows = []
    for n_tables in sizes:
        index = SimpleNamespace(table_vectors=corpus(n_tables, cache, noise))
        faiss.omp_set_num_threads(os.cpu_count() or 1)
        t0 = time.perf_counter()
        ann_for(index)
        build = time.perf_counter() - t0
        faiss.omp_set_num_threads(1)
        allowed = np.ones(n_tables, dtype=bool)
        exact, approx = BruteForceCandidates(), ApproximateCandidates(exact_rows=0)
        row = {"tables": n_tables, "ann_build_s": round(build, 2)}
        for n in (20, 200):
            t_e, t_a, same = [], [], []
            for q in qv:
                t0 = time.perf_counter()
                a = exact.search(index, q, n, allowed)[0]
                t1 = time.perf_counter()
                b = approx.search(index, q, n, allowed)[0]
                t2 = time.perf_counter()
                t_e.append(t1 - t0)
                t_a.append(t2 - t1)
                same.append(np.array_equal(a, b))
            row[f"exact_p50_ms@{n}"] = round(1000 * statistics.median(t_e), 3)
            row[f"ann_p50_ms@{n}"] = round(1000 * statistics.median(t_a), 3)
            row[f"same@{n}"] = round(float(np.mean(same)), 4)
        rows.append(row)
        print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    return rows


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", default="20000,100000", help="corpus sizes, comma-separated")
    p.add_argument("--configs", default=",".join(CONFIGS), help=f"of {', '.join(CONFIGS)}")
    p.add_argument("--queries", type=int, default=600, help="questions asked (spread over both benchmarks)")
    p.add_argument("--noise", type=float, default=0.1, help="norm of the noise added to copies beyond 20,000")
    p.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "jar-ann"), help="vectors cached here")
    p.add_argument("--ef", default=",".join(map(str, SEARCH["hnsw"])), help="HNSW ef values searched")
    p.add_argument("--nprobe", default=",".join(map(str, SEARCH["ivf"])), help="IVF nprobe values searched")
    p.add_argument("--json", metavar="OUT")
    p.add_argument("--threshold", action="store_true",
                   help="time the first stage (brute force, ApproximateCandidates) at each of --tables")
    p.add_argument("--one", nargs=2, metavar=("CONFIG", "N"), help=argparse.SUPPRESS)
    args = p.parse_args()
    cache = Path(args.cache)
    SEARCH["hnsw"] = tuple(int(x) for x in args.ef.split(","))
    SEARCH["ivf"] = tuple(int(x) for x in args.nprobe.split(","))
    if args.one:
        print(json.dumps(measure(args.one[0], int(args.one[1]), cache, args.noise, args.queries)))
        return 0
    lake_vectors(cache), query_vectors(cache)  # embedded once, before the child processes
    if args.threshold:
        rows = threshold([int(x) for x in args.tables.split(",")], cache, args.noise, args.queries)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
        return 0
    rows = []
    for n in (int(x) for x in args.tables.split(",")):
        for name in args.configs.split(","):
            out = subprocess.run(
                [sys.executable, __file__, "--one", name, str(n), "--cache", str(cache), "--noise", str(args.noise),
                 "--queries", str(args.queries), "--ef", args.ef, "--nprobe", args.nprobe], capture_output=True, text=True,
            )
            if out.returncode != 0:
                print(f"{name} at {n}: failed\n{out.stderr[-2000:]}", file=sys.stderr)
                continue
            rows.extend(json.loads(out.stdout.strip().splitlines()[-1]))
            _print([r for r in rows if r["config"] == name and r["tables"] == n], header=len(rows) == len(
                [r for r in rows if r["config"] == name and r["tables"] == n]))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    return 0


COLUMNS = ("config", "tables", "build_s", "mem_mb", "file_mb", "load_ms", "setting", "k", "p50_ms", "p95_ms",
           "recall", "same", "same_excl", "db_recall", "db_p50_ms")


def _print(rows: list[dict], header: bool) -> None:
    widths = [max(len(c), 9) for c in COLUMNS]
    widths[0] = 15
    if header:
        print("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)))
    for r in rows:
        print("  ".join(str("-" if r[c] is None else r[c]).ljust(w) for c, w in zip(COLUMNS, widths)), flush=True)


if __name__ == "__main__":
    sys.exit(main())
