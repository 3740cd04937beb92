"""Rule 4 of the join graph (METHOD.md, the join graph): the two columns' types must agree.

=======================  ==========================================  ===============  ===============================
rule                     evidence                                    confidence       example
=======================  ==========================================  ===============  ===============================
type classes agree       the classes (read off the samples where     kept             ``int`` = ``bigint``
                         there are samples) are equal or unknown
declared types disagree  no samples say otherwise, a name >= 0.9     times            ``customer_id text`` ->
                                                                     :data:`TYPE_     ``customer.id int``
                                                                     MISMATCH`
types disagree           anything else                               0 (dropped)
UUID and other text      both declared text, one a UUID              0                ``external_customer_id``
no key                   :func:`~jar_core.schema.keyless_type`,      0                ``EmployeePayHistory.Rate``
                         fractions, a count, computed, an enum;                       is no ``CurrencyRate``
                         a real number without a key word to an
                         integer key: a measure
=======================  ==========================================  ===============  ===============================

Declared types are often wrong, so a strong name match outlives a declared type alone.
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.edges import class_code
from jar_core.joins.profile import ColumnProfile

__all__ = ["types", "TYPE_MISMATCH"]

#: Factor of a strong name match (0.9 or more) whose declared types alone disagree.
TYPE_MISMATCH = 0.6


def types(p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray) -> np.ndarray:
    """The confidences of the edges ``f -> k`` once their types had their say (rule 4)."""
    other = p.other_class
    tf, tk = p.type_class[f], p.type_class[k]
    agree = (tf == tk) | (tf == other) | (tk == other)
    seen = p.from_samples[f] & p.from_samples[k]
    conf = np.where(agree, conf, np.where(~seen & (conf >= 0.9), conf * TYPE_MISMATCH, 0.0))
    # a declared UUID holds no text of another type, nor the other way round: PostgreSQL and SQL
    # Server cannot declare the reference (an external id or a code named like a table's key)
    text = p.type_class[f] == class_code(p, "text")
    declared_text = ~p.from_samples[f] & ~p.from_samples[k] & (tf == tk) & text
    conf = np.where(declared_text & (p.uuid[f] != p.uuid[k]), 0.0, conf)
    # no key in binary data, a document or money, nor in numbers with fractions; a real number
    # whose name has no key word is a measure beside keys declared integer (a pay rate is no
    # CurrencyRate)
    measure = p.keyless[f] | p.keyless[k] | (p.decimal[f] & ~p.has_key_word[f] & p.integer[k])
    return np.where(measure, 0.0, conf)
