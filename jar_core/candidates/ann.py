"""The first stage through the approximate vector index (FAISS IVF-Flat), for large corpora.

:class:`ApproximateCandidates` is a :class:`~jar_core.candidates.first_stage.CandidateGenerator`
(METHOD.md, "Online retrieval", step 1): the approximate index of the table vectors
(:mod:`jar_core.index.ann`, saved with the index) proposes candidates, which are then scored
exactly from the index's table vectors and ordered as brute force orders them
(:func:`~jar_core.candidates.first_stage.exact_top`), so the scores are the brute-force ones and
ties are broken the same way. With a filter:

* few allowed tables (a database filter: at most :data:`EXACT_ROWS`): those rows are scored
  exactly, no approximate search;
* else the approximate index is asked for more than ``n`` (``oversample``, divided by the share
  of tables allowed), the disallowed ones are dropped, and the request (and the lists probed)
  grows until ``n`` allowed tables are found; past the whole index it falls back on brute force.

The library is FAISS (``pip install 'jar-retrieval[ann]'``), chosen by measurement
(``scripts/ann_choice.py``, docs/results.md): on a lake of renamed copies of the same databases,
many table vectors are near-duplicates, where the graph indexes (HNSW: FAISS's, usearch,
hnswlib) miss a fifth to a tenth of the top 20 at their usual settings while an inverted file
scans whole clusters of near-duplicates at once.

:func:`choose_generator` picks the retriever's first stage: brute force below
:data:`~jar_core.index.ann.ANN_THRESHOLD` tables, the approximate index at or above it (when
FAISS is installed).
"""
from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

import numpy as np

from jar_core.candidates.first_stage import BruteForceCandidates, CandidateGenerator, exact_top
from jar_core.errors import InvalidArgumentError
from jar_core.index import ann as saved_ann

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["ApproximateCandidates", "EXACT_ROWS", "choose_generator", "FIRST_STAGES"]

log = logging.getLogger(__name__)

#: With a filter that allows at most this many tables, they are scored exactly.
EXACT_ROWS = 4096
#: Accepted values of ``candidate_generator`` / ``--first-stage`` (besides an object).
FIRST_STAGES = ("auto", "exact", "ann")


class ApproximateCandidates:
    """The top-N through an approximate index (FAISS IVF), re-scored exactly.

    Args:
        nprobe: inverted lists scanned by a search (the request grows it when it finds too few).
        oversample: the index is asked for this many times ``n`` (then exactly re-scored).
        exact_rows: a filter allowing at most this many tables is scored exactly.
        nlist: inverted lists of an index built here (default :func:`jar_core.index.ann.default_nlist`).
    """

    def __init__(self, *, nprobe: int = 64, oversample: float = 2.0, exact_rows: int = EXACT_ROWS,
                 nlist: int | None = None) -> None:
        if nprobe < 1 or oversample < 1 or exact_rows < 0:
            raise InvalidArgumentError("nprobe and oversample must be >= 1 and exact_rows >= 0")
        saved_ann.require_faiss()
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
        ann = index.approximate_index(nlist=self.nlist)
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


# -- the retriever's choice ---------------------------------------------------------------

def choose_generator(spec: CandidateGenerator | str | None, n_tables: int) -> CandidateGenerator:
    """The first stage for ``candidate_generator=spec`` over ``n_tables`` tables.

    ``None`` / ``"auto"``: brute force below :data:`~jar_core.index.ann.ANN_THRESHOLD` tables, the approximate index
    at or above it (brute force, with a logged note, when FAISS is not installed); ``"exact"``:
    brute force; ``"ann"``: the approximate index; an object with ``search``: that object.
    """
    if spec is None or (isinstance(spec, str) and spec.strip().lower() == "auto"):
        if n_tables < saved_ann.ANN_THRESHOLD:  # read now: one threshold for this and the save
            return BruteForceCandidates()
        if not saved_ann.available():
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
