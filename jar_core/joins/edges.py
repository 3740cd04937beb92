"""Edges of the join graph while the rules build it: ``(f, k, confidence, evidence)`` arrays,
``f`` the referencing column and ``k`` the key (METHOD.md, the join graph), and their evidence
names.

Every rule of :mod:`.graph`'s pipeline takes and gives such arrays; :data:`EVIDENCE` names each
rule's evidence in the order the saved graphs index it (never reorder it).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jar_core.joins.naming import RULES
from jar_core.joins.profile import ColumnProfile

__all__ = ["JoinGraph", "EVIDENCE", "best_per_pair", "first_of", "class_code"]


#: Evidence names, indexed by :attr:`JoinGraph.evidence`.
EVIDENCE = ("declared", *RULES, "inclusion", "composite key", "copy")


@dataclass(eq=False)  # compared by identity: a graph keys the caches of the stages that read it
class JoinGraph:
    """Joining column pairs ``a[e] = b[e]`` (global column positions, ``a`` the referencing side),
    sorted by decreasing confidence; ``table_a`` / ``table_b`` their tables."""

    a: np.ndarray
    b: np.ndarray
    confidence: np.ndarray
    evidence: np.ndarray  # index into EVIDENCE
    table_a: np.ndarray
    table_b: np.ndarray

    @property
    def declared(self) -> np.ndarray:
        return self.evidence == 0

    def __len__(self) -> int:
        return int(self.a.shape[0])


def best_per_pair(f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray) -> tuple[np.ndarray, ...]:
    lo, hi = np.minimum(f, k), np.maximum(f, k)
    order = np.lexsort((ev, -conf, hi, lo))
    f, k, conf, ev, lo, hi = f[order], k[order], conf[order], ev[order], lo[order], hi[order]
    first = np.ones(len(f), dtype=bool)
    first[1:] = (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
    return f[first], k[first], conf[first], ev[first]


def first_of(values: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each distinct value of ``values``."""
    return np.unique(values, return_index=True)[1]


def class_code(p: ColumnProfile, name: str) -> int | None:
    return p.class_codes.get(name)
