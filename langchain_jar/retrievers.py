""":class:`JoinAwareRetriever`: jar-retrieval as a LangChain ``BaseRetriever``, and
:class:`JoinAwareTablesTool`, the agent tool its ``as_tool()`` builds (:mod:`langchain_jar.tools`
has the other tools and the SQL toolkit)."""

from __future__ import annotations

import os
import threading
from typing import Annotated, Any, Callable, Literal, Optional, Sequence, Union

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    AsyncCallbackManagerForToolRun,
    CallbackManagerForRetrieverRun,
    CallbackManagerForToolRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_serializer

from jar_core.output.documents import check_sample_rows, fetch_sample_rows, result_documents
from jar_core.errors import InvalidArgumentError, JarError
from jar_core.output.result import RetrievalResult
from jar_core.retriever import TableRetriever
from jar_core.options import (
    DEFAULT_K,
    FIND_TABLES_DESCRIPTION,
    INCLUDE_HELP,
    K_HELP,
    QUESTION_HELP,
    check_k_or_auto,
    check_options,
    check_table_names,
    convert_option,
    split_options,
)
from langchain_jar.decomposers import PARENT_CALLBACKS, ChatModelDecomposer
from langchain_jar.sql import format_tables

__all__ = ["JoinAwareRetriever", "JoinAwareTablesTool", "FindTablesInput", "arguments_error", "join_plan"]

#: Longest sample value shown in a document (longer ones are cut).
MAX_SAMPLE_VALUE_CHARS = 100



class JoinAwareRetriever(BaseRetriever):
    """Join-aware multi-table retrieval as a LangChain retriever.

    ``invoke(question)`` returns one :class:`~langchain_core.documents.Document` per selected
    table, in selection order: ``page_content`` is the table's ``CREATE TABLE`` DDL (in
    :attr:`dialect`, default the source's), followed by :attr:`sample_rows` rows when set;
    ``metadata`` holds ``table``, ``database``, ``table_id``, ``rank``, ``score``, ``coarse``,
    ``coverage``, ``join``, ``pinned``, ``joined``, ``join_keys``, ``join_path``,
    ``subqueries`` and ``decomposer``.

    ``k``, ``include``, ``exclude`` and ``database`` can be overridden per call:
    ``retriever.invoke(question, k=3)``.

    Build it with a class method: :meth:`from_database`, :meth:`from_sql_database`,
    :meth:`from_ddl`, :meth:`from_benchmark`, :meth:`from_index` or :meth:`from_table_retriever`.
    They accept ``embeddings=`` (any LangChain ``Embeddings``), ``llm=`` (any chat model / LLM,
    used as the question decomposer), the fields below, and the other options of
    :class:`~jar_core.retriever.TableRetriever` (``embedder``, ``decomposer``, ``strategy``,
    ``candidates``...).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    retriever: Any
    """The core :class:`~jar_core.retriever.TableRetriever`."""
    k: Union[int, str] = DEFAULT_K
    """Number of tables returned (overridable per call), or ``"auto"`` (:mod:`jar_core.strategies.auto_k`)."""
    include: list[str] = Field(default_factory=list)
    """Tables always returned first (``db.table`` or unambiguous ``table``)."""
    exclude: list[str] = Field(default_factory=list)
    """Tables never returned."""
    database: str | None = None
    """Restrict the search to this database of a multi-database corpus."""
    sample_rows: int = 0
    """Rows appended to each table's DDL (read from :attr:`engine` with ``SELECT ... LIMIT n``)."""
    dialect: str | None = None
    """sqlglot dialect of the DDL and join hint (default: the source's)."""
    engine: Any = None
    """SQLAlchemy engine or URL the sample rows are read from (set by the database constructors).

    A URL given as a string is kept as a SQLAlchemy ``URL``; ``repr``, ``str`` and
    ``model_dump()`` show it with its password and secret query values hidden."""
    sql_schema: str | None = None
    """SQLAlchemy schema (PostgreSQL schema...) of the tables, for the sample rows."""

    _engine: Any = PrivateAttr(default=None)
    _engine_lock: Any = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, **data: Any) -> None:
        # checked here rather than in pydantic validators, so bad input raises the core's
        # errors (InvalidArgumentError...) instead of a ValidationError
        if not isinstance(data.get("retriever"), TableRetriever):
            raise TypeError(
                f"retriever must be a jar_core TableRetriever, got {type(data.get('retriever')).__name__}"
            )
        if "k" in data:
            data["k"] = check_k_or_auto(data["k"])
        for key in ("include", "exclude"):
            if key in data:
                data[key] = check_table_names(data[key], key)
        if isinstance(data.get("engine"), str):
            from jar_core.loaders.database import parse_url

            data["engine"] = parse_url(data["engine"])
        if check_sample_rows(data.get("sample_rows", 0)) and data.get("engine") is None:
            raise InvalidArgumentError(
                "sample_rows needs a database to read rows from: build the retriever with from_database / "
                "from_sql_database, or pass engine=<SQLAlchemy engine or URL>"
            )
        super().__init__(**data)

    @field_serializer("engine")
    def _serialize_engine(self, engine: Any) -> Any:
        return None if engine is None else _redacted(engine)

    def __repr_args__(self) -> Any:
        for key, value in super().__repr_args__():
            yield key, (_redacted(value) if key == "engine" and value is not None else value)

    # -- constructors -------------------------------------------------------------------
    @classmethod
    def _split(cls, options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """(fields of this class, options of TableRetriever) from mixed keyword options."""
        options = dict(options)
        convert_option(options, "embeddings", "embedder")  # the core takes LangChain Embeddings as is
        convert_option(options, "llm", "decomposer", ChatModelDecomposer)
        return split_options(options, set(cls.model_fields) - {"retriever"})

    @classmethod
    def _build(cls, make: Callable[..., TableRetriever], options: dict[str, Any], **defaults: Any) -> "JoinAwareRetriever":
        fields, core = cls._split(options)
        for key, value in defaults.items():
            fields.setdefault(key, value)
        return cls(retriever=make(**core), **fields)

    @classmethod
    def from_database(
        cls, url_or_engine: Any, *, loader_options: dict[str, Any] | None = None, **options: Any
    ) -> "JoinAwareRetriever":
        """From a SQLAlchemy URL or engine; ``loader_options`` go to :func:`jar_core.loaders.load_database`."""
        from jar_core.loaders import load_database

        loader_options = check_options(loader_options, load_database, "loader_options")
        return cls._build(
            lambda **core: TableRetriever.from_database(url_or_engine, loader_options=loader_options, **core),
            options, engine=url_or_engine, sql_schema=_one_schema(loader_options.get("schema")),
        )

    @classmethod
    def from_sql_database(cls, db: Any, **options: Any) -> "JoinAwareRetriever":
        """From a LangChain ``SQLDatabase``: its engine, schema and table selection (views excluded)."""
        from jar_core.loaders.database import sql_database_source

        engine, loader_options = sql_database_source(db, options.pop("loader_options", None))
        return cls.from_database(engine, loader_options=loader_options, **options)

    @classmethod
    def from_ddl(cls, ddl: str | os.PathLike[str], *, dialect: str | None = None, **options: Any) -> "JoinAwareRetriever":
        """From DDL text or a ``.sql`` file; ``dialect`` is the DDL's (and the documents')."""
        return cls._build(lambda **core: TableRetriever.from_ddl(ddl, dialect=dialect, **core), options, dialect=dialect)

    @classmethod
    def from_benchmark(
        cls, path: str | os.PathLike[str], *, db_id: str | None = None, **options: Any
    ) -> "JoinAwareRetriever":
        """From a benchmark folder, optionally one of its databases."""
        return cls._build(lambda **core: TableRetriever.from_benchmark(path, db_id=db_id, **core), options)

    @classmethod
    def from_index(cls, path: str | os.PathLike[str], **options: Any) -> "JoinAwareRetriever":
        """From an index saved with ``TableRetriever.save_index`` / ``jar-retrieval index``."""
        return cls._build(lambda **core: TableRetriever.from_index(path, **core), options)

    @classmethod
    def from_table_retriever(cls, retriever: TableRetriever, **options: Any) -> "JoinAwareRetriever":
        """Wrap an existing :class:`TableRetriever`.

        With core options (``llm``, ``decomposer``, ``strategy``, ``candidates``...) a sibling
        retriever is made (:meth:`TableRetriever.with_options`: every other option kept) that
        shares the schema and, unless the embedder changes, the index.
        """
        fields, core = cls._split(options)
        if core:
            retriever = retriever.with_options(**core)
        return cls(retriever=retriever, **fields)

    # -- retrieval ----------------------------------------------------------------------
    def retrieve_result(
        self,
        question: str,
        k: int | str | None = None,
        *,
        include: Sequence[str] | None = None,
        exclude: Sequence[str] | None = None,
        database: str | None = None,
    ) -> RetrievalResult:
        """The core :class:`~jar_core.output.result.RetrievalResult` (no callbacks, no documents).

        Thread-safe: the question is decomposed first (an LLM decomposer's calls from
        concurrent ``batch`` runs overlap), then the core retriever's embedding and search
        steps take turns.
        """
        k = check_k_or_auto(self.k if k is None else k)
        dec = self.retriever.decompose(question)  # validates the question
        return self.retriever.retrieve(
            question,
            k=k,
            include=self.include if include is None else check_table_names(include, "include"),
            exclude=self.exclude if exclude is None else check_table_names(exclude, "exclude"),
            database=self.database if database is None else database,
            subqueries=dec,
        )

    def table_names(self, question: str, k: int | None = None, **kwargs: Any) -> list[str]:
        """The selected table names, in selection order (what ``SQLDatabase`` takes as ``table_names``)."""
        return self.retrieve_result(question, k, **kwargs).table_names

    def to_documents(self, result: RetrievalResult) -> list[Document]:
        """One ``Document`` per table of ``result`` (DDL, sample rows, metadata)."""
        samples = None
        if self.sample_rows:
            samples = fetch_sample_rows(
                self._get_engine(), [t.table for t in result.tables], self.sample_rows,
                schema=self.sql_schema, max_chars=MAX_SAMPLE_VALUE_CHARS,
            )
        return [
            Document(page_content=d.text, metadata=d.metadata, id=d.metadata["table_id"])
            for d in result_documents(result, dialect=self.dialect, sample_rows=samples)
        ]

    def as_tool(
        self,
        args_schema: Any = None,
        *,
        name: str | None = None,
        description: str | None = None,
        arg_types: dict[str, type] | None = None,
    ) -> Any:
        """This retriever as an agent tool: a :class:`~langchain_jar.tools.JoinAwareTablesTool`
        (arguments ``question``, ``k``, ``include``; content: the DDL and the join path; artifact:
        the Documents and the join plan).

        With ``args_schema`` or ``arg_types`` it is LangChain's generic ``Runnable.as_tool`` instead.
        """
        if args_schema is not None or arg_types is not None:
            return super().as_tool(args_schema, name=name, description=description, arg_types=arg_types)
        fields = {key: value for key, value in (("name", name), ("description", description)) if value is not None}
        return JoinAwareTablesTool(retriever=self, **fields)

    def batch(self, inputs: list[Any], config: Any = None, *, return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        """``invoke`` for each input (concurrently, as any LangChain runnable), after embedding all
        the questions (and, with the heuristic decomposer, their sub-queries) in one batch."""
        self.retriever.prefetch(q for q in inputs if isinstance(q, str))
        return super().batch(inputs, config, return_exceptions=return_exceptions, **kwargs)

    async def abatch(
        self, inputs: list[Any], config: Any = None, *, return_exceptions: bool = False, **kwargs: Any
    ) -> list[Any]:
        """``ainvoke`` for each input, after embedding all the questions in one batch (in a worker thread)."""
        await run_in_executor(None, self.retriever.prefetch, [q for q in inputs if isinstance(q, str)])
        return await super().abatch(inputs, config, return_exceptions=return_exceptions, **kwargs)

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | str | None = None,
        include: Sequence[str] | None = None,
        exclude: Sequence[str] | None = None,
        database: str | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        kwargs.pop("verbose", None)  # BaseRetriever.invoke forwards it
        if kwargs:
            raise TypeError(f"unexpected retrieval arguments: {', '.join(sorted(kwargs))} "
                            "(supported: k, include, exclude, database)")
        token = PARENT_CALLBACKS.set(run_manager.get_child())  # an LLM decomposer's run nests here
        try:
            result = self.retrieve_result(query, k, include=include, exclude=exclude, database=database)
        finally:
            PARENT_CALLBACKS.reset(token)
        return self.to_documents(result)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        # retrieval is CPU-bound (embedding + search): run it in a worker thread
        return await run_in_executor(
            None, self._get_relevant_documents, query, run_manager=run_manager.get_sync(), **kwargs
        )

    # -- sample rows --------------------------------------------------------------------
    def _get_engine(self) -> Any:
        """:attr:`engine`, or one engine created (once) from its URL."""
        from sqlalchemy.engine import Engine

        if isinstance(self.engine, Engine):
            return self.engine
        with self._engine_lock:
            if self._engine is None:
                from jar_core.loaders import read_only_engine

                self._engine = read_only_engine(self.engine)  # read-only
            return self._engine


def _one_schema(schema: Any) -> str | None:
    """The SQL schema of the sample-row queries: tables read from named schemas carry theirs
    (``Table.sql_schema``), so only a single name matters here."""
    return schema if isinstance(schema, str) else None


def _redacted(engine: Any) -> str:
    """An engine or URL as text, password and secret query values hidden."""
    from jar_core.loaders.database import redact_url

    return redact_url(engine)


class FindTablesInput(BaseModel):
    """Arguments of :class:`JoinAwareTablesTool`."""

    question: str = Field(description=QUESTION_HELP)
    k: Optional[Union[Annotated[int, Field(ge=1, le=100)], Literal["auto"]]] = Field(
        default=None, description=f"{K_HELP} (default: the tool's setting).",
    )
    include: Optional[list[str]] = Field(default=None, description=INCLUDE_HELP)


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
    """The join plan of a retrieval's documents: tables in order, join edges, the other keys
    between joined tables, the unverified candidates where two tables have no known key, join
    path, unjoined tables."""
    plan: dict[str, Any] = {"tables": [d.metadata.get("table_id") for d in docs]}
    for name, field in (("joins", "join_keys"), ("alternative_joins", "alternative_joins"),
                        ("unverified_joins", "unverified_joins")):
        edges: list[dict[str, Any]] = []
        seen: set[tuple[str, str]] = set()
        for d in docs:
            for j in d.metadata.get(field, ()):
                key = (j["left"], j["right"])
                if key not in seen:
                    seen.add(key)
                    edges.append(dict(j))
        plan[name] = edges
    plan["join_path"] = docs[0].metadata.get("join_path", "") if docs else ""
    plan["unjoined"] = [d.metadata.get("table_id") for d in docs if not d.metadata.get("joined", True)]
    return plan


class JoinAwareTablesTool(BaseTool):
    """Join-aware table retrieval as an agent tool (name ``find_tables``).

    ``invoke({"question": ...})`` returns the prompt text: the selected tables' DDL and the join
    path. Called with a tool call (as agents do) it returns a ``ToolMessage`` whose
    ``artifact`` is ``{"documents": [Document, ...], "join_plan": {"tables", "joins",
    "alternative_joins", "unverified_joins", "join_path", "unjoined"}}`` (``response_format="content_and_artifact"``). Bad input (an
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
