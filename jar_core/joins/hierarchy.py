"""The ``self`` naming rule of the join graph (rule 2, METHOD.md, the join graph): a row under
another row of its own table.

======  ========================================================  ==========  ==============================================
rule    evidence                                                  confidence  example
======  ========================================================  ==========  ==============================================
self    a hierarchy word (a person's in a table of people) and    0.90        ``employee.ReportsTo`` -> ``employee.EmployeeId``,
        nothing else but the table's name; or a role and its                  ``Orders.BackorderOrderID`` -> ``Orders.OrderID``
        own table's whole name
======  ========================================================  ==========  ==============================================

Times :data:`~.naming.NO_KEY_WORD` for a name without a key word, as every naming rule.
"""
from __future__ import annotations

import numpy as np

from jar_core.joins.naming import rule_edges, role_of_own
from jar_core.joins.people import of_people
from jar_core.joins.profile import ColumnProfile

__all__ = ["self_references", "HIERARCHY_WORDS", "PERSON_HIERARCHY_WORDS"]


#: Words that place a row under another row of its own table (``ParentProductCategoryID``,
#: ``reports_to``): a column named by one, with no other entity than its own table, references
#: its own table's key.
HIERARCHY_WORDS = frozenset({"parent"})


#: The same for a table of people only (``employee.manager_id``; ``item.i_manager_id`` is a
#: person's id, not an item's).
PERSON_HIERARCHY_WORDS = frozenset({
    "manager", "mgr", "supervisor", "superior", "boss", "mentor",
    # Spanish, Portuguese, Italian, French (``empleados.id_jefe``)
    "jefe", "chefe", "capo", "gerente", "superiore", "superieur", "responsable", "responsabile",
})


def _hierarchical(stem: list[str], table_names: list[str], table_words: list[list[str]]) -> bool:
    """Whether a name's entity words ``stem`` place a row under another row of its own table:
    a hierarchy word (a person's: ``manager``, ``reports to``, in a table of people only), and
    nothing else but a name of the table."""
    people = of_people(table_words)
    words = HIERARCHY_WORDS | PERSON_HIERARCHY_WORDS if people else HIERARCHY_WORDS
    if not (words.intersection(stem) or (people and ("report", "to") in zip(stem, stem[1:]))):
        return False
    rest = "".join(w for w in stem if w not in words and w not in ("report", "to"))
    # nothing else, or the table's name or its start (``ORG_PARENT_KEY`` in ``FAC_ORGANIZATION``)
    return not rest or any(name.startswith(rest) for name in table_names if len(rest) >= 3 or name == rest)


def self_references(p: ColumnProfile) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ``self`` rule, ``(f, k, confidence, rule index)`` as :func:`naming`'s: a column named as
    its row's parent, manager or superior (:func:`_hierarchical`; a flag by its name references
    nothing, but few distinct values do not make one: a few managers head many rows) and
    the key of its own table: its one key, or of its keys the one with the column's key word
    (``PARENT_BUILDING_NUMBER`` -> ``BUILDING_NUMBER``, not ``FAC_BUILDING_KEY``); none when that
    leaves several (a table keyed by several columns has no such reference). Pairs inside one
    table, so they are looked for within databases only."""
    # a hierarchy word first (once per name: the profile shares a name's stems), then its table
    any_word = HIERARCHY_WORDS | PERSON_HIERARCHY_WORDS | {"report"}
    named: dict[int, bool] = {}
    roles: dict[tuple[int, int], bool] = {}
    found = []
    role_named: set[int] = set()  # found by a role: the key must have the column's key word
    # each database's tables by their whole names: a role and the own table's name may be another
    # table's whole name (``requests.pull_request_id`` is a row of ``pull_requests``)
    wholes: dict[int, set[str]] = {}
    for i in np.flatnonzero(np.r_[True, p.table[1:] != p.table[:-1]]).tolist():
        if p.table_names[i]:
            wholes.setdefault(int(p.database[i]), set()).add(p.table_names[i][0])
    for i in range(p.n):
        hit = named.get(id(p.stems[i]))
        if hit is None:
            hit = named[id(p.stems[i])] = any(any_word.intersection(s) for s in p.stems[i])
        if p.own_key[i] or p.name_flag[i]:
            continue
        if hit and any(_hierarchical(s, p.table_names[i], p.table_words[i]) for s in p.stems[i] if s):
            found.append(i)
        elif p.key_word[i] is not None and role_of_own(p, i, roles) and not any(
                "".join(st) in wholes.get(int(p.database[i]), ()) for st in p.stems[i] if len(st) > 1):
            found.append(i)
            role_named.add(i)
    keys: dict[int, list[int]] = {}
    for i in np.flatnonzero(p.own_key & np.isin(p.table, p.table[found])).tolist():
        keys.setdefault(int(p.table[i]), []).append(i)
    pairs = []
    for fi in found:
        own = keys.get(int(p.table[fi]), [])
        if len(own) > 1 or fi in role_named:
            own = [ki for ki in own if p.key_word[ki] == p.key_word[fi]]
        if len(own) == 1:
            pairs.append((fi, own[0]))
    return rule_edges(p, pairs, "self")
