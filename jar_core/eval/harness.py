"""The evaluation harness: every method on the same candidates and the same signals.

Two steps, so the expensive part is done once and shared:

1. :func:`prepare` reads the gold tables of every question of a benchmark, keeps the
   multi-table questions (two or more gold tables, METHOD.md "Metrics"), decomposes them and
   computes their :class:`~jar_core.signals.matrices.Signals` once over the top-N candidates (and, only
   when CRUSH is requested, a second set over CRUSH's own 100 candidates with the
   segment-vs-table similarities).
2. :func:`run_method` runs one method over the prepared questions for each K and returns
   one :class:`ResultRow` per K (recall and complete recall in percent, and the seconds spent
   in the strategy's ``select`` calls only).

Gold tables
    :func:`~jar_core.eval.gold.extract_gold_tables` with the benchmark's dialect, resolved
    case-insensitively against the table names of the question's database in
    ``dev_tables.json``. Names that are not tables of that database (views, a table missing
    from ``dev_tables.json``, a database missing altogether) are dropped, as the benchmark
    README's multi-table counts do; such a table could never be retrieved anyway. The number of
    questions where that happened is reported (``Prepared.unknown_tables``) so a user can
    see it. Unparseable gold SQL is reported (count and ``dev.json`` positions, on stderr and
    in ``Prepared.unparseable``) and the question is skipped.

Decompositions
    ``"benchmark"``: the folder's ``decomp.json`` entry of the question (aligned with
    ``dev.json``; an empty entry means no sub-queries). ``"heuristic"``:
    :class:`~jar_core.decompose.heuristic.HeuristicDecomposer` over the whole corpus schema.

Retrieval is open-domain, as in the paper: candidates come from every table of the folder.
"""
from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from jar_core.errors import BenchmarkFormatError, InvalidArgumentError
from jar_core.options import option
from jar_core.progress import progress as _progress

__all__ = [
    "METHODS",
    "ABLATION",
    "EvalQuestion",
    "Prepared",
    "ResultRow",
    "MethodSpec",
    "prepare",
    "run_method",
    "method_specs",
    "evaluate",
    "Evaluation",
    "greedy_name",
    "CRUSH_CANDIDATES",
    "MIP_STATUSES",
]

#: Methods ``jar-retrieval eval --methods`` accepts.
METHODS = ("default", "dense", "greedy", "mip", "crush")
#: The ablation configurations of the paper's appendix, as (l_cov, l_join, l_coarse).
ABLATION: tuple[tuple[str, tuple[float, float, float]], ...] = (
    ("Only Coverage", (1.0, 0.0, 0.0)),
    ("Only Join", (0.0, 1.0, 0.0)),
    ("Only Coarse", (0.0, 0.0, 1.0)),
    ("No Coarse", (1.0, 1.0, 0.0)),
    ("No Join", (1.0, 0.0, 1.0)),
    ("No Coverage", (0.0, 1.0, 1.0)),
    ("Custom", (2.0, 1.0, 4.0)),
)
#: CRUSH4SQL's own candidate cutoff (METHOD.md).
CRUSH_CANDIDATES = 100
#: The search options of the method "default" (the library's defaults, :data:`jar_core.options.RETRIEVER_OPTIONS`):
#: expansion, value matches and BM25 over the paper's candidates.
DEFAULT_SEARCH = {name: option(name).default for name in ("expand", "match_values", "lexical", "kind_values")}
#: How a MIP solve can end.
MIP_STATUSES = ("optimal", "feasible", "relaxed", "no_solution", "infeasible")


@dataclass
class EvalQuestion:
    """One multi-table question ready to evaluate."""

    position: int  # index in dev.json
    question: str
    db_id: str
    gold: list[str]  # schema table ids ("db.table")
    subqueries: list[str]
    gold_joins: list[tuple[tuple[str, str], tuple[str, str]]] = field(default_factory=list)  # (("db.table", col), ...)
    signals: Any = None  # Signals over the top-N candidates
    default_signals: Any = None  # over the top-N and the joinable tables added by expansion (method "default")
    crush_signals: Any = None  # Signals over CRUSH's 100 candidates, with segment_sim


@dataclass
class Prepared:
    """The shared input of every method: questions, their gold tables and their signals."""

    benchmark: str
    candidates: int
    decomposer: str
    schema: Any
    questions: list[EvalQuestion]
    signals_seconds: float
    total_questions: int
    multi_table_questions: int  # before --limit
    unparseable: list[int] = field(default_factory=list)  # dev.json positions
    unknown_tables: list[int] = field(default_factory=list)  # dev.json positions
    min_join_score: float = 0.0
    joins: str = "rules"  # the join graph every method's signals were built on ("rules" or "paper")
    key_joins: Any = None  # the retriever's KeyJoins: the joins an answer shows (join_edges)

    def table_ids(self, sig: Any, order: Sequence[int]) -> list[str]:
        tables = self.schema.tables
        return [tables[int(sig.candidates[i])].id for i in order]

    def prompt_chars(self, sig: Any, order: Sequence[int]) -> int:
        """Characters of the selected tables' compact ``CREATE TABLE`` statements (the DDL
        :func:`jar_core.output.prompt.model_text` gives a model), one line each."""
        from jar_core.output.sql import create_table_ddl

        tables = [self.schema.tables[int(sig.candidates[i])] for i in order]
        by_id = {t.id: t for t in tables}
        return len("\n".join(create_table_ddl(t, self.schema.dialect, tables=by_id, compact=True) for t in tables))

    def join_edges(self, sig: Any, order: Sequence[int], question: str = "") -> list[tuple[tuple[str, str], tuple[str, str]]]:
        """The join keys an answer with this selection shows, as ``(("db.table", col), ...)``: the
        trusted joins of the spanning forest (:func:`jar_core.output.assemble.shown_joins`, every
        selected table needed), the first column pair of each; with no ``key_joins`` (a
        preparation without a retriever), the spanning forest of ``sig.w``."""
        tables = self.schema.tables
        if self.key_joins is not None:
            import numpy as np

            from jar_core.output.assemble import shown_joins

            idx = np.asarray(order, dtype=np.int64)
            positions = [int(sig.candidates[i]) for i in idx]
            chosen = [tables[p] for p in positions]
            shown = shown_joins(question, sig, idx, chosen, positions, self.key_joins, np.ones(len(idx), dtype=bool))
            return [((e.left_table.id, e.left_column), (e.right_table.id, e.right_column)) for e in shown.joins]
        from jar_core.joins.path import join_tree

        out = []
        for a, b, _ in join_tree(sig.w, list(order), self.min_join_score, evidence=sig.evidence):
            ia, ib = int(order[a]), int(order[b])
            ca, cb = sig.join_columns[ia, ib]
            ta, tb = tables[int(sig.candidates[ia])], tables[int(sig.candidates[ib])]
            out.append(((ta.id, ta.columns[int(ca)].name), (tb.id, tb.columns[int(cb)].name)))
        return out


@dataclass
class ResultRow:
    """Figures of one method at one K."""

    method: str
    k: int | str  # a number or "auto"
    recall: float
    complete_recall: float
    seconds: float
    join_precision: float | None = None
    join_recall: float | None = None
    prompt_chars: float | None = None  # mean characters of the returned tables' compact DDL per question

    def to_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "k": self.k if self.k == "auto" else int(self.k),
            "recall": float(self.recall),
            "complete_recall": float(self.complete_recall),
            "seconds": float(self.seconds),
            "join_precision": None if self.join_precision is None else float(self.join_precision),
            "join_recall": None if self.join_recall is None else float(self.join_recall),
            "prompt_chars": None if self.prompt_chars is None else float(self.prompt_chars),
        }


@dataclass(frozen=True)
class MethodSpec:
    """A method to run: its display name, base strategy name and options."""

    name: str
    kind: str  # default | dense | greedy | mip | crush
    options: tuple[tuple[str, Any], ...] = ()

    def strategy(self) -> Any:
        from jar_core.strategies import get_strategy

        return get_strategy("join-aware" if self.kind == "default" else self.kind, **dict(self.options))


def _fmt_weight(x: float) -> str:
    return f"{x:g}"


def greedy_name(weights: Sequence[float]) -> str:
    """``greedy(l_cov,l_join,l_coarse)``, e.g. ``greedy(1,0,0)``."""
    return "greedy(" + ",".join(_fmt_weight(float(w)) for w in weights) + ")"


def method_specs(
    methods: Sequence[str],
    *,
    weights: Sequence[float] | None = None,
    ablation: bool = False,
    mip_time_limit: float = 60.0,
) -> list[MethodSpec]:
    """The methods to run, in order: ``methods`` then the ablation configurations.

    With ``weights`` the ``greedy`` method uses them and is named ``greedy(a,b,c)``.
    Ablation configurations already present are not repeated.
    """
    specs: list[MethodSpec] = []
    for m in methods:
        if m not in METHODS:
            raise InvalidArgumentError(f"unknown method {m!r} (choose from {', '.join(METHODS)})")
        if m == "greedy" and weights is not None:
            w = tuple(float(x) for x in weights)
            specs.append(MethodSpec(greedy_name(w), "greedy", tuple(zip(("l_cov", "l_join", "l_coarse"), w))))
        elif m == "mip":
            specs.append(MethodSpec("mip", "mip", (("time_limit", float(mip_time_limit)),)))
        else:
            specs.append(MethodSpec(m, m))
    if ablation:
        for _, w in ABLATION:
            spec = MethodSpec(greedy_name(w), "greedy", tuple(zip(("l_cov", "l_join", "l_coarse"), w)))
            specs.append(spec)
    seen: set[str] = set()
    unique = []
    for s in specs:
        if s.name not in seen:
            seen.add(s.name)
            unique.append(s)
    return unique


def _warn(msg: str) -> None:
    print(f"jar-retrieval: warning: {msg}", file=sys.stderr)


def _positions(ids: Sequence[int], limit: int = 20) -> str:
    shown = ", ".join(str(i) for i in ids[:limit])
    return shown + (f", ... ({len(ids) - limit} more)" if len(ids) > limit else "")


def prepare(
    bench: Any,
    retriever: Any,
    *,
    decomposer: str | None = None,
    candidates: int = 20,
    limit: int | None = None,
    crush: bool = False,
    default: bool = False,
    progress: bool = False,
    warn: Callable[[str], None] | None = _warn,
) -> Prepared:
    """Gold tables, decompositions and signals of the multi-table questions of ``bench``.

    Args:
        bench: a loaded :class:`~jar_core.loaders.benchmark.Benchmark`.
        retriever: a :class:`~jar_core.retriever.TableRetriever` over ``bench.schema``
            (its index is built here if it has none).
        decomposer: ``"benchmark"`` (``decomp.json``), ``"heuristic"``, or ``None`` for the
            benchmark's decompositions when present and the heuristic otherwise.
        candidates: N, the size of the candidate set every method works on.
        limit: keep only the first ``limit`` multi-table questions.
        crush: also compute CRUSH's signals (100 candidates, segment similarities).
        default: also compute the default configuration's signals (the top-N plus the tables
            joinable to the strongest candidates, :data:`DEFAULT_SEARCH`, and
            the tables of the values the question names).
        progress: show a progress bar on stderr.
        warn: where warnings go (``None``: nowhere); they are also kept in the result.
    """
    from jar_core.options import check_k

    candidates = check_k(candidates, "candidates")
    if limit is not None:
        limit = check_k(limit, "limit")
    decomposer = _decomposer(bench, decomposer)
    chosen, multi, unparseable, unknown = _multi_table_questions(bench, decomposer, limit)
    if warn is not None:
        _warn_skipped(warn, unparseable, unknown)
    if not chosen:
        raise BenchmarkFormatError(
            f"{bench.path} has no multi-table question to evaluate (of {len(bench.questions)} questions, "
            "none has two or more gold tables that parse)"
        )
    seconds = _compute_signals(retriever, chosen, candidates, crush=crush, default=default, progress=progress)
    return Prepared(
        benchmark=bench.name, candidates=candidates, decomposer=decomposer, schema=bench.schema, questions=chosen,
        signals_seconds=seconds, total_questions=len(bench.questions), multi_table_questions=multi,
        unparseable=unparseable, unknown_tables=unknown,
        min_join_score=float(getattr(retriever, "min_join_score", 0.0)), joins=str(getattr(retriever, "joins", "rules")),
        key_joins=getattr(retriever, "_key_joins", None),
    )


def _decomposer(bench: Any, decomposer: str | None) -> str:
    """``"benchmark"`` or ``"heuristic"``: the one asked for, else ``decomp.json`` when the folder has it."""
    if decomposer is None:
        decomposer = "benchmark" if bench.decompositions is not None else "heuristic"
    if decomposer not in ("benchmark", "heuristic"):
        raise InvalidArgumentError(f"unknown decomposer {decomposer!r} (choose benchmark or heuristic)")
    if decomposer == "benchmark" and bench.decompositions is None:
        raise BenchmarkFormatError(
            f"--decomposer benchmark needs {bench.path}/decomp.json, which this folder does not have "
            "(use --decomposer heuristic)"
        )
    return decomposer


def _multi_table_questions(
    bench: Any, decomposer: str, limit: int | None
) -> tuple[list[EvalQuestion], int, list[int], list[int]]:
    """The first ``limit`` multi-table questions with their gold tables, gold joins and sub-queries;
    the number of multi-table questions; the positions of unparseable gold SQL and of gold SQL
    naming tables its database lacks."""
    from jar_core.eval.gold import GoldSQLError, extract_gold_joins, extract_gold_tables

    schema = bench.schema
    by_db: dict[str, list[str]] = {}
    columns_by_db: dict[str, dict[str, list[str]]] = {}
    for t in schema.tables:
        by_db.setdefault(t.database, []).append(t.name)
        columns_by_db.setdefault(t.database, {})[t.name] = [c.name for c in t.columns]
    unparseable: list[int] = []
    unknown: list[int] = []
    chosen: list[EvalQuestion] = []
    multi = 0
    heur = None
    if decomposer == "heuristic":
        from jar_core.decompose.heuristic import HeuristicDecomposer

        heur = HeuristicDecomposer()
    for pos, q in enumerate(bench.questions):
        names = by_db.get(q.db_id, [])
        try:
            gold = extract_gold_tables(q.sql, dialect=bench.dialect, tables=names)
            named = extract_gold_tables(q.sql, dialect=bench.dialect)
            joins = extract_gold_joins(q.sql, dialect=bench.dialect, columns=columns_by_db.get(q.db_id, {}))
        except GoldSQLError:
            unparseable.append(pos)
            continue
        if len(named) > len(gold):
            unknown.append(pos)
        if len(gold) < 2:
            continue
        multi += 1
        if limit is not None and len(chosen) >= limit:
            continue
        if heur is not None:
            subs = list(heur.decompose(q.question, schema).subqueries)
        else:
            subs = list(bench.decompositions[pos])
        gold_joins = [((f"{q.db_id}.{a[0]}", a[1]), (f"{q.db_id}.{b[0]}", b[1])) for a, b in joins]
        chosen.append(EvalQuestion(pos, q.question, q.db_id, [f"{q.db_id}.{t}" for t in gold], subs, gold_joins))
    return chosen, multi, unparseable, unknown


def _warn_skipped(warn: Callable[[str], None], unparseable: list[int], unknown: list[int]) -> None:
    if unparseable:
        warn(
            f"{len(unparseable)} question(s) with unparseable gold SQL skipped "
            f"(dev.json positions {_positions(unparseable)})"
        )
    if unknown:
        warn(
            f"{len(unknown)} question(s) name tables that are not in their database in dev_tables.json; "
            f"those names are ignored (dev.json positions {_positions(unknown)})"
        )


def _compute_signals(
    retriever: Any, chosen: list[EvalQuestion], candidates: int, *, crush: bool, default: bool, progress: bool
) -> float:
    """Each question's signals (and CRUSH's, and the default configuration's, when asked for);
    the seconds they took, the index built before (outside the timed work)."""
    retriever.index  # noqa: B018 - built now, outside the timed signal work
    t0 = time.perf_counter()
    texts = list(dict.fromkeys(t for q in chosen for t in (q.question, *q.subqueries)))
    if texts:
        retriever.embedder.embed_queries(texts)  # one batch; signals() then hits the cache
    n_crush = max(candidates, CRUSH_CANDIDATES)
    for q in _progress(chosen, total=len(chosen), desc="signals", enabled=progress):
        q.signals = retriever.signals(q.question, q.subqueries, candidates=candidates)
        if crush:
            q.crush_signals = retriever.signals(q.question, q.subqueries, candidates=n_crush, segment_sim=True)
        if default:
            q.default_signals = retriever.signals(q.question, q.subqueries, candidates=candidates, **DEFAULT_SEARCH)
    return time.perf_counter() - t0


def _check_ks(ks: Sequence[int | str]) -> list[int | str]:
    from jar_core.options import check_k

    out = [k if k == "auto" else check_k(k, "K") for k in ks]
    if not out:
        raise InvalidArgumentError("at least one K is needed")
    return list(dict.fromkeys(out))


def run_method(
    prepared: Prepared,
    spec: MethodSpec | str,
    ks: Sequence[int | str],
    *,
    progress: bool = False,
    mip_status: dict[str, dict[str, int]] | None = None,
) -> list[ResultRow]:
    """Run one method at each K (a number, or ``"auto"``: :func:`jar_core.strategies.auto_k.auto_select`)
    over the prepared questions; one :class:`ResultRow` per K, with the returned tables' prompt
    characters per question (:meth:`Prepared.prompt_chars`).

    Each K is a separate ``select`` call (for the MIP K is a constraint, so that is the only
    honest way; for the others it keeps each K's time its own). ``seconds`` is the sum of the
    ``select`` calls' wall-clock times, nothing else. For the MIP, ``mip_status`` (if given)
    receives the count of each solve outcome per K (key ``str(k)``); a solve without a
    solution returns no table and counts as retrieving nothing.
    """
    import numpy as np

    from jar_core.eval.metrics import aggregate, join_counts, join_scores
    from jar_core.strategies.auto_k import auto_select

    if isinstance(spec, str):
        specs = method_specs([spec])
        spec = specs[0]
    ks = _check_ks(ks)
    strategy = spec.strategy()
    use_crush = spec.kind == "crush"
    use_default = spec.kind == "default"
    if use_crush and any(q.crush_signals is None for q in prepared.questions):
        raise InvalidArgumentError("crush needs prepare(..., crush=True)")
    if use_default and any(q.default_signals is None for q in prepared.questions):
        raise InvalidArgumentError("default needs prepare(..., default=True)")
    golds = [q.gold for q in prepared.questions]
    rows: list[ResultRow] = []
    total = len(ks) * len(prepared.questions)
    bar = _progress(range(total), total=total, desc=spec.name, enabled=progress)
    ticker = iter(bar)
    for k in ks:
        preds: list[list[str]] = []
        jcounts: list[tuple[int, int, int, int]] = []
        chars: list[int] = []
        seconds = 0.0
        counts = {s: 0 for s in MIP_STATUSES}
        for q in prepared.questions:
            sig = q.crush_signals if use_crush else q.default_signals if use_default else q.signals
            t0 = time.perf_counter()
            sel = auto_select(strategy, sig) if k == "auto" else strategy.select(sig, min(k, sig.n))
            seconds += time.perf_counter() - t0
            if spec.kind == "mip":
                status = getattr(sel, "status", "unknown")
                counts[status] = counts.get(status, 0) + 1
            preds.append(prepared.table_ids(sig, sel.order))
            top = len(sel.order) if k == "auto" else k
            chars.append(prepared.prompt_chars(sig, sel.order[:top]))
            jcounts.append(join_counts(prepared.join_edges(sig, sel.order[:top], q.question), q.gold_joins, preds[-1][:top],
                                       q.gold))
            next(ticker, None)
        if spec.kind == "mip" and mip_status is not None:
            mip_status[str(k)] = {s: int(counts.get(s, 0)) for s in MIP_STATUSES}
        most = max([len(p) for p in preds] + [1]) if k == "auto" else k
        r, cr = aggregate(preds, golds, most) if preds else (0.0, 0.0)
        jp, jr = join_scores(jcounts) if any(q.gold_joins for q in prepared.questions) else (None, None)
        rows.append(ResultRow(spec.name, k, r, cr, seconds, jp, jr, float(np.mean(chars)) if chars else None))
    if hasattr(bar, "close"):
        bar.close()
    return rows


@dataclass
class Evaluation:
    """Everything ``jar-retrieval eval`` reports."""

    prepared: Prepared
    rows: list[ResultRow]
    mip_status: dict[str, dict[str, int]]

    def to_dict(self) -> dict[str, Any]:
        """The ``--json`` payload (exact shape documented in docs/evaluation.md)."""
        return {
            "benchmark": str(self.prepared.benchmark),
            "questions": int(len(self.prepared.questions)),
            "candidates": int(self.prepared.candidates),
            "signals_seconds": float(self.prepared.signals_seconds),
            "results": [r.to_dict() for r in self.rows],
            "mip_status": {k: dict(v) for k, v in self.mip_status.items()},
            "joins": self.prepared.joins,
        }


def evaluate(
    prepared: Prepared,
    specs: Sequence[MethodSpec],
    ks: Sequence[int | str],
    *,
    progress: bool = False,
) -> Evaluation:
    """Every method of ``specs`` at every K on the same prepared signals."""
    ks = _check_ks(ks)
    rows: list[ResultRow] = []
    status: dict[str, dict[str, int]] = {}
    for spec in specs:
        rows.extend(run_method(prepared, spec, ks, progress=progress, mip_status=status))
    return Evaluation(prepared, rows, status)

