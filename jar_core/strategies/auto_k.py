"""Adaptive K (``k="auto"``): as few tables as answer the question, as many as it needs.

The search runs up to ``k_max`` tables; the answer is the shortest prefix of its choices that

* covers every sub-query above ``threshold`` (``max_{i in prefix} F_ji >= threshold`` for all j,
  when each sub-query is covered that well by some candidate at all; one that the whole choice
  covers less than ``floor`` is left out: no table answers it, and chasing its best weak match
  grew the set to the maximum, 'sells' in 'What genre sells the most tracks?'; a value found in
  the data, a year's date table among them, always counts, and a sub-query that only repeats a
  value found, 'europe' beside 'value: EUROPE', is left to the value, as one of measure words
  alone, 'amount' beside a trade word's hint 'value: sales', is left to the hint), and
* is join-connected: with a strategy that bridges (the default ``join-aware``), the prefix's
  pieces are joined by the cheapest bridge tables over the join graph (:func:`jar_core.strategies.bridge.bridge_paths`,
  within ``k_max``), so a question over two far tables returns them and the path between them,
  not every table the search would have taken before it reached the path; with any other strategy,
  the prefix falls into as many pieces as the whole choice splits them into (a later table may
  be the bridge they need);

at least ``k_min`` tables. Then a table that the chosen ones refer to is added where it answers a
sub-query better than the table referring to it (:func:`referenced`): 'Which actors appear in the
film X?' is covered at 0.76 by ``film_actor`` (its ``actor_id``), but the actors' names are in
``actor`` (0.80), which ``film_actor.actor_id`` refers to; a link table, which holds only ids,
brings the table it refers to whatever it covers itself ('film category' is covered at 0.88 by
``film_category``, at 0.50 by ``category``, which holds the name); and a value found in both an
album's title and the artist it refers to ('Iron Maiden') brings the artist too. Without sub-queries (or none covered at ``floor``) the coverage test is
the question's own: the prefix stops once the next table's coarse relevance falls below
``threshold`` times the first's.
"""
from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Sequence

import numpy as np

from jar_core.strategies.bridge import bridge_paths, is_connected, pieces
from jar_core.strategies.bridge import labels as _labels
from jar_core.candidates.values import VALUE_PREFIX, _norm, is_trade_word, measure_only

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.signals.matrices import Signals
    from jar_core.strategies.base import SearchStrategy, Selection

__all__ = ["auto_size", "auto_select", "referenced", "AUTO_K_MAX", "AUTO_THRESHOLD", "AUTO_K_MIN", "AUTO_FLOOR"]

AUTO_K_MAX = 10
AUTO_K_MIN = 2
AUTO_THRESHOLD = 0.6
#: A sub-query covered less than this by every table of the choice does not hold the set open.
AUTO_FLOOR = 0.4


def auto_size(
    F: np.ndarray, w: np.ndarray, r: np.ndarray, order: Sequence[int], *, threshold: float = AUTO_THRESHOLD,
    k_min: int = AUTO_K_MIN, floor: float = AUTO_FLOOR, connected: bool = True,
    always: np.ndarray | None = None,
) -> int:
    """The number of leading tables of ``order`` to keep (see the module docstring); with
    ``connected=False`` the coverage test alone (the caller bridges the pieces); ``always`` marks
    the sub-queries that count below ``floor`` too (matched values)."""
    order = [int(i) for i in order]
    n = len(order)
    if n <= k_min:
        return n
    whole = _labels(w, order) if connected else None

    def joined(m: int) -> bool:
        return whole is None or pieces(w, order[:m]) == len(set(whole[:m].tolist()))

    best = F[:, order].max(axis=1) if F.shape[0] else np.zeros(0)
    answered = best >= floor
    if always is not None and len(always):
        answered |= np.asarray(always, dtype=bool) & (best > 0)
    if answered.any():
        target = np.minimum(best[answered], threshold)  # what can be reached at all
        reached = np.maximum.accumulate(F[answered][:, order], axis=1)  # column m-1: the first m tables
        for m in range(max(k_min, 1), n + 1):
            covered = reached[:, m - 1] >= target - 1e-9
            if covered.all() and joined(m):
                return m
        return n
    top = float(r[order[0]])
    for m in range(max(k_min, 1), n):
        if r[order[m]] < threshold * top and joined(m):
            return m
    return n


def referenced(
    F: np.ndarray, references: np.ndarray | None, order: Sequence[int], *, floor: float = AUTO_FLOOR,
    links: np.ndarray | None = None,
) -> list[int]:
    """Candidates that the tables of ``order`` refer to for a sub-query they cover.

    For each sub-query (a row of ``F``, values found among them) whose best table
    ``i`` in ``order`` covers it at ``floor`` or more: the candidate ``l`` not in ``order`` that
    ``i`` refers to (``references[i, l]``, :attr:`Signals.references`) and that covers it at
    least as well as ``i``, or any that ``i`` refers to when ``i`` only links others (``links``,
    :attr:`Signals.links`: ``film_category`` covers 'film category' by its name, but holds only
    ids; the category's name is in ``category``); the best such ``l``. ``i`` then covers the
    sub-query through a reference, an id, where ``l`` holds what it names. In sub-query order,
    without repeats.
    """
    order = np.asarray(order, dtype=np.int64)
    if references is None or not len(order) or not F.shape[0]:
        return []
    i = order[F[:, order].argmax(axis=1)]  # the best chosen table of each sub-query
    fi = F[np.arange(len(i)), i]
    better = F >= fi[:, None]
    if links is not None:
        better |= links[i][:, None]
    ok = references[i] & better & (fi >= floor)[:, None]
    ok[:, order] = False
    pick = np.where(ok, F, -np.inf).argmax(axis=1)
    return list(dict.fromkeys(int(t) for t in pick[ok.any(axis=1)]))


def auto_select(
    strategy: "SearchStrategy", signals: "Signals", k_max: int = AUTO_K_MAX, *, pinned: Sequence[int] = (),
) -> "Selection":
    """``strategy``'s choice for ``k="auto"``: at most ``k_max`` tables, never fewer than ``pinned``."""
    from jar_core.strategies.greedy import with_bridges

    k = min(k_max, signals.n)
    bridged = bool(getattr(strategy, "bridges", False))
    if bridged:  # the search's own choices; the bridges are the prefix's, added below
        strategy = copy.copy(strategy)
        strategy.bridges = False  # type: ignore[attr-defined]
    sel = strategy.select(signals, k, pinned=pinned)
    F, values = signals.F, None
    subs = list(signals.subqueries)
    if len(subs) == F.shape[0]:
        values = np.array([q.startswith(VALUE_PREFIX) for q in subs], dtype=bool)
        # a sub-query that only repeats a value found ('europe' beside 'value: EUROPE') asks nothing
        # the value does not: its best weak match by meaning (``nation``) does not hold the set open
        found = {_norm(q[len(VALUE_PREFIX):]) for q, v in zip(subs, values) if v}
        # and one of measure words alone ('amount' beside the hint 'value: sales') asks for the
        # measure the trade word's hint found (``cs_quantity``), not for the table that best
        # matches 'amount' by meaning
        trade = any(is_trade_word(f) for f in found)
        repeats = np.array([not v and (_norm(q) in found or trade and measure_only(q))
                            for q, v in zip(subs, values)], dtype=bool)
        F, values = F[~repeats], values[~repeats]
    m = max(auto_size(F, signals.w, signals.r, sel.order, connected=not bridged, always=values), len(pinned))
    # a bridge the search took for the table after it (lookahead) comes with that table: a prefix
    # that would end at the bridge, which covers nothing, is one move short
    if 0 < m < len(sel.order) and sel.order[m - 1] in sel.bridges:
        m += 1
    order = sel.order[:m]
    sel.bridges = [b for b in sel.bridges if b in order]
    bridges: list[int] = []
    if bridged and len(order) >= 2 and not is_connected(signals.w, order):
        paths = bridge_paths(signals.w, order)
        if paths is not None and len(order) + len(paths) <= k:
            bridges = paths
    refs = referenced(F, signals.references, order + bridges, links=signals.links)
    refs = refs[: max(0, k - len(order) - len(bridges))]
    if bridges or refs:
        return with_bridges(signals, sel, order + bridges + refs, bridges, getattr(strategy, "l_coarse", 1.0),
                            getattr(strategy, "l_join", 0.0), references=refs, l_cov=getattr(strategy, "l_cov", 0.0))
    sel.order, sel.trace = order, sel.trace[:m]
    sel.steps = [st for st in sel.steps if st.candidate in order]
    if sel.coverage is not None and signals.F.shape[0]:
        sel.coverage = np.maximum(signals.F[:, order].max(axis=1), 0.0)
    return sel
