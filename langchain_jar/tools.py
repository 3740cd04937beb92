"""Agent tools: join-aware table retrieval as a LangChain tool, and a SQL toolkit around it.

(:class:`JoinAwareTablesTool` is defined beside the retriever, whose ``as_tool`` builds it, in
:mod:`langchain_jar.retrievers`, so that neither module imports the other both ways.)

* :class:`JoinAwareTablesTool` (``find_tables``): the tables that answer a question, with the
  join path. Content: the tables' ``CREATE TABLE`` DDL and the ``FROM ... JOIN ... ON ...``
  clause, ready for the model; artifact: the Documents and the join plan, for the program.
* :class:`TableSchemaTool` (``get_table_schema``): the DDL, keys and joins of any table the
  agent names, also one the retrieval did not return.
* :class:`JoinAwareSQLToolkit`: both, plus LangChain's query tool (and, given an ``llm``, its
  query checker) over the same ``SQLDatabase``: an agent sees a few tables per question instead
  of the whole schema, and can still look up and query any table.
"""
from __future__ import annotations

from typing import Any, Optional, Union

from langchain_core.callbacks import CallbackManagerForToolRun
from langchain_core.tools import BaseTool, BaseToolkit
from pydantic import BaseModel, ConfigDict, Field, model_validator

from jar_core.errors import InvalidArgumentError, JarError
from jar_core.options import DEFAULT_K, FIND_TABLES_DESCRIPTION, check_k_or_auto
from langchain_jar.retrievers import FindTablesInput, JoinAwareRetriever, JoinAwareTablesTool, arguments_error, join_plan

__all__ = ["JoinAwareTablesTool", "FindTablesInput", "TableSchemaTool", "TableSchemaInput", "JoinAwareSQLToolkit",
           "FIND_TABLES_DESCRIPTION", "arguments_error", "join_plan"]

TABLE_SCHEMA_DESCRIPTION = (
    "Get the CREATE TABLE statement, keys and joins of database tables by name, also of tables that "
    "find_tables did not return. Input: table names, comma-separated ('track, album') or as a list."
)
QUERY_DESCRIPTION = (
    "Execute a SQL query against the database and get back the result. Input: a detailed and correct "
    "SQL query. If the query is not correct, an error message is returned: rewrite the query, check it "
    "and try again. For an unknown column, use {schema_tool} to see the table's columns."
)


class TableSchemaInput(BaseModel):
    """Arguments of :class:`TableSchemaTool`."""

    table_names: Union[str, list[str]] = Field(
        description="Table names, comma-separated ('track, album') or as a list; schema.table where names repeat."
    )


class TableSchemaTool(BaseTool):
    """The ``CREATE TABLE`` statement, keys and joins of the tables an agent names (``get_table_schema``).

    The fallback for a table the retrieval missed: any table of the retriever's schema can be
    described. An unknown name is answered with the closest names, and arguments its schema
    rejects (``table_names`` missing, or a number instead of a string or a list of them) with the problem
    (``invalid argument table_names: ...``), as the tool's error text, not an exception.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "get_table_schema"
    description: str = TABLE_SCHEMA_DESCRIPTION
    args_schema: type[BaseModel] = TableSchemaInput
    handle_tool_error: Any = True
    handle_validation_error: Any = arguments_error
    retriever: JoinAwareRetriever = Field(exclude=True)

    def _run(self, table_names: Union[str, list[str]], run_manager: Optional[CallbackManagerForToolRun] = None) -> str:
        from jar_core.output.render import describe_table

        given = [table_names] if isinstance(table_names, str) else table_names
        names = [n.strip().strip('"`[]') for g in given for n in g.split(",") if n.strip()]
        if not names:
            return "Error: give one or more table names, separated by commas."
        parts = []
        for n in names:
            try:
                parts.append(describe_table(self.retriever.retriever, n, dialect=self.retriever.dialect)["text"])
            except JarError as e:
                parts.append(f"Error: {e}")
        return "\n\n".join(parts)


class JoinAwareSQLToolkit(BaseToolkit):
    """Tools for a SQL agent over one LangChain ``SQLDatabase``, without the whole schema in the prompt.

    ``get_tools()``: ``find_tables`` (:class:`JoinAwareTablesTool`: the tables for a question with
    their join path), ``get_table_schema`` (:class:`TableSchemaTool`: any table by name),
    ``sql_db_query`` (LangChain's ``QuerySQLDatabaseTool``) and, when ``llm`` is given,
    ``sql_db_query_checker`` (``QuerySQLCheckerTool``). All of them work on the same database;
    nothing is narrowed to one question, so a table the retrieval missed can still be looked up
    and queried. Needs ``langchain-community`` (``pip install "jar-retrieval[langchain-sql]"``).

    Args:
        db: the ``SQLDatabase``.
        llm: a chat model for the query checker (optional).
        retriever: a :class:`JoinAwareRetriever` (default: ``JoinAwareRetriever.from_sql_database(db, k=k)``).
        k: tables per question for the default retriever, or ``"auto"`` (the tables the question needs).
        retriever_options: more options for the default retriever (``embeddings``, ``sample_rows``...).

    Bad arguments (``db`` that is no ``SQLDatabase``, ``k < 1``, and the errors of building the
    default retriever) raise the core's errors (:class:`~jar_core.errors.InvalidArgumentError`...),
    not a pydantic ``ValidationError``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    db: Any = Field(exclude=True)
    llm: Any = Field(default=None, exclude=True)
    retriever: Optional[JoinAwareRetriever] = Field(default=None, exclude=True)
    k: Union[int, str] = DEFAULT_K
    retriever_options: dict[str, Any] = Field(default_factory=dict, exclude=True)

    def __init__(self, **data: Any) -> None:
        # checked (and the default retriever built) here rather than in pydantic validators, so bad
        # input raises the core's errors instead of a ValidationError (as JoinAwareRetriever)
        db = data.get("db")
        if db is None or getattr(db, "_engine", None) is None:
            raise InvalidArgumentError(
                f"db must be a SQLDatabase (langchain_community.utilities.SQLDatabase), got {type(db).__name__}"
            )
        if "k" in data:
            data["k"] = check_k_or_auto(data["k"])
        options = data.get("retriever_options")
        if options is not None and not isinstance(options, dict):
            raise InvalidArgumentError(f"retriever_options must be a dict, got {type(options).__name__}")
        if data.get("retriever") is None:
            k = data.get("k", type(self).model_fields["k"].default)
            data["retriever"] = JoinAwareRetriever.from_sql_database(db, k=k, **(options or {}))
        super().__init__(**data)

    @model_validator(mode="after")
    def _default_retriever(self) -> "JoinAwareSQLToolkit":
        if self.retriever is None:
            self.retriever = JoinAwareRetriever.from_sql_database(self.db, k=self.k, **self.retriever_options)
        return self

    @property
    def dialect(self) -> str:
        """The SQL dialect of the database (``sqlite``, ``postgresql``...)."""
        return str(self.db.dialect)

    def get_tools(self) -> list[BaseTool]:
        from langchain_community.tools.sql_database.tool import QuerySQLCheckerTool, QuerySQLDatabaseTool

        assert self.retriever is not None
        find = JoinAwareTablesTool(retriever=self.retriever)
        schema = TableSchemaTool(retriever=self.retriever)
        query = QuerySQLDatabaseTool(db=self.db, description=QUERY_DESCRIPTION.format(schema_tool=schema.name))
        tools: list[BaseTool] = [find, schema, query]
        if self.llm is not None:
            tools.append(
                QuerySQLCheckerTool(
                    db=self.db, llm=self.llm,
                    description=f"Double check a SQL query before executing it with {query.name}.",
                )
            )
        return tools

    def get_context(self) -> dict[str, str]:
        """What an agent's system prompt may name: the dialect and how many tables there are."""
        assert self.retriever is not None
        return {"dialect": self.dialect, "table_count": str(len(self.retriever.retriever.schema))}
