"""LlamaIndex retriever over a jar-retrieval :class:`~jar_core.TableRetriever`.

:class:`JoinAwareRetriever` returns one ``NodeWithScore(TextNode)`` per selected table, in
selection order. It is a drop-in table retriever for ``SQLTableRetrieverQueryEngine`` through
:meth:`JoinAwareRetriever.as_object_retriever`.
"""
from __future__ import annotations

import asyncio
import copy
import os
import uuid
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, QueryType, TextNode

from jar_core.decomposition import Decomposition
from jar_core.documents import check_sample_rows, fetch_sample_rows, result_documents
from jar_core.errors import InvalidArgumentError
from jar_core.result import RetrievalResult
from jar_core.retriever import TableRetriever, check_k_or_auto, check_question, check_table_names, convert_option
from llamaindex_jar.decomposers import LLMDecomposer
from llamaindex_jar.embeddings import LlamaIndexEmbeddings

if TYPE_CHECKING:  # pragma: no cover
    from llama_index.core.objects import ObjectRetriever
    from llama_index.core.objects.table_node_mapping import SQLTableSchema
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.utilities.sql_wrapper import SQLDatabase
    from sqlalchemy.engine import Engine

__all__ = ["JoinAwareRetriever"]

#: Options of :class:`JoinAwareRetriever` itself; the constructors pass the others to the core.
_ADAPTER_OPTIONS = frozenset(
    {"k", "similarity_top_k", "include", "exclude", "database", "sample_rows", "engine", "sql_database",
     "dialect", "callback_manager", "verbose"}
)
#: Longest sample value shown in a node's text (longer ones are cut).
_MAX_VALUE_CHARS = 80


def _split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(adapter options, core options); ``embed_model`` / ``llm`` become the core's embedder / decomposer."""
    adapter = {key: options.pop(key) for key in list(options) if key in _ADAPTER_OPTIONS}
    convert_option(options, "embed_model", "embedder", LlamaIndexEmbeddings)
    convert_option(options, "llm", "decomposer", LLMDecomposer)
    return adapter, options


def _context(metadata: dict[str, Any], n_tables: int, with_path: bool) -> str:
    """The join hint of one table, as ``SQLTableSchema.context_str`` text."""
    parts = []
    if metadata["join_keys"]:
        on = "; ".join(
            f"{j['left']} = {j['right']}" + ("" if j.get("declared") else f" (inferred, confidence {j['score']:.2f})")
            for j in metadata["join_keys"]
        )
        parts.append(f"Joins the other retrieved tables on {on}.")
    elif n_tables > 1:
        parts.append("No join to the other retrieved tables was found.")
    if with_path and n_tables > 1 and metadata["join_path"]:
        parts.append(f"Join path for all retrieved tables: {metadata['join_path']}")
    return " ".join(parts)


class JoinAwareRetriever(BaseRetriever):
    """Join-aware multi-table retrieval as a LlamaIndex retriever.

    ``retrieve(question)`` returns the ``k`` tables that together answer the question and can be
    joined, as one ``NodeWithScore`` per table in selection order. Node text: the table's
    ``CREATE TABLE`` DDL in the source's dialect (plus ``sample_rows`` example rows); node metadata:
    ``table``, ``database``, ``table_id``, ``rank``, ``score``, ``coarse``, ``coverage``, ``join``,
    ``pinned``, ``joined``, ``join_keys``, ``join_path``, ``subqueries``, ``decomposer``, and for
    ``SQLTableNodeMapping`` ``name`` (the table name) and ``context`` (the join hint: this table's
    join keys, and on the first node the join path over all retrieved tables).
    Only ``context`` is shown to LLMs by ``node.get_content(MetadataMode.LLM)``; no metadata is embedded.

    Args:
        table_retriever: the core retriever (use the ``from_*`` constructors to build one).
        k: tables per question (>= 1); ``similarity_top_k`` is accepted as an alias.
            Per call: :meth:`retrieve_k`, :meth:`with_k`.
        include: tables always returned, first (``db.table`` or unambiguous ``table``).
        exclude: tables never returned.
        database: restrict retrieval to one database of a multi-database corpus.
        sample_rows: example rows appended to each node's text (needs ``engine``).
        engine: SQLAlchemy engine or URL to read sample rows from (set by ``from_database`` /
            ``from_sql_database``).
        sql_database: the default of :meth:`as_object_retriever` (set by ``from_sql_database``).
        dialect: SQL dialect of the DDL and join path (default: the source's).
        callback_manager, verbose: as for any LlamaIndex retriever.

    Example:
        >>> from jar_core.demo import demo_url, DEMO_QUESTION
        >>> retriever = JoinAwareRetriever.from_database(demo_url(), k=4)  # doctest: +SKIP
        >>> [n.metadata["table"] for n in retriever.retrieve(DEMO_QUESTION)]  # doctest: +SKIP
        ['authors', 'book_authors', 'books', 'publishers']
    """

    def __init__(
        self,
        table_retriever: TableRetriever,
        *,
        k: int | str | None = None,
        similarity_top_k: int | None = None,
        include: Iterable[str] = (),
        exclude: Iterable[str] = (),
        database: str | None = None,
        sample_rows: int = 0,
        engine: "Engine | str | None" = None,
        sql_database: "SQLDatabase | None" = None,
        dialect: str | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if not isinstance(table_retriever, TableRetriever):
            raise InvalidArgumentError(
                f"table_retriever must be a jar_core TableRetriever, got {type(table_retriever).__name__}"
            )
        if k is not None and similarity_top_k is not None and k != similarity_top_k:
            raise InvalidArgumentError(f"k={k} and similarity_top_k={similarity_top_k} disagree; pass one")
        self.table_retriever = table_retriever
        self.k = check_k_or_auto(k if k is not None else similarity_top_k if similarity_top_k is not None else 5)
        self.include = check_table_names(include, "include")
        self.exclude = check_table_names(exclude, "exclude")
        table_retriever.schema.resolve([*self.include, *self.exclude])  # unknown names fail here
        if database is not None:
            table_retriever.schema.subset(database)
        self.database = database
        if check_sample_rows(sample_rows) and engine is None and sql_database is None:
            raise InvalidArgumentError(
                "sample_rows needs a live database: build with from_database / from_sql_database or pass engine="
            )
        self.sample_rows = sample_rows
        self.sql_database = sql_database
        self._engine: Any = engine if engine is not None else (sql_database.engine if sql_database else None)
        self._db_schema: str | None = getattr(sql_database, "_schema", None)
        self.dialect = dialect
        self._samples: dict[str, tuple[list[str], list[tuple[Any, ...]]]] = {}
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    # -- constructors ---------------------------------------------------------------
    @classmethod
    def from_table_retriever(cls, table_retriever: TableRetriever, **kwargs: Any) -> "JoinAwareRetriever":
        """Wrap an existing core :class:`TableRetriever` (its index and models are reused)."""
        return cls(table_retriever, **kwargs)

    @classmethod
    def from_database(
        cls, url_or_engine: "str | Engine", *, loader_options: dict[str, Any] | None = None, **options: Any
    ) -> "JoinAwareRetriever":
        """From a SQLAlchemy URL or engine; ``loader_options`` go to :func:`jar_core.load_database`.

        ``options``: this class's arguments, ``embed_model`` (a LlamaIndex ``BaseEmbedding``),
        ``llm`` (a LlamaIndex ``LLM`` decomposing questions), or core options (``strategy``,
        ``candidates``, ``embedder``, ``decomposer``...).
        """
        adapter, core = _split_options(options)
        loader_options = dict(loader_options or {})
        adapter.setdefault("engine", url_or_engine)
        retriever = cls(TableRetriever.from_database(url_or_engine, loader_options=loader_options, **core), **adapter)
        retriever._db_schema = loader_options.get("schema")
        return retriever

    @classmethod
    def from_sql_database(cls, sql_database: "SQLDatabase", **options: Any) -> "JoinAwareRetriever":
        """From a LlamaIndex ``SQLDatabase``: its engine, schema and table selection (views excluded).

        The ``SQLDatabase`` becomes the default of :meth:`as_object_retriever`.
        """
        from jar_core.loaders.database import sql_database_source

        engine, loader_options = sql_database_source(sql_database, options.pop("loader_options", None))
        adapter, core = _split_options(options)
        adapter.setdefault("sql_database", sql_database)
        return cls(TableRetriever.from_database(engine, loader_options=loader_options, **core), **adapter)

    @classmethod
    def from_ddl(
        cls, ddl: str | os.PathLike[str], *, dialect: str | None = None, **options: Any
    ) -> "JoinAwareRetriever":
        """From DDL text or a ``.sql`` file in any dialect sqlglot reads (``dialect`` is the input's)."""
        adapter, core = _split_options(options)
        return cls(TableRetriever.from_ddl(ddl, dialect=dialect, **core), **adapter)

    @classmethod
    def from_benchmark(
        cls, path: str | os.PathLike[str], *, db_id: str | None = None, **options: Any
    ) -> "JoinAwareRetriever":
        """From a benchmark folder, optionally one database of it (its ``decomp.json`` unless ``llm=``)."""
        adapter, core = _split_options(options)
        return cls(TableRetriever.from_benchmark(path, db_id=db_id, **core), **adapter)

    @classmethod
    def from_index(cls, path: str | os.PathLike[str], **options: Any) -> "JoinAwareRetriever":
        """From an index saved with ``TableRetriever.save_index`` / ``jar-retrieval index``."""
        adapter, core = _split_options(options)
        return cls(TableRetriever.from_index(path, **core), **adapter)

    # -- per-call k, raw results, batches ----------------------------------------------
    def with_k(self, k: int) -> "JoinAwareRetriever":
        """A copy returning ``k`` tables per question (sharing the index, models and caches)."""
        clone = copy.copy(self)
        clone.k = check_k_or_auto(k)
        return clone

    def retrieve_k(self, query: QueryType, k: int) -> list[NodeWithScore]:
        """``retrieve(query)`` with ``k`` tables for this call only."""
        return self.with_k(k).retrieve(query)

    async def aretrieve_k(self, query: QueryType, k: int) -> list[NodeWithScore]:
        """``aretrieve(query)`` with ``k`` tables for this call only."""
        return await self.with_k(k).aretrieve(query)

    def batch_retrieve(self, queries: Sequence[QueryType], k: int | None = None) -> list[list[NodeWithScore]]:
        """``retrieve`` for each query, in order (``k`` for these calls only), the questions
        embedded in one batch first."""
        r = self if k is None else self.with_k(k)
        self._prefetch(queries)
        return [r.retrieve(q) for q in queries]

    async def abatch_retrieve(
        self, queries: Sequence[QueryType], k: int | None = None
    ) -> list[list[NodeWithScore]]:
        """``aretrieve`` for all queries concurrently (``asyncio.gather``), results in query order.

        Decomposition (e.g. LLM calls) runs in parallel; the core retriever's embedding and search
        steps take turns.
        """
        r = self if k is None else self.with_k(k)
        await asyncio.get_running_loop().run_in_executor(None, self._prefetch, queries)
        return list(await asyncio.gather(*(r.aretrieve(q) for q in queries)))

    def _prefetch(self, queries: Sequence[QueryType]) -> None:
        """Embed all the questions (and cheap decompositions) in one batch before the calls."""
        self.table_retriever.prefetch(q.query_str if isinstance(q, QueryBundle) else q for q in queries)

    def retrieve_result(self, query: QueryType, k: int | None = None) -> RetrievalResult:
        """The core :class:`~jar_core.RetrievalResult` (tables, joins, trace) instead of nodes."""
        question = self._question(query)
        return self._search(question, k, self.table_retriever.decompose(question))

    def _question(self, query: QueryType) -> str:
        return check_question(query.query_str if isinstance(query, QueryBundle) else query)

    def _search(self, question: str, k: int | None, dec: Decomposition) -> RetrievalResult:
        """The core search with the question already decomposed (so that LLM decompositions of
        concurrent calls overlap; the core's embedding and search steps take turns)."""
        k = self.k if k is None else check_k_or_auto(k)
        return self.table_retriever.retrieve(
            question, k, include=self.include, exclude=self.exclude, database=self.database, subqueries=dec,
        )

    # -- nodes ----------------------------------------------------------------------
    def to_nodes(self, result: RetrievalResult) -> list[NodeWithScore]:
        """One ``NodeWithScore(TextNode)`` per table of ``result``, in selection order."""
        docs = result_documents(result, dialect=self.dialect, sample_rows=self._sample_rows(result))
        nodes = []
        for i, doc in enumerate(docs):
            md = dict(doc.metadata)
            md["name"] = md["table"]
            md["context"] = _context(doc.metadata, len(docs), with_path=i == 0)
            node = TextNode(
                id_=str(uuid.uuid5(uuid.NAMESPACE_URL, f"jar-retrieval:{md['table_id']}")),
                text=doc.text,
                metadata=md,
                excluded_embed_metadata_keys=list(md),
                excluded_llm_metadata_keys=[key for key in md if key != "context"],
            )
            nodes.append(NodeWithScore(node=node, score=doc.score))
        return nodes

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self.to_nodes(self.retrieve_result(query_bundle))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        question = self._question(query_bundle)
        core = self.table_retriever
        adecompose = getattr(core.decomposer, "adecompose", None)
        if adecompose is not None:  # e.g. the LLM decomposer awaits llm.acomplete
            dec = await adecompose(question, core.schema)
        else:
            dec = await asyncio.to_thread(core.decompose, question)
        return await asyncio.to_thread(lambda: self.to_nodes(self._search(question, None, dec)))

    # -- SQLTableRetrieverQueryEngine ---------------------------------------------------
    def as_object_retriever(
        self,
        sql_database: "SQLDatabase | None" = None,
        node_postprocessors: "list[BaseNodePostprocessor] | None" = None,
    ) -> "ObjectRetriever[SQLTableSchema]":
        """``ObjectRetriever(self, SQLTableNodeMapping(sql_database))``, ready for ``table_retriever=``.

        The query engine then describes each retrieved table with
        ``sql_database.get_single_table_info(name)`` followed by its join hint (``context``).
        ``sql_database`` defaults to the one given to :meth:`from_sql_database`; every table of
        the corpus must be one of its usable tables.
        """
        from llama_index.core.objects import ObjectRetriever, SQLTableNodeMapping

        sql_database = sql_database or self.sql_database
        if sql_database is None:
            raise InvalidArgumentError("as_object_retriever needs a SQLDatabase (or build with from_sql_database)")
        usable = set(sql_database.get_usable_table_names())
        missing = sorted({t.name for t in self.table_retriever.schema.tables} - usable)
        if missing:
            more = " ..." if len(missing) > 5 else ""
            raise InvalidArgumentError(
                f"{len(missing)} table(s) of the retriever are not usable tables of the SQLDatabase: "
                f"{', '.join(missing[:5])}{more}"
            )
        return ObjectRetriever(self, SQLTableNodeMapping(sql_database), node_postprocessors=node_postprocessors)

    # -- sample rows ----------------------------------------------------------------
    def _sample_rows(self, result: RetrievalResult) -> dict[str, tuple[list[str], list[tuple[Any, ...]]]] | None:
        if not self.sample_rows:
            return None
        missing = [t.table for t in result.tables if t.id not in self._samples]
        if missing:
            if not hasattr(self._engine, "connect"):  # a URL: a read-only engine, made once
                from jar_core.loaders.database import _create_engine

                self._engine = _create_engine(self._engine)
            self._samples.update(
                fetch_sample_rows(self._engine, missing, self.sample_rows, schema=self._db_schema,
                                  max_chars=_MAX_VALUE_CHARS)
            )
        return {t.id: self._samples[t.id] for t in result.tables}

    def __repr__(self) -> str:
        return f"JoinAwareRetriever({self.table_retriever!r}, k={self.k})"
