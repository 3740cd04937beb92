"""Candidate generation: the top-N tables by coarse relevance (the first stage).

A :class:`CandidateGenerator` takes the question's vector and returns the ``n`` tables most
similar to it among the allowed ones (a database filter, the exclusions), best first, with their
cosine similarity. The default, :class:`BruteForceCandidates`, scores every allowed table with
one matrix-vector product over the index's table vectors; an approximate vector index or an
external vector store can take its place for very large corpora.

Nothing downstream reads the relevance of the other tables: the search, expansion and value
matching score the tables they look at from the index's vectors.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["CandidateGenerator", "BruteForceCandidates", "exact_top", "exact_scores"]


@runtime_checkable
class CandidateGenerator(Protocol):
    """The first stage of retrieval.

    ``search`` returns ``(positions, scores)``: up to ``n`` table positions (in
    ``index.schema.tables``) among those where ``allowed`` is True, best first, and their cosine
    similarity to ``query`` (a unit vector). Ties are broken by the lower position. A generator
    may return fewer than ``n`` only when fewer tables are allowed.
    """

    def search(
        self, index: "SchemaIndex", query: np.ndarray, n: int, allowed: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        ...


def exact_top(scores: np.ndarray, positions: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` best of ``positions`` by ``scores`` (aligned with ``positions``), best first,
    ties by the lower position: ``(positions, scores)``."""
    positions = np.asarray(positions, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.float32)
    if n <= 0 or len(positions) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    if n < len(positions):
        part = np.argpartition(-scores, n - 1)[:n]
        # every position scoring the n-th score may tie: keep them all, then break ties by position
        cut = scores[part].min()
        part = np.flatnonzero(scores >= cut)
        positions, scores = positions[part], scores[part]
    order = np.lexsort((positions, -scores))[:n]
    return positions[order], scores[order]


def exact_scores(index: "SchemaIndex", query: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(positions, scores)`` of every allowed table: one product of ``query`` with their vectors."""
    if allowed.all():
        return np.arange(len(index.table_vectors)), index.table_vectors @ query
    pos = np.flatnonzero(allowed)
    return pos, index.table_vectors[pos] @ query


class BruteForceCandidates:
    """Exact top-N: one product of the query with the allowed tables' vectors."""

    def search(
        self, index: "SchemaIndex", query: np.ndarray, n: int, allowed: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        pos, scores = exact_scores(index, query, allowed)
        return exact_top(scores, pos, n)

    def __repr__(self) -> str:
        return "BruteForceCandidates()"
