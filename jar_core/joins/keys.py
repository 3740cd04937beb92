"""Which columns key their tables, beyond what the names say (METHOD.md, the join graph: a
reference goes to a key).

A column named after a part of its table's name that is another table is a reference, no key
(:func:`part_references`: ``ProductVendor.ProductID``); a keyless table's first column carrying its
supertype's key, or named after no table while others name the table, keys it (:func:`adopted_keys`:
``Person.BusinessEntityID``, ``Physician.EmployeeID``); ``<x>_id`` beside
``<x>_type`` is polymorphic (:func:`typed_stems`, :func:`typed_part`); a table named as another
and a copy word after it, holding all its columns, is its copy (:func:`copy_bases`).
"""
from __future__ import annotations

from itertools import accumulate
from typing import Sequence

import numpy as np

from jar_core.column_types import TypeFamily
from jar_core.joins.name_facts import GLUED_QUALIFIERS, TABLE_QUALIFIERS, table_names
from jar_core.joins.words import MAX_ALIAS, abbreviates, glued_stems, words, written_words
from jar_core.schema import Schema

__all__ = ["declared_columns", "COPY_WORDS", "copy_bases", "adopted_keys", "dictionary_keys", "QUALIFIER_LETTERS",
           "typed_stems", "typed_part", "part_references"]


def declared_columns(schema: Schema, col_offsets: np.ndarray) -> list[tuple[int, int, bool]]:
    """``(referencing, referenced, single_column_key)`` global column positions of every declared
    foreign key of ``schema`` (columns stacked in table order, ``col_offsets`` as in the index)."""
    out = []
    for ti, t in enumerate(schema.tables):
        if not t.foreign_keys:
            continue
        names = [c.name for c in t.columns]
        for fk in t.foreign_keys:
            rt = schema.position(fk.ref_table)
            rnames = [c.name for c in schema.tables[rt].columns]
            for a, b in zip(fk.columns, fk.ref_columns):
                out.append((int(col_offsets[ti]) + names.index(a), int(col_offsets[rt]) + rnames.index(b),
                            len(fk.columns) == 1))
    return out


#: Trailing words that make a table a copy of the table it is named after, when it holds all of
#: that table's columns (``Customers_Archive``, ``FCLT_BUILDING_HIST_1``, ``orders_bak``).
COPY_WORDS = TABLE_QUALIFIERS | {"archived", "audit", "backup", "bak", "copy", "log", "prev", "previous", "staging"}


def copy_bases(schema: Schema) -> list[int]:
    """Per table, the position of the table it copies, else ``-1``: a table of the same database
    named as it and :data:`COPY_WORDS` words or numbers after (``Customers_Archive``,
    ``FCLT_BUILDING_HIST_1``; ``transactionhistoryarchive`` written as one word) that holds every
    column of it (case-folded names); a copy of a copy (``FCLT_BUILDING_HIST_1`` of
    ``FCLT_BUILDING_HIST``) copies the first table. A history, an archive, a backup or a staging
    copy: its rows are versions or copies of the base table's rows, so a reference to the entity
    is to the base table (the copy's key repeats per version, or is the base table's key again)."""
    by_name: dict[tuple[str, str], int] = {}
    for ti, t in enumerate(schema.tables):
        by_name.setdefault((t.join_scope, "".join(written_words(t.name))), ti)
    out = [-1] * len(schema.tables)
    for ti, t in enumerate(schema.tables):
        tw = written_words(t.name)
        bases, end = [], len(tw)  # the name without one trailing copy word or more, shortest cut first
        while end > 1 and (tw[end - 1] in COPY_WORDS or tw[end - 1].isdigit()):
            end -= 1
            bases.append("".join(tw[:end]))
        if len(tw) == 1:  # ``transactionhistoryarchive``
            bases = glued_stems(tw[0], GLUED_QUALIFIERS)
        for name in bases:
            b = by_name.get((t.join_scope, name), -1)
            if b < 0 or b == ti or len(schema.tables[b].columns) < 2:
                continue
            if {c.name.casefold() for c in schema.tables[b].columns} <= {c.name.casefold() for c in t.columns}:
                out[ti] = b
                break
    for ti in range(len(out)):  # a base's name is shorter than its copy's: no cycle
        while out[ti] >= 0 and out[out[ti]] >= 0:
            out[ti] = out[out[ti]]
    return out


def adopted_keys(
    schema: Schema, col_offsets: np.ndarray, own: np.ndarray, table: np.ndarray, database: np.ndarray,
    names_table: np.ndarray, full: list[list[str]], key_word: list[str | None], flags: list[bool],
    unique: list[float], keyless: list[bool], stems: list[list[list[str]]], tnames: list[list[str]],
    numeric: list[bool],
) -> np.ndarray:
    """bool per column: the key of a table that has no other (no primary key declared, no column
    named after it), taken from its first column when that column carries the key of another table
    of its database, named after that table: a subtype keyed by its supertype's key
    (``Person.BusinessEntityID``, ``BusinessEntity.BusinessEntityID``), and a key column elsewhere
    in the database names the table by its whole name (``Customer.PersonID``). It answers to its table's
    names only (:func:`jar_core.joins.naming.naming`): ``Customer.PersonID`` references it, a
    ``BusinessEntityID`` elsewhere still references ``BusinessEntity``. So is a first column with a
    key word named after no table of the database (``Physician.EmployeeID``, ``Nurse.EmployeeID``: no
    ``employee`` table) when a column of another table is named as the table, whole and without a
    key word (``Appointment.Physician``); without a key word, so is a first column that holds
    numbers (``numeric``, bool per column: ``Patient.SSN`` where ``Stay.Patient`` names the
    table), never a text one (a name). A first column known to repeat values
    (``lineitem.l_orderkey`` in a database) is no key."""
    out = np.zeros(len(own), dtype=bool)
    keyed = np.zeros(len(schema.tables), dtype=bool)
    keyed[table[own]] = True
    if keyed.all():
        return out
    supers: dict[int, set[str]] = {}
    for i in np.flatnonzero(own & (names_table == 2)).tolist():
        supers.setdefault(int(database[i]), set()).update(full[i])
    # the entities the database's key columns name (``PersonID``: ``person``), per database, and
    # the tables other columns are named as, whole and without a key word (``Appointment.Physician``)
    named: dict[int, set[str]] = {}
    plain: dict[tuple[int, str], set[int]] = {}  # (database, name) -> the tables with such a column
    for i in np.flatnonzero(~own).tolist():
        if key_word[i] is not None:
            named.setdefault(int(database[i]), set()).update("".join(s) for s in stems[i] if s)
        elif not flags[i] and not keyless[i]:
            for st in stems[i]:
                if st:
                    plain.setdefault((int(database[i]), "".join(st)), set()).add(int(table[i]))
    entities: dict[int, set[str]] = {}  # per database, its tables' whole names
    for ti, t in enumerate(schema.tables):
        i = int(col_offsets[ti])
        if t.columns and tnames[i]:
            entities.setdefault(int(database[i]), set()).add(tnames[i][0])
    for ti, t in enumerate(schema.tables):
        if keyed[ti] or t.primary_key or not t.columns:
            continue
        i = int(col_offsets[ti])
        u = unique[i]
        db = int(database[i])
        if flags[i] or keyless[i] or (u == u and u < 0.95) or not tnames[i]:
            continue
        if key_word[i] is None and not numeric[i]:
            continue  # without a key word, only a number (an SSN) may be a key named after no table
        carries = (key_word[i] is not None and bool(supers.get(db, set()).intersection(full[i]))
                   and tnames[i][0] in named.get(db, ()))
        # a key named after no table (``Physician.EmployeeID``) of a table others are named as
        alone = (bool(plain.get((db, tnames[i][0]), set()) - {ti}) and names_table[i] == 0
                 and not any("".join(st) in entities.get(db, ()) for st in stems[i] if st))
        if not (carries or alone):
            continue
        out[i] = True
    return out


#: Letters a table's name must have before a column's entity for the table to be a kind of it
#: (``labitem`` for ``ITEMID``: the lab's items).
QUALIFIER_LETTERS = 3


def dictionary_keys(
    schema: Schema, col_offsets: np.ndarray, own: np.ndarray, rows: np.ndarray, database: np.ndarray,
    key_word: list[str | None], flags: list[bool], keyless: list[bool], stems: list[list[list[str]]],
    full: list[list[str]], tnames: list[list[str]], entities: dict[str, frozenset[str]], excluded: np.ndarray,
) -> np.ndarray:
    """bool per column: the code of a *dictionary*, a table that declares no key and is keyed by
    nothing but a number of its storage rows (MIMIC's ``ROW_ID``), whose columns are that row
    number, one column with a key word, and text (``D_ICD_PROCEDURES``: ``ROW_ID``, ``ICD9_CODE``,
    ``SHORT_TITLE``, ``LONG_TITLE``), when another table of its database has a column of that
    name (``PROCEDURES_ICD.ICD9_CODE``) and none of its text columns is in a table without the
    code (``Tryout.cName`` beside ``pID`` is a college's: a record of tryouts). What the others
    hold is then the code the dictionary spells out, not its row numbers. The code's entity must
    name no table of the database, whole or abbreviated (``ICD9_CODE``; not ``Has_Allergy.StuID``,
    a student's), or end the dictionary's own name after a qualifier of
    :data:`QUALIFIER_LETTERS` letters or more (``D_LABITEMS.ITEMID``: the lab's items, beside
    ``D_ITEMS``): a column named after another table (``department_id``) refers to it. Without
    rows nothing says which column is unique; in the suite's schemas such tables are MIMIC-III's
    lookups and Spider's code tables (``Ref_Budget_Codes``, ``Restaurant_Type``). ``rows``: per
    column, whether it numbers its table's rows; ``entities``: per join scope, the names its tables
    go by. The columns that other tables hold are gathered only for a database with a table of
    that shape."""
    out = np.zeros(len(own), dtype=bool)
    found: list[tuple[int, int]] = []  # (table, its code column): the shape of a dictionary
    for ti, t in enumerate(schema.tables):
        lo, hi = int(col_offsets[ti]), int(col_offsets[ti + 1])
        if t.primary_key or hi - lo < 2 or any(c.unique for c in t.columns):
            continue
        if (own[lo:hi] & ~rows[lo:hi]).any():
            continue  # keyed by a column named after it
        codes = [i for i in range(lo, hi) if not rows[i] and key_word[i] is not None]
        if len(codes) != 1 or flags[codes[0]] or keyless[codes[0]] or excluded[codes[0]]:
            continue
        if any(not rows[lo + j] and lo + j != codes[0] and c.family is not TypeFamily.TEXT
               for j, c in enumerate(t.columns)):
            continue  # a date, a number or a flag beside the code: a record, no dictionary
        found.append((ti, codes[0]))
    if not found:
        return out
    dbs = {int(database[i]) for _, i in found}
    holders: dict[tuple[int, str], set[int]] = {}  # (database, column name) -> the tables with such a column
    for ti in range(len(schema.tables)):
        lo, hi = int(col_offsets[ti]), int(col_offsets[ti + 1])
        if hi > lo and int(database[lo]) in dbs:
            for i in range(lo, hi):
                for name in full[i]:
                    holders.setdefault((int(database[lo]), name), set()).add(ti)
    for ti, i in found:
        lo, hi = int(col_offsets[ti]), int(col_offsets[ti + 1])
        db = int(database[i])
        coded = set().union(*(holders.get((db, n), set()) for n in full[i]))
        if len(coded) < 2:
            continue  # no other table holds the code
        if any(not (holders.get((db, n), set()) <= coded) for j in range(lo, hi) if j != i and not rows[j]
               for n in full[j]):
            continue  # a text column another table without the code has too (Tryout.cName, a college's): a record
        ents = ["".join(st) for st in stems[i] if st]
        if not ents:
            continue
        kind = any(len(n) - len(x) >= QUALIFIER_LETTERS and n.endswith(x) for n in tnames[i] for x in ents)
        scope = entities.get(schema.tables[ti].join_scope, frozenset())
        named = any(x == e or abbreviates(x, e) for x in ents for e in scope)
        if kind or not named:
            out[i] = True
    return out


def typed_stems(table: Sequence[int], stems: list[list[list[str]]], full: list[list[str]]) -> np.ndarray:
    """bool per column (:attr:`ColumnProfile.typed_stem`): its entity words ``<x>`` (one name
    variant's) have an ``<x>_type`` column in its table (Rails' polymorphic ``record_id`` /
    ``record_type``, ``scan_id`` / ``scan_type``)."""
    types = {(t, n) for t, names in zip(table, full) for n in names if n.endswith("type")}
    if not types:
        return np.zeros(len(stems), dtype=bool)
    return np.fromiter((any(st and (t, "".join(st) + "type") in types for st in v) for t, v in zip(table, stems)),
                       dtype=bool, count=len(stems))


def typed_part(
    schema: Schema, table: Sequence[int], stems: list[list[list[str]]], typed: np.ndarray,
    leads: set[tuple[str, str]],
) -> np.ndarray:
    """bool per column: ``typed`` (:func:`typed_stems`) and its entity words are not its table's
    whole name, its module prefix (``leads``) or a trailing qualifier aside: Rails' polymorphic
    ``scan_id`` / ``scan_type`` in ``targets_scans``, not ``FCLT_BUILDING.BUILDING_NUMBER`` beside
    its ``BUILDING_TYPE``."""
    out = typed.copy()
    if not out.any():
        return out
    whole: list[set[str]] = []
    for t in schema.tables:
        tw = words(t.name)
        own = [tw[1:] if len(tw) > 1 and (t.join_scope, tw[0]) in leads else tw]
        own += [w[:-1] for w in own if len(w) > 1 and w[-1] in TABLE_QUALIFIERS]
        whole.append({"".join(tw)} | {"".join(w) for w in own})
    for i in np.flatnonzero(out).tolist():
        out[i] = not any("".join(st) in whole[table[i]] for st in stems[i])
    return out


def part_references(
    schema: Schema, table: np.ndarray, own: np.ndarray, key_word: list[str | None],
    stems: list[list[list[str]]], pk_declared: list[bool], unique_declared: list[bool],
    leads: set[tuple[str, str]],
) -> tuple[np.ndarray, np.ndarray]:
    """Two bool arrays per column. The first: a key by its name (:attr:`ColumnProfile.own_key`, not
    declared) that names a part of its table's name, never the whole, and that part is another table
    of its database: the whole name of that table (``ProductVendor.ProductID``: ``Product``) or an
    abbreviation of a table named by one word that holds a column named by it (``dept_emp.emp_no``:
    ``employees``, with its ``emp_no``; ``dept_manager.dept_no``: ``departments``). A table named
    after two entities links them, or is one entity's part; its column named after the other table
    is a reference to that table, not the link's key (``episode_event.episode_id``). A part may
    be the rest of a module's table's name, where that table alone goes by it (a word of
    ``NewFactCurrencyRate`` is ``DimCurrency``'s ``currency``). A table whose
    part is no other table keeps it (``customer_orders.order_id``). The second: a column declared
    unique beside its table's primary key and named after another table of its database by that
    table's whole name, never its own (Lago's
    ``usage_monitoring_subscription_activities.subscription_id``, one row per subscription): a
    reference to that table, one to one, not an alternate key that others refer to. ``leads``: the
    module prefixes (:func:`module_words`)."""
    out = np.zeros(len(own), dtype=bool)
    whole: list[list[str]] = []
    by_scope: dict[str, dict[str, int]] = {}
    singles: dict[str, list[tuple[str, int]]] = {}
    for ti, t in enumerate(schema.tables):
        tw = words(t.name)
        w = ["".join(tw)] if tw else []
        if len(tw) > 1 and tw[-1] in TABLE_QUALIFIERS:
            w.append("".join(tw[:-1]))
        whole.append(w)
        names = by_scope.setdefault(t.join_scope, {})
        for x in w:
            names.setdefault(x, ti)
        if len(tw) == 1:
            singles.setdefault(t.join_scope, []).append((tw[0], ti))

    # an abbreviation names a one-word table that holds a column named by it (``employees.emp_no``),
    # not any table whose name starts alike (``ordersummary`` for ``order``)
    held: dict[int, set[str]] = {}
    for i, st in enumerate(stems):
        held.setdefault(int(table[i]), set()).update("".join(x) for x in st if x)

    def is_table(scope: str, name: str, ti: int) -> bool:  # a table other than ``ti`` goes by ``name``
        return by_scope[scope].get(name, ti) != ti or any(
            o != ti and abbreviates(name, w) and name in held.get(o, ()) for w, o in singles.get(scope, []))

    # a module prefix names no table (``FCLT_BUILDING`` is the module's building); a leading word
    # that does is an entity (``dept_emp``: ``departments``)
    moduled: dict[tuple[str, str], list[int]] = {}
    for ti, t in enumerate(schema.tables):
        tw = words(t.name)
        if len(tw) > 1 and (t.join_scope, tw[0]) in leads and not is_table(t.join_scope, tw[0], ti):
            whole[ti] = whole[ti] + ["".join(tw[1:])]
            moduled.setdefault((t.join_scope, "".join(tw[1:])), []).append(ti)
    # the one table a module's name goes by once its prefix is dropped (``DimCurrency``: ``currency``;
    # not ``department`` of both ``SIS_DEPARTMENT`` and ``STUDENT_DEPARTMENT``)
    going_by: dict[tuple[str, str], int] = {}
    for t in schema.tables:
        for x in table_names(t):
            going_by[(t.join_scope, x)] = going_by.get((t.join_scope, x), 0) + 1
    module_name = {k: v[0] for k, v in moduled.items() if len(v) == 1 and going_by.get(k, 0) <= 1}
    with_kw = np.fromiter((k is not None for k in key_word), dtype=bool, count=len(key_word))
    for i in np.flatnonzero(own & with_kw & ~np.asarray(pk_declared, dtype=bool)
                            & ~np.asarray(unique_declared, dtype=bool)).tolist():
        ti = int(table[i])
        flat = ["".join(st) for st in stems[i] if st]
        tw = words(schema.tables[ti].name)
        if len(tw) > 1 and flat and not any(f in whole[ti] for f in flat):
            scope = schema.tables[ti].join_scope
            # a word of the name that is a module's table (``NewFactCurrencyRate.CurrencyKey``)
            out[i] = any(is_table(scope, f, ti) or (_is_run(f, tw) and module_name.get((scope, f), ti) != ti)
                         for f in flat)
    return out, _one_to_one(schema, table, stems, unique_declared, with_kw, whole, by_scope)


def _one_to_one(
    schema: Schema, table: np.ndarray, stems: list[list[list[str]]], unique_declared: list[bool], with_kw: np.ndarray,
    whole: list[list[str]], by_scope: dict[str, dict[str, int]],
) -> np.ndarray:
    """bool per column: declared unique beside its table's primary key, with a key word, and named
    after another table of its database (``by_scope``: names to tables) by that table's whole
    name, never its own (``whole``: each table's): :func:`part_references`' second array."""
    one_to_one = np.zeros(len(table), dtype=bool)
    for i in np.flatnonzero(np.asarray(unique_declared, dtype=bool) & with_kw).tolist():
        ti = int(table[i])
        flat = ["".join(st) for st in stems[i] if st]
        if flat and not any(f in whole[ti] for f in flat):  # by its whole name: travis' ``org_id`` of
            # every table, unique, is each row's id in another database, not ``organizations``'
            names = by_scope[schema.tables[ti].join_scope]
            one_to_one[i] = any(names.get(f, ti) != ti for f in flat)
    return one_to_one


def _is_run(name: str, tw: list[str]) -> bool:
    """Whether ``name`` is words of ``tw`` in a row written together (``currency`` of ``new fact
    currency rate``), of :data:`MAX_ALIAS` letters or fewer: in time linear in ``tw``'s letters."""
    if not name or len(name) > MAX_ALIAS:
        return False
    flat, cuts = "".join(tw), set(accumulate(map(len, tw), initial=0))
    at = flat.find(name)
    while at >= 0:
        if at in cuts and at + len(name) in cuts:
            return True
        at = flat.find(name, at + 1)
    return False
