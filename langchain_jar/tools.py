"""Agent tools: join-aware table retrieval as a LangChain tool, and a SQL toolkit around it.

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

from typing import Annotated, Any, Literal, Optional, Sequence, Union

from langchain_core.callbacks import AsyncCallbackManagerForToolRun, CallbackManagerForToolRun
from langchain_core.documents import Document
from langchain_core.tools import BaseTool, BaseToolkit, ToolException
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from jar_core.errors import InvalidArgumentError, JarError
from jar_core.retriever import TableRetriever
from jar_core.options import check_k
from langchain_jar.retrievers import JoinAwareRetriever
from langchain_jar.sql import format_tables

__all__ = ["JoinAwareTablesTool", "FindTablesInput", "TableSchemaTool", "TableSchemaInput", "JoinAwareSQLToolkit"]

FIND_TABLES_DESCRIPTION = (
    "Find the few database tables that together answer a question, and how to join them. Input: the "
    "user's question in natural language. Output: the CREATE TABLE statements of those tables (columns, "
    "types, keys) and a join path (FROM ... JOIN ... ON ...) connecting them. Call it first, before "
    "writing SQL. Joins marked inferred are not declared in the schema: check them."
)
TABLE_SCHEMA_DESCRIPTION = (
    "Get the CREATE TABLE statement, keys and joins of database tables by name, also of tables that "
    "find_tables did not return. Input: table names, comma-separated ('track, album') or as a list."
)
QUERY_DESCRIPTION = (
    "Execute a SQL query against the database and get back the result. Input: a detailed and correct "
    "SQL query. If the query is not correct, an error message is returned: rewrite the query, check it "
    "and try again. For an unknown column, use {schema_tool} to see the table's columns."
)


class FindTablesInput(BaseModel):
    """Arguments of :class:`JoinAwareTablesTool`."""

    question: str = Field(description="The user's question, in natural language.")
    k: Optional[Union[Annotated[int, Field(ge=1, le=100)], Literal["auto"]]] = Field(
        default=None,
        description="How many tables to return, or 'auto' for as few as cover the question and join up "
        "(default: the tool's setting).",
    )
    include: Optional[list[str]] = Field(
        default=None, description="Tables that must be part of the answer, by name (optional)."
    )


_MISSING = object()  # an argument not given (``None`` is a value given)


def arguments_error(err: ValidationError) -> str:
    """The text of a tool call's invalid arguments, for the model (as the tool's other errors):
    ``invalid argument k: input should be ... or input should be 'auto', got 0``."""
    fields: dict[str, tuple[list[str], Any]] = {}
    for e in err.errors():
        name = str(e["loc"][0]) if e["loc"] else "input"
        messages, _ = fields.setdefault(name, ([], e["input"] if e["type"] != "missing" else _MISSING))
        messages.append(e["msg"][:1].lower() + e["msg"][1:])
    return "; ".join(
        f"invalid argument {name}: {' or '.join(dict.fromkeys(messages))}"
        + ("" if got is _MISSING else f", got {got!r}")
        for name, (messages, got) in fields.items()
    )


def join_plan(docs: Sequence[Document]) -> dict[str, Any]:
    """The join plan of a retrieval's documents: tables in order, join edges, join path, unjoined tables."""
    joins: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()
    for d in docs:
        for j in d.metadata.get("join_keys", ()):
            key = (j["left"], j["right"])
            if key not in seen:
                seen.add(key)
                joins.append(dict(j))
    return {
        "tables": [d.metadata.get("table_id") for d in docs],
        "joins": joins,
        "join_path": docs[0].metadata.get("join_path", "") if docs else "",
        "unjoined": [d.metadata.get("table_id") for d in docs if not d.metadata.get("joined", True)],
    }


class JoinAwareTablesTool(BaseTool):
    """Join-aware table retrieval as an agent tool (name ``find_tables``).

    ``invoke({"question": ...})`` returns the prompt text: the selected tables' DDL and the join
    path. Called with a tool call (as agents do) it returns a ``ToolMessage`` whose
    ``artifact`` is ``{"documents": [Document, ...], "join_plan": {"tables", "joins",
    "join_path", "unjoined"}}`` (``response_format="content_and_artifact"``). Bad input (an
    empty question, an unknown ``include`` table, arguments its schema rejects such as ``k=0``)
    comes back as the tool's error text, so that the model can correct itself.

    Build with :meth:`from_database`, :meth:`from_sql_database` or :meth:`from_retriever` (or
    ``JoinAwareRetriever.as_tool()``).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "find_tables"
    description: str = FIND_TABLES_DESCRIPTION
    args_schema: type[BaseModel] = FindTablesInput
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    handle_tool_error: Any = True
    handle_validation_error: Any = arguments_error
    retriever: JoinAwareRetriever = Field(exclude=True)
    """The retriever that selects the tables."""

    @classmethod
    def from_retriever(cls, retriever: JoinAwareRetriever | TableRetriever, **fields: Any) -> "JoinAwareTablesTool":
        """Around a :class:`JoinAwareRetriever` (or a core :class:`TableRetriever`, wrapped with ``k`` etc. from ``fields``)."""
        if isinstance(retriever, TableRetriever):
            own = set(cls.model_fields)
            retriever = JoinAwareRetriever.from_table_retriever(
                retriever, **{k: fields.pop(k) for k in list(fields) if k not in own}
            )
        return cls(retriever=retriever, **fields)

    @classmethod
    def from_database(cls, url_or_engine: Any, **options: Any) -> "JoinAwareTablesTool":
        """From a SQLAlchemy URL or engine; ``options``: this tool's fields (``name``, ``description``...)
        and :meth:`JoinAwareRetriever.from_database`'s (``k``, ``loader_options``, ``embeddings``, ``llm``...)."""
        fields, rest = cls._split(options)
        return cls(retriever=JoinAwareRetriever.from_database(url_or_engine, **rest), **fields)

    @classmethod
    def from_sql_database(cls, db: Any, **options: Any) -> "JoinAwareTablesTool":
        """From a LangChain ``SQLDatabase`` (its engine, schema and table selection)."""
        fields, rest = cls._split(options)
        return cls(retriever=JoinAwareRetriever.from_sql_database(db, **rest), **fields)

    @classmethod
    def _split(cls, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        own = set(cls.model_fields) - {"retriever"}
        fields = {key: options.pop(key) for key in list(options) if key in own}
        return fields, options

    def _content(self, docs: list[Document]) -> tuple[str, dict[str, Any]]:
        return format_tables(docs), {"documents": docs, "join_plan": join_plan(docs)}

    def _run(
        self,
        question: str,
        k: Optional[Union[int, str]] = None,
        include: Optional[list[str]] = None,
        run_manager: Optional[CallbackManagerForToolRun] = None,
    ) -> tuple[str, dict[str, Any]]:
        config = {"callbacks": run_manager.get_child()} if run_manager else None
        try:
            docs = self.retriever.invoke(question, config, k=k, include=include)
        except JarError as e:
            raise ToolException(str(e)) from e
        return self._content(docs)

    async def _arun(
        self,
        question: str,
        k: Optional[Union[int, str]] = None,
        include: Optional[list[str]] = None,
        run_manager: Optional[AsyncCallbackManagerForToolRun] = None,
    ) -> tuple[str, dict[str, Any]]:
        config = {"callbacks": run_manager.get_child()} if run_manager else None
        try:
            docs = await self.retriever.ainvoke(question, config, k=k, include=include)
        except JarError as e:
            raise ToolException(str(e)) from e
        return self._content(docs)


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
        k: tables per question for the default retriever.
        retriever_options: more options for the default retriever (``embeddings``, ``sample_rows``...).

    Bad arguments (``db`` that is no ``SQLDatabase``, ``k < 1``, and the errors of building the
    default retriever) raise the core's errors (:class:`~jar_core.errors.InvalidArgumentError`...),
    not a pydantic ``ValidationError``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    db: Any = Field(exclude=True)
    llm: Any = Field(default=None, exclude=True)
    retriever: Optional[JoinAwareRetriever] = Field(default=None, exclude=True)
    k: int = 5
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
            data["k"] = check_k(data["k"])
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
