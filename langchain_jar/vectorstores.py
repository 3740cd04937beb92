"""Any LangChain ``VectorStore`` as the first stage of retrieval (:class:`VectorStoreCandidates`)."""
from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

import numpy as np
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from jar_core.errors import InvalidArgumentError
from jar_core.retriever import TableRetriever
from jar_core.candidates.vector_store import FILTER_DATABASES, StoreCandidates, StoreHit, index_of, store_records

__all__ = ["VectorStoreCandidates", "TableEmbeddings"]

_FILTERS = ("auto", "dict", "callable")


def _core(retriever: Any) -> TableRetriever:
    if isinstance(retriever, TableRetriever):
        return retriever
    inner = getattr(retriever, "retriever", None)  # JoinAwareRetriever
    if isinstance(inner, TableRetriever):
        return inner
    raise InvalidArgumentError(f"expected a TableRetriever or a JoinAwareRetriever, got {type(retriever).__name__}")


def _in_memory_search(store: VectorStore) -> bool:
    """Whether ``store`` searches as ``InMemoryVectorStore`` does (its filter: a function of the Document)."""
    cls = type(store)
    return isinstance(store, InMemoryVectorStore) and all(
        getattr(cls, name) is getattr(InMemoryVectorStore, name)
        for name in ("similarity_search_by_vector", "similarity_search_with_score_by_vector")
    )


class TableEmbeddings(Embeddings):
    """A retriever's embedder as LangChain ``Embeddings``: a vector store built with it embeds the
    tables as the retriever's index does, so its vectors are the index's.

    Stores that take vectors (``add_embeddings``: PGVector, FAISS...) are loaded with the index's
    own vectors and need it only because their constructor asks for an ``Embeddings``; stores that
    embed documents themselves (``InMemoryVectorStore``) need it.
    """

    def __init__(self, retriever: TableRetriever | Any) -> None:
        self.retriever = _core(retriever)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        with self.retriever._lock:
            return np.asarray(self.retriever.embedder.embed_documents(list(texts)), dtype=np.float32).tolist()

    def embed_query(self, text: str) -> list[float]:
        with self.retriever._lock:
            return np.asarray(self.retriever.embedder.embed_queries([text])[0], dtype=np.float32).tolist()

    def __repr__(self) -> str:
        return f"TableEmbeddings({self.retriever.embedder.name!r})"


class VectorStoreCandidates(StoreCandidates):
    """The first stage of a :class:`~jar_core.retriever.TableRetriever` served by a LangChain ``VectorStore``.

    :meth:`add_tables` loads the index's tables into the store (one ``Document`` per table: the
    table text, ``table_id`` / ``database`` / ``table`` / ``position`` / ``model`` metadata, the
    table id as document id); ``search`` queries it by vector and returns the brute-force top-N
    (:mod:`jar_core.candidates.vector_store`: exact rescoring, over-fetching, stale-store errors).

    Args:
        store: the vector store (``InMemoryVectorStore``, ``PGVector``, FAISS, Chroma...), one
            collection for this index's tables.
        filter: how a search confined to a few databases is passed to the store: ``"auto"``
            (``InMemoryVectorStore``: a function of the ``Document`` that applies the whole
            database filter and the exclusions; other stores: ``"dict"``), ``"dict"`` (a metadata
            filter ``{"database": name}`` or ``{"database": {"$in": [...]}}``, as PGVector, Chroma,
            FAISS and most stores take it), ``"callable"`` (a function of the ``Document``), a
            function of the database names returning the store's filter, or ``None`` (no filter
            in the store). Results are filtered here in every case.
        filter_databases: name at most this many databases in a store filter.

    Example:
        >>> from langchain_core.vectorstores import InMemoryVectorStore  # doctest: +SKIP
        >>> cands = VectorStoreCandidates(InMemoryVectorStore(TableEmbeddings(retriever)))  # doctest: +SKIP
        >>> cands.add_tables(retriever); retriever.candidate_generator = cands  # doctest: +SKIP
    """

    def __init__(
        self,
        store: VectorStore,
        *,
        filter: str | Callable[[list[str]], Any] | None = "auto",  # noqa: A002 - LangChain's name
        filter_databases: int = FILTER_DATABASES,
    ) -> None:
        if not isinstance(store, VectorStore):
            raise InvalidArgumentError(f"store must be a LangChain VectorStore, got {type(store).__name__}")
        if not (filter is None or callable(filter) or filter in _FILTERS):
            raise InvalidArgumentError(f"filter must be one of {', '.join(_FILTERS)}, a function or None, got {filter!r}")
        super().__init__(filter_databases=filter_databases)
        self.store = store
        if filter == "auto":
            filter = "callable" if _in_memory_search(store) else "dict"
        elif filter == "dict" and _in_memory_search(store):
            raise InvalidArgumentError('InMemoryVectorStore filters with a function, not a dict: filter="callable" or "auto"')
        self.filter = filter
        self.filters_tables = filter == "callable"
        self.filters_databases = filter is not None
        self._search_fn = self._search_method(store)

    @staticmethod
    def _search_method(store: VectorStore) -> Callable[..., list[Document]]:
        cls = type(store)
        if cls.similarity_search_by_vector is not VectorStore.similarity_search_by_vector:
            return store.similarity_search_by_vector
        with_score = getattr(store, "similarity_search_with_score_by_vector", None)
        if with_score is not None:
            return lambda embedding, k, **kw: [doc for doc, _ in with_score(embedding, k=k, **kw)]
        raise InvalidArgumentError(f"{cls.__name__} cannot search by vector (similarity_search_by_vector)")

    # -- loading -------------------------------------------------------------------------
    def add_tables(self, source: Any, *, batch_size: int = 500) -> int:
        """Load the tables of ``source`` (a ``TableRetriever``, a ``JoinAwareRetriever`` or a
        ``SchemaIndex``) into the store; returns how many.

        With the index's own vectors where the store takes vectors (``add_embeddings``),
        otherwise with ``add_documents``: then the store's embeddings must give the index's
        vectors (build it with :class:`TableEmbeddings`), which is checked on the first table.
        Ids are the table ids: stores that upsert by id (PGVector, InMemoryVectorStore) replace a
        table's record on a second load.
        """
        index = index_of(source)
        add_embeddings = getattr(self.store, "add_embeddings", None)
        params = inspect.signature(add_embeddings).parameters if add_embeddings is not None else {}
        checked = False
        count = 0
        for batch in store_records(index, batch_size):
            texts = [r.text for r in batch]
            metadatas = [dict(r.metadata) for r in batch]
            ids = [r.id for r in batch]
            vectors = [r.vector.tolist() for r in batch]
            if "text_embeddings" in params:  # FAISS
                add_embeddings(text_embeddings=list(zip(texts, vectors)), metadatas=metadatas, ids=ids)
            elif add_embeddings is not None:  # PGVector and most stores
                add_embeddings(texts=texts, embeddings=vectors, metadatas=metadatas, ids=ids)
            else:
                if not checked:
                    self._check_embeddings(index, batch[0])
                    checked = True
                docs = [Document(id=i, page_content=t, metadata=m) for i, t, m in zip(ids, texts, metadatas)]
                self.store.add_documents(docs, ids=ids)
            count += len(batch)
        return count

    def _check_embeddings(self, index: Any, record: Any) -> None:
        embeddings = getattr(self.store, "embeddings", None)
        if embeddings is None:
            return
        got = np.asarray(embeddings.embed_documents([record.text])[0], dtype=np.float64)
        norm = float(np.linalg.norm(got))
        if got.shape != record.vector.shape or norm == 0 or float(got @ record.vector) / norm < 0.999:
            raise InvalidArgumentError(
                f"the store embeds documents with {type(embeddings).__name__}, whose vectors are not the index's "
                f"(model {index.model_name!r}): build the store with TableEmbeddings(retriever)"
            )

    # -- searching -----------------------------------------------------------------------
    def _store_filter(self, databases: list[str] | None, allows: Callable[[str], bool]) -> Any:
        if self.filter is None:
            return None
        if self.filter == "callable":
            return lambda doc: allows(doc.metadata.get("table_id") or doc.id)
        if databases is None:
            return None
        if self.filter == "dict":
            return {"database": databases[0]} if len(databases) == 1 else {"database": {"$in": list(databases)}}
        return self.filter(list(databases))

    def _query(
        self, vector: list[float], k: int, databases: list[str] | None, allows: Callable[[str], bool]
    ) -> Sequence[StoreHit]:
        store_filter = self._store_filter(databases, allows)
        kwargs = {} if store_filter is None else {"filter": store_filter}
        docs = self._search_fn(vector, k=k, **kwargs)
        return [StoreHit(doc.id, doc.page_content, doc.metadata) for doc in docs]

    def __repr__(self) -> str:
        shown = self.filter if isinstance(self.filter, str) or self.filter is None else "<function>"
        return f"VectorStoreCandidates({type(self.store).__name__}, filter={shown!r})"
