"""Any LlamaIndex ``BaseEmbedding`` as the embedder of a jar-retrieval :class:`~jar_core.TableRetriever`."""
from __future__ import annotations

from typing import Sequence

from llama_index.core.base.embeddings.base import BaseEmbedding

from jar_core.errors import InvalidArgumentError

__all__ = ["LlamaIndexEmbeddings"]


class LlamaIndexEmbeddings:
    """Exposes a LlamaIndex ``BaseEmbedding`` through ``embed_documents`` / ``embed_query``.

    Schema texts go through ``get_text_embedding_batch`` (the model's own batching), questions
    and sub-queries through ``get_query_embedding`` (so models with query instructions use them).
    The core wraps this object (``get_embedder``), normalizes the vectors and caches them.

    ``model_name`` (``"<class>/<model>"``, e.g. ``"OpenAIEmbedding/text-embedding-3-small"``) becomes
    part of the embedder name recorded in saved indexes: an index built with one model is refused
    with another.

    Example:
        >>> from llama_index.core import MockEmbedding
        >>> emb = LlamaIndexEmbeddings(MockEmbedding(embed_dim=8))
        >>> len(emb.embed_query("books by Irish authors"))
        8
    """

    def __init__(self, embed_model: BaseEmbedding) -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise InvalidArgumentError(
                f"embed_model must be a llama_index BaseEmbedding, got {type(embed_model).__name__}"
            )
        self.embed_model = embed_model
        self.model_name = f"{embed_model.class_name()}/{embed_model.model_name}"

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """Vectors of schema texts (tables, columns)."""
        return self.embed_model.get_text_embedding_batch(list(texts), show_progress=False)

    def embed_query(self, text: str) -> list[float]:
        """Vector of a question or sub-query."""
        return self.embed_model.get_query_embedding(text)

    def __repr__(self) -> str:
        return f"LlamaIndexEmbeddings({self.model_name!r})"
