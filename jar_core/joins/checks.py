"""The name matches and value inclusions of a set of column pairs, judged by rules 3 and 4 of the
join graph (METHOD.md, the join graph): the candidate edges that :mod:`.graph` (within databases)
and :mod:`.across` (across them) go on from.
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.edges import EVIDENCE
from jar_core.joins.profile import ColumnProfile
from jar_core.joins.types import types
from jar_core.joins.value_support import value_support

__all__ = ["checked"]


def checked(
    p: ColumnProfile, nf: np.ndarray, nk: np.ndarray, nconf: np.ndarray, nrule: np.ndarray,
    vf: np.ndarray, vk: np.ndarray, vconf: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The name matches ``(nf, nk, nconf, nrule)`` and value inclusions ``(vf, vk, vconf)`` with
    the samples' and the types' say (rules 3 and 4), less declared references and pairs inside
    one table: ``(f, k, confidence, evidence)``, every database pair kept."""
    nev = nrule + 1  # EVIDENCE[0] is "declared"
    f = np.concatenate([nf, vf]).astype(np.int64)
    k = np.concatenate([nk, vk]).astype(np.int64)
    conf = np.concatenate([nconf, vconf]).astype(np.float64)
    ev = np.concatenate([nev, np.full(len(vf), EVIDENCE.index("inclusion"))]).astype(np.int64)
    conf = value_support(p, f, k, conf, ev)
    conf = types(p, f, k, conf)
    # declared references; nothing inside one table but a self-reference (``ReportsTo``) and a
    # person's role in the table of people (``People.LastEditedBy``)
    inside = (p.table[f] == p.table[k]) & (ev != EVIDENCE.index("self")) & (ev != EVIDENCE.index("person"))
    ok = (conf > 0) & ~inside & ~p.fk_from[f] & ~p.fk_from[k]
    return f[ok], k[ok], conf[ok], ev[ok]
