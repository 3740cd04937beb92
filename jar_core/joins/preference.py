"""Rule 6 of the join graph (METHOD.md, the join graph): a referencing column references one key.

=====================  ========================================  ====================  ===================================
preference             evidence                                  rank added            example
=====================  ========================================  ====================  ===================================
best confidence        the rules' confidence                     the confidence        ``Track.GenreId`` -> ``Genre``, not
                                                                                       ``MediaType``
qualified entity       ``k``'s table is a qualifier the          :data:`QUALIFIED`     ``LABEVENTS.ITEMID`` ->
                       referencing table starts with, then the                         ``D_LABITEMS``, not ``D_ITEMS``
                       column's entity
exact name             ``k`` named after its own table           :data:`EXACT_NAME`    ``film_actor.film_id`` -> ``film``,
                                                                                       not ``film_text``
family                 the two tables share a leading word       :data:`FAMILY`        ``FAC_ROOMS.BUILDING_KEY`` ->
                                                                                       ``FAC_BUILDING``
whole name             the column names ``k``'s table whole      :data:`WHOLE_NAME`    ``artist.type`` -> ``artist_type``
shared words           of one column name, the words of the      :data:`SHARED_WORD`   ``PROCEDURES_ICD.ICD9_CODE`` ->
                       referencing table's name in ``k``'s       each                  ``D_ICD_PROCEDURES``, not
                       table's name (two at most)                                      ``D_ICD_DIAGNOSES``
=====================  ========================================  ====================  ===================================

Only the best key by this rank is kept (all of them on a tie, within :data:`TIE_MARGIN`);
siblings are two references, not a reference, and are left alone.
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.edges import EVIDENCE, best_per_pair
from jar_core.joins.keys import QUALIFIER_LETTERS
from jar_core.joins.naming import context_aliases, ref_aliases
from jar_core.joins.profile import ColumnProfile
from jar_core.joins.words import incidence

__all__ = ["one_key_per_column", "key_rank", "same_family", "whole_name", "shared_words", "TIE_MARGIN", "EXACT_NAME",
           "FAMILY", "WHOLE_NAME", "SHARED_WORD", "QUALIFIED", "QUALIFIER_LETTERS"]

#: Two ranks this close are a tie.
TIE_MARGIN = 1e-6


#: Rule 6's preferences between keys of equal evidence, the first above the second: a key named
#: after its own table, its name or head noun (``film.film_id``, ``ACADEMIC_TERMS.TERM_CODE``;
#: not ``film_text.film_id`` in a 1:1 extension table, which names only the start of its table),
#: then a key in the referencing table's family.
EXACT_NAME = 0.05


FAMILY = 0.03


#: ... and last, a key whose table's whole name is a name of the referencing column
#: (``BillToAddressID`` -> ``Address``, not ``EmailAddress``, whose head noun it names too), or
#: its own table's name followed by it (``artist.type`` -> ``artist_type``, not ``event_type``).
WHOLE_NAME = 0.01


#: ... and, below all, per word of the referencing table's name that ``k``'s table's name has too
#: (two at most, so that it stays below :data:`WHOLE_NAME`): of two dictionaries of one code, a
#: diagnosis's code is in the diagnoses' (``DIAGNOSES_ICD`` -> ``D_ICD_DIAGNOSES``).
SHARED_WORD = 0.004
MAX_SHARED_WORDS = 2


#: In place of the family's and above a key named after its table, a key whose table is the
#: referencing table's qualifier's entity (``D_LABITEMS`` for ``LABEVENTS.ITEMID``, not ``D_ITEMS``;
#: ``current_nodes`` for ``current_node_tags.node_id``, not ``nodes``): a tie-breaker, as the others
#: (a qualifier of :data:`~jar_core.joins.keys.QUALIFIER_LETTERS` letters or more).
QUALIFIED = 0.055




def one_key_per_column(
    p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The edges ``f -> k`` with only each referencing column's best keys (:func:`key_rank`; siblings
    are two references, not a reference), one edge per column pair."""
    sib = ev == EVIDENCE.index("sibling")
    rank = key_rank(p, f, k, conf)
    best = np.full(p.n, -np.inf)
    np.maximum.at(best, f[~sib], rank[~sib])
    keep = sib | (rank >= best[f] - TIE_MARGIN)
    f, k, conf, ev = f[keep], k[keep], conf[keep], ev[keep]
    return best_per_pair(f, k, conf, ev)


def key_rank(p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray) -> np.ndarray:
    """Rule 6's order of the keys ``k`` a column ``f`` may reference: the confidence, then a key
    named after its table (its name or head noun), then a key of the referencing table's family,
    then a key of a table named by the column's whole entity or role (:func:`whole_name`)."""
    return (conf + EXACT_NAME * (p.names_table[k] == 2)
            + np.maximum(FAMILY * same_family(p, f, k), QUALIFIED * _qualified(p, f, k))
            + WHOLE_NAME * whole_name(p, f, k) + SHARED_WORD * shared_words(p, f, k))


def shared_words(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Per edge of two columns of one name, how many words of ``f``'s table's name ``k``'s table's
    name has too (in the singular; at most :data:`MAX_SHARED_WORDS`); 0 within one table and for
    a column named otherwise than its key (a role's ``MASTER_SUBJECT_ID``: the name says what it
    is, the table's words do not)."""
    out = np.zeros(len(f), dtype=np.int64)
    memo: dict[tuple[int, int], int] = {}
    for e, (i, j) in enumerate(zip(f.tolist(), k.tolist())):
        if (p.table[i] == p.table[j] or not p.table_words[i] or not p.table_words[j] or not p.full_names[i]
                or not p.full_names[j] or p.full_names[i][0] != p.full_names[j][0]):
            continue
        key = (id(p.table_words[i]), id(p.table_words[j]))
        got = memo.get(key)
        if got is None:
            got = memo[key] = min(len(set(p.table_words[i][0]) & set(p.table_words[j][0])), MAX_SHARED_WORDS)
        out[e] = got
    return out


def _qualified(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Whether ``k``'s table is named by a qualifier and ``f``'s entity (``D_LABITEMS``: ``lab``
    and ``item``) and ``f``'s table's whole name, not one of ``k``'s table's, starts with that
    qualifier (``LABEVENTS.ITEMID``): the lab's items, not ``D_ITEMS``, which ``ITEMID`` names
    exactly."""
    out = np.zeros(len(f), dtype=bool)
    memo: dict[tuple[int, int, int], bool] = {}
    for e, (i, j) in enumerate(zip(f.tolist(), k.tolist())):
        key = (id(p.stems[i]), id(p.table_names[i]), int(p.table[j]))
        got = memo.get(key)
        if got is None:
            ends = {"".join(st) for st in p.stems[i] if st}
            own = p.table_names[i][0] if p.table_names[i] else ""
            got = memo[key] = bool(own) and own not in p.table_names[j] and any(
                len(n) - len(x) >= QUALIFIER_LETTERS and n.endswith(x) and own.startswith(n[:len(n) - len(x)])
                for n in p.table_names[j] for x in ends)
        out[e] = got
    return out


def whole_name(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Whether the whole name of ``k``'s table is one of ``f``'s entity or role names (its words
    before the key word, or their last words: ``bill to address`` -> ``address``), or ``f``'s own
    table's name followed by its entity words (``artist.type`` -> ``artist_type``)."""
    out = np.zeros(len(f), dtype=bool)
    if not len(f):
        return out
    # names of each referencing column, one list per shared stems list; then one lookup per edge
    uf, f_row = np.unique(f, return_inverse=True)
    memo: dict[tuple[int, int], list[str]] = {}
    rows = []
    for i in uf.tolist():
        stems = p.stems[i]
        mkey = (id(stems), id(p.table_names[i]))
        got = memo.get(mkey)
        if got is None:
            entity, role, _, _ = ref_aliases(stems, False)  # the names the naming rules read it by
            got = memo[mkey] = entity + role + context_aliases(stems, p.table_names[i])
        rows.append(got)
    vocab: dict[str, int] = {}
    names, _ = incidence(rows, vocab)
    uk, k_row = np.unique(k, return_inverse=True)
    whole = np.array([vocab.get(p.table_names[i][0], -1) if p.table_names[i] else -1 for i in uk.tolist()],
                     dtype=np.int64)[k_row]
    known = np.flatnonzero(whole >= 0)
    if len(known):
        out[known] = np.asarray(names[f_row[known], whole[known]]).ravel() > 0
    return out


def same_family(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Whether the two columns' tables share a leading name word (``FAC_ROOMS``, ``FAC_BUILDING``)."""
    if len(f) == 0:
        return np.zeros(0, dtype=bool)
    ff, fk = p.lead_word[f], p.lead_word[k]
    return (ff == fk) & (ff != "")
