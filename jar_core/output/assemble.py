"""A :class:`~jar_core.output.result.RetrievalResult` from a strategy's
:class:`~jar_core.strategies.base.Selection` (METHOD.md, "Output": the selected tables in order
with their gains, the join tree among them, the step trace).

* :func:`assemble_result`: the tables with why each is there, the joins of the spanning forest
  over the selection (their rule and every column pair of a key of several columns), the trace,
  the coverage of each sub-query, the value matches and the tables' joins to themselves;
* :func:`shown_joins`: which joins are shown as keys (the trusted ones, the key the question
  fits first) and which as unverified candidates (:mod:`jar_core.output.trust`);
* :func:`match_warnings`: what a caller should know when nothing in the source matches;
* :class:`KeyJoins`: the join graph's joins of a table to itself, the column pairs of the
  inferred references to composite keys and every key between two tables, read once per retriever.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from jar_core.joins.path import components
from jar_core.output.result import RetrievalResult
from jar_core.output.tables import JoinEdge, RetrievedTable, TraceEntry
from jar_core.output.trust import Key, graph_keys, key_forest, make_key, optional_keys, question_words, ranked, strength

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.decompose.heuristic import Decomposition
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.schema import Schema, Table
    from jar_core.signals.matrices import Signals
    from jar_core.strategies.base import Selection, StepGain

__all__ = ["NO_MATCH", "KeyJoins", "ShownJoins", "assemble_result", "match_warnings", "needed_mask", "shown_joins"]

#: Below this best match of any sub-query in any returned table, the result warns that nothing in
#: the source matches the question (the default model's scale: real questions of Spider and
#: BEAVER-DW reach 0.33 or more, 'what is the weather tomorrow' 0.22-0.27).
NO_MATCH = 0.3

#: A graph edge: ``(table a, column of a, table b, column of b, confidence, evidence)``, each
#: column numbered within its table.
GraphEdge = tuple[int, int, int, int, float, str]


def match_warnings(sig: "Signals", order: Sequence[int]) -> list[str]:
    """What a caller (an agent) should know when nothing in the source matches the question."""
    if not sig.subqueries:
        return ["the question has no words to match against the schema (no sub-queries): the tables "
                "are ranked by their similarity to the whole question alone"]
    best = float(sig.F[:, list(order)].max()) if len(order) else 0.0
    if best < NO_MATCH:
        return [f"no table matches any part of the question well (best match {best:.2f} < {NO_MATCH}): "
                "the source may not hold what it asks for"]
    return []


class KeyJoins:
    """The joins the spanning forest of a selection does not hold: a table's joins to itself, the
    other column pairs of an inferred reference to a key of several columns and the other keys
    between two tables, read from the index's join graph once (``index``: called at first use,
    the retriever's lazily built index)."""

    def __init__(
        self, schema: "Schema", index: Callable[[], "SchemaIndex"], *, joins: str, cross_database: bool,
        min_join_score: float,
    ) -> None:
        self.schema, self._index = schema, index
        self.joins, self.cross_database, self.min_join_score = joins, cross_database, min_join_score
        self._self_refs: dict[int, list[tuple[int, int, float, str]]] | None = None  # table -> its joins to itself
        # (table, table) -> the column pairs of an inferred reference to a key of several columns
        self._composite_refs: dict[tuple[int, int], list[tuple[str, str]]] | None = None

    def _graph_edges(self, select: Callable[[Any], np.ndarray]) -> list[GraphEdge]:
        """The edges of the index's join graph that ``select(graph)`` (a boolean mask) keeps."""
        from jar_core.joins.graph import EVIDENCE

        index = self._index()
        g = index.join_graph(cross_database=self.cross_database)
        offsets = index.col_offsets
        out = []
        for e in np.flatnonzero(select(g)).tolist():
            ta, tb = int(g.table_a[e]), int(g.table_b[e])
            out.append((ta, int(g.a[e] - offsets[ta]), tb, int(g.b[e] - offsets[tb]), float(g.confidence[e]),
                        EVIDENCE[int(g.evidence[e])]))
        return out

    def between(self, positions: Sequence[int]) -> dict[tuple[int, int], list[tuple[int, int, float, int]]]:
        """Every edge of the join graph between two of the tables at ``positions`` (schema
        positions), declared or at least ``min_join_score``: by pair ``(x, y)``, ``x < y`` indices
        into ``positions``, as ``(column of x, column of y, confidence, evidence)`` (``evidence``
        an index into :data:`~jar_core.joins.graph.EVIDENCE`), best first. Read from the edges of
        these tables alone (:meth:`~jar_core.joins.edges.JoinGraph.incident`)."""
        index = self._index()
        g = index.join_graph(cross_database=self.cross_database)
        pos = np.asarray(positions, dtype=np.int64)
        at = {int(t): i for i, t in enumerate(pos.tolist())}
        offsets = index.col_offsets
        out: dict[tuple[int, int], list[tuple[int, int, float, int]]] = {}
        for e in g.incident(pos, len(self.schema.tables)).tolist():  # the graph's order: best first
            ta, tb = int(g.table_a[e]), int(g.table_b[e])
            if ta == tb or ta not in at or tb not in at:
                continue
            conf, ev = float(g.confidence[e]), int(g.evidence[e])
            if ev != 0 and conf < self.min_join_score:  # 0: declared
                continue
            ca, cb = int(g.a[e] - offsets[ta]), int(g.b[e] - offsets[tb])
            x, y = at[ta], at[tb]
            out.setdefault((min(x, y), max(x, y)), []).append((ca, cb, conf, ev) if x < y else (cb, ca, conf, ev))
        return out

    def composite_columns(self, a: int, left: str, b: int, right: str) -> tuple[tuple[str, str], ...]:
        """The other ``(a's column, b's column)`` pairs of the inferred reference to a key of several
        columns that equates ``a.left`` with ``b.right`` (tables at positions ``a`` and ``b``;
        join rule 8, :func:`jar_core.joins.composite.composite`)."""
        if self._composite_refs is None:
            from jar_core.joins.graph import EVIDENCE

            refs: dict[tuple[int, int], list[tuple[str, str]]] = {}
            for ta, a_col, tb, b_col, _, _ in self._graph_edges(lambda g: g.evidence == EVIDENCE.index("composite key")):
                ca, cb = self.schema.tables[ta].columns[a_col].name, self.schema.tables[tb].columns[b_col].name
                refs.setdefault((ta, tb), []).append((ca, cb))
                refs.setdefault((tb, ta), []).append((cb, ca))
            self._composite_refs = refs
        return tuple(pair for pair in self._composite_refs.get((a, b), []) if pair != (left, right))

    def self_joins(self, pos: int) -> list[JoinEdge]:
        """The joins of the table at ``pos`` to itself: from the join graph (``joins="rules"``,
        declared and inferred above ``min_join_score`` and trusted, with their calibrated
        confidence), else its declared foreign keys."""
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
            key = make_key(0, left, 0, right, conf, ev)
            if (left, right) in covered or not key.trusted:  # an untrusted one is not shown as a key
                continue
            more = other_key_columns(t, left, t, right) if ev == "declared" else ()
            covered.update(more)
            out.append(JoinEdge(t, left, t, right, conf, ev == "declared", ev, more, key.confidence))
        return out


def _reason(sel: "Selection", weights: tuple[float, float, float], n_pinned: int) -> Callable[..., str]:
    """Why the ``pos``-th chosen candidate ``i`` (with step gains ``s``) is there."""
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

    return reason


def _signal_key(sig: "Signals", order: np.ndarray, tables: list["Table"], joins: str, a: int, b: int) -> Key:
    """The search's own join between the ``a``-th and ``b``-th selected tables (``w``'s key)."""
    from jar_core.joins.graph import EVIDENCE

    i, l = int(order[a]), int(order[b])
    ca, cb = sig.join_columns[i, l]
    declared = bool(sig.declared[i, l]) if sig.declared is not None else False
    ev = int(sig.evidence[i, l]) if sig.evidence is not None else -1
    evidence = EVIDENCE[ev] if joins == "rules" and ev >= 0 else ("declared" if declared else "score")
    left, right = tables[a].columns[int(ca)].name, tables[b].columns[int(cb)].name
    return make_key(a, left, b, right, float(sig.w[i, l]), evidence)


def _declared_keys(tables: list["Table"], a: int, b: int) -> list[Key]:
    """The declared foreign keys between the ``a``-th and ``b``-th selected tables, either way."""
    out = []
    for src, dst, flip in ((tables[a], tables[b], False), (tables[b], tables[a], True)):
        for fk in src.foreign_keys:
            if fk.ref_table == dst.id and fk.columns:
                left, right = (fk.ref_columns[0], fk.columns[0]) if flip else (fk.columns[0], fk.ref_columns[0])
                out.append(make_key(a, left, b, right, 1.0, "declared"))
    return out


def _pair_keys(
    sig: "Signals", order: np.ndarray, tables: list["Table"], positions: list[int], key_joins: KeyJoins,
) -> dict[tuple[int, int], list[Key]]:
    """Every key between two selected tables that the search could join (``w > 0``), by pair of
    positions ``a < b``, strongest first (:func:`~jar_core.output.trust.strength`): the join graph's (``joins="rules"``,
    above ``min_join_score``), else the search's own join and the declared foreign keys."""
    w = sig.w[np.ix_(order, order)]
    joinable = list(zip(*(x.tolist() for x in np.nonzero(np.triu(w > 0, 1)))))
    graph = key_joins.between(positions) if key_joins.joins == "rules" else {}
    edges = [(a, tables[a].columns[ca].name, b, tables[b].columns[cb].name, conf, ev)
             for a, b in joinable for ca, cb, conf, ev in graph.get((a, b), ())]
    pairs: dict[tuple[int, int], list[Key]] = {}
    for key in graph_keys(edges):  # calibrated at once
        pairs.setdefault((key.a, key.b), []).append(key)
    for a, b in joinable:
        if (a, b) not in pairs:
            keys = [_signal_key(sig, order, tables, key_joins.joins, a, b)]
            seen = {(keys[0].left, keys[0].right)}
            pairs[(a, b)] = keys + [k for k in _declared_keys(tables, a, b) if (k.left, k.right) not in seen]
    return {pair: sorted(keys, key=strength) for pair, keys in pairs.items()}


@dataclass
class ShownJoins:
    """The joins an answer shows (:func:`shown_joins`): the needed tables' trusted joins, the optional
    tables' trusted joins, the other trusted keys between joined tables, the unverified candidates
    between tables with no trusted key, and whether each selected table is joined."""

    joins: list[JoinEdge]
    optional_joins: list[JoinEdge]
    alternative_joins: list[JoinEdge]
    unverified_joins: list[JoinEdge]
    joined: np.ndarray


def shown_joins(
    question: str, sig: "Signals", order: np.ndarray, tables: list["Table"], positions: list[int],
    key_joins: KeyJoins, needed: np.ndarray,
) -> ShownJoins:
    """The joins of the spanning forest over the needed tables' trusted keys (by calibrated
    confidence), how each optional table would join the tables before it, the keys between the
    same tables (the one the question fits best printed: :func:`jar_core.output.trust.ranked`),
    and the unverified candidates: :mod:`jar_core.output.trust`."""
    pairs = _pair_keys(sig, order, tables, positions, key_joins)
    tree, unverified = key_forest(pairs, needed)
    extra = optional_keys(pairs, needed)
    comp = components(len(order), [(a, b, 0.0) for a, b in tree])
    core = np.flatnonzero(needed)
    joined = np.array([len(core) == 1 or np.count_nonzero(comp[core] == comp[i]) > 1 if needed[i] else False
                       for i in range(len(order))], dtype=bool)
    words, names = question_words(question), [t.name for t in tables]
    shown = ShownJoins([], [], [], [], joined)

    def edge(key: Key, optional: bool = False) -> JoinEdge:
        return _join_edge(key, tables, positions, key_joins, optional)

    def keys_of(a: int, b: int, optional: bool) -> JoinEdge:
        edges: list[JoinEdge] = []
        covered: set[tuple[str, str]] = set()  # the column pairs of a key of several columns shown
        for key in ranked(pairs[(a, b)], words, names):
            if (key.left, key.right) not in covered:
                edges.append(edge(key, optional))
                covered.update(edges[-1].column_pairs)
        shown.alternative_joins.extend(edges[1:])
        return edges[0]

    shown.joins.extend(keys_of(a, b, False) for a, b in tree)
    shown.unverified_joins.extend(edge(k) for k in unverified)
    for a, b, ok in extra:  # ``b``: the optional table
        lo, hi = min(a, b), max(a, b)
        if ok:
            shown.optional_joins.append(keys_of(lo, hi, True))
            joined[b] = True  # an optional table joins the answer through its own join
        else:
            key = next(k for k in pairs[(lo, hi)] if not k.trusted)
            shown.unverified_joins.append(edge(key if key.b == b else key.flipped(), True))
    return shown


def _join_edge(key: Key, tables: list["Table"], positions: list[int], key_joins: KeyJoins, optional: bool) -> JoinEdge:
    """``key`` as a :class:`JoinEdge` with every column pair of a key of several columns."""
    from jar_core.joins.declared import other_key_columns

    left, right = tables[key.a], tables[key.b]
    if key.declared:
        more = other_key_columns(left, key.left, right, key.right)
    elif key.evidence == "composite key":
        more = key_joins.composite_columns(positions[key.a], key.left, positions[key.b], key.right)
    else:
        more = ()
    return JoinEdge(left, key.left, right, key.right, key.score, key.declared, key.evidence, more,
                    key.confidence, key.trusted, optional)


def _retrieved_tables(
    schema: "Schema", sig: "Signals", sel: "Selection", tables: list["Table"], joined: np.ndarray,
    reason: Callable[..., str], n_pinned: int, needed: np.ndarray,
) -> list[RetrievedTable]:
    """The selected tables in order with their gains at the step that chose them."""
    steps: dict[int, StepGain] = {s.candidate: s for s in sel.steps}
    replaced = dict(getattr(sel, "replaced", {}) or {})
    retrieved = []
    for pos, (i, t) in enumerate(zip(sel.order, tables)):
        s = steps.get(i)
        retrieved.append(
            RetrievedTable(
                table=t, step=pos + 1, score=s.total if s else float(sig.r[i]),
                coarse=s.coarse if s else float(sig.r[i]), coverage=s.coverage if s else 0.0,
                join=s.join if s else 0.0, pinned=pos < n_pinned,
                joined=len(tables) == 1 or bool(joined[pos]), reason=reason(pos, i, s),
                needed=bool(needed[pos]),
                replaced=schema.tables[int(sig.candidates[replaced[i]])].id if i in replaced else "",
            )
        )
    return retrieved


def _trace(schema: "Schema", sig: "Signals", sel: "Selection") -> list[list[TraceEntry]]:
    """The best candidates considered at each step, the chosen one marked."""
    return [
        [
            TraceEntry(schema.tables[int(sig.candidates[g.candidate])], g.coarse, g.coverage, g.join,
                       g.total, g.candidate == sel.order[step])
            for g in step_trace
        ]
        for step, step_trace in enumerate(sel.trace)
    ]


def assemble_result(
    schema: "Schema", question: str, dec: "Decomposition", sig: "Signals", sel: "Selection", strat: Any,
    n_pinned: int, result_warnings: list[str], key_joins: KeyJoins, needed: Sequence[int] | None = None,
) -> RetrievalResult:
    """The :class:`RetrievalResult` of ``sel`` (chosen by ``strat`` over ``sig``; the first
    ``n_pinned`` tables pinned); ``key_joins`` holds the retriever's join settings; ``needed``:
    the candidates the question needs (``k="auto"``'s choice; default: every selected one)."""
    weights = (getattr(strat, "l_coarse", 1.0), getattr(strat, "l_cov", 0.0), getattr(strat, "l_join", 0.0))
    positions = [int(sig.candidates[i]) for i in sel.order]
    tables = [schema.tables[i] for i in positions]
    mask = needed_mask(sel.order, needed, n_pinned)
    shown = shown_joins(question, sig, np.array(sel.order, dtype=np.int64), tables, positions, key_joins, mask)
    retrieved = _retrieved_tables(schema, sig, sel, tables, shown.joined, _reason(sel, weights, n_pinned), n_pinned,
                                  mask)
    cov = sel.coverage if sel.coverage is not None else np.zeros(len(sig.subqueries))
    return RetrievalResult(
        question=question, tables=retrieved, joins=shown.joins, subqueries=list(dec.subqueries),
        decomposer=dec.source, coverage={q: float(v) for q, v in zip(sig.subqueries, cov)},
        trace=_trace(schema, sig, sel), strategy=strat.name, candidates=sig.n, warnings=result_warnings,
        dialect=schema.dialect, value_matches=[m.to_dict(schema) for m in sig.value_matches],
        self_joins=[e for i in sel.order for e in key_joins.self_joins(int(sig.candidates[i]))],
        optional_joins=shown.optional_joins, alternative_joins=shown.alternative_joins,
        unverified_joins=shown.unverified_joins,
    )


def needed_mask(order: Sequence[int], needed: Sequence[int] | None, n_pinned: int = 0) -> np.ndarray:
    """Which of the selected candidates ``order`` the question needs: those in ``needed`` and the
    pinned ones (every one without ``needed``; the first one when ``needed`` holds none of them)."""
    if needed is None:
        return np.ones(len(order), dtype=bool)
    keep = {int(i) for i in needed}
    mask = np.array([int(i) in keep or pos < n_pinned for pos, i in enumerate(order)], dtype=bool)
    if len(mask) and not mask.any():
        mask[0] = True
    return mask
