"""The core entry point: :class:`TableRetriever` answers a question with a joinable table set."""
from __future__ import annotations

import logging
import os
import threading
import warnings
from functools import cached_property
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from jar_core.strategies.auto_k import AUTO_K_MAX, auto_select
from jar_core.candidates.copies import CopyCollapse
from jar_core.candidates.first_stage import BruteForceCandidates, CandidateGenerator
from jar_core.candidates.scope import DatabaseScope
from jar_core.decompose.heuristic import Decomposer, Decomposition, HeuristicDecomposer
from jar_core.embed.embedders import CachedEmbedder, Embedder, get_embedder
from jar_core.errors import IndexLoadError, IndexSaveError, InvalidArgumentError, StaleIndexError
from jar_core.index.schema_index import SchemaIndex
from jar_core.output.assemble import KeyJoins, assemble_result, match_warnings
from jar_core.output.result import RetrievalResult
from jar_core.options import (
    DEFAULT_CANDIDATES,
    DEFAULT_EXPAND,
    DEFAULT_HUBNESS,
    DEFAULT_KIND_VALUES,
    DEFAULT_LEXICAL,
    DEFAULT_LEXICAL_RELEVANCE,
    DEFAULT_MIN_JOIN_SCORE,
    RETRIEVER_OPTIONS,
    check_retriever_options,
    option,
    check_k,
    check_k_or_auto,
    check_options,
    check_part,
    check_question,
    check_subqueries,
    check_table_names,
)
from jar_core.schema import Schema
from jar_core.signals.kinds import resolved_by_values
from jar_core.signals.matrices import Signals, compute_signals, lexical_relevance
from jar_core.signals.values import apply_value_matches
from jar_core.strategies import STRATEGIES, JoinAwareStrategy, SearchStrategy, get_strategy

__all__ = ["TableRetriever"]

log = logging.getLogger(__name__)

#: The options kept as given (checked); the others are objects the constructor resolves.
_PLAIN_OPTIONS = tuple(o.name for o in RETRIEVER_OPTIONS if o.name not in ("embedder", "decomposer", "strategy",
                                                                          "candidate_generator"))

#: BM25 scores the tables of the dense shortlist of this size (the whole corpus when smaller).
LEXICAL_SHORTLIST = 200
#: Up to this many tables (and with the brute-force first stage) BM25 scores the whole corpus from
#: one index, built at the first question and kept (cheaper than a shortlist's index per question);
#: above it, or with another first stage, the dense shortlist.
LEXICAL_WHOLE_CORPUS = 20_000


def _not_a_schema(value: Any) -> str:
    """Why ``value`` is no :class:`Schema`, and how to build a retriever from what it looks like."""
    got = f"the string {value!r:.100}" if isinstance(value, str) else type(value).__name__
    text = f"TableRetriever takes a Schema (jar_core.schema.Schema), got {got}"
    if isinstance(value, str) and "://" in value:
        return f"{text}: from a database URL use TableRetriever.from_database(url)"
    if isinstance(value, (str, os.PathLike)):
        return (f"{text}: from DDL text or a .sql file use TableRetriever.from_ddl(ddl), from a database URL "
                "TableRetriever.from_database(url), from a saved index TableRetriever.from_index(path)")
    if isinstance(value, Mapping):
        return f"{text}: a schema dictionary (Schema.to_dict) becomes a Schema with Schema.from_dict"
    return (f"{text}: build one with jar_core.loaders (load_database, load_ddl...) or use "
            "TableRetriever.from_database / from_ddl / from_benchmark / from_index")


class TableRetriever:
    """Join-aware multi-table retrieval over a schema.

    Args:
        schema: the corpus (one database or many), a :class:`~jar_core.schema.Schema`; from a
            database URL, DDL, a benchmark folder or a saved index use :meth:`from_database`,
            :meth:`from_ddl`, :meth:`from_benchmark` or :meth:`from_index`.
        embedder: ``None`` for the bundled all-MiniLM-L6-v2, a sentence-transformers model name,
            or any object with ``embed_documents`` / ``embed_query``.
        decomposer: splits questions into sub-queries: ``None`` (the default,
            :class:`HeuristicDecomposer`) or any object with a ``decompose(question, schema)``
            method (:class:`PrecomputedDecomposer`, :class:`~jar_core.decompose.llm.LLMDecomposer`
            around a language model...); anything else raises :class:`InvalidArgumentError`.
        strategy: a :class:`SearchStrategy` (an object with ``select``) or its name (default
            ``"join-aware"``: the paper's greedy with a connection gain; ``"greedy"`` is the paper's own).
        candidates: size N of the candidate set (top-N by coarse relevance), default 20.
        index: a prebuilt :class:`SchemaIndex` for ``schema`` (built on first use otherwise).
        candidate_generator: the first stage (the top-N by dense similarity): ``None`` /
            ``"auto"`` (brute force below :data:`jar_core.candidates.ann.ANN_THRESHOLD` tables, the
            approximate index of :mod:`jar_core.candidates.ann` at or above it when FAISS is installed),
            ``"exact"`` (brute force), ``"ann"`` (the approximate index), or any
            :class:`CandidateGenerator` (e.g. an external vector store).
        joins: how joins are found: ``"rules"`` (declared keys, naming conventions, value
            inclusion; :mod:`jar_core.joins`) or ``"paper"`` (the reference pair score).
        min_join_score: joins with a lower confidence are dropped (no edge, and no join gain).
        cross_database_joins: infer joins between tables of two databases (a lake whose
            sources do join); off by default.
        expand: add up to this many tables joinable to the ``expand_seeds`` most relevant
            candidates (declared and inferred joins) to the candidate set, so that a bridge
            table the question does not mention can be chosen (:mod:`jar_core.candidates.expansion`);
            0 turns it off (the paper's candidates).
        match_values: find the question's words among the columns' sample values
            (:mod:`jar_core.candidates.values`): a matched table joins the candidates, gains coarse relevance
            and covers the value as a sub-query; the result lists the matches.
        lexical: weight of BM25 over the table texts fused with dense similarity to rank the
            candidates (:mod:`jar_core.candidates.lexical`); 0 is dense only (the paper).
        lexical_relevance: weight of the same BM25 in the coarse relevance the search weighs
            (when ``lexical`` > 0); 0 leaves the search the dense relevance (the paper).
        collapse_copies: among the first stage's tables, keep of the copies of one table (same
            name and columns in several databases of a lake) only the one in the best-ranked
            database (:mod:`jar_core.candidates.copies`), so the candidates come from one copy.
        hubness: weight of the correction of fine relevance for hub tables, wide tables whose
            generic columns match every sub-query a little (:mod:`jar_core.signals.hubness`); 0 is the
            paper's fine relevance.
        kind_values: a sub-query whose best fine relevance is below this counts as a value of the
            strongest candidate's database's one table named as a kind (``category``, ``genre``,
            ``type``), else of its tables with a column so named (``food_type``; at most two), covered
            by them at this much (:mod:`jar_core.signals.kinds`); 0 off (the paper).
        descriptions: ``{table: text, "table.column": text}`` (``"db.table"`` too): descriptions
            that replace the sources' comments (:meth:`Schema.with_descriptions`); both are embedded
            and searched with their table (:mod:`jar_core.index.texts`). With an ``index`` of the
            schema without them, the described tables are embedded again at first use. Or the path of
            a file of them: a dbt ``manifest.json`` or ``.yml`` property file, a dbt project folder, a
            JSON mapping (:func:`jar_core.loaders.dbt.read_descriptions`).

    Example:
        >>> r = TableRetriever.from_ddl("CREATE TABLE a(id INT PRIMARY KEY); ...")  # doctest: +SKIP
        >>> r.retrieve("Which ...?", k=3).table_names  # doctest: +SKIP
    """

    def __init__(
        self,
        schema: Schema,
        *,
        embedder: Embedder | Any | str | None = None,
        decomposer: Decomposer | None = None,
        strategy: SearchStrategy | str | None = None,
        candidates: int = DEFAULT_CANDIDATES,
        index: SchemaIndex | None = None,
        candidate_generator: CandidateGenerator | str | None = None,
        progress: bool = False,
        joins: str = "rules",
        min_join_score: float = DEFAULT_MIN_JOIN_SCORE,
        cross_database_joins: bool = False,
        expand: int = DEFAULT_EXPAND,
        expand_seeds: int = 5,
        match_values: bool = True,
        lexical: float = DEFAULT_LEXICAL,
        collapse_copies: bool = True,
        hubness: float = DEFAULT_HUBNESS,
        kind_values: float = DEFAULT_KIND_VALUES,
        lexical_relevance: float = DEFAULT_LEXICAL_RELEVANCE,
        descriptions: Mapping[str, str] | str | os.PathLike[str] | None = None,
    ) -> None:
        if not isinstance(schema, Schema):
            raise InvalidArgumentError(_not_a_schema(schema))
        given = check_retriever_options(locals())  # every option of jar_core.options.RETRIEVER_OPTIONS
        schema.validate()
        if isinstance(given["descriptions"], Path):  # a file of them: held as the mapping read
            from jar_core.loaders.dbt import read_descriptions

            given["descriptions"] = read_descriptions(given["descriptions"], schema)
        #: The schema as given; :attr:`schema` carries ``descriptions`` as its comments.
        self._given_schema = schema
        self.schema = schema.with_descriptions(given["descriptions"])
        for name in _PLAIN_OPTIONS:
            setattr(self, option(name).held_as, given[name])
        if decomposer is not None:
            check_part(decomposer, "decompose", "decomposer",
                        "None (the heuristic decomposer) or an object with a decompose(question, schema) method "
                        "(HeuristicDecomposer, PrecomputedDecomposer, LLMDecomposer(complete) around a language "
                        "model; the LangChain and LlamaIndex retrievers take a model as llm=)")
        self.decomposer: Decomposer = decomposer if decomposer is not None else HeuristicDecomposer()
        if strategy is not None and not isinstance(strategy, str):
            check_part(strategy, "select", "strategy",
                        f"None, a strategy name ({', '.join(STRATEGIES)}) or a SearchStrategy (an object with select)")
        self.strategy: SearchStrategy = (
            get_strategy(strategy) if isinstance(strategy, str) else strategy or JoinAwareStrategy()
        )
        from jar_core.candidates.ann import choose_generator

        self.candidate_generator: CandidateGenerator = choose_generator(candidate_generator, len(schema.tables))
        self._embedder_spec = embedder
        self._embedder: CachedEmbedder | None = None
        if index is not None and index.schema is not schema and index.schema.fingerprint() != schema.fingerprint() \
                and index.schema.fingerprint() != self.schema.fingerprint():
            raise StaleIndexError("the index was built for another schema")
        #: An index of the schema before ``descriptions``: updated at first use (the described tables re-embedded).
        self._undescribed = index if index is not None and index.schema.fingerprint() != self.schema.fingerprint() else None
        self._index = index if self._undescribed is None else None
        # The embedding model and the lazily built index are shared: searches take turns.
        self._lock = threading.RLock()

    def options(self) -> dict[str, Any]:
        """This retriever's constructor options as they are now (schema and index aside): every one
        of :data:`jar_core.options.RETRIEVER_OPTIONS`, objects resolved (the strategy, the first stage...)."""
        options = {o.name: getattr(self, o.held_as) for o in RETRIEVER_OPTIONS if o.name != "embedder"}
        return {"embedder": self._embedder if self._embedder is not None else self._embedder_spec, **options}

    def with_options(self, **changes: Any) -> "TableRetriever":
        """A retriever over the same schema with every option of this one but ``changes``; it
        shares the index (and the embedding model) unless ``embedder`` is among the changes.

        Raises ``TypeError`` for an option :class:`TableRetriever` does not take.
        """
        unknown = set(changes) - set(self.options())
        if unknown:
            raise TypeError(f"unexpected options: {', '.join(sorted(unknown))}")
        options = {**self.options(), **changes}
        if "embedder" in changes:
            return TableRetriever(self._given_schema, **options)
        if "descriptions" not in changes:
            return TableRetriever(self._given_schema, **options, index=self.index)
        other = TableRetriever(self._given_schema, **options)
        if other.schema.fingerprint() != self.schema.fingerprint():  # other descriptions: their tables embedded again at first use
            other._undescribed = self.index
        else:
            other._index = self.index
        return other

    # -- constructors ---------------------------------------------------------------
    @classmethod
    def from_database(cls, url_or_engine: Any, *, loader_options: dict[str, Any] | None = None, **options: Any) -> "TableRetriever":
        """From a SQLAlchemy URL or engine (tables, keys, comments, bounded samples);
        ``loader_options``: keyword options of :func:`~jar_core.loaders.load_database` (an unknown
        one raises :class:`InvalidArgumentError` listing them)."""
        from jar_core.loaders import load_database

        return cls(load_database(url_or_engine, **check_options(loader_options, load_database, "loader_options")),
                   **options)

    @classmethod
    def from_ddl(
        cls, ddl: str | os.PathLike[str], *, dialect: str | None = None, partitions: bool = False, **options: Any,
    ) -> "TableRetriever":
        """From DDL text or a ``.sql`` file in any dialect sqlglot reads (``partitions``: see
        :func:`~jar_core.loaders.load_ddl`)."""
        from jar_core.loaders import load_ddl

        return cls(load_ddl(ddl, dialect=dialect, partitions=partitions), **options)

    @classmethod
    def from_benchmark(cls, path: str | os.PathLike[str], *, db_id: str | None = None, **options: Any) -> "TableRetriever":
        """From a benchmark folder (``../shared/benchmarks`` layout), optionally one database of it.

        Uses the folder's ``decomp.json`` for its own questions unless a decomposer is given.
        """
        from jar_core.decompose.heuristic import PrecomputedDecomposer
        from jar_core.loaders import load_benchmark

        bench = load_benchmark(path)
        schema = bench.schema.subset(db_id) if db_id else bench.schema
        if "decomposer" not in options and bench.decompositions is not None:
            options["decomposer"] = PrecomputedDecomposer(
                (q.question, d) for q, d in zip(bench.questions, bench.decompositions)
            )
        return cls(schema, **options)

    @classmethod
    def from_index(cls, path: str | os.PathLike[str], **options: Any) -> "TableRetriever":
        """From an index saved with :meth:`save_index` / ``jar-retrieval index`` (no source needed)."""
        index = SchemaIndex.load(path)
        return cls(index.schema, index=index, **options)

    # -- index ----------------------------------------------------------------------
    @property
    def embedder(self) -> CachedEmbedder:
        if self._embedder is None:
            self._embedder = CachedEmbedder(get_embedder(self._embedder_spec))
        return self._embedder

    @property
    def index(self) -> SchemaIndex:
        """The schema index (built on first use)."""
        if self._index is None:
            with self._lock:
                if self._index is None and self._undescribed is not None:
                    self._index = SchemaIndex.update(self._undescribed, self.schema, self.embedder,
                                                     progress=self.progress)
                    self._undescribed = None
                elif self._index is None:
                    self._index = SchemaIndex.build(self.schema, self.embedder, progress=self.progress)
        elif self._index.model_name != self.embedder.name:
            raise StaleIndexError(
                f"the index was built with model {self._index.model_name!r}, the retriever uses {self.embedder.name!r}"
            )
        if self.joins == "paper" and self._index.name_vectors is None:  # the paper's pair score reads them
            with self._lock:
                self._index.ensure_name_vectors(self.embedder, progress=self.progress)
        return self._index

    def save_index(self, path: str | os.PathLike[str], *, store_samples: bool = True, ann: bool | None = None) -> Path:
        """Save the index (atomically) for :meth:`from_index` or :meth:`load_or_build_index`.

        The saved schema holds the columns' sample values (rows of the source) unless
        ``store_samples=False``; an enumeration's labels (:attr:`Column.enum`, from the schema,
        not from rows) are kept either way. The approximate index of the first stage
        (:mod:`jar_core.candidates.ann`) is saved with it when this retriever uses one, or when the index has
        at least ``ANN_THRESHOLD`` tables (``ann=None``); ``ann=True`` / ``False`` always / never.
        """
        if ann is None:
            from jar_core.candidates.ann import ApproximateCandidates

            ann = True if isinstance(self.candidate_generator, ApproximateCandidates) else None
        return self.index.save(path, store_samples=store_samples, ann=ann)

    def load_or_build_index(
        self, path: str | os.PathLike[str], *, store_samples: bool = True,
        previous: str | os.PathLike[str] | None = None,
    ) -> SchemaIndex:
        """Use the index at ``path`` if it matches this schema and model, else build it and save it there.

        ``previous``: an index of an earlier version of this schema with this model (a description
        changed, a table added): when the index at ``path`` must be built, ``previous``'s vectors are
        reused by text, so only the tables and columns whose texts changed are embedded
        (:meth:`SchemaIndex.update`); an index that cannot be read there is ignored.

        ``path`` is a cache: when it cannot be written, a warning says so and the index built in
        memory is used. With ``store_samples=False`` a cached index holding sample values is
        rewritten without them (enumerations' labels stay, as in :meth:`save_index`). A cached
        index without the join graph this retriever uses (saved before graphs were, by other join
        rules, or from other sample values), or without the column-name vectors of the paper's
        join mode (``joins="paper"``), is rewritten with them.
        """
        try:
            self._index = SchemaIndex.load(path, schema=self.schema, model_name=self.embedder.name)
            if (store_samples or not self._index.stored_samples) and (
                self._index.has_join_graph(cross_database=self.cross_database_joins) if self.joins == "rules"
                else self._index.name_vectors is not None
            ):
                return self.index
        except IndexLoadError as e:
            log.info("rebuilding index at %s: %s", path, e)
            self._index = None
            if previous is not None and self._undescribed is None:
                try:
                    self._undescribed = SchemaIndex.load(previous, model_name=self.embedder.name)
                except (IndexLoadError, StaleIndexError) as e2:
                    log.info("not reusing the vectors of %s: %s", previous, e2)
        if self.joins == "rules":  # saved with the index: the next load is ready to answer
            self.index.join_graph(cross_database=self.cross_database_joins)
        try:
            self.save_index(path, store_samples=store_samples)
        except (IndexSaveError, IndexLoadError) as e:  # IndexLoadError: the path is not an index
            warnings.warn(f"index cache not written ({e}); going on without it", stacklevel=2)
        return self.index

    # -- retrieval ------------------------------------------------------------------
    def prefetch(self, questions: str | Iterable[str], *, decompose: bool | None = None) -> int:
        """Embed many questions at once (one batch, all cores) so that the :meth:`retrieve` calls
        that follow find their vectors cached; returns the number of texts embedded. One string
        is one question (``prefetch("Which books?")`` is ``prefetch(["Which books?"])``).

        ``decompose`` (default: only for decomposers without a model call, the heuristic and the
        precomputed ones) also embeds each question's sub-queries. Invalid questions are skipped
        here; their own :meth:`retrieve` call reports them. The ``batch`` paths of the LangChain
        and LlamaIndex adapters call this first.
        """
        if decompose is None:
            from jar_core.decompose.heuristic import PrecomputedDecomposer

            decompose = isinstance(self.decomposer, (HeuristicDecomposer, PrecomputedDecomposer))
        texts: list[str] = []
        for q in [questions] if isinstance(questions, str) else questions:
            try:
                q = check_question(q)
                texts.append(q)
                if decompose:
                    texts.extend(s for s in self.decomposer.decompose(q, self.schema).subqueries if s and s.strip())
            except Exception:  # noqa: BLE001 - the question's own retrieve call raises it
                continue
        texts = list(dict.fromkeys(texts))
        if len(texts) > 1:
            with self._lock:
                self.embedder.embed_queries(texts)
        return len(texts)

    def decompose(self, question: str) -> Decomposition:
        """The sub-queries of ``question`` from this retriever's decomposer."""
        return self.decomposer.decompose(check_question(question), self.schema)

    def signals(
        self,
        question: str,
        subqueries: Sequence[str],
        *,
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        database: str | None = None,
        candidates: int | None = None,
        segment_sim: bool = False,
        expand: int | None = None,
        match_values: bool | None = None,
        lexical: float | None = None,
        kind_values: float | None = None,
    ) -> Signals:
        """Signals over the top-N candidates (``include`` always among them, ``exclude`` never),
        plus up to ``expand`` joinable tables and the tables of values the question names
        (``expand`` / ``match_values`` / ``lexical`` / ``kind_values`` default to the retriever's settings)."""
        lexical = self.lexical if lexical is None else float(lexical)
        kind_values = self.kind_values if kind_values is None else float(kind_values)
        expand = self.expand if expand is None else int(expand)
        match_values = self.match_values if match_values is None else bool(match_values)
        idx = self.index
        n = check_k(candidates if candidates is not None else self.n_candidates, "candidates")
        allowed, inc = self._scope.allowed(database, include, exclude)
        vecs = self._query_vectors(question, subqueries)
        query = vecs[0]
        usable = allowed.copy()  # what may be returned: the pinned tables too
        allowed[inc] = False  # what the first stage may still add
        want = max(n - len(inc), 0)
        if lexical > 0:
            top, lex, bm25 = self._lexical_top(question, query, n, want, usable, allowed, lexical)
        else:
            top = self._copies.first_stage(self.candidate_generator, idx, query, want, allowed)
        cands = np.array(list(dict.fromkeys([*inc, *top.tolist()])), dtype=np.int64)
        if expand > 0 and self.joins == "rules" and len(cands):
            from jar_core.candidates.expansion import joinable_tables

            ranked = np.array(list(dict.fromkeys([*top.tolist(), *inc])), dtype=np.int64)
            extra = joinable_tables(
                idx.join_graph(cross_database=self.cross_database_joins), len(self.schema), self.min_join_score,
                ranked, lambda pos: self._relevance(query, pos), allowed, seeds=self.expand_seeds, expand=expand,
            )
            cands = np.concatenate([cands, extra])
        matches = []
        if match_values:
            matches, cands = self._value_matches(question, cands, usable)
        r = self._relevance(query, cands)
        if lexical > 0 and self.lexical_relevance > 0 and len(lex.tables) and len(cands):
            from jar_core.candidates.lexical import normalized

            r = lexical_relevance(r, cands, lex.tables, normalized(bm25), self.lexical_relevance)
        sig = compute_signals(
            idx, cands, r, list(subqueries), vecs[1:], segment_sim=segment_sim, joins=self.joins,
            cross_database_joins=self.cross_database_joins, min_join_score=self.min_join_score, hubness=self.hubness,
            kind_values=kind_values,
            resolved=resolved_by_values(subqueries, (m.span for m in matches if not m.hint)) if matches else None,
        )
        if matches:
            apply_value_matches(sig, matches)
        return sig

    def _query_vectors(self, question: str, subqueries: Sequence[str]) -> np.ndarray:
        """The vectors of the question and its sub-queries, checked against the index's dimension."""
        vecs = self.embedder.embed_queries([question, *subqueries])
        dim = self.index.table_vectors.shape[1]
        if vecs.shape[1] != dim:
            raise StaleIndexError(
                f"the index holds vectors of dimension {dim} but model {self.embedder.name!r} "
                f"gives {vecs.shape[1]}; rebuild the index"
            )
        return vecs

    def _lexical_top(
        self, question: str, query: np.ndarray, n: int, want: int, usable: np.ndarray, allowed: np.ndarray,
        lexical: float,
    ) -> tuple[np.ndarray, Any, np.ndarray]:
        """The first stage with BM25 fused in (:mod:`jar_core.candidates.lexical`): the ``want``
        best ``allowed`` tables by the fused score, the BM25 index that scored them and its scores.

        BM25 runs over the whole corpus (one index, kept) or over the first stage's dense
        shortlist (a larger lake, or a first stage of the user's: an approximate index, a vector
        store); a table outside the shortlist fuses below every table in it, so the top-N is the
        shortlist's best by the fused score."""
        from jar_core.candidates.lexical import LexicalIndex, corpus_index, fuse

        idx = self.index
        shortlist = max(LEXICAL_SHORTLIST, n)
        whole = isinstance(self.candidate_generator, BruteForceCandidates) and (
            len(self.schema) <= LEXICAL_WHOLE_CORPUS
        )
        if usable.sum() > shortlist and not whole:
            lex = LexicalIndex(idx, np.sort(self._copies.first_stage(self.candidate_generator, idx, query, shortlist, usable)))
        else:
            lex = corpus_index(idx)
        pool = lex.tables[allowed[lex.tables]]
        bm25 = lex.scores(question)
        fused = fuse(self._relevance(query, lex.tables), bm25, lexical)[allowed[lex.tables]]
        return self._copies.top(fused, pool, want), lex, bm25  # a shortlist's copies are collapsed already

    def _value_matches(self, question: str, cands: np.ndarray, usable: np.ndarray) -> tuple[list[Any], np.ndarray]:
        """The values the question names (:mod:`jar_core.candidates.values`) and the candidates with
        their tables added. Value evidence is local: only in the databases of the strongest
        candidates and the other schemas of their catalogs (a value index of those databases'
        tables only: in proportion to what is used)."""
        from jar_core.candidates.values import value_candidates, value_index

        dbs = sorted(self._scope.near_databases(cands[: self.expand_seeds]))
        near = np.concatenate([self._scope.positions(d) for d in dbs]) if dbs else np.zeros(0, np.int64)
        return value_candidates(value_index(self.index, tuple(dbs), near), question, usable, near, cands)

    def _relevance(self, query: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Coarse relevance ``r`` of the tables at ``positions`` (cosine with the question)."""
        return (self.index.table_vectors[np.asarray(positions, dtype=np.int64)] @ query).astype(np.float32)

    def retrieve(
        self,
        question: str,
        k: int | str = 5,
        *,
        include: str | Iterable[str] = (),
        exclude: str | Iterable[str] = (),
        database: str | None = None,
        subqueries: Sequence[str] | Decomposition | None = None,
        strategy: SearchStrategy | str | None = None,
    ) -> RetrievalResult:
        """The ``k`` tables that best answer ``question`` together, with their joins.

        Thread-safe: concurrent calls decompose in parallel and take turns for the embedding
        and the search (a Hugging Face tokenizer must not run in two threads at once).

        Args:
            question: natural-language question, at most :data:`MAX_QUESTION_CHARS` characters.
            k: number of tables (>= 1), or ``"auto"``: as few as cover every sub-query and join up,
                at most 10 (:mod:`jar_core.strategies.auto_k`), and just the pinned tables when ``include``
                names more. If fewer candidates exist, all are returned with a warning. Either way the
                result marks the tables the question needs (those ``"auto"`` chooses:
                :attr:`RetrievalResult.needed`) apart from the optional extras a larger k adds
                (:attr:`RetrievalResult.optional`); the join path connects the needed ones.
            include: table names (``db.table`` or unambiguous ``table``) pinned first, in order;
                one string is one name.
            exclude: table names never returned (one string is one name).
            database: restrict the search to one database of the corpus.
            subqueries: use these sub-queries instead of the decomposer's (a :class:`Decomposition`
                keeps its ``source``; a plain list is recorded as ``"given"``).
            strategy: override the retriever's strategy for this call.
        """
        question = check_question(question)
        auto = check_k_or_auto(k) == "auto"
        k = AUTO_K_MAX if auto else check_k(k)
        include, exclude = check_table_names(include, "include"), check_table_names(exclude, "exclude")
        if subqueries is None:
            dec = self.decomposer.decompose(question, self.schema)
        elif isinstance(subqueries, Decomposition):
            dec = subqueries
        else:
            dec = Decomposition(check_subqueries(subqueries), "given")
        strat = get_strategy(strategy) if isinstance(strategy, str) else strategy or self.strategy
        with self._lock:  # decomposition (maybe an LLM call) above runs concurrently; this does not
            sig = self.signals(
                question, list(dec.subqueries), include=include, exclude=exclude, database=database,
                segment_sim=strat.name == "crush",
            )
        result_warnings: list[str] = []
        if k > sig.n and not auto:
            msg = f"k={k} is larger than the {sig.n} candidate tables; returning {sig.n}"
            warnings.warn(msg, stacklevel=2)
            result_warnings.append(msg)
        if len(include) > k:
            if not auto:
                raise InvalidArgumentError(
                    f"include= pins {len(include)} tables, more than k={k} allows: raise k to {len(include)} or pin fewer"
                )
            k = len(include)  # k="auto" with more pinned tables than its maximum: the pinned tables
        pinned = list(range(len(include)))
        core = auto_select(strat, sig, max(k, AUTO_K_MAX) if auto else AUTO_K_MAX, pinned=pinned)
        sel = core if auto else strat.select(sig, min(k, sig.n), pinned=pinned)
        result_warnings.extend(match_warnings(sig, sel.order))
        res = self._result(question, dec, sig, sel, strat, len(include), result_warnings, list(core.order))
        res.k = "auto" if auto else k
        return res

    def _result(
        self, question: str, dec: Decomposition, sig: Signals, sel: Any, strat: Any, n_pinned: int,
        result_warnings: list[str], needed: Sequence[int] | None = None,
    ) -> RetrievalResult:
        """The result of ``sel``, ``needed`` the candidates the question needs:
        :func:`jar_core.output.assemble.assemble_result`."""
        return assemble_result(self.schema, question, dec, sig, sel, strat, n_pinned, result_warnings, self._key_joins,
                               needed)

    @cached_property
    def _scope(self) -> DatabaseScope:
        """The tables of each database, grouped once (:class:`~jar_core.candidates.scope.DatabaseScope`)."""
        return DatabaseScope(self.schema)

    @cached_property
    def _copies(self) -> CopyCollapse:
        """The first stage with copies collapsed (:class:`~jar_core.candidates.copies.CopyCollapse`)."""
        return CopyCollapse(self.schema, enabled=self.collapse_copies)

    @cached_property
    def _key_joins(self) -> KeyJoins:
        """The joins of the selected tables to themselves and the column pairs of composite keys,
        read from the join graph once per retriever (:class:`~jar_core.output.assemble.KeyJoins`)."""
        return KeyJoins(self.schema, lambda: self.index, joins=self.joins, cross_database=self.cross_database_joins,
                        min_join_score=self.min_join_score)

    def __repr__(self) -> str:
        return (
            f"TableRetriever({self.schema!r}, strategy={self.strategy.name!r}, candidates={self.n_candidates}, "
            f"joins={self.joins!r}, min_join_score={self.min_join_score})"
        )
