"""Rule 5 of the join graph (METHOD.md, the join graph): joins between two databases, only where
``cross_database`` is asked (a lake whose sources do join).

================  ===================================================  ==============================  =========================
rule              evidence                                             confidence                      example
================  ===================================================  ==============================  =========================
across databases  the rules within databases, on :mod:`.blocking`'s   as within; at most              ``shop.customer_id`` ->
                  candidate pairs only; not a bare key word (``id``)   :data:`MAX_CROSS_KEYS` keys     ``crm.customer.id``
                                                                       per referencing column
================  ===================================================  ==============================  =========================

The joins within databases stay as they are without it; never all pairs, so the pairs compared
and the edges kept grow linearly with the lake.
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from jar_core.joins import blocking
from jar_core.joins.checks import checked
from jar_core.joins.edges import EVIDENCE, best_per_pair, class_code, is_sibling
from jar_core.joins.inclusion import MIN_INCLUSION, MIN_VALUES, inclusion, inclusion_ratio
from jar_core.joins.naming import naming
from jar_core.joins.preference import TIE_MARGIN, key_rank
from jar_core.joins.profile import ColumnProfile

__all__ = ["across", "MAX_CROSS_KEYS"]


#: Across databases (``cross_database=True``), a referencing column joins at most this many
#: columns of other databases (the best, see :func:`across`).
MAX_CROSS_KEYS = 3


def across(
    p: ColumnProfile, wf: np.ndarray, wk: np.ndarray, wconf: np.ndarray, wev: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The inferred joins between two databases ``(f, k, confidence, evidence)``, given the
    inferred joins within databases ``(wf, wk, wconf, wev)`` (kept as they are).

    The same rules decide, on the candidate pairs of :mod:`.blocking` only (name aliases and
    sample values as blocks, a window of :data:`~.blocking.WINDOW` columns per block, values in
    more than :data:`~.blocking.VALUE_CAP` columns left out). A column whose name is a bare key
    word (``id``, ``code``) names no entity and references nothing in another database. A
    referencing column keeps a key of another database only where no key of its own database
    is better (rule 6 over both), and at most :data:`MAX_CROSS_KEYS` of them (siblings
    included): the best by confidence, then by the share of its sample values inside the key,
    then the nearest in the blocking order, then the first.
    """
    rank_order = blocking.order_rank(p)
    keyish = p.keyish()

    def product(a_rows, b_rows):
        return blocking.name_pairs(a_rows, b_rows, rank_order, p.database)

    nf, nk, nconf, nrule = naming(p, keyish, product=product)
    # value blocks: a referencing column that may join on values alone probes its rarest values
    # among the keys' values (the values in more than VALUE_CAP columns left out)
    probing = (p.n_values >= MIN_VALUES) & ~(p.own_key | p.pk_declared)
    probes = blocking.value_probes(p.values, np.flatnonzero(probing), MIN_INCLUSION)
    common = blocking.common_values(p.values)
    key_values = sparse.diags(keyish.astype(np.float32)) @ p.values @ sparse.diags((~common).astype(np.float32))
    key_values.eliminate_zeros()
    pairs = blocking.windowed_pairs(probes, key_values.tocsr(), rank_order, p.database)
    vf, vk, vconf = inclusion(p, keyish, class_code(p, "numeric"), pairs=pairs)
    f, k, conf, ev = checked(p, nf, nk, nconf, nrule, vf, vk, vconf)
    bare = np.array([not any(s) for s in p.stems], dtype=bool)
    ok = (p.database[f] != p.database[k]) & ~bare[f]
    f, k, conf, ev = f[ok], k[ok], conf[ok], ev[ok]

    # rule 6 over the joins within and across databases: a key of another database only where
    # it is as good as the referencing column's best
    sib = is_sibling(ev)
    rank = key_rank(p, f, k, conf)
    best = np.full(p.n, -np.inf)
    np.maximum.at(best, f[~sib], rank[~sib])
    wsib = is_sibling(wev)
    np.maximum.at(best, wf[~wsib], key_rank(p, wf, wk, wconf)[~wsib])
    keep = sib | (rank >= best[f] - TIE_MARGIN)
    f, k, conf, ev, rank = f[keep], k[keep], conf[keep], ev[keep], rank[keep]

    # at most MAX_CROSS_KEYS per referencing column
    ratio = np.nan_to_num(inclusion_ratio(p, f, k), nan=0.0)
    distance = np.abs(rank_order[f] - rank_order[k])
    order = np.lexsort((k, distance, -ratio, -np.round(rank, 9), f))
    f, k, conf, ev = f[order], k[order], conf[order], ev[order]
    first = np.searchsorted(f, f, side="left")
    keep = np.arange(len(f)) - first < MAX_CROSS_KEYS
    f, k, conf, ev = f[keep], k[keep], conf[keep], ev[keep]
    return best_per_pair(f, k, conf, ev)
