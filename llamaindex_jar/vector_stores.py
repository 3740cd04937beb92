"""Any LlamaIndex vector store as the first stage of retrieval (:class:`VectorStoreCandidates`)."""
from __future__ import annotations

from typing import Any, Callable, Sequence

from llama_index.core.schema import TextNode
from llama_index.core.vector_stores.types import (
    BasePydanticVectorStore,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
    VectorStoreQuery,
)

from jar_core.errors import InvalidArgumentError
from jar_core.candidates.vector_store import (
    FILTER_DATABASES,
    METADATA_KEYS,
    StoreCandidates,
    StoreHit,
    index_of,
    store_records,
)

__all__ = ["VectorStoreCandidates"]


class VectorStoreCandidates(StoreCandidates):
    """The first stage of a :class:`~jar_core.retriever.TableRetriever` served by a LlamaIndex
    vector store (``SimpleVectorStore``, ``PGVectorStore``, Qdrant, Chroma...).

    :meth:`add_tables` adds one ``TextNode`` per table (the table text, ``table_id`` /
    ``database`` / ``table`` / ``position`` / ``model`` metadata, the table id as node id, the
    index's vector as embedding); ``search`` queries the store with the question's vector
    (``VectorStoreQuery``) and returns the brute-force top-N (:mod:`jar_core.candidates.vector_store`:
    exact rescoring, over-fetching, stale-store errors).

    Args:
        vector_store: a ``BasePydanticVectorStore``, one collection for this index's tables.
        filter: pass a search confined to a few databases to the store as ``MetadataFilters`` on
            ``database`` (``==`` one, ``in`` several); ``False``: no filter in the store. Results
            are filtered here in every case.
        filter_databases: name at most this many databases in a store filter.

    Example:
        >>> from llama_index.core.vector_stores import SimpleVectorStore  # doctest: +SKIP
        >>> cands = VectorStoreCandidates(SimpleVectorStore())  # doctest: +SKIP
        >>> cands.add_tables(retriever); retriever.candidate_generator = cands  # doctest: +SKIP
    """

    def __init__(
        self, vector_store: BasePydanticVectorStore, *, filter: bool = True,  # noqa: A002 - as the LangChain adapter
        filter_databases: int = FILTER_DATABASES,
    ) -> None:
        if not isinstance(vector_store, BasePydanticVectorStore):
            raise InvalidArgumentError(
                f"vector_store must be a LlamaIndex BasePydanticVectorStore, got {type(vector_store).__name__}"
            )
        super().__init__(filter_databases=filter_databases)
        self.vector_store = vector_store
        self.filter = bool(filter)
        self.filters_databases = self.filter

    def add_tables(self, source: Any, *, batch_size: int = 500) -> int:
        """Add the tables of ``source`` (a ``TableRetriever``, a ``JoinAwareRetriever`` or a
        ``SchemaIndex``) to the store, with the index's vectors; returns how many."""
        index = index_of(source)
        count = 0
        for batch in store_records(index, batch_size):
            nodes = [
                TextNode(
                    id_=r.id, text=r.text, metadata=dict(r.metadata), embedding=r.vector.tolist(),
                    excluded_embed_metadata_keys=list(METADATA_KEYS), excluded_llm_metadata_keys=list(METADATA_KEYS),
                )
                for r in batch
            ]
            self.vector_store.add(nodes)
            count += len(nodes)
        return count

    def _query(
        self, vector: list[float], k: int, databases: list[str] | None, allows: Callable[[str], bool]
    ) -> Sequence[StoreHit]:
        filters = None
        if self.filter and databases is not None:
            one = len(databases) == 1
            filters = MetadataFilters(filters=[MetadataFilter(
                key="database", value=databases[0] if one else list(databases),
                operator=FilterOperator.EQ if one else FilterOperator.IN,
            )])
        result = self.vector_store.query(VectorStoreQuery(query_embedding=vector, similarity_top_k=k, filters=filters))
        if result.nodes:
            return [StoreHit(node.node_id, getattr(node, "text", None) or None, node.metadata) for node in result.nodes]
        return [StoreHit(i) for i in (result.ids or [])]

    def __repr__(self) -> str:
        return f"VectorStoreCandidates({type(self.vector_store).__name__}, filter={self.filter})"
