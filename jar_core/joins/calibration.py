"""Confidence that means what it says: the rules' scores mapped to how often such a join is right.

The join rules score a join by hand-set constants (a same-name reference 0.97, two siblings 0.55,
a tie 0.74). :func:`calibrated` maps a rule's score to the share of such joins that were right
when the library printed them on the development suite's schemas without keys (docs/suite.md),
judged against the declared keys and the gold SQL's join conditions: a monotone (isotonic) fit
per rule of evidence over its scores, saved in ``jar_core/data/join_calibration.json`` by
``scripts/suite/calibrate_joins.py``. A declared foreign key is 1.

A join whose calibrated confidence is below :data:`TRUST_THRESHOLD` is not shown as a join key
(:func:`trusted`): the answer says the two tables have no known key and lists the columns as
unverified candidates. The search still uses every join above ``min_join_score`` to find
bridge tables; what a model is shown is only what the library trusts.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["apply_fit", "calibrated", "calibrated_matrix", "trusted", "trusted_confidence", "trust_threshold", "TRUST_THRESHOLD", "calibration_table",
           "SEARCH_ONLY"]

_DATA = Path(__file__).resolve().parents[1] / "data" / "join_calibration.json"


@lru_cache(maxsize=1)
def calibration_table() -> dict[str, Any]:
    """The saved fit: ``{"threshold": t, "evidence": {rule: {"score": [...], "right": [...]}},
    "pooled": {...}}`` (breakpoints of each rule's monotone map)."""
    with open(_DATA, encoding="utf-8") as fh:
        return json.load(fh)


def trust_threshold() -> float:
    """A join shown as a join key has a calibrated confidence of at least this (the saved fit's
    threshold, 0.5: more likely right than wrong)."""
    return float(calibration_table()["threshold"])


#: :func:`trust_threshold` when this module was imported (for documentation; the functions read the table).
TRUST_THRESHOLD: float = trust_threshold()


def _points(fit: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    return np.asarray(fit["score"], dtype=np.float64), np.asarray(fit["right"], dtype=np.float64)


def apply_fit(scores: np.ndarray, evidence: str, table: dict[str, Any] | None = None) -> np.ndarray:
    """The calibrated confidences of joins of rule ``evidence`` scoring ``scores``, by the fit
    ``table`` (:func:`calibration_table`'s layout; default the saved fit): 1 for ``declared``, the
    scores themselves for the paper's pair ``score``; else the rule's monotone map (the pooled
    one where the rule had too few joins to fit), flat beyond its highest score. Below the rule's
    lowest score, where its joins never scored so low, the pooled fit at that score, no more than
    the rule's lowest value; below every score the fit saw, the score times the threshold: a join
    the calibration knows nothing of is not trusted (a flat extension showed Spider's
    ``Engineer_Skills.skill_id = Skills.skill_code``, an entity join of 0.54 below the rule's 0.55,
    at 0.99)."""
    table = calibration_table() if table is None else table
    scores = np.asarray(scores, dtype=np.float64)
    if evidence == "declared":
        return np.ones_like(scores)
    fit = table["evidence"].get(evidence) or (table["pooled"] if evidence != "score" else None)
    if fit is None:
        return scores.copy()
    x, y = _points(fit)
    out = np.interp(scores, x, y)
    below = scores < x[0] - 1e-9
    if below.any():
        px, py = _points(table["pooled"])
        known = below & (scores >= px[0] - 1e-9)
        out = np.where(known, np.minimum(np.interp(scores, px, py), y[0]), out)
        out = np.where(below & ~known, scores * float(table["threshold"]), out)
    return out


def calibrated(score: float, evidence: str) -> float:
    """The calibrated confidence of a join of the rules' ``score`` found by ``evidence``
    (a name of :data:`jar_core.joins.edges.EVIDENCE`), by the saved fit (:func:`apply_fit`)."""
    return float(apply_fit(np.asarray([score]), evidence)[0])


def calibrated_matrix(w: np.ndarray, evidence: np.ndarray | None) -> np.ndarray:
    """:func:`calibrated` of every join of a candidate set (``w`` and its ``evidence`` indices into
    :data:`~jar_core.joins.edges.EVIDENCE`, ``-1`` where none); 0 where ``w`` is 0."""
    from jar_core.joins.edges import EVIDENCE

    w = np.asarray(w, dtype=np.float64)
    if evidence is None:
        return w.copy()
    out = np.zeros_like(w)
    for code in np.unique(evidence[w > 0]).tolist():
        m = (evidence == code) & (w > 0)
        out[m] = apply_fit(w[m], EVIDENCE[code] if code >= 0 else "score")
    return out


def trusted(score: float, evidence: str) -> bool:
    """Whether a join is shown as a join key: declared, or calibrated to at least
    :func:`trust_threshold` (the paper's pair scores are shown as they are)."""
    return trusted_confidence(calibrated(score, evidence), evidence)


#: Evidence the search may use but a model is never shown as a key: two references of one key
#: named apart (:mod:`jar_core.joins.through`), right 54% of the time over the development suite
#: and from 0% to 65% benchmark by benchmark; two keys of one name in a database nothing else
#: joins (:mod:`jar_core.joins.alike`), which may be two unrelated surrogate keys. Shown as an
#: unverified candidate where no key is known.
SEARCH_ONLY = frozenset({"sibling apart", "names alike"})


def trusted_confidence(confidence: float, evidence: str) -> bool:
    """:func:`trusted` of a join whose calibrated ``confidence`` is known already (never for
    :data:`SEARCH_ONLY` evidence)."""
    if evidence in SEARCH_ONLY:
        return False
    return evidence in ("declared", "score") or confidence >= trust_threshold()
