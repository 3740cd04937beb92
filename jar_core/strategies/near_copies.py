"""After the search: a chosen table's near copy that joins the rest more surely takes its place
(ours; not in METHOD.md).

Two near copies (:mod:`jar_core.signals.near_copies`: one database, nearly the same columns) are
close to a coin toss when the search chooses between them, before the rest of the answer is
known. Once the rest is chosen, one of the two may join it more surely (``TERM_CODE`` of one is
the terms table's key by its very name, the other's is ``SO_TERM_CODE``): :func:`prefer_joined`
keeps that one, if it is worth more beside the others by the search's own utility.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from jar_core.strategies.base import Selection, StepGain
from jar_core.strategies.gains import coverage_gain

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.signals.matrices import Signals

__all__ = ["JOIN_MARGIN", "prefer_joined"]

#: How much more surely a near copy must join the rest of the choice to replace a chosen table.
JOIN_MARGIN = 1e-6


def prefer_joined(
    signals: "Signals", sel: Selection, weights: tuple[float, float, float], *, l_family: float = 0.0,
    pinned: int = 0,
) -> Selection:
    """``sel`` with each chosen table (after the ``pinned`` first ones) replaced by the near copy
    (:attr:`Signals.near_copies`, not chosen) that joins the other chosen tables more surely than
    it does and whose utility beside them (``l_coarse * r + l_cov * coverage gain over them +
    l_join * its best join to them``, plus the family gain) is higher. The replaced tables are in
    :attr:`Selection.replaced`; the step of a replacing table holds its gains beside the others.
    ``weights = (l_cov, l_join, l_coarse)``."""
    near = signals.near_copies
    if near is None or not sel.order:
        return sel
    chosen = np.array(sel.order, dtype=np.int64)
    if not near[chosen].any():
        return sel
    l_cov, l_join, l_coarse = weights
    F, w, r = signals.F, signals.w, signals.r
    order = list(sel.order)
    steps = list(sel.steps)
    replaced: dict[int, int] = dict(sel.replaced)
    for pos in range(pinned, len(order)):
        t = order[pos]
        copies = np.flatnonzero(near[t])
        copies = copies[~np.isin(copies, order)]
        if not len(copies):
            continue
        rest = np.array([x for x in order if x != t], dtype=np.int64)
        both = np.concatenate([[t], copies])
        if len(rest):
            covered = F[:, rest].max(axis=1) if F.shape[0] else np.zeros(0)
            joins = w[both][:, rest].max(axis=1)
            fam = signals.family[both][:, rest].any(axis=1) if signals.family is not None else np.zeros(len(both))
        else:
            covered, joins, fam = np.zeros(F.shape[0]), np.zeros(len(both)), np.zeros(len(both))
        cov = coverage_gain(F[:, both], covered) if F.shape[0] else np.zeros(len(both))
        u = l_coarse * r[both] + l_cov * cov + l_join * joins + l_family * fam
        better = (joins[1:] > joins[0] + JOIN_MARGIN) & (u[1:] > u[0])
        if not better.any():
            continue
        j = 1 + int(np.argmax(np.where(better, u[1:], -np.inf)))
        new = int(both[j])
        order[pos] = new
        replaced[new] = replaced.pop(t, t)
        if pos < len(steps):
            steps[pos] = StepGain(new, float(r[new]), float(cov[j]), float(joins[j]), float(u[j]))
    if order == sel.order:
        return sel
    cov_all = F[:, order].max(axis=1) if F.shape[0] else np.zeros(0)
    return Selection(order=order, steps=steps, trace=sel.trace, coverage=np.maximum(cov_all, 0.0), status=sel.status,
                     bridges=list(sel.bridges), references=list(sel.references), replaced=replaced)
