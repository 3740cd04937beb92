"""LlamaIndex adapter of jar-retrieval (``pip install "jar-retrieval[llamaindex]"``).

* :class:`JoinAwareRetriever`: a ``BaseRetriever`` returning one ``NodeWithScore(TextNode)`` per
  selected table (DDL text, join metadata); :meth:`JoinAwareRetriever.as_object_retriever` plugs it
  into ``SQLTableRetrieverQueryEngine`` (keeping your table descriptions, ``table_descriptions=``);
  :meth:`JoinAwareRetriever.as_tool` is an agent ``FunctionTool``; :meth:`JoinAwareRetriever.persist`
  / :meth:`JoinAwareRetriever.from_persist_dir` save and load it with its index.
* :class:`VectorStoreCandidates`: any LlamaIndex vector store (``SimpleVectorStore``,
  ``PGVectorStore``...) as the first stage (``candidate_generator=``).
* :class:`LlamaIndexEmbeddings`: any ``BaseEmbedding`` as the embedder (``embed_model=``).
* :class:`LLMDecomposer`: any LlamaIndex ``LLM`` as the question decomposer (``llm=``).
"""
from llamaindex_jar.decomposers import LLMDecomposer
from llamaindex_jar.embeddings import LlamaIndexEmbeddings
from llamaindex_jar.retrievers import JoinAwareRetriever
from llamaindex_jar.tools import find_tables_tool
from llamaindex_jar.vector_stores import VectorStoreCandidates

__all__ = ["JoinAwareRetriever", "LlamaIndexEmbeddings", "LLMDecomposer", "find_tables_tool", "VectorStoreCandidates"]
