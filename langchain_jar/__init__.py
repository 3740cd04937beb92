"""LangChain adapter of jar-retrieval (``pip install "jar-retrieval[langchain]"``).

* :class:`JoinAwareRetriever`: a ``BaseRetriever`` returning one ``Document`` per selected
  table (``CREATE TABLE`` DDL + join metadata), in selection order.
* :class:`JoinAwareTablesTool`: the retrieval as an agent tool (``find_tables``): DDL and join
  path as content, Documents and join plan as artifact. ``retriever.as_tool()`` builds it.
* :class:`JoinAwareSQLToolkit`: ``find_tables``, ``get_table_schema`` (:class:`TableSchemaTool`)
  and LangChain's SQL query (and query-check) tools over one ``SQLDatabase``.
* :class:`VectorStoreCandidates`: any LangChain ``VectorStore`` (InMemoryVectorStore, PGVector...)
  as the first stage (``candidate_generator=``); :class:`TableEmbeddings`: the retriever's embedder
  as LangChain ``Embeddings``.
* :class:`ChatModelDecomposer`: any chat model / LLM as the question decomposer.
* :func:`format_tables`, :func:`sql_table_names`, :func:`table_info`,
  :func:`narrow_sql_database`: glue for text-to-SQL chains and ``SQLDatabase``.
"""
from langchain_jar.decomposers import ChatModelDecomposer
from langchain_jar.retrievers import JoinAwareRetriever
from langchain_jar.sql import format_tables, narrow_sql_database, sql_table_names, table_info
from langchain_jar.tools import FindTablesInput, JoinAwareSQLToolkit, JoinAwareTablesTool, TableSchemaTool, join_plan
from langchain_jar.vectorstores import TableEmbeddings, VectorStoreCandidates

__all__ = [
    "JoinAwareRetriever", "ChatModelDecomposer",
    "JoinAwareTablesTool", "FindTablesInput", "TableSchemaTool", "JoinAwareSQLToolkit", "join_plan",
    "format_tables", "sql_table_names", "table_info", "narrow_sql_database",
    "VectorStoreCandidates", "TableEmbeddings",
]
