"""Rule 3 of the join graph (METHOD.md, the join graph): the sample values confirm or contradict a
name.

===================  ==========================  ==========================  ==================================
rule                 evidence                    confidence                  example
===================  ==========================  ==========================  ==================================
values confirm       half of ``f``'s values in   ``+`` :data:`VALUE_SUPPORT`  ``orders.customer_id`` values among
                     ``k``'s                     (at most 0.99)              ``customer.id``'s
values contradict    text, :data:`MIN_DISJOINT`  halved                      two ``*_code`` columns of disjoint
                     values each, none shared                                codes
siblings apart       two siblings' samples       0 (dropped)                 ``a.zip``, ``b.zip`` barely meeting
                     meet below half
===================  ==========================  ==========================  ==================================

Only name matches are confirmed or contradicted (a value inclusion is values already); both
columns need :data:`~.inclusion.MIN_VALUES` distinct sample values.
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.edges import EVIDENCE, class_code
from jar_core.joins.inclusion import MIN_VALUES, inclusion_ratio
from jar_core.joins.profile import ColumnProfile

__all__ = ["value_support", "VALUE_SUPPORT", "MIN_DISJOINT"]

#: Added to a name match that the sample values confirm.
VALUE_SUPPORT = 0.04
#: Distinct text values each of two columns needs for none in common to contradict a name.
MIN_DISJOINT = 5


def value_support(p: ColumnProfile, f: np.ndarray, k: np.ndarray, conf: np.ndarray, ev: np.ndarray) -> np.ndarray:
    """The confidences of the edges ``f -> k`` once their sample values had their say (rule 3)."""
    is_name = ev != EVIDENCE.index("inclusion")
    both = (p.n_values[f] >= MIN_VALUES) & (p.n_values[k] >= MIN_VALUES)
    ratio = np.nan_to_num(inclusion_ratio(p, f, k), nan=0.0)
    text = p.type_class[f] == class_code(p, "text")
    disjoint = both & (ratio == 0) & text & (p.n_values[f] >= MIN_DISJOINT) & (p.n_values[k] >= MIN_DISJOINT)
    conf = np.where(is_name & both & (ratio >= 0.5), np.minimum(conf + VALUE_SUPPORT, 0.99), conf)
    conf = np.where(is_name & disjoint, conf * 0.5, conf)
    # two references to one key share values: siblings whose samples barely meet are not joined
    sib = ev == EVIDENCE.index("sibling")
    sym = np.maximum(ratio, np.nan_to_num(inclusion_ratio(p, k, f), nan=0.0))
    return np.where(sib & both & (sym < 0.5), 0.0, conf)
