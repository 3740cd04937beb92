"""LangChain adapter of jar-retrieval (``pip install "jar-retrieval[langchain]"``).

* :class:`JoinAwareRetriever`: a ``BaseRetriever`` returning one ``Document`` per selected
  table (``CREATE TABLE`` DDL + join metadata), in selection order.
* :class:`ChatModelDecomposer`: any chat model / LLM as the question decomposer.
* :func:`format_tables`, :func:`sql_table_names`, :func:`table_info`,
  :func:`narrow_sql_database`: glue for text-to-SQL chains and ``SQLDatabase``.
"""
from langchain_jar.decomposers import ChatModelDecomposer
from langchain_jar.retrievers import JoinAwareRetriever
from langchain_jar.sql import format_tables, narrow_sql_database, sql_table_names, table_info

__all__ = [
    "JoinAwareRetriever", "ChatModelDecomposer",
    "format_tables", "sql_table_names", "table_info", "narrow_sql_database",
]
