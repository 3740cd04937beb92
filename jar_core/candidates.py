"""Candidate generation: the top-N tables by coarse relevance.

The default, :class:`BruteForceCandidates`, scores every table with one matrix-vector
product; a vector index (FAISS, a vector database) can replace it for very large corpora by
implementing :class:`CandidateGenerator`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index import SchemaIndex

__all__ = ["CandidateGenerator", "BruteForceCandidates"]


@runtime_checkable
class CandidateGenerator(Protocol):
    """Returns up to ``n`` table positions, best first, among those where ``allowed`` is True."""

    def top(self, index: "SchemaIndex", scores: np.ndarray, n: int, allowed: np.ndarray) -> np.ndarray:
        ...


class BruteForceCandidates:
    """Exact top-N over all tables by the given scores (ties: lower table position first)."""

    def top(self, index: "SchemaIndex", scores: np.ndarray, n: int, allowed: np.ndarray) -> np.ndarray:
        pos = np.flatnonzero(allowed)
        if n < len(pos):
            part = np.argpartition(-scores[pos], n - 1)[:n]
            pos = np.sort(pos[part])
        order = np.lexsort((pos, -scores[pos]))
        return pos[order]
