"""A :class:`~jar_core.output.result.RetrievalResult` from a strategy's
:class:`~jar_core.strategies.base.Selection` (METHOD.md, "Output": the selected tables in order
with their gains, the join tree among them, the step trace).

* :func:`assemble_result`: the tables with why each is there, the joins of the spanning forest
  over the selection (their rule and every column pair of a key of several columns), the trace,
  the coverage of each sub-query, the value matches and the tables' joins to themselves;
* :func:`match_warnings`: what a caller should know when nothing in the source matches;
* :class:`KeyJoins`: the join graph's joins of a table to itself and the column pairs of the
  inferred references to composite keys, read once per retriever.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from jar_core.joins.path import components, join_tree
from jar_core.output.result import RetrievalResult
from jar_core.output.tables import JoinEdge, RetrievedTable, TraceEntry

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.decompose.heuristic import Decomposition
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.schema import Schema, Table
    from jar_core.signals.matrices import Signals
    from jar_core.strategies.base import Selection, StepGain

__all__ = ["NO_MATCH", "KeyJoins", "assemble_result", "match_warnings", "needed_mask"]

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
    """The joins the spanning forest of a selection does not hold: a table's joins to itself and
    the other column pairs of an inferred reference to a key of several columns, both read from
    the index's join graph once (``index``: called at first use, the retriever's lazily built
    index)."""

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


def _edge(
    sig: "Signals", order: np.ndarray, tables: list["Table"], positions: list[int], key_joins: KeyJoins,
    a: int, b: int, score: float,
) -> JoinEdge:
    """The join between the ``a``-th and ``b``-th selected tables (its rule and every column pair of
    a key of several columns)."""
    from jar_core.joins.declared import other_key_columns
    from jar_core.joins.graph import EVIDENCE

    ca, cb = sig.join_columns[order[a], order[b]]
    declared = bool(sig.declared[order[a], order[b]]) if sig.declared is not None else False
    ev = int(sig.evidence[order[a], order[b]]) if sig.evidence is not None else -1
    evidence = EVIDENCE[ev] if key_joins.joins == "rules" and ev >= 0 else ("declared" if declared else "score")
    left, right = tables[a].columns[int(ca)].name, tables[b].columns[int(cb)].name
    if declared:
        more = other_key_columns(tables[a], left, tables[b], right)
    elif evidence == "composite key":
        more = key_joins.composite_columns(positions[a], left, positions[b], right)
    else:
        more = ()
    return JoinEdge(tables[a], left, tables[b], right, score, declared, evidence, more)


def _optional_edges(
    sig: "Signals", order: np.ndarray, needed: np.ndarray, min_score: float,
) -> list[tuple[int, int, float]]:
    """How each optional table (``~needed``) would join the tables before it in the answer: its
    strongest join at or above ``min_score`` to a needed table or an earlier optional one, as
    ``(a, b, w)`` between positions of ``order`` (none for a table that joins none of them)."""
    w = sig.w[np.ix_(order, order)]
    before, out = needed.copy(), []
    for b in np.flatnonzero(~needed).tolist():
        cands = np.flatnonzero(before & (w[b] >= max(min_score, 1e-12)))
        if len(cands):
            a = int(cands[np.argmax(w[b, cands])])
            out.append((min(a, b), max(a, b), float(w[b, a])))
        before[b] = True
    return out


def _joins(
    sig: "Signals", order: np.ndarray, tables: list["Table"], positions: list[int], key_joins: KeyJoins,
    needed: np.ndarray,
) -> tuple[list[JoinEdge], list[JoinEdge], np.ndarray]:
    """The join edges of the spanning forest over the needed tables, how each optional table would
    join the tables before it, and whether each selected table joins the others."""
    core = np.flatnonzero(needed)
    edges = [(int(core[a]), int(core[b]), s) for a, b, s in
             join_tree(sig.w, order[core], key_joins.min_join_score, evidence=sig.evidence)]
    extra = _optional_edges(sig, order, needed, key_joins.min_join_score)
    comp = components(len(order), edges)
    joined = np.array([len(core) == 1 or np.count_nonzero(comp[core] == comp[i]) > 1 if needed[i] else False
                       for i in range(len(order))], dtype=bool)
    for e in extra:  # an optional table joins the answer through its own join
        joined[[i for i in e[:2] if not needed[i]]] = True

    def edge(e: tuple[int, int, float]) -> JoinEdge:
        return _edge(sig, order, tables, positions, key_joins, *e)

    return [edge(e) for e in edges], [edge(e) for e in extra], joined


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
    joins, optional_joins, joined = _joins(sig, np.array(sel.order, dtype=np.int64), tables, positions, key_joins,
                                           mask)
    retrieved = _retrieved_tables(schema, sig, sel, tables, joined, _reason(sel, weights, n_pinned), n_pinned,
                                  mask)
    cov = sel.coverage if sel.coverage is not None else np.zeros(len(sig.subqueries))
    return RetrievalResult(
        question=question, tables=retrieved, joins=joins, subqueries=list(dec.subqueries),
        decomposer=dec.source, coverage={q: float(v) for q, v in zip(sig.subqueries, cov)},
        trace=_trace(schema, sig, sel), strategy=strat.name, candidates=sig.n, warnings=result_warnings,
        dialect=schema.dialect, value_matches=[m.to_dict(schema) for m in sig.value_matches],
        self_joins=[e for i in sel.order for e in key_joins.self_joins(int(sig.candidates[i]))],
        optional_joins=optional_joins,
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
