"""What a retrieval returns: :class:`RetrievalResult`, the selected tables in order, their gains,
the join edges and a trace (METHOD.md, "Output"); the parts are in :mod:`jar_core.output.tables`."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jar_core.names import one_line
from jar_core.output.diagram import to_dot, to_mermaid
from jar_core.output.sql import join_clause
from jar_core.output.tables import UNCERTAIN_BELOW, JoinEdge, RetrievedTable, TraceEntry, join_note

__all__ = ["RetrievedTable", "JoinEdge", "TraceEntry", "RetrievalResult", "UNCERTAIN_BELOW", "join_note", "one_line"]


@dataclass
class RetrievalResult:
    """The answer to one question: tables in selection order, join edges, coverage and trace.

    ``value_matches`` lists the question's spans found among the columns' sample values
    (``{"span", "value", "table", "column", "exact", "hint"}``; ``hint``: not a value found
    but a year or a trade word pointing to a date or an amount column). ``self_joins`` are the
    selected tables' joins to themselves (``Employee.ReportsTo = Employee.EmployeeId``: the
    table joined to itself under another alias), declared or inferred.

    ``joins`` connect the needed tables only (:attr:`needed`, the joined core ``k="auto"`` stops
    at); ``optional_joins`` say how each optional table (an extra a larger k added) would join the
    tables before it, and are never part of the join path. Both hold trusted joins only (declared,
    or calibrated to at least :func:`~jar_core.joins.calibration.trust_threshold`).
    ``alternative_joins`` are the other trusted keys between two tables of ``joins`` or
    ``optional_joins`` (a department and its head physician: ``head_physician_id`` and
    ``department_id``), the one the question fits best first; of each pair, the one the question
    fits best is the one in ``joins``. ``unverified_joins`` say where two tables have no known key:
    the best untrusted candidate between two groups of needed tables no trusted join connects
    (``optional`` set where it would join an optional table), never part of the join path.
    """

    question: str
    tables: list[RetrievedTable]
    joins: list[JoinEdge]
    subqueries: list[str] = field(default_factory=list)
    decomposer: str = ""
    coverage: dict[str, float] = field(default_factory=dict)
    trace: list[list[TraceEntry]] = field(default_factory=list)
    strategy: str = "greedy"
    candidates: int = 0
    warnings: list[str] = field(default_factory=list)
    dialect: str | None = None
    value_matches: list[dict[str, Any]] = field(default_factory=list)
    k: int | str | None = None  # the K asked for: a number or "auto" (then len(tables) is the chosen size)
    self_joins: list[JoinEdge] = field(default_factory=list)
    optional_joins: list[JoinEdge] = field(default_factory=list)
    alternative_joins: list[JoinEdge] = field(default_factory=list)
    unverified_joins: list[JoinEdge] = field(default_factory=list)

    @property
    def table_names(self) -> list[str]:
        """Selected table names, in selection order."""
        return [t.name for t in self.tables]

    @property
    def table_ids(self) -> list[str]:
        """Selected ``db.table`` ids, in selection order."""
        return [t.id for t in self.tables]

    @property
    def needed(self) -> list[str]:
        """Ids of the tables the question needs (the joined core ``k="auto"`` stops at), in order."""
        return [t.id for t in self.tables if t.needed]

    @property
    def optional(self) -> list[str]:
        """Ids of the optional tables: extras a larger k added beyond the needed ones, in order."""
        return [t.id for t in self.tables if not t.needed]

    @property
    def unjoined(self) -> list[str]:
        """Ids of selected tables with no join to the rest of the selection."""
        return [t.id for t in self.tables if not t.joined]

    def alternative_to(self, edge: JoinEdge) -> JoinEdge | None:
        """The join of :attr:`joins` or :attr:`optional_joins` between the same two tables as
        ``edge`` (one of :attr:`alternative_joins`), if any."""
        pair = {edge.left_table.id, edge.right_table.id}
        return next((j for j in [*self.joins, *self.optional_joins] if {j.left_table.id, j.right_table.id} == pair),
                    None)

    def join_clause(self, dialect: str | None = None) -> str:
        """A ``FROM a JOIN b ON ... JOIN c ON ...`` hint connecting the needed tables (the
        optional ones follow as a comment saying how they would join).

        Identifiers are quoted for ``dialect`` (default: the source's) with sqlglot; tables
        without a join are listed at the end as a comment.
        """
        return join_clause(self, dialect or self.dialect)

    def to_mermaid(self) -> str:
        """A Mermaid flowchart of the selected tables, their join columns, declared (solid) and
        inferred (dotted) joins and bridge tables (dashed): :func:`jar_core.output.diagram.to_mermaid`."""
        return to_mermaid(self)

    def to_dot(self) -> str:
        """The same picture in Graphviz DOT: :func:`jar_core.output.diagram.to_dot`."""
        return to_dot(self)

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "tables": [t.to_dict() for t in self.tables],
            "joins": [j.to_dict() for j in self.joins],
            "self_joins": [j.to_dict() for j in self.self_joins],
            "needed": self.needed,
            "optional": self.optional,
            "optional_joins": [j.to_dict() for j in self.optional_joins],
            "alternative_joins": [self._alternative_dict(j) for j in self.alternative_joins],
            "unverified_joins": [j.to_dict() for j in self.unverified_joins],
            "subqueries": list(self.subqueries),
            "decomposer": self.decomposer,
            "coverage": {k: round(v, 6) for k, v in self.coverage.items()},
            "strategy": self.strategy,
            "k": self.k,
            "candidates": self.candidates,
            "unjoined": self.unjoined,
            "warnings": list(self.warnings),
            "value_matches": [dict(m) for m in self.value_matches],
        }

    def _alternative_dict(self, edge: JoinEdge) -> dict[str, Any]:
        """``edge.to_dict()`` with ``alternative_to``: the join it is an alternative to (``a.x = b.y``)."""
        chosen = self.alternative_to(edge)
        return {**edge.to_dict(), "alternative_to": str(chosen) if chosen is not None else ""}

    def __len__(self) -> int:
        return len(self.tables)
