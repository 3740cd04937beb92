"""Embedding a large schema's texts: once each, sorted by length, in chunks, resumable, on disk.

:meth:`jar_core.index.schema_index.SchemaIndex.build` hands its distinct texts to :func:`embed_texts`: sorted
by length (so that each batch the encoder runs holds texts of about one length: little padding)
and encoded :data:`CHUNK_TEXTS` at a time. With a work directory the vectors go to a file there
(``texts.npy``) chunk by chunk, and ``state.json`` records how many are done: a build killed
midway and run again on the same texts with the same model continues after the last chunk
written. :func:`gather` then lays out the table and column vectors (rows of the embedded texts
or of an older index) in ``.npy`` files there, written block by block and mapped, not held in
memory. :func:`merge_database_graphs` updates a join graph database by database.

(Not in :mod:`jar_core.joins`: the saved graphs' rules version digests that package's source.)
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from jar_core.errors import EmbeddingError, IndexSaveError
from jar_core.joins.compat import column_positions
from jar_core.progress import counter

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.joins.graph import JoinGraph
    from jar_core.schema import Schema

__all__ = ["CHUNK_TEXTS", "embed_texts", "gather", "texts_key", "clear_work_dir", "merge_database_graphs"]

log = logging.getLogger(__name__)

#: Texts per call of the encoder during a build: large enough that each batch it runs (64 texts)
#: holds texts of about one length, small enough that an interrupted build loses little.
CHUNK_TEXTS = 4096
#: Rows gathered at once when an array is written to a file.
_BLOCK_ROWS = 1 << 16
_STATE, _TEXTS = "state.json", "texts.npy"
#: The files a work directory holds (``clear_work_dir`` removes these and nothing else).
WORK_FILES = (_STATE, _TEXTS, "table_vectors.npy", "column_vectors.npy", "name_vectors.npy")
_F32 = np.dtype("<f4")


def texts_key(model: str, chunk_size: int, texts: Sequence[str]) -> str:
    """A SHA-256 of the model, the chunk size and the texts in order: what a resumed build must share."""
    h = hashlib.sha256(f"{model}\0{chunk_size}\0{len(texts)}\0".encode("utf-8"))
    for t in texts:
        h.update(t.encode("utf-8", "surrogatepass") + b"\0")
    return h.hexdigest()


def clear_work_dir(work: Path) -> None:
    """Remove the files of an earlier build from ``work`` (other files are left alone)."""
    for name in WORK_FILES:
        try:
            (work / name).unlink()
        except FileNotFoundError:
            pass


def _read_state(work: Path) -> dict | None:
    try:
        state = json.loads((work / _STATE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return state if isinstance(state, dict) else None


def _write_state(work: Path, state: dict) -> None:
    tmp = work / f"{_STATE}.tmp"
    tmp.write_text(json.dumps(state), encoding="utf-8")
    os.replace(tmp, work / _STATE)


def _resumable(work: Path, key: str, n: int) -> tuple[int, int, int] | None:
    """``(done, dim, offset)`` of the earlier build in ``work`` of these texts, else ``None``."""
    state = _read_state(work)
    if not state or state.get("key") != key:
        return None
    try:
        done, dim, offset = int(state["done"]), int(state["dim"]), int(state["offset"])
        size = (work / _TEXTS).stat().st_size
    except (KeyError, TypeError, ValueError, OSError):
        return None
    if not (0 < done <= n and dim > 0 and size == offset + n * dim * _F32.itemsize):
        return None
    return done, dim, offset


def _checked(vecs: object, n: int, dim: int | None, who: str) -> np.ndarray:
    arr = np.asarray(vecs, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[0] != n or (dim is not None and arr.shape[1] != dim):
        raise EmbeddingError(f"{who} returned an array of shape {arr.shape}, expected ({n}, {dim or 'dim'})")
    if not np.isfinite(arr).all():
        raise EmbeddingError(f"{who} returned non-finite values")
    return arr


def embed_texts(
    texts: Sequence[str], embed: Callable[[list[str]], np.ndarray], *, model: str, work: Path | None = None,
    chunk_size: int = CHUNK_TEXTS, progress: bool = False, desc: str = "embedding",
) -> tuple[np.ndarray, np.ndarray, int]:
    """``(vectors, row, resumed)``: the vector of ``texts[i]`` is ``vectors[row[i]]``.

    The texts are encoded by ``embed`` in order of length, ``chunk_size`` at a time; ``vectors``
    holds them in that order (``(0, 0)`` when there are none). With ``work`` they are written to
    ``work/texts.npy`` (returned mapped) and the chunks done are recorded, so that a call
    interrupted and made again with the same texts and ``model`` encodes only the chunks not
    written (``resumed``: the texts read back); a work directory of other texts is cleared.
    """
    n = len(texts)
    order = np.argsort(np.fromiter(map(len, texts), dtype=np.int64, count=n), kind="stable")
    row = np.empty(n, dtype=np.int64)
    row[order] = np.arange(n)
    if n == 0:
        return np.zeros((0, 0), dtype=np.float32), row, 0
    chunk_size = max(1, int(chunk_size))
    ordered = [texts[i] for i in order]
    del order
    key = texts_key(model, chunk_size, ordered)
    out: np.ndarray | None = None
    done, dim, offset = 0, None, 0
    path = work / _TEXTS if work is not None else None
    if work is not None:
        found = _resumable(work, key, n)
        if found is None:
            clear_work_dir(work)
        else:
            done, dim, offset = found
            log.info("resuming the embedding in %s: %d of %d texts done", work, done, n)
    bar = counter(total=n, desc=desc, enabled=progress, unit="text", initial=done)
    try:
        for start in range(done, n, chunk_size):
            chunk = ordered[start : start + chunk_size]
            vecs = _checked(embed(chunk), len(chunk), dim, model)
            if dim is None:
                dim = int(vecs.shape[1])
                if path is None:
                    out = np.empty((n, dim), dtype=np.float32)
                else:  # header written, data allocated (sparse), nothing mapped for long
                    created = np.lib.format.open_memmap(path, mode="w+", dtype=_F32, shape=(n, dim))
                    offset = int(created.offset)
                    del created
            if path is None:
                assert out is not None
                out[start : start + len(chunk)] = vecs
            else:
                with open(path, "r+b") as f:
                    f.seek(offset + start * dim * _F32.itemsize)
                    f.write(np.ascontiguousarray(vecs, dtype=_F32).tobytes())
                    f.flush()
                    os.fsync(f.fileno())
                _write_state(work, {"key": key, "done": start + len(chunk), "dim": dim, "offset": offset,  # type: ignore[arg-type]
                                    "texts": n, "model": model})
            bar.update(len(chunk))
    except OSError as e:
        raise IndexSaveError(f"cannot write the embedded texts to {work}: {e.strerror or e}") from e
    finally:
        bar.close()
    if path is None:
        assert out is not None
        return out, row, 0
    return np.load(path, mmap_mode="r"), row, done


def gather(sources: Sequence[np.ndarray], which: np.ndarray, rows: np.ndarray, dim: int,
           path: Path | None = None) -> np.ndarray:
    """The array whose row ``i`` is ``sources[which[i]][rows[i]]`` (float32, ``dim`` columns).

    With ``path`` it is written there as ``.npy`` block by block and returned mapped read-only
    (a mapped file is not held in memory); else it is built in memory.
    """
    n = len(rows)
    if path is None:
        out = np.empty((n, dim), dtype=np.float32)
        for k in np.unique(which):
            m = which == k
            out[m] = sources[int(k)][rows[m]]
        return out
    try:
        path.unlink(missing_ok=True)  # a new file: an index still mapping the old one keeps it whole
        with open(path, "wb") as f:
            np.lib.format.write_array_header_1_0(
                f, {"descr": np.lib.format.dtype_to_descr(_F32), "fortran_order": False, "shape": (n, dim)}
            )
            for a in range(0, n, _BLOCK_ROWS):
                f.write(gather(sources, which[a : a + _BLOCK_ROWS], rows[a : a + _BLOCK_ROWS], dim).tobytes())
    except OSError as e:
        raise IndexSaveError(f"cannot write {path}: {e.strerror or e}") from e
    return np.load(path, mmap_mode="r")


def _by_scope(schema: "Schema") -> dict[str, list[int]]:
    """Table positions per join scope (a database, or a catalog's schemas together)."""
    out: dict[str, list[int]] = {}
    for i, t in enumerate(schema.tables):
        out.setdefault(t.join_scope, []).append(i)
    return out


def _crosses_scopes(schema: "Schema") -> bool:
    scope = {t.id: t.join_scope for t in schema.tables}
    return any(scope.get(fk.ref_table) != t.join_scope for t in schema.tables for fk in t.foreign_keys)


def merge_database_graphs(
    old_schema: "Schema", old_graph: "JoinGraph", old_offsets: np.ndarray, schema: "Schema", offsets: np.ndarray,
    changed: set[str],
) -> "JoinGraph | None":
    """The within-database join graph of ``schema``, given ``old_graph`` of ``old_schema``.

    Joins never cross databases there (join scopes: a catalog's schemas are one), so the joins
    of a scope none of whose databases is in ``changed`` (the databases of tables added, dropped
    or changed) and that holds the same tables in the same order are the old ones, renumbered;
    the rules run on the other scopes only. ``None`` when a declared key crosses scopes (a
    change could then reach any of them): infer the whole graph. The same joins as inferring
    the whole graph, in the same order (unless two confidences differ below float32 precision).
    """
    from jar_core.index.structure import structure
    from jar_core.joins import build_join_graph
    from jar_core.joins.graph import JoinGraph, edge_order
    from jar_core.schema import Schema

    if _crosses_scopes(old_schema) or _crosses_scopes(schema):
        return None
    old_dbs, new_dbs = _by_scope(old_schema), _by_scope(schema)
    touched = {t.join_scope for s in (old_schema, schema) for t in s.tables if t.database in changed}
    col_map = np.full(int(old_offsets[-1]), -1, dtype=np.int64)
    redo: list[int] = []  # tables of the scopes the rules run on again
    for db, tables in new_dbs.items():
        before = old_dbs.get(db)
        if db not in touched and before is not None and [
            (old_schema.tables[i].name, len(old_schema.tables[i].columns)) for i in before
        ] == [(schema.tables[j].name, len(schema.tables[j].columns)) for j in tables]:
            col_map[column_positions(old_offsets, before)] = column_positions(offsets, tables)
        else:
            redo.extend(tables)
    a, b = col_map[old_graph.a], col_map[old_graph.b]
    keep = (a >= 0) & (b >= 0)
    parts = [(a[keep], b[keep], np.asarray(old_graph.confidence[keep], dtype=np.float32),
              np.asarray(old_graph.evidence[keep], dtype=np.int64))]
    if redo:
        redo.sort()
        sub = Schema([schema.tables[i] for i in redo], dialect=schema.dialect, validate=False)
        g = build_join_graph(sub)
        where = column_positions(offsets, redo)
        parts.append((where[g.a], where[g.b], g.confidence.astype(np.float32), g.evidence.astype(np.int64)))
    f, k, conf, ev = (np.concatenate([p[i] for p in parts]) for i in range(4))
    table = np.repeat(np.arange(len(schema.tables)), np.diff(offsets))
    order = edge_order(f, k, conf, ev, schema, structure(schema).scope[table])
    f, k, conf, ev = f[order], k[order], conf[order], ev[order]
    return JoinGraph(a=f, b=k, confidence=conf, evidence=ev, table_a=table[f], table_b=table[k])
