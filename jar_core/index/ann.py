"""The approximate index of the table vectors (FAISS IVF-Flat), saved with the index: built, saved, loaded.

The first stage of a large corpus (METHOD.md, "Online retrieval", step 1) can search this index
instead of every table vector (:mod:`jar_core.candidates.ann`). It is saved in the index
directory as ``ann.faiss`` with the other files (:meth:`SchemaIndex.save
<jar_core.index.schema_index.SchemaIndex.save>`), listed in ``meta.json`` with its SHA-256 and
parameters and tied to the table vectors it was built from (:func:`entry_with_vectors`); a load
checks it (:func:`read_saved`) and keeps its bytes, read on first use where they lie in the
memory-mapped file (no copy). :data:`ANN_THRESHOLD` is the corpus size from which the first
stage uses it and a save writes it by default.

The library is FAISS (``pip install 'jar-retrieval[ann]'``), imported where used.
"""
from __future__ import annotations

import logging
import math
import struct
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from jar_core.errors import IndexLoadError, InvalidArgumentError
from jar_core.index.npz import release_pages, sha256_released

__all__ = [
    "AnnIndex", "SavedAnn", "ANN_THRESHOLD", "ANN_FILE", "available", "require_faiss", "default_nlist",
    "ann_for", "approximate_index", "to_save", "entry_with_vectors", "read_saved",
]

log = logging.getLogger(__name__)

#: Corpora of at least this many tables use the approximate index by default, and a save writes
#: it (measured: scripts/ann_choice.py --threshold; docs/results.md).
ANN_THRESHOLD = 20_000
#: The file of the approximate index in an index directory.
ANN_FILE = "ann.faiss"
#: The table vectors' file the approximate index is tied to (its SHA-256 in ``meta.json``).
_VECTORS_FILE = "vectors.npz"
_KIND = "IVFFlat"
#: k-means of the lists trains on at most this many vectors a list.
_TRAIN_PER_LIST = 64


def available() -> bool:
    """Whether FAISS can be imported."""
    try:
        import faiss  # noqa: F401
    except ImportError:
        return False
    return True


def require_faiss() -> Any:
    """The ``faiss`` module, or :class:`InvalidArgumentError` saying how to install it."""
    try:
        import faiss
    except ImportError:
        raise InvalidArgumentError(
            "the approximate first stage needs FAISS: pip install 'jar-retrieval[ann]' (faiss-cpu)"
        ) from None
    return faiss


def default_nlist(n: int) -> int:
    """Inverted lists for ``n`` vectors: ``4 sqrt(n)``, at least 39 vectors a list (k-means)."""
    return max(1, min(int(round(4 * math.sqrt(n))), n // 39))


class AnnIndex:
    """A FAISS inverted file (IVF-Flat, inner product) over an index's table vectors.

    ``source`` is the array it was built from (or loaded for): it serves the index whose
    ``table_vectors`` is that array, and no other.
    """

    def __init__(self, index: Any, source: np.ndarray, nlist: int, buffer: Any = None, where: Any = None) -> None:
        self.index = index
        self.source = source
        self.nlist = nlist
        #: the bytes (a memory map of the saved file) the index reads its lists from, kept alive
        self._buffer = buffer
        #: the saved index it was read from (``None``: built here), named by errors
        self._where = where

    @classmethod
    def build(cls, vectors: np.ndarray, *, nlist: int | None = None, seed: int = 1234) -> "AnnIndex":
        """Train the lists (k-means, seeded, on at most :data:`_TRAIN_PER_LIST` vectors a list,
        drawn with the same seed) and add every vector."""
        faiss = require_faiss()
        v = np.ascontiguousarray(vectors, dtype=np.float32)
        n, d = v.shape
        nlist = default_nlist(n) if nlist is None else max(1, min(int(nlist), n))
        quantizer = faiss.IndexFlatIP(d)
        index = faiss.IndexIVFFlat(quantizer, d, nlist, faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = seed
        index.cp.min_points_per_centroid = 1  # a small corpus: no warning (default_nlist keeps 39 a list)
        sample = v
        if n > _TRAIN_PER_LIST * nlist:
            sample = v[np.sort(np.random.default_rng(seed).choice(n, _TRAIN_PER_LIST * nlist, replace=False))]
        index.train(sample)
        index.add(v)
        return cls(index, vectors, nlist)

    def to_bytes(self) -> bytes:
        return require_faiss().serialize_index(self.index).tobytes()

    @classmethod
    def from_bytes(cls, data: Any, source: np.ndarray, where: Any = "the index") -> "AnnIndex":
        """The index in ``data`` (the saved file's bytes or memory map): its lists are read
        where they lie (no copy) where FAISS can, else copied."""
        faiss = require_faiss()
        buf = np.frombuffer(data, dtype=np.uint8)
        try:
            try:
                reader = faiss.ZeroCopyIOReader(faiss.swig_ptr(buf), buf.size)
                index = faiss.read_index(reader, faiss.IO_FLAG_MMAP_IFC)
                kept: Any = (buf, data, reader)
            except AttributeError:  # an older FAISS: a copy
                index, kept = faiss.deserialize_index(buf), None
        except (RuntimeError, ValueError, MemoryError) as e:  # FAISS raises RuntimeError on a malformed file
            raise IndexLoadError(f"{where} is corrupt: {ANN_FILE} unreadable ({e})") from e
        if not isinstance(index, faiss.IndexIVFFlat) or index.ntotal != len(source) or index.d != source.shape[1]:
            raise IndexLoadError(
                f"{where} is corrupt: {ANN_FILE} holds {getattr(index, 'ntotal', '?')} vectors of dimension "
                f"{getattr(index, 'd', '?')}, the index {len(source)} of dimension {source.shape[1]}"
            )
        return cls(index, source, int(index.nlist), kept, where)

    def entry(self) -> dict[str, Any]:
        """The parameters listed in ``meta.json``."""
        return {
            "file": ANN_FILE, "library": "faiss", "library_version": require_faiss().__version__, "kind": _KIND,
            "metric": "inner_product", "nlist": self.nlist, "tables": int(self.index.ntotal),
            "dim": int(self.index.d),
        }

    def search(self, query: np.ndarray, k: int, nprobe: int) -> np.ndarray:
        """Up to ``k`` positions, best first (fewer when the lists probed hold fewer)."""
        faiss = require_faiss()
        params = faiss.SearchParametersIVF(nprobe=min(max(1, nprobe), self.nlist))
        k = min(k, int(self.index.ntotal))
        try:
            _, ids = self.index.search(np.ascontiguousarray(query, dtype=np.float32)[None, :], k, params=params)
        except RuntimeError as e:  # a damaged file read in place
            raise IndexLoadError(f"{self._where or 'the index'} is corrupt: {ANN_FILE} unusable ({e})") from e
        finally:  # the lists probed are read where they lie: their pages (a folio each, or more) released
            release_pages(self._buffer[1] if isinstance(self._buffer, tuple) else None)
        ids = ids[0]
        ids = ids[ids >= 0]
        if ids.size and int(ids.max()) >= len(self.source):  # a table the index does not have
            raise IndexLoadError(f"{self._where or 'the index'} is corrupt: {ANN_FILE} names table {int(ids.max())} "
                                 f"of {len(self.source)}")
        return ids


@dataclass(frozen=True, eq=False)
class SavedAnn:
    """The checked bytes of the approximate index saved with an index, until first use."""

    #: the file's bytes (or its memory map)
    data: Any
    #: the index directory it was read from (named by errors)
    where: Path
    #: the table vectors it serves (no other array)
    vectors: np.ndarray
    #: its ``meta.json`` entry
    entry: dict[str, Any]


def approximate_index(vectors: np.ndarray, saved: SavedAnn | None, *, nlist: int | None = None) -> AnnIndex:
    """The approximate index of ``vectors``: read from ``saved`` when it serves them, else built."""
    if saved is not None and saved.vectors is vectors:
        return AnnIndex.from_bytes(saved.data, vectors, where=f"index at {saved.where}")
    t0 = time.perf_counter()
    ann = AnnIndex.build(vectors, nlist=nlist)
    log.info("approximate index of %d tables built in %.1fs", len(vectors), time.perf_counter() - t0)
    return ann


def ann_for(index: Any, *, nlist: int | None = None) -> AnnIndex:
    """The approximate index of a :class:`~jar_core.index.schema_index.SchemaIndex`: kept, else
    read from the saved index, else built (:meth:`~jar_core.index.schema_index.SchemaIndex.approximate_index`)."""
    ann: AnnIndex = index.approximate_index(nlist=nlist)
    return ann


def to_save(
    vectors: np.ndarray, kept: AnnIndex | None, saved: SavedAnn | None, ann: bool | None,
    build: Callable[[], AnnIndex],
) -> tuple[bytes, dict[str, Any]] | None:
    """The bytes and ``meta.json`` entry of the approximate index to save with the table vectors ``vectors``.

    ``ann``: ``True`` always (``build()`` if need be), ``False`` never, ``None`` (auto) when one
    is at hand (``kept``: built or read; ``saved``: loaded, not yet read) or there are at least
    :data:`ANN_THRESHOLD` tables and FAISS is installed. The entry lacks the table vectors'
    digest, which the caller adds (:func:`entry_with_vectors`).
    """
    if ann is False:
        return None
    if kept is not None and kept.source is vectors:
        return kept.to_bytes(), kept.entry()
    if saved is not None and saved.vectors is vectors:
        return bytes(saved.data), {k: v for k, v in saved.entry.items() if k != "vectors_sha256"}
    if ann is None and (len(vectors) < ANN_THRESHOLD or not available()):
        return None
    built = build()
    return built.to_bytes(), built.entry()


def entry_with_vectors(entry: dict[str, Any], digests: dict[str, str]) -> dict[str, Any]:
    """``entry`` tied to the table vectors' file of the same save (its SHA-256)."""
    return {**entry, "vectors_file": _VECTORS_FILE, "vectors_sha256": digests[_VECTORS_FILE]}


def read_saved(p: Path, vectors: np.ndarray, meta: dict[str, Any], data: Any) -> SavedAnn | None:
    """The approximate index saved at ``p`` with the table vectors ``vectors``, checked, its
    bytes kept for first use (``None``: none saved, or one not to be used).

    A file that does not match its checksum, or is listed but missing, makes the index corrupt
    (:class:`IndexLoadError`), as any other file does. One built for other vectors (another
    count, dimension, or table vectors' file) or by another library is not used: a warning says
    so and it is built again when needed.
    """
    entry = meta.get("ann")
    if entry is None:
        if data is not None:
            log.info("index at %s: %s is not listed in meta.json; ignored", p, ANN_FILE)
        return None
    if not isinstance(entry, dict) or entry.get("file") != ANN_FILE:
        raise IndexLoadError(f"index at {p} is corrupt: meta.json describes the approximate index as {entry!r}")
    digest = meta["sha256"].get(ANN_FILE)
    if data is None:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: {ANN_FILE} is missing")
    if not isinstance(digest, str) or sha256_released(data) != digest:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: {ANN_FILE} does not match its checksum")
    problems: list[str] = []
    if entry.get("library") != "faiss" or entry.get("kind") != _KIND:
        problems.append(f"built by {entry.get('library')!r} ({entry.get('kind')!r})")
    if entry.get("tables") != len(vectors) or entry.get("dim") != vectors.shape[1]:
        problems.append(f"{entry.get('tables')!r} vectors of dimension {entry.get('dim')!r}, "
                        f"the index {len(vectors)} of dimension {vectors.shape[1]}")
    head = _header(data)
    if head != (_FOURCC, vectors.shape[1], len(vectors)):
        problems.append(f"the file holds {head[2]} vectors of dimension {head[1]} ({head[0]!r})")
    vf = entry.get("vectors_file")
    if not isinstance(vf, str) or entry.get("vectors_sha256") != meta["sha256"].get(vf):
        problems.append("built from other table vectors")
    if problems:
        log.warning("the approximate index saved at %s is stale (%s): not used; built again when needed",
                    p, "; ".join(problems))
        return None
    return SavedAnn(data, p, vectors, entry)


#: The first bytes of a FAISS IVF-Flat index file; then its dimension (int32) and count (int64).
_FOURCC = b"IwFl"


def _header(data: Any) -> tuple[bytes, int, int]:
    """(kind, dimension, count) read from the header of a FAISS index file."""
    head = bytes(memoryview(data)[:16])
    if len(head) < 16:
        return head[:4], -1, -1
    d, n = struct.unpack("<iq", head[4:16])
    return head[:4], d, n
