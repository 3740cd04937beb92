"""The core entry point: :class:`TableRetriever` answers a question with a joinable table set."""
from __future__ import annotations

import logging
import os
import threading
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from jar_core.strategies.auto_k import AUTO_K_MAX, auto_select
from jar_core.candidates.first_stage import BruteForceCandidates, CandidateGenerator, exact_scores, exact_top
from jar_core.decompose.heuristic import Decomposer, Decomposition, HeuristicDecomposer
from jar_core.embed.embedders import CachedEmbedder, Embedder, get_embedder
from jar_core.errors import IndexLoadError, IndexSaveError, InvalidArgumentError, StaleIndexError
from jar_core.signals.hubness import DEFAULT_HUBNESS
from jar_core.candidates.lexical import DEFAULT_LEXICAL_RELEVANCE
from jar_core.index.schema_index import SchemaIndex
from jar_core.joins.path import components, join_tree
from jar_core.output.result import JoinEdge, RetrievalResult, RetrievedTable, TraceEntry
from jar_core.options import (
    DEFAULT_EXPAND,
    DEFAULT_LEXICAL,
    DEFAULT_MIN_JOIN_SCORE,
    check_k,
    check_k_or_auto,
    check_options,
    check_part,
    check_question,
    check_subqueries,
    check_table_names,
    check_weight,
)
from jar_core.schema import Schema
from jar_core.signals.matrices import Signals, compute_signals
from jar_core.strategies import STRATEGIES, JoinAwareStrategy, SearchStrategy, get_strategy
from jar_core.candidates.values import VALUE_PREFIX

__all__ = ["TableRetriever"]

log = logging.getLogger(__name__)

#: BM25 scores the tables of the dense shortlist of this size (the whole corpus when smaller).
LEXICAL_SHORTLIST = 200
#: Up to this many tables (and with the brute-force first stage) BM25 scores the whole corpus from
#: one index, built at the first question and kept (cheaper than a shortlist's index per question);
#: above it, or with another first stage, the dense shortlist.
LEXICAL_WHOLE_CORPUS = 20_000


#: Below this best match of any sub-query in any returned table, the result warns that nothing in
#: the source matches the question (the default model's scale: real questions of Spider and
#: BEAVER-DW reach 0.33 or more, 'what is the weather tomorrow' 0.22-0.27).
NO_MATCH = 0.3

#: Coarse relevance added to a table that holds a value the question names.
VALUE_BOOST = 0.05
#: Coverage of a matched value's sub-query by the tables that hold it.
VALUE_COVERAGE = 0.6


def _apply_value_matches(sig: Signals, matches: list[Any]) -> None:
    """A matched value is a sub-query its tables cover (``F = weight``) and a relevance boost."""
    pos = {int(c): i for i, c in enumerate(sig.candidates)}
    spans: dict[str, np.ndarray] = {}
    for m in matches:
        i = pos.get(m.table)
        if i is None:
            continue
        row = spans.setdefault(VALUE_PREFIX + m.span, np.zeros(sig.n, dtype=np.float32))
        row[i] = max(row[i], VALUE_COVERAGE * m.weight)
    if not spans:
        return
    rows = np.stack(list(spans.values()))
    sig.r = (sig.r + VALUE_BOOST * rows.max(axis=0) / VALUE_COVERAGE).astype(np.float32)
    sig.F = np.vstack([sig.F, rows]).astype(np.float32)
    sig.subqueries = [*sig.subqueries, *spans]
    sig.value_matches = list(matches)


def _match_warnings(sig: Signals, order: Sequence[int]) -> list[str]:
    """What a caller (an agent) should know when nothing in the source matches the question."""
    if not sig.subqueries:
        return ["the question has no words to match against the schema (no sub-queries): the tables "
                "are ranked by their similarity to the whole question alone"]
    best = float(sig.F[:, list(order)].max()) if len(order) else 0.0
    if best < NO_MATCH:
        return [f"no table matches any part of the question well (best match {best:.2f} < {NO_MATCH}): "
                "the source may not hold what it asks for"]
    return []


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
        candidates: int = 20,
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
        lexical_relevance: float = DEFAULT_LEXICAL_RELEVANCE,
    ) -> None:
        from jar_core.joins.compat import JOIN_MODES

        if not isinstance(schema, Schema):
            raise InvalidArgumentError(_not_a_schema(schema))
        if joins not in JOIN_MODES:
            raise InvalidArgumentError(f"joins must be one of {', '.join(JOIN_MODES)}, got {joins!r}")
        if isinstance(min_join_score, bool) or not isinstance(min_join_score, (int, float)) or not (
            0.0 <= float(min_join_score) <= 1.0
        ):
            raise InvalidArgumentError(f"min_join_score must be a number in [0, 1], got {min_join_score!r}")
        self.joins = joins
        for label, v in (("expand", expand), ("expand_seeds", expand_seeds)):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
                raise InvalidArgumentError(f"{label} must be an integer >= 0, got {v!r}")
        self.expand = int(expand)
        self.expand_seeds = int(expand_seeds)
        self.match_values = bool(match_values)
        self.lexical = check_weight("lexical", lexical, 1.0)
        self.hubness = check_weight("hubness", hubness, 2.0)
        self.lexical_relevance = check_weight("lexical_relevance", lexical_relevance, 1.0)
        self.min_join_score = float(min_join_score)
        self.cross_database_joins = bool(cross_database_joins)
        schema.validate()
        self.schema = schema
        self.n_candidates = check_k(candidates, "candidates")
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
        self.progress = progress
        self._embedder_spec = embedder
        self._embedder: CachedEmbedder | None = None
        if index is not None and index.schema is not schema and index.schema.fingerprint() != schema.fingerprint():
            raise StaleIndexError("the index was built for another schema")
        self._index = index
        self._db_positions: tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None = None
        self._scope_databases: dict[str, set[str]] | None = None
        self._self_refs: dict[int, list[tuple[int, int, float, str]]] | None = None  # table -> its joins to itself
        # (table, table) -> the column pairs of an inferred reference to a key of several columns
        self._composite_refs: dict[tuple[int, int], list[tuple[str, str]]] | None = None
        self.collapse_copies = bool(collapse_copies)
        self._signatures: tuple[np.ndarray, np.ndarray] | None = None
        # The embedding model and the lazily built index are shared: searches take turns.
        self._lock = threading.RLock()

    def options(self) -> dict[str, Any]:
        """This retriever's constructor options as they are now (schema and index aside)."""
        return {
            "embedder": self._embedder if self._embedder is not None else self._embedder_spec,
            "decomposer": self.decomposer, "strategy": self.strategy, "candidates": self.n_candidates,
            "candidate_generator": self.candidate_generator, "progress": self.progress, "joins": self.joins,
            "min_join_score": self.min_join_score, "cross_database_joins": self.cross_database_joins,
            "expand": self.expand, "expand_seeds": self.expand_seeds, "match_values": self.match_values,
            "lexical": self.lexical, "collapse_copies": self.collapse_copies, "hubness": self.hubness,
            "lexical_relevance": self.lexical_relevance,
        }

    def with_options(self, **changes: Any) -> "TableRetriever":
        """A retriever over the same schema with every option of this one but ``changes``; it
        shares the index (and the embedding model) unless ``embedder`` is among the changes.

        Raises ``TypeError`` for an option :class:`TableRetriever` does not take.
        """
        unknown = set(changes) - set(self.options())
        if unknown:
            raise TypeError(f"unexpected options: {', '.join(sorted(unknown))}")
        options = {**self.options(), **changes}
        if "embedder" not in changes:
            options["index"] = self.index
        return TableRetriever(self.schema, **options)

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
                if self._index is None:
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

    def load_or_build_index(self, path: str | os.PathLike[str], *, store_samples: bool = True) -> SchemaIndex:
        """Use the index at ``path`` if it matches this schema and model, else build it and save it there.

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
    ) -> Signals:
        """Signals over the top-N candidates (``include`` always among them, ``exclude`` never),
        plus up to ``expand`` joinable tables and the tables of values the question names
        (``expand`` / ``match_values`` / ``lexical`` default to the retriever's settings)."""
        lexical = self.lexical if lexical is None else float(lexical)
        expand = self.expand if expand is None else int(expand)
        match_values = self.match_values if match_values is None else bool(match_values)
        idx = self.index
        n = check_k(candidates if candidates is not None else self.n_candidates, "candidates")
        if database is not None:
            allowed = np.zeros(len(self.schema), dtype=bool)
            allowed[self._database_positions(database)] = True
        else:
            allowed = np.ones(len(self.schema), dtype=bool)
        inc = self.schema.resolve(check_table_names(include, "include"))
        exc = self.schema.resolve(check_table_names(exclude, "exclude"))
        clash = set(inc) & set(exc)
        if clash:
            names = ", ".join(self.schema.tables[i].id for i in sorted(clash))
            raise InvalidArgumentError(f"tables both included and excluded: {names}")
        allowed[exc] = False
        vecs = self.embedder.embed_queries([question, *subqueries])
        if vecs.shape[1] != idx.table_vectors.shape[1]:
            raise StaleIndexError(
                f"the index holds vectors of dimension {idx.table_vectors.shape[1]} but model {self.embedder.name!r} "
                f"gives {vecs.shape[1]}; rebuild the index"
            )
        query = vecs[0]
        usable = allowed.copy()  # what may be returned: the pinned tables too
        allowed[inc] = False  # what the first stage may still add
        want = max(n - len(inc), 0)
        if lexical > 0:
            from jar_core.candidates.lexical import LexicalIndex, corpus_index, fuse

            # BM25 over the whole corpus (one index, kept) or over the first stage's dense
            # shortlist (a larger lake, or a first stage of the user's: an approximate index, a
            # vector store); a table outside the shortlist fuses below every table in it, so the
            # top-N is the shortlist's best by the fused score
            shortlist = max(LEXICAL_SHORTLIST, n)
            whole = isinstance(self.candidate_generator, BruteForceCandidates) and (
                len(self.schema) <= LEXICAL_WHOLE_CORPUS
            )
            if usable.sum() > shortlist and not whole:
                lex = LexicalIndex(idx, np.sort(self._first_stage(query, shortlist, usable)))
            else:
                lex = corpus_index(idx)
            pool = lex.tables[allowed[lex.tables]]
            bm25 = lex.scores(question)
            fused = fuse(self._relevance(query, lex.tables), bm25, lexical)[allowed[lex.tables]]
            top = self._top_collapsed(fused, pool, want)  # a shortlist's copies are collapsed already
        else:
            top = self._first_stage(query, want, allowed)
        cands = np.array(list(dict.fromkeys([*inc, *top.tolist()])), dtype=np.int64)
        if expand > 0 and self.joins == "rules" and len(cands):
            from jar_core.candidates.expansion import expand_candidates, table_adjacency

            adj = table_adjacency(
                idx.join_graph(cross_database=self.cross_database_joins), len(self.schema), self.min_join_score
            )
            ranked = np.array(list(dict.fromkeys([*top.tolist(), *inc])), dtype=np.int64)
            extra = expand_candidates(adj, ranked, lambda pos: self._relevance(query, pos), allowed,
                                      seeds=self.expand_seeds, expand=expand)
            cands = np.concatenate([cands, extra])
        matches = []
        if match_values:
            from jar_core.candidates.values import match_values as find_values, value_index

            # value evidence is local: only in the databases of the strongest candidates and
            # the other schemas of their catalogs (a value index of those databases' tables
            # only: in proportion to what is used)
            dbs = sorted(self._near_databases(cands[: self.expand_seeds]))
            near_pos = np.concatenate([self._database_positions(d) for d in dbs]) if dbs else np.zeros(0, np.int64)
            near = np.zeros(len(allowed), dtype=bool)
            near[near_pos] = True
            in_cands = np.zeros(len(allowed), dtype=bool)
            in_cands[cands] = True
            # hints (a year, a trade word, a place): candidates only
            matches = find_values(value_index(idx, tuple(dbs), near_pos), question, usable & near, usable & near & in_cands)
            extra = [m.table for m in matches if not in_cands[m.table]]
            if extra:
                cands = np.concatenate([cands, np.array(list(dict.fromkeys(extra)), dtype=np.int64)])
        r = self._relevance(query, cands)
        if lexical > 0 and self.lexical_relevance > 0 and len(lex.tables) and len(cands):
            from jar_core.candidates.lexical import normalized

            # the BM25 of the candidates (0 for a table outside the scored shortlist)
            at = np.minimum(np.searchsorted(lex.tables, cands), len(lex.tables) - 1)
            b = np.where(lex.tables[at] == cands, normalized(bm25)[at], 0.0)
            r = ((1.0 - self.lexical_relevance) * r + self.lexical_relevance * b).astype(np.float32)
        sig = compute_signals(
            idx, cands, r, list(subqueries), vecs[1:], segment_sim=segment_sim, joins=self.joins,
            cross_database_joins=self.cross_database_joins, min_join_score=self.min_join_score, hubness=self.hubness,
        )
        if matches:
            _apply_value_matches(sig, matches)
        return sig

    def _first_stage(self, query: np.ndarray, n: int, allowed: np.ndarray) -> np.ndarray:
        """The ``n`` tables most similar to ``query`` among ``allowed``, best first, with the
        copies of one table in other databases collapsed (:mod:`jar_core.candidates.copies`).

        The candidate generator is asked for ``2n``; when copies leave fewer than ``n`` of them
        (a lake of many copies), every allowed table is scored exactly (one product with the table
        vectors costs less than asking an index for ever more neighbours) and the copies are
        collapsed over that whole ranking without sorting it (:func:`jar_core.candidates.copies.best_copies`).
        """
        idx = self.index
        pos, _ = self.candidate_generator.search(idx, query, 2 * n if self.collapse_copies else n, allowed)
        if not self.collapse_copies or len(pos) < 2:
            return pos[:n]
        from jar_core.candidates.copies import first_copies

        kept = pos[first_copies(pos, *self._copy_signatures())]
        if len(kept) >= n or len(pos) < 2 * n:
            return kept[:n]
        every, scores = exact_scores(idx, query, allowed)
        return self._top_collapsed(scores, every, n)

    def _copy_signatures(self) -> tuple[np.ndarray, np.ndarray]:
        """:func:`jar_core.candidates.copies.table_signatures` of the schema, worked out once."""
        if self._signatures is None:
            from jar_core.candidates.copies import table_signatures

            self._signatures = table_signatures(self.schema)
        return self._signatures

    def _top_collapsed(self, scores: np.ndarray, positions: np.ndarray, n: int) -> np.ndarray:
        """The ``n`` best of ``positions`` by ``scores``, best first, the copies of one table
        collapsed (when ``collapse_copies``) over the whole ranking (:func:`jar_core.candidates.copies.best_copies`)."""
        if not self.collapse_copies:
            return exact_top(scores, positions, n)[0]
        from jar_core.candidates.copies import best_copies

        scores, positions = np.asarray(scores), np.asarray(positions, dtype=np.int64)
        keep = best_copies(scores, positions, *self._copy_signatures())
        return exact_top(scores[keep], positions[keep], n)[0]

    def _relevance(self, query: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """Coarse relevance ``r`` of the tables at ``positions`` (cosine with the question)."""
        return (self.index.table_vectors[np.asarray(positions, dtype=np.int64)] @ query).astype(np.float32)

    def _near_databases(self, positions: np.ndarray) -> set[str]:
        """The databases of the tables at ``positions`` and of their join scopes (the other
        schemas of a catalog)."""
        if self._scope_databases is None:
            scopes: dict[str, set[str]] = {}
            for t in self.schema.tables:
                scopes.setdefault(t.join_scope, set()).add(t.database)
            self._scope_databases = scopes
        return {db for p in positions.tolist() for db in self._scope_databases[self.schema.tables[int(p)].join_scope]}

    def _database_positions(self, database: str) -> np.ndarray:
        """Positions of ``database``'s tables (as :meth:`Schema.subset`: exact name, else
        case-insensitive), from a table of every database built once per retriever."""
        if self._db_positions is None:
            groups: dict[str, list[int]] = {}
            for i, t in enumerate(self.schema.tables):
                groups.setdefault(t.database, []).append(i)
            folded: dict[str, list[int]] = {}
            for db, rows in groups.items():
                folded.setdefault(db.lower(), []).extend(rows)
            self._db_positions = (
                {db: np.array(rows, dtype=np.int64) for db, rows in groups.items()},
                {db: np.array(sorted(rows), dtype=np.int64) for db, rows in folded.items()},
            )
        exact, folded = self._db_positions
        pos = exact.get(database)
        if pos is None:
            pos = folded.get(database.lower())
        if pos is None:
            self.schema.subset(database)  # raises UnknownDatabaseError with the known names
        return pos

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
                names more. If fewer candidates exist, all are returned with a warning.
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
        if auto:
            sel = auto_select(strat, sig, k, pinned=pinned)
        else:
            sel = strat.select(sig, min(k, sig.n), pinned=pinned)
        result_warnings.extend(_match_warnings(sig, sel.order))
        res = self._result(question, dec, sig, sel, strat, len(include), result_warnings)
        res.k = "auto" if auto else k
        return res

    def _result(
        self, question: str, dec: Decomposition, sig: Signals, sel: Any, strat: Any, n_pinned: int,
        result_warnings: list[str],
    ) -> RetrievalResult:
        strategy = strat.name
        weights = (getattr(strat, "l_coarse", 1.0), getattr(strat, "l_cov", 0.0), getattr(strat, "l_join", 0.0))
        bridges = set(getattr(sel, "bridges", []) or [])
        references = set(getattr(sel, "references", []) or [])
        replaced = dict(getattr(sel, "replaced", {}) or {})

        def reason(pos: int, i: int, s: Any) -> str:
            if pos < n_pinned:
                return "pinned"
            if i in bridges:
                return "bridge"
            if i in references:
                return "reference"
            if i in replaced:
                return "near copy"
            if s is None:
                return "relevance"
            parts = (weights[0] * s.coarse, weights[1] * s.coverage, weights[2] * s.join)
            return ("relevance", "coverage", "join")[int(np.argmax(parts))]

        from jar_core.joins.declared import other_key_columns
        from jar_core.joins.graph import EVIDENCE

        positions = [int(sig.candidates[i]) for i in sel.order]
        tables = [self.schema.tables[i] for i in positions]
        order = np.array(sel.order, dtype=np.int64)
        edges = join_tree(sig.w, order, self.min_join_score, evidence=sig.evidence)
        comp = components(len(order), edges)
        joins = []
        for a, b, score in edges:
            ca, cb = sig.join_columns[order[a], order[b]]
            declared = bool(sig.declared[order[a], order[b]]) if sig.declared is not None else False
            ev = int(sig.evidence[order[a], order[b]]) if sig.evidence is not None else -1
            evidence = EVIDENCE[ev] if self.joins == "rules" and ev >= 0 else ("declared" if declared else "score")
            left, right = tables[a].columns[int(ca)].name, tables[b].columns[int(cb)].name
            if declared:
                more = other_key_columns(tables[a], left, tables[b], right)
            elif evidence == "composite key":
                more = self._composite_columns(positions[a], left, positions[b], right)
            else:
                more = ()
            joins.append(JoinEdge(tables[a], left, tables[b], right, score, declared, evidence, more))
        steps = {s.candidate: s for s in sel.steps}
        retrieved = []
        for pos, (i, t) in enumerate(zip(sel.order, tables)):
            s = steps.get(i)
            retrieved.append(
                RetrievedTable(
                    table=t, step=pos + 1, score=s.total if s else float(sig.r[i]),
                    coarse=s.coarse if s else float(sig.r[i]), coverage=s.coverage if s else 0.0,
                    join=s.join if s else 0.0, pinned=pos < n_pinned,
                    joined=len(tables) == 1 or bool(np.count_nonzero(comp == comp[pos]) > 1),
                    reason=reason(pos, i, s),
                    replaced=self.schema.tables[int(sig.candidates[replaced[i]])].id if i in replaced else "",
                )
            )
        trace = [
            [
                TraceEntry(self.schema.tables[int(sig.candidates[g.candidate])], g.coarse, g.coverage, g.join,
                           g.total, g.candidate == sel.order[step])
                for g in step_trace
            ]
            for step, step_trace in enumerate(sel.trace)
        ]
        cov = sel.coverage if sel.coverage is not None else np.zeros(len(sig.subqueries))
        return RetrievalResult(
            question=question, tables=retrieved, joins=joins, subqueries=list(dec.subqueries),
            decomposer=dec.source, coverage={q: float(v) for q, v in zip(sig.subqueries, cov)}, trace=trace,
            strategy=strategy, candidates=sig.n, warnings=result_warnings, dialect=self.schema.dialect,
            value_matches=[m.to_dict(self.schema) for m in sig.value_matches],
            self_joins=[e for i in sel.order for e in self._self_joins(int(sig.candidates[i]))],
        )

    def _graph_edges(
        self, select: Callable[[Any], np.ndarray],
    ) -> list[tuple[int, int, int, int, float, str]]:
        """The edges of the index's join graph that ``select(graph)`` (a boolean mask) keeps, as
        ``(table a, column of a, table b, column of b, confidence, evidence)``, each column numbered
        within its table."""
        from jar_core.joins.graph import EVIDENCE

        g = self.index.join_graph(cross_database=self.cross_database_joins)
        offsets = self.index.col_offsets
        out = []
        for e in np.flatnonzero(select(g)).tolist():
            ta, tb = int(g.table_a[e]), int(g.table_b[e])
            out.append((ta, int(g.a[e] - offsets[ta]), tb, int(g.b[e] - offsets[tb]), float(g.confidence[e]),
                        EVIDENCE[int(g.evidence[e])]))
        return out

    def _composite_columns(self, a: int, left: str, b: int, right: str) -> tuple[tuple[str, str], ...]:
        """The other ``(a's column, b's column)`` pairs of the inferred reference to a key of several
        columns that equates ``a.left`` with ``b.right`` (tables at positions ``a`` and ``b``;
        join rule 8, :func:`jar_core.joins.graph._composite`)."""
        if self._composite_refs is None:
            from jar_core.joins.graph import EVIDENCE

            refs: dict[tuple[int, int], list[tuple[str, str]]] = {}
            for ta, a_col, tb, b_col, _, _ in self._graph_edges(lambda g: g.evidence == EVIDENCE.index("composite key")):
                ca, cb = self.schema.tables[ta].columns[a_col].name, self.schema.tables[tb].columns[b_col].name
                refs.setdefault((ta, tb), []).append((ca, cb))
                refs.setdefault((tb, ta), []).append((cb, ca))
            self._composite_refs = refs
        return tuple(pair for pair in self._composite_refs.get((a, b), []) if pair != (left, right))

    def _self_joins(self, pos: int) -> list[JoinEdge]:
        """The joins of the table at ``pos`` to itself: from the join graph (``joins="rules"``,
        declared and inferred above ``min_join_score``), else its declared foreign keys."""
        t = self.schema.tables[pos]
        if self.joins != "rules":
            return [JoinEdge(t, fk.columns[0], t, fk.ref_columns[0], 1.0, True, "declared",
                             tuple(zip(fk.columns[1:], fk.ref_columns[1:])))
                    for fk in t.foreign_keys if fk.ref_table == t.id]
        if self._self_refs is None:
            refs: dict[int, list[tuple[int, int, float, str]]] = {}
            for ti, a, _, b, conf, ev in self._graph_edges(
                lambda g: (g.table_a == g.table_b) & (g.confidence >= self.min_join_score)
            ):
                refs.setdefault(ti, []).append((a, b, conf, ev))
            self._self_refs = refs
        from jar_core.joins.declared import other_key_columns

        out: list[JoinEdge] = []
        covered: set[tuple[str, str]] = set()  # pairs already in a composite key's edge
        for a, b, conf, ev in self._self_refs.get(pos, []):
            left, right = t.columns[a].name, t.columns[b].name
            if (left, right) in covered:
                continue
            more = other_key_columns(t, left, t, right) if ev == "declared" else ()
            covered.update(more)
            out.append(JoinEdge(t, left, t, right, conf, ev == "declared", ev, more))
        return out

    def __repr__(self) -> str:
        return (
            f"TableRetriever({self.schema!r}, strategy={self.strategy.name!r}, candidates={self.n_candidates}, "
            f"joins={self.joins!r}, min_join_score={self.min_join_score})"
        )
