"""The first stage through an approximate vector index (FAISS IVF-Flat), for large corpora.

:class:`ApproximateCandidates` is a :class:`~jar_core.candidates.first_stage.CandidateGenerator`: the
approximate index proposes candidates, which are then scored exactly from the index's table
vectors and ordered as brute force orders them (:func:`~jar_core.candidates.first_stage.exact_top`), so the
scores are the brute-force ones and ties are broken the same way. With a filter:

* few allowed tables (a database filter: at most :data:`EXACT_ROWS`): those rows are scored
  exactly, no approximate search;
* else the approximate index is asked for more than ``n`` (``oversample``, divided by the share
  of tables allowed), the disallowed ones are dropped, and the request (and the lists probed)
  grows until ``n`` allowed tables are found; past the whole index it falls back on brute force.

The library is FAISS (``pip install 'jar-retrieval[ann]'``), chosen by measurement
(``scripts/ann_choice.py``, docs/results.md): on a lake of renamed copies of the same databases,
many table vectors are near-duplicates, where the graph indexes (HNSW: FAISS's, usearch,
hnswlib) miss a fifth to a tenth of the top 20 at their usual settings while an inverted file
scans whole clusters of near-duplicates at once. The index (``ann.faiss``) is saved in the index
directory with the other files (:meth:`SchemaIndex.save`), listed in ``meta.json`` with its
SHA-256 and parameters, tied to the table vectors it was built from; it is checked on load and
read on first use, where it lies in the memory-mapped file (no copy).

:func:`choose_generator` picks the retriever's first stage: brute force below
:data:`ANN_THRESHOLD` tables, the approximate index at or above it (when FAISS is installed).
"""
from __future__ import annotations

import hashlib
import logging
import math
import struct
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from jar_core.candidates.first_stage import BruteForceCandidates, CandidateGenerator, exact_top
from jar_core.errors import IndexLoadError, InvalidArgumentError

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = [
    "ApproximateCandidates", "AnnIndex", "ANN_THRESHOLD", "ANN_FILE", "EXACT_ROWS", "available",
    "choose_generator", "FIRST_STAGES",
]

log = logging.getLogger(__name__)

#: Corpora of at least this many tables use the approximate index by default (measured:
#: scripts/ann_choice.py --threshold; docs/results.md).
ANN_THRESHOLD = 20_000
#: With a filter that allows at most this many tables, they are scored exactly.
EXACT_ROWS = 4096
#: The file of the approximate index in an index directory.
ANN_FILE = "ann.faiss"
#: The table vectors' file the approximate index is tied to (its SHA-256 in ``meta.json``).
_VECTORS_FILE = "vectors.npz"
#: Accepted values of ``candidate_generator`` / ``--first-stage`` (besides an object).
FIRST_STAGES = ("auto", "exact", "ann")
_KIND = "IVFFlat"
#: k-means of the lists trains on at most this many vectors a list.
_TRAIN_PER_LIST = 64
_LOCK = threading.Lock()


def available() -> bool:
    """Whether FAISS can be imported."""
    try:
        import faiss  # noqa: F401
    except ImportError:
        return False
    return True


def _faiss() -> Any:
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
        faiss = _faiss()
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
        return _faiss().serialize_index(self.index).tobytes()

    @classmethod
    def from_bytes(cls, data: Any, source: np.ndarray, where: Any = "the index") -> "AnnIndex":
        """The index in ``data`` (the saved file's bytes or memory map): its lists are read
        where they lie (no copy) where FAISS can, else copied."""
        faiss = _faiss()
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
            "file": ANN_FILE, "library": "faiss", "library_version": _faiss().__version__, "kind": _KIND,
            "metric": "inner_product", "nlist": self.nlist, "tables": int(self.index.ntotal),
            "dim": int(self.index.d),
        }

    def search(self, query: np.ndarray, k: int, nprobe: int) -> np.ndarray:
        """Up to ``k`` positions, best first (fewer when the lists probed hold fewer)."""
        faiss = _faiss()
        params = faiss.SearchParametersIVF(nprobe=min(max(1, nprobe), self.nlist))
        k = min(k, int(self.index.ntotal))
        try:
            _, ids = self.index.search(np.ascontiguousarray(query, dtype=np.float32)[None, :], k, params=params)
        except RuntimeError as e:  # a damaged file read in place
            raise IndexLoadError(f"{self._where or 'the index'} is corrupt: {ANN_FILE} unusable ({e})") from e
        ids = ids[0]
        ids = ids[ids >= 0]
        if ids.size and int(ids.max()) >= len(self.source):  # a table the index does not have
            raise IndexLoadError(f"{self._where or 'the index'} is corrupt: {ANN_FILE} names table {int(ids.max())} "
                                 f"of {len(self.source)}")
        return ids


class ApproximateCandidates:
    """The top-N through an approximate index (FAISS IVF), re-scored exactly.

    Args:
        nprobe: inverted lists scanned by a search (the request grows it when it finds too few).
        oversample: the index is asked for this many times ``n`` (then exactly re-scored).
        exact_rows: a filter allowing at most this many tables is scored exactly.
        nlist: inverted lists of an index built here (default :func:`default_nlist`).
    """

    def __init__(self, *, nprobe: int = 64, oversample: float = 2.0, exact_rows: int = EXACT_ROWS,
                 nlist: int | None = None) -> None:
        if nprobe < 1 or oversample < 1 or exact_rows < 0:
            raise InvalidArgumentError("nprobe and oversample must be >= 1 and exact_rows >= 0")
        _faiss()
        self.nprobe = int(nprobe)
        self.oversample = float(oversample)
        self.exact_rows = int(exact_rows)
        self.nlist = nlist

    def search(
        self, index: "SchemaIndex", query: np.ndarray, n: int, allowed: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        vectors = index.table_vectors
        total = len(vectors)
        n_allowed = int(np.count_nonzero(allowed))
        want = min(n, n_allowed)
        if want <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        if n_allowed <= max(self.exact_rows, self.oversample * want):
            return BruteForceCandidates().search(index, query, n, allowed)
        ann = ann_for(index, nlist=self.nlist)
        request = min(total, math.ceil(self.oversample * want * total / n_allowed))
        nprobe = self.nprobe
        while True:
            ids = ann.search(query, request, nprobe)
            ids = ids[allowed[ids]]
            if len(ids) >= want:
                ids = np.sort(ids)  # exact_top orders them; sorted rows read the vectors in order
                return exact_top(vectors[ids] @ query, ids, n)
            if request >= total and nprobe >= ann.nlist:
                break
            request, nprobe = min(total, 2 * request), min(ann.nlist, 2 * nprobe)
        log.debug("approximate index found %d of %d allowed tables; brute force", len(ids), want)
        return BruteForceCandidates().search(index, query, n, allowed)

    def __repr__(self) -> str:
        return f"ApproximateCandidates(nprobe={self.nprobe}, oversample={self.oversample}, exact_rows={self.exact_rows})"


# -- the approximate index of a SchemaIndex: built, saved, loaded -------------------------

def ann_for(index: "SchemaIndex", *, nlist: int | None = None) -> AnnIndex:
    """The approximate index of ``index``: kept, else read from the saved index, else built."""
    ann = index.__dict__.get("_ann")
    if ann is not None and ann.source is index.table_vectors:
        return ann
    with _LOCK:
        ann = index.__dict__.get("_ann")
        if ann is not None and ann.source is index.table_vectors:
            return ann
        saved = index.__dict__.pop("_ann_saved", None)
        if saved is not None and saved[2] is index.table_vectors:
            ann = AnnIndex.from_bytes(saved[0], index.table_vectors, where=f"index at {saved[1]}")
        else:
            import time

            t0 = time.perf_counter()
            ann = AnnIndex.build(index.table_vectors, nlist=nlist)
            log.info("approximate index of %d tables built in %.1fs", len(index.table_vectors), time.perf_counter() - t0)
        index._ann = ann  # type: ignore[attr-defined]
        return ann


def to_save(index: "SchemaIndex", ann: bool | None = None) -> tuple[bytes, dict[str, Any]] | None:
    """The bytes and ``meta.json`` entry of the approximate index to save with ``index``.

    ``ann``: ``True`` always (built if need be), ``False`` never, ``None`` (auto) when one is at
    hand (built or loaded) or the index has at least :data:`ANN_THRESHOLD` tables and FAISS is
    installed. The entry lacks the table vectors' digest, which the caller adds
    (:func:`entry_with_vectors`).
    """
    if ann is False:
        return None
    kept = index.__dict__.get("_ann")
    if kept is not None and kept.source is index.table_vectors:
        return kept.to_bytes(), kept.entry()
    saved = index.__dict__.get("_ann_saved")
    if saved is not None and saved[2] is index.table_vectors:
        return bytes(saved[0]), {k: v for k, v in saved[3].items() if k != "vectors_sha256"}
    if ann is None and (len(index.table_vectors) < ANN_THRESHOLD or not available()):
        return None
    built = ann_for(index)
    return built.to_bytes(), built.entry()


def entry_with_vectors(entry: dict[str, Any], digests: dict[str, str]) -> dict[str, Any]:
    """``entry`` tied to the table vectors' file of the same save (its SHA-256)."""
    return {**entry, "vectors_file": _VECTORS_FILE, "vectors_sha256": digests[_VECTORS_FILE]}


def read_saved(p: Path, index: "SchemaIndex", meta: dict[str, Any], data: Any) -> None:
    """Check the approximate index saved with ``index`` and keep its bytes for first use.

    A file that does not match its checksum, or is listed but missing, makes the index corrupt
    (:class:`IndexLoadError`), as any other file does. One built for other vectors (another
    count, dimension, or table vectors' file) or by another library is not used: a warning says
    so and it is built again when needed.
    """
    entry = meta.get("ann")
    if entry is None:
        if data is not None:
            log.info("index at %s: %s is not listed in meta.json; ignored", p, ANN_FILE)
        return
    if not isinstance(entry, dict) or entry.get("file") != ANN_FILE:
        raise IndexLoadError(f"index at {p} is corrupt: meta.json describes the approximate index as {entry!r}")
    digest = meta["sha256"].get(ANN_FILE)
    if data is None:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: {ANN_FILE} is missing")
    if not isinstance(digest, str) or hashlib.sha256(data).hexdigest() != digest:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: {ANN_FILE} does not match its checksum")
    vectors = index.table_vectors
    problems = []
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
        return
    index._ann_saved = (data, p, vectors, entry)  # type: ignore[attr-defined]


#: The first bytes of a FAISS IVF-Flat index file; then its dimension (int32) and count (int64).
_FOURCC = b"IwFl"


def _header(data: Any) -> tuple[bytes, int, int]:
    """(kind, dimension, count) read from the header of a FAISS index file."""
    head = bytes(memoryview(data)[:16])
    if len(head) < 16:
        return head[:4], -1, -1
    d, n = struct.unpack("<iq", head[4:16])
    return head[:4], d, n


# -- the retriever's choice ---------------------------------------------------------------

def choose_generator(spec: CandidateGenerator | str | None, n_tables: int) -> CandidateGenerator:
    """The first stage for ``candidate_generator=spec`` over ``n_tables`` tables.

    ``None`` / ``"auto"``: brute force below :data:`ANN_THRESHOLD` tables, the approximate index
    at or above it (brute force, with a logged note, when FAISS is not installed); ``"exact"``:
    brute force; ``"ann"``: the approximate index; an object with ``search``: that object.
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "auto"):
        if n_tables < ANN_THRESHOLD:
            return BruteForceCandidates()
        if not available():
            log.info("%d tables: the approximate first stage needs FAISS (pip install 'jar-retrieval[ann]'); "
                     "brute force", n_tables)
            return BruteForceCandidates()
        return ApproximateCandidates()
    if isinstance(spec, str):
        name = spec.strip().lower()
        if name == "exact":
            return BruteForceCandidates()
        if name == "ann":
            return ApproximateCandidates()
        raise InvalidArgumentError(
            f"candidate_generator must be one of {', '.join(FIRST_STAGES)} or a CandidateGenerator, got {spec!r}"
        )
    if not callable(getattr(spec, "search", None)):
        raise InvalidArgumentError(
            f"candidate_generator must be one of {', '.join(FIRST_STAGES)} or have a search method, got {spec!r}"
        )
    return spec
