"""The parts of a retrieval's answer: a selected table with its gains, a join edge between two
selected tables, a step of the trace (METHOD.md, "Output").

The lowest module of :mod:`jar_core.output`: the result (:mod:`jar_core.output.result`), the
pictures (:mod:`jar_core.output.diagram`) and the join clause (:mod:`jar_core.output.sql`) read
these; this module reads none of them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from jar_core.names import one_line
from jar_core.schema import Table

__all__ = ["RetrievedTable", "JoinEdge", "TraceEntry", "JoinedTables", "UNCERTAIN_BELOW", "join_note"]

#: An inferred join below this confidence is marked *uncertain* wherever it is shown: a reference
#: tied between several keys (0.74), siblings (0.70-0.72) and siblings through a key (0.55), a
#: join found by values alone (0.6-0.7). The direct name rules are at or above it.
UNCERTAIN_BELOW = 0.75


def join_note(declared: bool, evidence: str, confidence: float) -> str:
    """``"declared"``, ``"inferred: same name, 0.97"`` or ``"inferred: sibling, 0.55, uncertain"``."""
    if declared:
        return "declared"
    note = f"inferred: {evidence or 'score'}, {confidence:.2f}"
    return note + ", uncertain" if confidence < UNCERTAIN_BELOW else note


@dataclass(frozen=True)
class RetrievedTable:
    """One selected table. ``step`` is its 1-based selection step; ``score`` the utility it won with.

    ``coarse`` / ``coverage`` / ``join`` are the unweighted gain components at that step
    (``r_i``, marginal coverage gain, join gain); ``pinned`` marks tables given with ``include=``;
    ``joined`` is False when the table has no join to the rest of the selection; ``reason`` why
    it is there: ``relevance``, ``coverage`` or ``join`` (the largest weighted gain when it was
    chosen), ``bridge`` (added only to connect the others), ``reference`` (``k="auto"``: a chosen
    table refers to it for a sub-query it answers better, ``film_actor`` -> ``actor``), ``near copy``
    (in place of ``replaced``, a table of nearly the same columns the search had chosen, because
    it joins the others more surely: :func:`jar_core.strategies.near_copies.prefer_joined`) or ``pinned``.
    ``needed``: the table is among those the question needs (the joined core ``k="auto"`` stops
    at, :mod:`jar_core.strategies.auto_k`); an optional one (False) is an extra a larger k added.
    """

    table: Table
    step: int
    score: float
    coarse: float
    coverage: float
    join: float
    pinned: bool = False
    joined: bool = True
    reason: str = ""
    replaced: str = ""  # id of the near copy this table replaced (reason ``near copy``)
    needed: bool = True  # among the joined core k="auto" stops at; False: an extra a larger k added

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def database(self) -> str:
        return self.table.database

    @property
    def id(self) -> str:
        return self.table.id

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.table.name,
            "database": self.table.database,
            "id": self.table.id,
            "step": self.step,
            "score": round(self.score, 6),
            "coarse": round(self.coarse, 6),
            "coverage": round(self.coverage, 6),
            "join": round(self.join, 6),
            "pinned": self.pinned,
            "joined": self.joined,
            "reason": self.reason,
            "replaced": self.replaced,
            "needed": self.needed,
        }


@dataclass(frozen=True)
class JoinEdge:
    """A join between two selected tables: ``left_table.left_column = right_table.right_column``.

    ``score`` is the rule's own score in [0, 1] (1 for a declared foreign key); ``confidence`` the
    calibrated one, how often such a join is right (``calibrated``:
    :func:`jar_core.joins.calibration.calibrated`; ``score`` itself under the paper's pair score
    and where not given); ``trusted`` whether it is
    shown as a join key (declared, or calibrated to at least the trust threshold: an untrusted one
    is only ever an unverified candidate, :attr:`RetrievalResult.unverified_joins`); ``optional``
    a join of an optional table. ``declared`` whether the source declares it; ``evidence`` the rule
    that found it (``declared``, ``same name``, ``entity``, ``role``, ``abbreviation``,
    ``sibling``, ``self``, ``person``, ``inclusion``, ``composite key``, ``copy``, ``sibling apart``
    (never trusted: an unverified candidate only); ``score`` under
    the paper's pair score). A key of several columns (declared, or inferred by the
    ``composite key`` rule) joins on all of them: ``more_columns`` holds its other ``(left, right)``
    column pairs (``lineitem`` to ``partsupp`` on part *and* supplier), and :attr:`column_pairs`
    all of them.
    """

    left_table: Table
    left_column: str
    right_table: Table
    right_column: str
    score: float
    declared: bool = False
    evidence: str = ""
    more_columns: tuple[tuple[str, str], ...] = ()
    calibrated: float | None = None  # the calibrated confidence; None: ``score`` itself
    trusted: bool = True
    optional: bool = False

    @property
    def confidence(self) -> float:
        """The calibrated confidence (:attr:`calibrated`; :attr:`score` where none was given)."""
        return float(self.score if self.calibrated is None else self.calibrated)

    @property
    def column_pairs(self) -> list[tuple[str, str]]:
        """Every ``(left column, right column)`` pair the join equates, the first one first."""
        return [(self.left_column, self.right_column), *self.more_columns]

    @property
    def kind(self) -> str:
        """``"declared"`` or ``"inferred"``."""
        return "declared" if self.declared else "inferred"

    @property
    def left(self) -> str:
        """``table.column`` of the first column pair's left side."""
        return f"{self.left_table.name}.{self.left_column}"

    @property
    def right(self) -> str:
        """``table.column`` of the first column pair's right side."""
        return f"{self.right_table.name}.{self.right_column}"

    def __str__(self) -> str:
        """``a.x = b.y AND ...`` on one line (control characters in names escaped: :func:`one_line`)."""
        lt, rt = self.left_table.name, self.right_table.name
        return one_line(" AND ".join(f"{lt}.{a} = {rt}.{b}" for a, b in self.column_pairs))

    @property
    def uncertain(self) -> bool:
        """An inferred join calibrated below :data:`UNCERTAIN_BELOW`: names or values do not settle it."""
        return not self.declared and self.confidence < UNCERTAIN_BELOW

    def describe(self) -> str:
        """``"a.x = b.y"`` for a declared key, ``"a.x = b.y (inferred: same name, 0.95)"`` otherwise
        (the calibrated confidence; ``", uncertain"`` added below :data:`UNCERTAIN_BELOW`)."""
        if self.declared:
            return str(self)
        return f"{self} ({join_note(False, self.evidence, self.confidence)})"

    def unverified_note(self) -> str:
        """What an untrusted join says: ``no known key between `a` and `b` (unverified candidate:
        a.x = b.y, confidence 0.31)`` (``; `b` is optional`` for an optional table's), on one line."""
        tail = ""
        if self.optional:
            tail = f"; `{self.right_table.name}` is optional"
        return one_line(f"no known key between `{self.left_table.name}` and `{self.right_table.name}` "
                        f"(unverified candidate: {self}, confidence {self.confidence:.2f}{tail})")

    def to_dict(self) -> dict[str, Any]:
        return {
            "left": self.left,
            "right": self.right,
            "columns": [list(p) for p in self.column_pairs],
            "score": round(self.score, 6),
            "confidence": round(self.confidence, 6),
            "trusted": self.trusted,
            "kind": self.kind,
            "evidence": self.evidence,
            "declared": self.declared,
            "uncertain": self.uncertain,
            "optional": self.optional,
            "left_table": self.left_table.id,
            "right_table": self.right_table.id,
        }


@dataclass(frozen=True)
class TraceEntry:
    """A candidate considered at a step, with its gain components and weighted total."""

    table: Table
    coarse: float
    coverage: float
    join: float
    total: float
    chosen: bool


class JoinedTables(Protocol):
    """What the pictures and the join clause read of a result (a
    :class:`~jar_core.output.result.RetrievalResult` is one): the question, the selected tables
    in order, their joins and their joins to themselves (the unverified candidates and the other
    keys between joined tables are read where present)."""

    question: str
    tables: list[RetrievedTable]
    joins: list[JoinEdge]
    self_joins: list[JoinEdge]
