"""A link table is no more relevant than the tables it links.

A link table (``domain_author``: ``aid``, ``did``; ``film_category``) holds only the keys of the
tables it links (:func:`jar_core.joins.links.link_tables`), yet its name repeats theirs, so its
coarse relevance echoes them, often above them: "authors who have papers in VLDB" is nearer to
``academic domain_author aid did`` than to ``author`` itself. A question needs a link table only
to join two tables it needs, so the default search reads a link table's relevance as at most the
least relevant of the candidates it refers to (:class:`jar_core.strategies.JoinAwareStrategy`,
``link_relevance``). A link table with fewer than two of the tables it refers to among the
candidates keeps its own relevance (nothing tells what the missing end is worth).
"""
from __future__ import annotations

import numpy as np

from jar_core.signals.matrices import Signals

__all__ = ["link_relevance"]


def link_relevance(signals: Signals) -> np.ndarray:
    """Coarse relevance ``r`` of the candidates with each link table's capped at the least
    relevance of the candidates it refers to (two or more; siblings are no reference); ``r``
    itself when no candidate is such a link table."""
    links, refs, ev = signals.links, signals.references, signals.evidence
    if links is None or refs is None or not links.any():
        return signals.r
    from jar_core.joins.edges import is_sibling

    to = refs[links]  # (links, n): where each link table's joins go to a key
    if ev is not None:
        to = to & ~is_sibling(ev[links])
    ends = to.sum(axis=1)
    least = np.where(to, signals.r[None, :], np.inf).min(axis=1)
    r = signals.r.copy()
    at = np.flatnonzero(links)
    capped = ends >= 2
    r[at[capped]] = np.minimum(r[at[capped]], least[capped]).astype(r.dtype)
    return r
