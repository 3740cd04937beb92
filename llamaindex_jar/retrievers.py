"""LlamaIndex retriever over a jar-retrieval :class:`~jar_core.TableRetriever`.

:class:`JoinAwareRetriever` returns one ``NodeWithScore(TextNode)`` per selected table, in
selection order. It is a drop-in table retriever for ``SQLTableRetrieverQueryEngine`` through
:meth:`JoinAwareRetriever.as_object_retriever`.
"""
from __future__ import annotations

import asyncio
import copy
import inspect
import json
import logging
import os
import uuid
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle, QueryType, TextNode

from jar_core.decompose.heuristic import Decomposition
from jar_core.output.documents import check_sample_rows, fetch_sample_rows, result_documents
from jar_core.errors import IndexLoadError, IndexSaveError, InvalidArgumentError
from jar_core.output.result import RetrievalResult
from jar_core.retriever import TableRetriever
from jar_core.options import (
    DEFAULT_K,
    RETRIEVER_OPTIONS,
    check_k_or_auto,
    check_options,
    check_question,
    check_table_names,
    convert_option,
    split_options,
)
from jar_core.strategies import WEIGHTED_STRATEGIES
from llamaindex_jar.decomposers import LLMDecomposer
from llamaindex_jar.embeddings import LlamaIndexEmbeddings

if TYPE_CHECKING:  # pragma: no cover
    from llama_index.core.objects import ObjectRetriever
    from llama_index.core.objects.table_node_mapping import SQLTableSchema
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.utilities.sql_wrapper import SQLDatabase
    from sqlalchemy.engine import Engine

__all__ = ["JoinAwareRetriever"]

log = logging.getLogger(__name__)

#: The file :meth:`JoinAwareRetriever.persist` writes beside the index.
PERSIST_FILE = "jar_retriever.json"
#: The folder of the index inside a persist directory.
PERSIST_INDEX = "index"
#: Longest sample value shown in a node's text (longer ones are cut).
_MAX_VALUE_CHARS = 80


def _split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(adapter options, core options); ``embed_model`` / ``llm`` become the core's embedder / decomposer."""
    adapter, core = split_options(options, _ADAPTER_OPTIONS)
    convert_option(core, "embed_model", "embedder", LlamaIndexEmbeddings)
    convert_option(core, "llm", "decomposer", LLMDecomposer)
    return adapter, core


#: Core options :meth:`JoinAwareRetriever.persist` does not save (``Option.persisted`` in the record):
#: objects (passed again on load), the strategy (saved by name and weights) and the progress display.
_NOT_PERSISTED = frozenset(o.name for o in RETRIEVER_OPTIONS if not o.persisted)


def _persisted_options(core: TableRetriever) -> dict[str, Any]:
    """The core's options that ``persist`` saves: those of :data:`jar_core.options.RETRIEVER_OPTIONS`
    marked persisted, so that an option added to the record is not lost on reload."""
    current = core.options()
    options = {o.name: current[o.name] for o in RETRIEVER_OPTIONS if o.persisted}
    for key, value in options.items():
        if not _plain(value):
            raise IndexSaveError(f"cannot persist the core option {key}={value!r}: not a plain value")
    return options


def _check_persisted(config_file: Path, core: Mapping[str, Any]) -> None:
    """Refuse core options in ``jar_retriever.json`` that :meth:`JoinAwareRetriever.persist` does not
    write: a file names no embedding model or decomposer (a model named there would be loaded,
    or downloaded, on the file's word), only plain values of the core's options."""
    known = {o.name for o in RETRIEVER_OPTIONS if o.persisted}
    for key, value in core.items():
        if key not in known:
            raise IndexLoadError(f"{config_file} sets {key!r}, which persist does not save (an embedding model, "
                                 "a decomposer...: pass them to from_persist_dir yourself)")
        if not _plain(value):
            raise IndexLoadError(f"{config_file} sets {key}={value!r}, not a plain value")


def _plain(value: Any) -> bool:
    """A value ``persist`` writes as JSON: a scalar, ``None``, or text by name (``descriptions``)."""
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())
    return value is None or isinstance(value, (bool, int, float, str))


def _descriptions(value: Any) -> dict[str, str]:
    """``table_descriptions`` (a mapping, or ``SQLTableSchema`` objects) as ``{table name or id: text}``."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        items = list(value.items())
    else:
        items = []
        for obj in value:
            name = getattr(obj, "table_name", None)
            if not isinstance(name, str):
                raise InvalidArgumentError(
                    "table_descriptions takes a mapping {table: description} or SQLTableSchema objects, "
                    f"got {type(obj).__name__}"
                )
            items.append((name, getattr(obj, "context_str", None)))
    out = {}
    for name, text in items:
        if not isinstance(name, str) or not (text is None or isinstance(text, str)):
            raise InvalidArgumentError(f"table_descriptions: expected table name -> text, got {name!r}: {text!r}")
        if text and text.strip():
            out[name] = text.strip()
    return out


def _context(metadata: dict[str, Any], n_tables: int, with_path: bool, description: str | None = None) -> str:
    """The table's description (the user's, when given) followed by its join hint, as
    ``SQLTableSchema.context_str`` text."""
    parts = [description] if description else []
    if metadata["join_keys"]:
        parts.append(f"Joins the other retrieved tables on {_keys_text(metadata['join_keys'])}.")
    elif n_tables > 1 and not metadata.get("unverified_joins"):
        parts.append("No join to the other retrieved tables was found.")
    if metadata.get("alternative_joins"):
        parts.append(f"Other keys to the same tables: {_keys_text(metadata['alternative_joins'])}.")
    parts.extend(f"{j['note'][:1].upper()}{j['note'][1:]}." for j in metadata.get("unverified_joins", ()))
    if with_path and n_tables > 1 and metadata["join_path"]:
        parts.append(f"Join path for all retrieved tables: {metadata['join_path']}")
    return " ".join(parts)


def _keys_text(keys: Sequence[dict[str, Any]]) -> str:
    """Join keys of the Documents' metadata as ``a.x = b.y (inferred, confidence 0.87); ...``."""
    return "; ".join(
        f"{j['left']} = {j['right']}" + ("" if j.get("declared") else
                                          f" (inferred, confidence {j['confidence']:.2f}{', uncertain' if j.get('uncertain') else ''})")
        for j in keys
    )


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
        table_descriptions: your descriptions of tables, ``{"city_stats": "Population per city"}``
            or the ``SQLTableSchema(table_name=..., context_str=...)`` objects you would give an
            ``ObjectIndex``: a node's ``context`` (what ``SQLTableRetrieverQueryEngine`` shows as
            the table description) is the description followed by the join hint.
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
        table_descriptions: "Mapping[str, str] | Iterable[SQLTableSchema] | None" = None,
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
        self.k = check_k_or_auto(k if k is not None else similarity_top_k if similarity_top_k is not None else DEFAULT_K)
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
        self.table_descriptions = self._check_descriptions(_descriptions(table_descriptions))
        self._describe_tables()
        self._samples: dict[str, tuple[list[str], list[tuple[Any, ...]]]] = {}
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    def _describe_tables(self) -> None:
        """Give :attr:`table_descriptions` to the core retriever as ``descriptions``: embedded and
        searched with their tables (a retriever with other descriptions, sharing the index)."""
        given = self.table_retriever.descriptions or {}
        merged = {**given, **self.table_descriptions}
        if merged != given:
            self.table_retriever = self.table_retriever.with_options(descriptions=merged)

    def _check_descriptions(self, descriptions: dict[str, str]) -> dict[str, str]:
        """Descriptions of tables the schema has (others are logged and dropped: an ``ObjectIndex``
        may also describe views, which are not retrieved)."""
        schema = self.table_retriever.schema
        unknown = [name for name in descriptions if schema.find(name) is None]
        if unknown:
            log.warning("table_descriptions name tables that are not in the schema (ignored): %s", ", ".join(unknown))
        return {name: text for name, text in descriptions.items() if name not in unknown}

    @property
    def similarity_top_k(self) -> int:
        """The number of tables per question (alias of :attr:`k`, LlamaIndex's usual name)."""
        return self.k

    @similarity_top_k.setter
    def similarity_top_k(self, value: int) -> None:
        self.k = check_k_or_auto(value)

    def description_of(self, table_id: str, name: str) -> str | None:
        """Your description of a table (by id, then by name), if you gave one."""
        return self.table_descriptions.get(table_id) or self.table_descriptions.get(name)

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
        from jar_core.loaders import load_database

        adapter, core = _split_options(options)
        loader_options = check_options(loader_options, load_database, "loader_options")
        adapter.setdefault("engine", url_or_engine)
        retriever = cls(TableRetriever.from_database(url_or_engine, loader_options=loader_options, **core), **adapter)
        schema = loader_options.get("schema")
        retriever._db_schema = schema if isinstance(schema, str) else None  # tables carry their own too
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
            description = self.description_of(md["table_id"], md["table"])
            md["description"] = description
            md["context"] = _context(doc.metadata, len(docs), with_path=i == 0, description=description)
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
        result = await self.aretrieve_result(query_bundle)
        return await asyncio.to_thread(self.to_nodes, result)

    async def aretrieve_result(self, query: QueryType, k: int | None = None) -> RetrievalResult:
        """:meth:`retrieve_result` without blocking the event loop (for workflow steps and agents):
        an LLM decomposer is awaited, the embedding and search run in a worker thread."""
        question = self._question(query)
        core = self.table_retriever
        adecompose = getattr(core.decomposer, "adecompose", None)
        if adecompose is not None:  # e.g. the LLM decomposer awaits llm.acomplete
            dec = await adecompose(question, core.schema)
        else:
            dec = await asyncio.to_thread(core.decompose, question)
        return await asyncio.to_thread(self._search, question, k, dec)

    # -- SQLTableRetrieverQueryEngine ---------------------------------------------------
    def as_object_retriever(
        self,
        sql_database: "SQLDatabase | None" = None,
        node_postprocessors: "list[BaseNodePostprocessor] | None" = None,
        table_schema_objs: "Iterable[SQLTableSchema] | Mapping[str, str] | None" = None,
    ) -> "ObjectRetriever[SQLTableSchema]":
        """``ObjectRetriever(self, SQLTableNodeMapping(sql_database))``, ready for ``table_retriever=``.

        The query engine then describes each retrieved table with
        ``sql_database.get_single_table_info(name)`` followed by its ``context``: your
        description of the table (``table_descriptions``, or the ``context_str`` of the
        ``table_schema_objs`` given here) and the join hint. ``sql_database`` defaults to the one
        given to :meth:`from_sql_database`; every table of the corpus must be one of its usable
        tables.
        """
        from llama_index.core.objects import ObjectRetriever, SQLTableNodeMapping

        sql_database = sql_database or self.sql_database
        retriever = self
        if table_schema_objs is not None:
            retriever = copy.copy(self)
            retriever.table_descriptions = {**self.table_descriptions,
                                            **self._check_descriptions(_descriptions(table_schema_objs))}
            retriever._describe_tables()
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
        return ObjectRetriever(retriever, SQLTableNodeMapping(sql_database), node_postprocessors=node_postprocessors)

    # -- agents ---------------------------------------------------------------------
    def as_tool(self, name: str = "find_tables", description: str | None = None) -> Any:
        """A LlamaIndex ``FunctionTool`` for agents: ``find_tables(question, k=None)`` returns the
        selected tables' ``CREATE TABLE`` DDL and the join path connecting them (the text the
        LangChain adapter's tool gives); its ``raw_output`` is that text too."""
        from llamaindex_jar.tools import find_tables_tool

        return find_tables_tool(self, name=name, description=description)

    # -- persistence ----------------------------------------------------------------
    def persist(self, persist_dir: str | os.PathLike[str], *, store_samples: bool = True) -> Path:
        """Save the index and this retriever's settings in ``persist_dir`` (for :meth:`from_persist_dir`).

        Writes ``persist_dir/index`` (the saved index: schema and embeddings, atomically, see
        ``TableRetriever.save_index``; ``store_samples=False`` keeps the columns' sample values out,
        but for an enumeration's labels, which come from the schema)
        and ``persist_dir/jar_retriever.json`` (``k``, ``include``, ``exclude``, ``database``,
        ``dialect``, ``table_descriptions``, the core's strategy with its weights and every other
        core option of ``TableRetriever.options()`` that is a plain value). A folder that cannot be
        written raises ``IndexSaveError``. The database connection, ``sample_rows``, the embedding
        model, the decomposer and the first stage (``candidate_generator``) are not saved: pass
        them to :meth:`from_persist_dir` again.
        """
        folder = Path(persist_dir)
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise IndexSaveError(f"cannot persist to {folder}: {e.strerror or e}") from e
        core = self.table_retriever
        strategy: dict[str, Any] = {"name": core.strategy.name}
        if core.strategy.name in WEIGHTED_STRATEGIES:  # its weights, as set
            strategy.update({w: getattr(core.strategy, w) for w in ("l_cov", "l_join", "l_coarse")})
        if core.strategy.name == "join-aware":
            strategy.update(l_family=core.strategy.l_family, bridges=core.strategy.bridges,
                            lookahead=core.strategy.lookahead)
        config = {
            "format": 1,
            "k": self.k,
            "include": self.include,
            "exclude": self.exclude,
            "database": self.database,
            "dialect": self.dialect,
            "table_descriptions": self.table_descriptions,
            "core": {"strategy": strategy, **_persisted_options(core)},
        }
        core.save_index(folder / PERSIST_INDEX, store_samples=store_samples)
        tmp = folder / (PERSIST_FILE + ".tmp")
        try:
            tmp.write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
            os.replace(tmp, folder / PERSIST_FILE)
        except OSError as e:
            raise IndexSaveError(f"cannot write {folder / PERSIST_FILE}: {e.strerror or e}") from e
        return folder

    @classmethod
    def from_persist_dir(cls, persist_dir: str | os.PathLike[str], **options: Any) -> "JoinAwareRetriever":
        """A retriever saved with :meth:`persist`: its index (no database needed) and settings.

        ``options`` override the saved settings and take what :meth:`from_index` takes
        (``embed_model`` for an index built with your model, ``llm``, ``engine`` and ``sample_rows``...).
        A folder without ``jar_retriever.json`` but with an index is read as that index.
        """
        from jar_core.strategies import get_strategy

        folder = Path(persist_dir)
        config_file = folder / PERSIST_FILE
        if not config_file.is_file():
            if (folder / PERSIST_INDEX).is_dir():
                return cls.from_index(folder / PERSIST_INDEX, **options)
            raise IndexLoadError(f"{folder} holds no persisted retriever ({PERSIST_FILE} is missing)")
        try:
            config = json.loads(config_file.read_text(encoding="utf-8"))
            saved = {key: config[key] for key in ("k", "include", "exclude", "database", "dialect", "table_descriptions")
                     if config.get(key) not in (None, [], {})}
            core = dict(config.get("core") or {})
            strategy = dict(core.pop("strategy", None) or {})
        except (ValueError, TypeError, AttributeError) as e:
            raise IndexLoadError(f"{config_file} is not a persisted retriever: {e}") from e
        _check_persisted(config_file, core)
        if "strategy" not in options and strategy.get("name"):
            name = strategy.pop("name")
            options["strategy"] = get_strategy(name, **strategy) if name in WEIGHTED_STRATEGIES else name
        if "similarity_top_k" in options:
            saved.pop("k", None)
        for key, value in {**core, **saved}.items():
            options.setdefault(key, value)
        return cls.from_index(folder / PERSIST_INDEX, **options)

    # -- sample rows ----------------------------------------------------------------
    def _sample_rows(self, result: RetrievalResult) -> dict[str, tuple[list[str], list[tuple[Any, ...]]]] | None:
        if not self.sample_rows:
            return None
        missing = [t.table for t in result.tables if t.id not in self._samples]
        if missing:
            if not hasattr(self._engine, "connect"):  # a URL: a read-only engine, made once
                from jar_core.loaders import read_only_engine

                self._engine = read_only_engine(self._engine)
            self._samples.update(
                fetch_sample_rows(self._engine, missing, self.sample_rows, schema=self._db_schema,
                                  max_chars=_MAX_VALUE_CHARS)
            )
        return {t.id: self._samples[t.id] for t in result.tables}

    def __repr__(self) -> str:
        return f"JoinAwareRetriever({self.table_retriever!r}, k={self.k})"


#: Options of :class:`JoinAwareRetriever` itself (its constructor's); the constructors pass the others to the core.
_ADAPTER_OPTIONS = frozenset(inspect.signature(JoinAwareRetriever.__init__).parameters) - {"self", "table_retriever"}
