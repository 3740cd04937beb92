"""Directional value inclusion: the values of a referencing column lie inside a key's values.

A foreign key is an *inclusion* (``orders.customer_id`` takes values of ``customer.id``), not a
symmetric overlap: two surrogate keys numbered 1..n overlap completely without being related,
and a flag column's one or two values lie inside any key. So a join on values alone needs:

* ``k`` a key (declared or named as its table's key; a unique key-named column counts
  :data:`OTHER_KEY_PENALTY` less) and ``f`` not a key of its own
  table as well (two primary keys are not joined on values);
* ``f`` with at least :data:`MIN_VALUES` distinct sample values (not a flag or a priority);
* at least :data:`MIN_INCLUSION` of ``f``'s distinct sample values among ``k``'s (the
  confidence drops by 0.01 per point of inclusion missing);
* for numbers, which collide by chance, a key word in ``f``'s name (``winner_id``, ``liked_id``).
* no row number within ``f``'s own table: a number word (:data:`NUMBER_WORDS`) after words of
  its own table's name, values known to repeat (``lineitem.l_linenumber``, ``l_line_number``:
  1, 2, 3... in each order, which any numeric key holds).

The overlap counts are one sparse product of the column x value incidence (across databases,
counted on the candidate pairs of :mod:`.blocking` only).
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.profile import ColumnProfile

__all__ = ["inclusion", "inclusion_ratio", "MIN_VALUES", "MIN_INCLUSION", "TEXT_CONFIDENCE", "NUMBER_CONFIDENCE",
           "NUMBER_WORDS"]

MIN_VALUES = 3
MIN_INCLUSION = 0.8
TEXT_CONFIDENCE = 0.7
NUMBER_CONFIDENCE = 0.6
#: Less confidence when ``k`` is unique and key-named but not its table's key.
OTHER_KEY_PENALTY = 0.1
#: Key words that number rows rather than name them (``line_number``, ``seq_no``).
NUMBER_WORDS = frozenset({"number", "no", "num", "nr"})


def inclusion_ratio(p: ColumnProfile, f: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Share of ``f``'s distinct sample values found among ``k``'s (NaN where ``f`` has none)."""
    if len(f) == 0:
        return np.zeros(0)
    common = np.asarray(p.values[f].multiply(p.values[k]).sum(axis=1)).ravel()
    nf = p.n_values[f].astype(np.float64)
    return np.where(nf > 0, common / np.maximum(nf, 1), np.nan)


def inclusion(
    p: ColumnProfile, keyish: np.ndarray, numeric_class: int | None,
    pairs: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Directed value-only joins ``(f, k, confidence)`` over the whole schema, or among the
    candidate ``pairs`` ``(f, k)`` only (across databases: :mod:`.blocking`'s)."""
    if pairs is None:
        vm = p.values
        enough = p.n_values >= MIN_VALUES
        overlap = (vm[enough] @ vm[keyish].T).tocoo()
        f = np.flatnonzero(enough)[overlap.row]
        k = np.flatnonzero(keyish)[overlap.col]
        common = overlap.data
    else:
        f, k = (np.asarray(x, dtype=np.int64) for x in pairs)
        m = (p.n_values[f] >= MIN_VALUES) & keyish[k]
        f, k = f[m], k[m]
        common = np.asarray(p.values[f].multiply(p.values[k]).sum(axis=1)).ravel() if len(f) else np.zeros(0)
    ratio = common / np.maximum(p.n_values[f], 1)
    f_is_key = p.own_key[f] | p.pk_declared[f]
    numeric = p.type_class[f] == numeric_class if numeric_class is not None else np.zeros(len(f), dtype=bool)
    ok = (
        (ratio >= MIN_INCLUSION) & (p.table[f] != p.table[k]) & ~f_is_key
        & (p.type_class[f] == p.type_class[k]) & (~numeric | p.has_key_word[f]) & ~(numeric & _row_numbers(p, f))
    )
    # a fuller inclusion and a key named as such are stronger: they break ties between keys
    conf = np.where(numeric, NUMBER_CONFIDENCE, TEXT_CONFIDENCE) + 0.1 * (ratio - 1.0)
    conf = np.where(p.own_key[k] | p.pk_declared[k], conf, conf - OTHER_KEY_PENALTY)
    return f[ok], k[ok], conf[ok]


def _row_numbers(p: ColumnProfile, f: np.ndarray) -> np.ndarray:
    """bool per column of ``f``: it numbers rows within its own table (a :data:`NUMBER_WORDS` key
    word after words of its table's name, values known to repeat: ``lineitem.l_linenumber``)."""
    if len(f) == 0:
        return np.zeros(0, dtype=bool)
    number = np.fromiter((p.key_word[i] in NUMBER_WORDS for i in f.tolist()), dtype=bool, count=len(f))
    return number & (p.names_table[f] > 0) & (np.nan_to_num(p.unique[f], nan=1.0) < 0.95)
