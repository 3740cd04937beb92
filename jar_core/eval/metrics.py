"""Retrieval metrics (METHOD.md, "Metrics").

* :func:`recall`: ``|pred ∩ gold| / |gold|`` as a fraction in [0, 1];
* :func:`complete`: whether ``gold ⊆ pred``;
* :func:`aggregate`: over questions, with each prediction truncated to its first ``k``
  entries, the mean recall and the share of complete questions, both in percent.

Predictions are compared as sets: a table predicted twice counts once. Table names are
compared exactly (resolve case before, e.g. with :func:`jar_core.eval.gold.extract_gold_tables`
and its ``tables`` argument). An empty gold set is an error: the metrics are defined only on
questions with gold tables (the benchmarks use those with two or more).
"""

from __future__ import annotations

from typing import Collection, Sequence

import numpy as np

from jar_core.errors import InvalidArgumentError

__all__ = ["recall", "complete", "aggregate", "join_counts", "join_scores"]


def _gold_set(gold: Collection[str]) -> set[str]:
    g = set(gold)
    if not g:
        raise InvalidArgumentError("gold set is empty: recall is undefined")
    return g


def recall(pred: Sequence[str], gold: Collection[str]) -> float:
    """Fraction of the gold tables found in ``pred`` (``|pred ∩ gold| / |gold|``)."""
    g = _gold_set(gold)
    return len(g.intersection(pred)) / len(g)


def complete(pred: Sequence[str], gold: Collection[str]) -> bool:
    """True when every gold table is in ``pred``."""
    return _gold_set(gold).issubset(pred)


def aggregate(
    preds: Sequence[Sequence[str]],
    golds: Sequence[Collection[str]],
    k: int,
) -> tuple[float, float]:
    """(Recall %, Complete Recall %) at ``k`` over aligned predictions and gold sets.

    Each prediction is truncated to its first ``k`` entries. With no questions the result is
    ``(0.0, 0.0)``.

    Raises:
        InvalidArgumentError: ``k < 1``, ``preds`` and ``golds`` of different lengths, or an
            empty gold set.
    """
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise InvalidArgumentError(f"k must be a positive integer, got {k!r}")
    if len(preds) != len(golds):
        raise InvalidArgumentError(
            f"{len(preds)} predictions but {len(golds)} gold sets"
        )
    if len(preds) == 0:
        return 0.0, 0.0
    hits = np.empty(len(preds), dtype=np.float64)
    sizes = np.empty(len(preds), dtype=np.float64)
    for q, (pred, gold) in enumerate(zip(preds, golds)):
        g = _gold_set(gold)
        hits[q] = len(g.intersection(list(pred)[: int(k)]))
        sizes[q] = len(g)
    per_question = hits / sizes
    return float(100.0 * per_question.mean()), float(100.0 * (hits == sizes).mean())


def join_counts(
    edges: Collection[tuple[tuple[str, str], tuple[str, str]]],
    gold_joins: Collection[tuple[tuple[str, str], tuple[str, str]]],
    pred_tables: Collection[str],
    gold_tables: Collection[str],
) -> tuple[int, int, int, int]:
    """Counts behind join precision and recall for one question.

    ``edges`` and ``gold_joins`` hold ``((table, column), (table, column))`` pairs (any order of
    the two ends). Returns ``(correct, judged, found, reachable)``: of the returned edges whose
    two tables are both gold (``judged``), those that are a gold join (``correct``); of the gold
    joins whose two tables were both returned (``reachable``), those among the edges (``found``).
    """
    gold = {frozenset(j) for j in gold_joins}
    got = {frozenset(e) for e in edges}
    gt = set(gold_tables)
    pt = set(pred_tables)
    judged = [e for e in got if all(t in gt for t, _ in e)]
    reachable = [j for j in gold if all(t in pt for t, _ in j)]
    return (
        sum(1 for e in judged if e in gold), len(judged),
        sum(1 for j in reachable if j in got), len(reachable),
    )


def join_scores(counts: Sequence[tuple[int, int, int, int]]) -> tuple[float | None, float | None]:
    """Micro-averaged (join precision %, join recall %) over questions' :func:`join_counts`.

    ``None`` where nothing was judged (no returned edge between gold tables / no reachable gold join).
    """
    c = np.asarray(counts, dtype=np.int64).reshape(-1, 4).sum(axis=0)
    prec = float(100.0 * c[0] / c[1]) if c[1] else None
    rec = float(100.0 * c[2] / c[3]) if c[3] else None
    return prec, rec
