"""Rule 7 of the join graph (METHOD.md, the join graph): what stays uncertain says so.

=====================  ==============================================  =======================  ====================================
rule                   evidence                                        confidence               example
=====================  ==============================================  =======================  ====================================
ambiguous              a reference kept to several keys on a tie       at most                  ``SUBJECT_ID`` unique in five
                                                                       :data:`AMBIGUOUS`        subject tables
through a key          two siblings that both reference one key        :data:`THROUGH_KEY`      ``city.CountryCode``,
                                                                                                ``countrylanguage.CountryCode``
keys apart             two siblings that each hold a key's values      0 (dropped)              ``LABEVENTS.ITEMID`` (lab items),
                       (a key's own, one it references, or one                                  ``CHARTEVENTS.ITEMID`` (chart items)
                       that references), none in common
values fit any key     found by values alone, tied between more        0 (dropped)              ``{3, 4, 5}`` in every serial id
                       than :data:`MAX_VALUE_TIES` keys
polymorphic            ``<x>_id`` beside ``<x>_type``: only a table    0 elsewhere              ``record_id`` / ``record_type``
                       ``<x>`` names whole
=====================  ==============================================  =======================  ====================================
"""
from __future__ import annotations

import numpy as np
from scipy import sparse

from jar_core.joins.edges import EVIDENCE, is_sibling
from jar_core.joins.preference import whole_name
from jar_core.joins.profile import ColumnProfile

__all__ = ["uncertain", "polymorphic", "polymorphic_references", "AMBIGUOUS", "THROUGH_KEY", "MAX_VALUE_TIES"]


#: Confidence cap of a reference kept to several keys on a tie (rule 7): no surer than a
#: sibling with value support.
AMBIGUOUS = 0.74


#: Confidence of two siblings that both reference one key of the graph (rule 7): a many-to-many
#: shortcut of the join through the key's table, kept above the default ``min_join_score``.
THROUGH_KEY = 0.55


#: A reference found by its values alone (no name says it) and tied between more keys than this
#: is dropped (rule 7): small integers are included in every surrogate key of a database.
MAX_VALUE_TIES = 2


def uncertain(
    n: int, f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray, within: np.ndarray,
) -> np.ndarray:
    """The confidences of the edges ``f -> k`` (``n`` columns) after rule 7, within databases
    (``within``; the joins across databases, bounded by rule 5, leave those within as they are):
    an inferred reference whose column references several keys is capped at :data:`AMBIGUOUS`;
    a sibling pair whose two columns reference one key lowered to :data:`THROUGH_KEY`, one whose
    columns each hold a key's values (a key itself, one it references or that key's own reference)
    but no key's in common dropped (``D_ITEMS.ITEMID`` beside ``LABEVENTS.ITEMID``, a lab item's);
    a reference found by values alone and tied between more than :data:`MAX_VALUE_TIES` keys
    dropped (confidence 0). Declared edges are left alone."""
    if len(f) == 0:
        return conf
    sib = is_sibling(ev) & within
    ref = ~is_sibling(ev) & within
    # keys a column is inferred to reference (a composite key's declared reference, partsupp's
    # for lineitem.l_suppkey, leaves its reference to supplier unambiguous)
    inferred = ref & (ev != 0)
    n_keys = np.bincount(f[inferred], minlength=n)
    ambiguous = inferred & (n_keys[f] > 1)
    refs = sparse.csr_matrix((np.ones(int(ref.sum()), dtype=np.float32), (f[ref], k[ref])), shape=(n, n))
    through = np.zeros(len(f), dtype=bool)
    apart = np.zeros(len(f), dtype=bool)
    if sib.any() and refs.nnz:
        shared = np.asarray(refs[f[sib]].multiply(refs[k[sib]]).sum(axis=1)).ravel() > 0
        through[np.flatnonzero(sib)] = shared
        # the keys each column holds values of: those it references, theirs, and itself if a key
        refs = refs.astype(bool)
        reach = (refs + refs @ refs + sparse.diags((np.bincount(k[ref], minlength=n) > 0).astype(np.float32))).astype(bool)
        fs, ks = reach[f[sib]], reach[k[sib]]
        held = (np.asarray(fs.sum(axis=1)).ravel() > 0) & (np.asarray(ks.sum(axis=1)).ravel() > 0)
        apart[np.flatnonzero(sib)] = held & ~(np.asarray(fs.multiply(ks).sum(axis=1)).ravel() > 0)
    conf = np.where(ambiguous, np.minimum(conf, AMBIGUOUS), conf)
    # values alone that fit many keys fit any: {3, 4, 5} is in every serial id of the database
    unfounded = ambiguous & (ev == EVIDENCE.index("inclusion")) & (n_keys[f] > MAX_VALUE_TIES)
    conf = np.where(unfounded, 0.0, conf)
    conf = np.where(apart, 0.0, conf)  # siblings: never declared
    return np.where(through, np.minimum(conf, THROUGH_KEY), conf)


def polymorphic(p: ColumnProfile) -> np.ndarray:
    """bool per column: a reference of several tables, named ``<x>_id`` beside an ``<x>_type`` of its
    table that names the referenced table's class (:attr:`ColumnProfile.typed_stem`: Rails'
    polymorphic ``record_id`` / ``record_type``, ``owner_id`` / ``owner_type``), not its own
    table's key. It references a table only where ``<x>`` names that table whole
    (``payment_method_id`` -> ``payment_methods``, ``assigned_facility_id`` -> ``facilities``), not
    one whose name only ends so (``idempotency_records``) nor its people."""
    return p.typed_stem & p.has_key_word & (p.names_table == 0)


def polymorphic_references(
    p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The edges ``f -> k`` less a polymorphic column's (:func:`polymorphic`) references to a table
    that its entity does not name whole (siblings left alone)."""
    poly = np.flatnonzero(polymorphic(p)[f] & ~is_sibling(ev))
    if len(poly):
        ok = np.ones(len(f), dtype=bool)
        ok[poly] = whole_name(p, f[poly], k[poly])
        f, k, conf, ev = f[ok], k[ok], conf[ok], ev[ok]
    return f, k, conf, ev
