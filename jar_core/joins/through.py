"""Rule 7b of the join graph (METHOD.md, the join graph): two references of one key are siblings,
also where their names differ.

=====================  ==============================================  =======================  ====================================
rule (evidence)        evidence                                        confidence               example
=====================  ==============================================  =======================  ====================================
``sibling apart``      two columns of two tables that reference one    :data:`~.uncertain.      ``flight.from_airport``,
                       key, named apart, one of them plainly (its      THROUGH_KEY`            ``airport_service.airport_code``
                       name the key's); the key referenced by at                                (both -> ``airport.airport_code``)
                       most :data:`MAX_REFERENCES` columns
=====================  ==============================================  =======================  ====================================

The naming rule's siblings share a name (``city.CountryCode``, ``countrylanguage.CountryCode``).
Two references of one key named apart hold the same values too: a flight's departure airport and
the airport a city's service uses are one airport, and a query joins them without the airports
table (ATIS: ``flight.from_airport = airport_service.airport_code``). Such a sibling is a
many-to-many shortcut of the join through the key's table, as sure as a named sibling through a
key (:data:`~.uncertain.THROUGH_KEY`); what that score is worth shown to a model is its own
calibration (evidence ``sibling apart``, :mod:`.calibration`). One of the two must name the key
plainly (:data:`PLAIN`): two roles of one key are two of its rows (a department's head, a
patient's physician). A reference tied between several keys (:data:`~.uncertain.AMBIGUOUS`)
goes through none, nor does a table's own key that joins another's. A key that many columns
reference (a warehouse's term or date key) joins its references to each other in every way:
those pairs say nothing of what belongs together, and are left out.
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.edges import EVIDENCE, is_sibling
from jar_core.joins.profile import ColumnProfile
from jar_core.joins.uncertain import THROUGH_KEY

__all__ = ["siblings_through_keys", "MAX_REFERENCES", "PLAIN"]

#: A key referenced by more columns than this gives its references no siblings named apart (8, 12
#: and 20 give BEAVER-DW, ATIS, Advising and MIMIC-III the same complete recall; no bound costs
#: BEAVER-DW, whose term and subject keys 25 to 42 columns reference, 0.8 and 0.9 points at K = 2, 3).
MAX_REFERENCES = 12
#: Evidence of a plain reference, one that carries the key's entity name: one side of a sibling
#: named apart is one (two roles of a key, ``head_physician_id`` and ``primary_physician_id``,
#: are two rows of it, no sibling).
PLAIN = ("declared", "same name", "entity")


def siblings_through_keys(
    p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray, *, sure: float = 0.5,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The edges ``f -> k`` and, for each key that :data:`MAX_REFERENCES` or fewer references of
    ``sure`` confidence or more reach from other tables, a sibling edge between each two of them in
    two tables that no edge joins yet, whose full names differ and one of which is a plain
    reference (:data:`PLAIN`), of confidence :data:`~.uncertain.THROUGH_KEY`; a column that
    references several keys gets none."""
    apart = EVIDENCE.index("sibling apart")
    # references only: a table's own key that joins another's (a department table's code to a
    # module's departments) makes its table a version of the other, no holder of its rows' ids
    ref = ~is_sibling(ev) & (conf >= sure) & (p.table[f] != p.table[k]) & ~p.own_key[f]
    # a reference kept to several keys on a tie (rule 7's ambiguous) knows no key to go through
    ref &= np.bincount(f[ref], minlength=p.n)[f] == 1
    if not ref.any():
        return f, k, conf, ev
    rf, rk = f[ref], k[ref]
    # a plain reference carries the key's name (``airport_service.airport_code``), a role does not
    plain_ev = np.isin(ev[ref], [EVIDENCE.index(e) for e in PLAIN])
    _, count = np.unique(rk, return_counts=True)  # references per key, keys in order
    order = np.argsort(rk, kind="stable")
    rf, plain_ev = rf[order], plain_ev[order]
    ends = np.concatenate([[0], np.cumsum(count)])
    joined = set(zip(f.tolist(), k.tolist()))
    a_out: list[int] = []
    b_out: list[int] = []
    for g in np.flatnonzero((count >= 2) & (count <= MAX_REFERENCES)).tolist():
        cols = rf[ends[g]:ends[g + 1]].tolist()
        plain = plain_ev[ends[g]:ends[g + 1]].tolist()
        for i, a in enumerate(cols):
            for j in range(i + 1, len(cols)):
                b = cols[j]
                if not (plain[i] or plain[j]):
                    continue  # two roles: a department's head and a patient's physician are two people
                if p.table[a] == p.table[b] or (a, b) in joined or (b, a) in joined:
                    continue
                if set(p.full_names[a]) & set(p.full_names[b]):
                    continue  # a named sibling: the naming rule's
                a_out.append(a)
                b_out.append(b)
    if not a_out:
        return f, k, conf, ev
    n = len(a_out)
    return (np.concatenate([f, np.asarray(a_out, dtype=np.int64)]), np.concatenate([k, np.asarray(b_out, dtype=np.int64)]),
            np.concatenate([conf, np.full(n, THROUGH_KEY)]), np.concatenate([ev, np.full(n, apart, dtype=np.int64)]))
