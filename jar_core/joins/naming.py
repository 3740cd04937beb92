"""Rule 2 of the join graph, naming conventions: a referencing column names the key it joins
(METHOD.md, the join graph, names; the conventions are ours). Its ``self`` and ``person`` rules are
:mod:`.hierarchy` and :mod:`.people`; the confidences of all are :data:`RULES`.

A column ``f`` references a key column ``k`` of another table when ``f``'s name says so:

=============  ====  ==========================================================================
rule           conf  example
=============  ====  ==========================================================================
same name      0.95  ``dogs.owner_id`` -> ``owners.owner_id``, ``o_custkey`` -> ``c_custkey``
entity         0.90  ``orders.customer_id`` -> ``customer.id``, ``city.CountryCode`` -> ``country.Code``,
                     ``area_alias.type`` -> ``area_alias_type.id`` (its own table's name, then its own)
role           0.85  ``ss_sold_date_sk`` -> ``d_date_sk``, ``current_address_id`` -> ``addresses.address_id``
abbreviation   0.75  ``c_current_addr_sk`` -> ``ca_address_sk``, ``ss_cdemo_sk`` -> ``cd_demo_sk``
sibling        0.70  ``city.CountryCode`` = ``countrylanguage.CountryCode`` (two references to one key)
self           0.90  ``employee.ReportsTo`` -> ``employee.EmployeeId`` (a hierarchy inside one table)
person         0.80  ``Customer.SupportRepId`` -> ``Employee.EmployeeId``, ``created_by`` -> ``users.id``
=============  ====  ==========================================================================

``k`` must be its table's key (declared, declared unique on its own beside the primary key:
MIMIC's ``admissions.hadm_id`` beside ``row_id``, or named after its table: ``id``, ``<table>_id``,
``c_custkey`` in ``customer``; a name of the storage row, ``row_id``, is a bare ``id``; a key
word glued to a table's name is read as written apart, ``customerid`` as ``customer_id``; in a table with no other, its first column when that carries its
supertype's key and a column names the table: ``Customer.PersonID`` -> ``Person.BusinessEntityID``;
never, undeclared, a column named after a part of its table's name that another table goes by:
``dept_emp.emp_no`` references ``employees``, :func:`jar_core.joins.profile.part_references`),
except for *sibling*, where both columns carry the same
key-like name and neither is known to be unique (and, when both tables declare their keys and
neither column is in one, a table of the database is named by it: ``customers.postal_code`` and
``employees.postal_code`` are two attributes; so are, keys declared or not, two of a postal
address's or a telephone's parts, ``cc_street_number`` and ``s_street_number``, unless either
table is one of them, a table of postcodes). A table's own key references another table
by that table's whole name only (same name or entity on the key's own words), never by a role,
an abbreviation or a partial table name (``web_page.wp_web_page_sk`` is no ``catalog_page``
key; a key named by its table's leading word keys the table by that entity: ``ProductVendor.ProductID``
is no ``vendor`` key); so does a column named after its own table (``catalog_page.cp_catalog_page_number`` is
no ``web_page`` key), and two own keys whose names meet only without their tables' prefixes (``cd_demo_sk``,
``hd_demo_sk``) do not join unless the name is the referenced table's, nor do a table's and its
archive's (``TransactionHistoryArchive``), nor two UUIDs of one name each unique in its table and
named after neither (MusicBrainz's ``artist.gid``, ``artist_gid_redirect.gid``: generated identifiers,
no row of one holds the other's); a column without a key word
named after its own table by any of its names (``city.city``, ``FAC_FLOOR.FLOOR``: its own
attribute) references another table by that table's whole name only, never by a name the two
share once their module prefixes are dropped (``FCLT_FLOOR`` is ``FLOOR`` too). A name loses its table's
leading word when that word leads two or more tables of the database (a module prefix:
``FAC_BUILDING.FAC_BUILDING_KEY`` also goes by ``BUILDING_KEY``; ``EmailAddress`` alone is no
``email`` module's ``Address``) unless what is left is a generic head noun
(``AddressType.AddressTypeID`` is no ``TypeID``, which ``ContactType.ContactTypeID`` would share).
Two names that meet only once each has lost a *different* module word name two modules' entities
and do not join (``TIP_MATERIAL_STATUS_KEY``, ``LIBRARY_MATERIAL_STATUS_KEY``: both
``MATERIAL_STATUS_KEY``); tables that share their first two words share a compound name, no
module (``PurchaseOrders``, ``PurchaseOrderLines``: ``PurchaseOrderID`` is no ``OrderID``). A role
and its own table's whole name (``Orders.BackorderOrderID``) is another row of that table, no
other table's. A role is no word that makes the rest another kind of thing
(``c_email_address`` is no address). A referencing name without a key word
(``flights.Airline``, ``ship.lost_in_battle``) counts 0.85 times and is never an abbreviation
(``page_count`` is not ``country``), a natural key word
(``number``, ``no``) 0.9 times; the same key word on both sides adds 0.02; a flag
(``is_current_term``) references nothing. Names are read without the
database: the database (or a file path) never makes two columns look alike.

Matching is a sparse product of name-alias incidences, never a loop over column pairs
(:data:`MATCHES`), then the filters above in named steps (:func:`naming`).
"""
from __future__ import annotations

from itertools import accumulate
from typing import Callable, Sequence

import numpy as np
from scipy import sparse

from jar_core.joins.name_facts import ARCHIVE_WORDS, is_archive, names_the_table
from jar_core.joins.profile import ColumnProfile
from jar_core.joins.words import MAX_ALIAS, incidence

__all__ = ["naming", "rule_edges", "role_of_own", "ref_aliases", "context_aliases", "RULES", "NO_KEY_WORD"]

#: Confidence of each naming rule.
RULES = {
    "same name": 0.95, "entity": 0.90, "role": 0.85, "abbreviation": 0.75, "sibling": 0.70, "self": 0.90,
    "person": 0.80,
}
#: Words of a postal address's or a telephone's parts (``postal_code``, ``cc_street_number``,
#: ``PhoneNumber``): a column named by them alone is an attribute that two tables may share, two
#: customers' and an employee's postcode, not a reference to one entity.
CONTACT_WORDS = frozenset({"postal", "zip", "postcode", "street", "suite", "apartment", "phone", "telephone", "fax",
                           "mobile"})
#: Words that make the entity after them another kind of thing (``c_email_address``,
#: ``ip_address``: no ``address`` of a ``customer_address`` table), so they are no role (a web
#: order is an order: ``web`` is none of them).
MEDIUM_WORDS = frozenset({"email", "mail", "ip", "mac"})
#: Factor for a referencing column whose name has no key word.
NO_KEY_WORD = 0.85
#: Key words of natural keys (numbers, codes people type), weaker than surrogate ``id`` / ``key``.
NATURAL_KEY_WORDS = frozenset({"number", "no", "num", "nr"})
NATURAL = 0.9
#: Added when both names end with the same key word (``*_code`` -> ``*_code``): breaks ties.
SAME_KEY_WORD = 0.02


def _product(a_rows: list[list[str]], b_rows: list[list[str]]) -> sparse.coo_matrix:
    """Pairs (i, j) where row i of ``a_rows`` and row j of ``b_rows`` share an alias."""
    vocab: dict[str, int] = {}
    a, _ = incidence(a_rows, vocab)
    b, _ = incidence(b_rows, vocab)
    a.resize((a.shape[0], max(len(vocab), 1)))
    b.resize((b.shape[0], max(len(vocab), 1)))
    return (a @ b.T).tocoo()


Product = Callable[[Sequence[Sequence[str]], Sequence[Sequence[str]]], sparse.coo_matrix]


def ref_aliases(stems: list[list[str]], has_kw: bool) -> tuple[list[str], list[str], list[str], list[str]]:
    """``(entity, role, abbreviation, glued)`` aliases of a referencing column with ``stems`` (its
    entity words per name variant): the whole entity (``currentaddress``), the entity after each
    leading role word (``address``), with a key word both as abbreviations, and with a key word
    the tails of the whole after its first letters (``demo`` of ``cdemo``: a table's initials
    glued to a key's name, ``ss_cdemo_sk`` -> ``cd_demo_sk``); the names the naming rules read."""
    e: list[str] = []
    r: list[str] = []
    g: list[str] = []
    for stem in stems:
        if not stem:
            continue
        flat = "".join(stem)
        e.append(flat)
        # the tails of :data:`~.profile.MAX_ALIAS` letters or fewer (all of a real name's)
        first, tail = len(stem), 0
        while first > 1 and tail + len(stem[first - 1]) <= MAX_ALIAS:
            first -= 1
            tail += len(stem[first])
        # not after a word that makes the rest another kind of thing (an e-mail address is no address)
        r += ["".join(stem[j:]) for j in range(first, len(stem)) if stem[j - 1] not in MEDIUM_WORDS]
        g += [flat[j:] for j in range(max(1, len(flat) - MAX_ALIAS), len(flat) - 3)]
    # ``addr_sk``, never ``page_count``
    return e, r, (list(dict.fromkeys(e + r)) if has_kw else []), (g if has_kw else [])


def context_aliases(stems: list[list[str]], table_names: list[str]) -> list[str]:
    """The names of a referencing column read in its own table's context: the table's whole name
    followed by the column's entity words (``area_alias.type`` -> ``areaaliastype``, the table
    ``area_alias_type``; ``artist.type`` -> ``artisttype``)."""
    if not table_names or not table_names[0]:
        return []
    return list(dict.fromkeys(table_names[0] + "".join(stem) for stem in stems if stem))


def _key_aliases(
    own_stems: list[list[str]], table_words: list[list[str]], table_names: list[str],
) -> tuple[list[str], list[str], list[str]]:
    """``(strong entity, other entity, abbreviation)`` aliases of its table's key."""
    whole = table_words[0] if table_words else []
    if any(s and len(s) < len(whole) and whole[: len(s)] == s and s not in table_words for s in own_stems):
        # a key named by its table's leading words (``ProductVendor.ProductID``) is a reference to
        # that entity: the table is no kind of what the rest of its name says (``vendor``); unless
        # those words are a name of the table itself (``SalesOrderHeader.SalesOrderID``)
        table_words = [tw for tw in table_words if tw[:1] == whole[:1]]
    stems = [s for s in own_stems if s] + table_words
    e = list(dict.fromkeys("".join(s) for s in stems))
    # the full table name and the key's own words are strong; a table name without its
    # first or last word (``maker`` for ``car_makers``) is matched by a whole name
    # (``model_list.Maker``) or a name with a key word, never by the last word of a
    # name without one (``charges.charge_type`` is not ``treatment_types``)
    strong = list(dict.fromkeys(["".join(s) for s in own_stems if s] + table_names[:1]))
    part = [x for x in e if x not in strong]
    # abbreviations cut the last word only: ``addr`` for ``address``, never ``document`` for
    # ``document_name``; of :data:`~.profile.MAX_ALIAS` letters or fewer (all of a real name's)
    abbr = [head + s[-1][:j] for s in stems if len(s[-1]) >= 5 for head in ("".join(s[:-1]),)
            for j in range(3, min(len(s[-1]) - 1, MAX_ALIAS - len(head) + 1))]
    return strong, part, abbr


def _names_a_table(p: ColumnProfile, i: int, names: list[str]) -> bool:
    """Whether a name of column ``i`` (its words before the key word, or their last word: a role's
    entity) is, or starts, one of ``names``, the names of its database's tables (``customer_id``:
    ``customer``; not ``postal_code``)."""
    return any(names_the_table(s, names, []) for stem in p.stems[i]
               for s in dict.fromkeys(("".join(stem), stem[-1] if stem else "")))


def _contact_parts(p: ColumnProfile, i: int, l: int) -> bool:
    """Whether column ``i`` is named by :data:`CONTACT_WORDS` alone (``postal_code``) and neither
    its table nor column ``l``'s is one of them (a table of postcodes, ``ZIP_CANADA``)."""
    return (any(st and CONTACT_WORDS.issuperset(st) for st in p.stems[i])
            and not any(CONTACT_WORDS.intersection(w) for j in (i, l) for w in p.table_words[j]))


def rule_edges(p: ColumnProfile, pairs: list[tuple[int, int]], rule: str) -> tuple[np.ndarray, ...]:
    """``(f, k, confidence, rule index)`` of ``rule``'s ``(referencing, key)`` ``pairs``: the rule's
    confidence, :data:`NO_KEY_WORD` times it for a referencing name without a key word."""
    f, k = (np.array(x, dtype=np.int64) for x in zip(*pairs)) if pairs else (np.zeros(0, np.int64),) * 2
    conf = np.where(p.has_key_word[f], RULES[rule], RULES[rule] * NO_KEY_WORD)
    return f, k, conf.astype(np.float64), np.full(len(f), list(RULES).index(rule), dtype=np.int64)


def _own_by_role(stem: list[str], table_names: list[str]) -> bool:
    """Whether a name's entity words ``stem`` are a role and its own table's whole name
    (``BillToCustomerID`` in ``Customers``, ``BackorderOrderID`` in ``Orders``): another row of
    its own table, never a row of a table it merely shares a word with (``PurchaseOrders``)."""
    if len(stem) < 2 or not table_names:
        return False
    whole, flat = table_names[0], "".join(stem)
    # the whole name is what follows one of the first words (in time linear in the name's length)
    return flat.endswith(whole) and len(flat) - len(whole) in set(accumulate(map(len, stem[:-1])))


def role_of_own(p: ColumnProfile, i: int, memo: dict[tuple[int, int], bool]) -> bool:
    """:func:`_own_by_role` for column ``i`` by any of its names, once per (name, table name)."""
    key = (id(p.stems[i]), id(p.table_names[i]))
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = any(_own_by_role(s, p.table_names[i]) for s in p.stems[i] if s)
    return hit


def _archived(p: ColumnProfile, f: np.ndarray, k: np.ndarray, same_name: np.ndarray) -> np.ndarray:
    """bool per pair: the own keys of a table and of its archive (``TransactionHistory``,
    ``TransactionHistoryArchive``: the table's name and an :data:`ARCHIVE_WORDS` word), one name
    in both (``same_name``). An archive holds the rows moved out of its table: the two share a key
    name, never a row."""
    out = np.zeros(len(f), dtype=bool)
    if not len(f):
        return out
    # once per table: its whole name ends with an archive word
    _, first, inverse = np.unique(p.table, return_index=True, return_inverse=True)
    arch = np.array([is_archive(p.table_words[i]) for i in first.tolist()], dtype=bool)[inverse.ravel()]
    for e in np.flatnonzero(same_name & p.own_key[f] & p.own_key[k] & (arch[f] | arch[k])).tolist():
        a, b = p.table_words[f[e]], p.table_words[k[e]]
        if not (a and b):  # a table named by no word
            continue
        wa, wb = a[0], b[0]
        out[e] = (len(wa) == len(wb) + 1 and wa[-1] in ARCHIVE_WORDS and wa[:-1] == wb) or (
            len(wb) == len(wa) + 1 and wb[-1] in ARCHIVE_WORDS and wb[:-1] == wa)
    return out


def naming(
    p: ColumnProfile, keyish: np.ndarray, product: Product = _product,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Directed name matches ``(f, k, confidence, rule index)`` over the whole schema.

    ``keyish`` marks the columns that may be referenced (:meth:`ColumnProfile.keyish`). Pairs
    inside one table are excluded; the caller filters types, databases and competing keys.
    ``product(a_rows, b_rows)`` gives the column pairs sharing an alias: every such pair by
    default; across databases the blocked pairs of :func:`jar_core.joins.blocking.name_pairs`.
    """
    f, k, rule = _matches(p, _referencing_aliases(p), _key_aliases_of(p, keyish), product)
    ok = _other_entities(p, f, k, rule)
    f, k, rule = f[ok], k[ok], rule[ok]
    f, k, rule = _same_names(p, f, k, rule)
    conf = _confidence(p, f, k, rule)
    ok = ~p.flag[f]
    f, k, conf, rule = f[ok], k[ok], conf[ok], rule[ok]
    # the best rule per (f, k)
    order = np.lexsort((-conf, k, f))
    f, k, conf, rule = f[order], k[order], conf[order], rule[order]
    first = np.ones(len(f), dtype=bool)
    first[1:] = (f[1:] != f[:-1]) | (k[1:] != k[:-1])
    return f[first], k[first], conf[first], rule[first]


Aliases = list[list[str]]  # one list of aliases per column (shared by the columns that repeat a name)


def _referencing_aliases(p: ColumnProfile) -> dict[str, Aliases]:
    """The aliases each column goes by as a referencing column, per kind (:func:`ref_aliases`:
    ``entity``, ``role``, ``abbreviation``, ``glued``; :func:`context_aliases`: ``context``;
    ``same``: its full names, with a key word and entity words only; ``role with key word``)."""
    n, has_kw = p.n, p.has_key_word
    ent_f, role_f, abbr_f, glue_f, ctx_f = [], [], [], [], []
    # worked out once per name (the profile shares one stems list among the columns that repeat
    # a name), shared by the columns (never changed)
    ctx_memo: dict[tuple[int, int], list[str]] = {}
    ref_memo: dict[tuple[int, bool], tuple[list[str], list[str], list[str], list[str]]] = {}
    for i in range(n):
        key = (id(p.stems[i]), bool(has_kw[i]))
        got = ref_memo.get(key)
        if got is None:
            got = ref_memo[key] = ref_aliases(p.stems[i], key[1])
        ent_f.append(got[0])
        role_f.append(got[1])
        abbr_f.append(got[2])
        glue_f.append(got[3])
        ckey = (id(p.stems[i]), id(p.table_names[i]))
        ctx = ctx_memo.get(ckey)
        if ctx is None:
            ctx = ctx_memo[ckey] = context_aliases(p.stems[i], p.table_names[i])
        ctx_f.append(ctx)
    none: list[str] = []
    return {
        "entity": ent_f, "role": role_f, "abbreviation": abbr_f, "glued": glue_f, "context": ctx_f,
        "same": [p.full_names[i] if has_kw[i] and any(p.stems[i]) else none for i in range(n)],
        "role with key word": [x if has_kw[i] else none for i, x in enumerate(role_f)],
    }


def _key_aliases_of(p: ColumnProfile, keyish: np.ndarray) -> dict[str, Aliases]:
    """The aliases each key column answers to (:func:`_key_aliases`: ``entity`` strong, ``part``,
    ``abbreviation``): its own entity words, and its table's names if it is the key; another
    key-like column answers to its exact name only (siblings: ``same``)."""
    ent_k, part_k, abbr_k = [], [], []
    none: list[str] = []
    none_stems: list[list[str]] = []
    key_memo: dict[tuple[int, int, int], tuple[list[str], list[str], list[str]]] = {}
    for i in range(p.n):
        if not keyish[i] or not p.own_key[i]:
            ent_k.append(none)
            part_k.append(none)
            abbr_k.append(none)
            continue
        # a key adopted from a keyless table's first column carries its supertype's name: it
        # answers to its own table's names only
        stems_i = none_stems if p.adopted[i] else p.stems[i]
        mkey = (id(stems_i), id(p.table_words[i]), id(p.table_names[i]))
        got_k = key_memo.get(mkey)
        if got_k is None:
            got_k = key_memo[mkey] = _key_aliases(stems_i, p.table_words[i], p.table_names[i])
        ent_k.append(got_k[0])
        part_k.append(got_k[1])
        abbr_k.append(got_k[2])
    return {"entity": ent_k, "part": part_k, "abbreviation": abbr_k}


#: The alias products of the naming rules: (rule, referencing aliases, key aliases, exact); an
#: inexact match never makes a table's own key (or a column named after its own table) another
#: table's. ``same`` is matched with ``same``.
MATCHES = (
    ("entity", "entity", "entity", True),
    ("entity", "entity", "part", False),
    ("entity", "context", "entity", True),
    ("role", "role", "entity", False),
    ("role", "role with key word", "part", False),
    ("abbreviation", "abbreviation", "abbreviation", False),
    ("abbreviation", "glued", "entity", False),
    ("same name", "same", "same", True),
)


def _matches(
    p: ColumnProfile, refs: dict[str, Aliases], keys: dict[str, Aliases], product: Product,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(f, k, rule index)`` of every alias match of :data:`MATCHES` between two tables."""
    # a column whose words are its own table's name describes that table (``catalog_page.
    # cp_catalog_page_number``): no role of another one (``catalog`` + ``page`` is no ``web_page``)
    names_own = np.array([bool(p.table_words[i]) and p.table_words[i][0] in p.stems[i] for i in range(p.n)], dtype=bool)
    parts = []
    for rule, ref, key, exact in MATCHES:
        m = product(refs[ref], refs["same"] if key == "same" else keys[key])
        row, col = m.row, m.col
        if ref == "glued":
            ok = np.array([_glue_ok(p, keys["entity"], int(a), int(b)) for a, b in zip(row, col)], dtype=bool)
            row, col = row[ok], col[ok]
        if ref == "same":  # an adopted key answers to its table's names, not to its supertype's key name
            keep_k = ~p.adopted[col] if len(col) else np.zeros(0, dtype=bool)
            row, col = row[keep_k], col[keep_k]
        # a dictionary's code (:func:`jar_core.joins.keys.dictionary_keys`) is the key others hold, of
        # no other table: two dictionaries of one code (diagnoses', procedures') are two lists
        # (nor does another table's key name one: ``D_ITEMS.ITEMID`` is no ``D_LABITEMS`` row)
        keep_d = ~(p.dictionary[row] | (p.dictionary[col] & p.own_key[row])) if len(row) else np.zeros(0, dtype=bool)
        row, col = row[keep_d], col[keep_d]
        if not exact:  # a table's own key (or a column named after its own table) is another table's
            # only by that table's whole name
            keep_own = ~(p.own_key[row] | names_own[row]) if len(row) else np.zeros(0, dtype=bool)
            row, col = row[keep_own], col[keep_own]
        parts.append((row, col, np.full(len(row), list(RULES).index(rule), dtype=np.int64)))
    f = np.concatenate([x[0] for x in parts]).astype(np.int64)
    k = np.concatenate([x[1] for x in parts]).astype(np.int64)
    return f, k, np.concatenate([x[2] for x in parts])


def _glue_ok(p: ColumnProfile, ent_k: Aliases, fi: int, ki: int) -> bool:
    """``ss_cdemo_sk`` -> ``cd_demo_sk``: the letters glued before the key's words start the key's
    table, in the whole name or in its last word (``ws_ship_cdemo_sk``: a role, then ``cdemo``)."""
    if not p.table_words[ki]:  # a table named by no word
        return False
    tw = p.table_words[ki][0]
    initials, flat = "".join(w[0] for w in tw if w), "".join(tw)
    for stem in p.stems[fi]:
        for fs in dict.fromkeys(("".join(stem), stem[-1] if stem else "")):
            for e in ent_k[ki]:
                if len(fs) > len(e) and fs.endswith(e):
                    lead = fs[: -len(e)]
                    if initials.startswith(lead) or flat.startswith(lead):
                        return True
    return False


def _own_attributes(p: ColumnProfile) -> np.ndarray:
    """bool per column: no key word, and named after its own table (``city.city``), once per name
    and table."""
    attr_memo: dict[tuple[int, int], bool] = {}
    own_attr = np.zeros(p.n, dtype=bool)
    for i in np.flatnonzero(~p.has_key_word).tolist():
        akey = (id(p.stems[i]), id(p.table_names[i]))
        hit = attr_memo.get(akey)
        if hit is None:
            hit = attr_memo[akey] = any("".join(s) in p.table_names[i] for s in p.stems[i] if s)
        own_attr[i] = hit
    return own_attr


def _other_entities(p: ColumnProfile, f: np.ndarray, k: np.ndarray, rule: np.ndarray) -> np.ndarray:
    """bool per match ``f -> k``: two tables, and the name names ``k``'s entity, not one its own
    table shares with it (a role of its own table, a module's word)."""
    ok = p.table[f] != p.table[k]
    # a role and its own table's whole name (``Orders.BackorderOrderID``) is another row of its own
    # table (:mod:`.hierarchy`), not one of a table that shares a name with it (``PurchaseOrders``)
    by_role = np.flatnonzero(ok & (rule == list(RULES).index("role")))
    if len(by_role):
        own_memo: dict[tuple[int, int], bool] = {}
        ok[by_role] = [not role_of_own(p, fi, own_memo) for fi in f[by_role].tolist()]
    # a column without a key word named after its own table, by any of its names (``city.city``,
    # ``FAC_FLOOR.FLOOR``), is that table's own attribute: it references another table only by
    # that table's whole name, never by a name both tables go by once their module prefixes are
    # dropped (``FCLT_FLOOR``'s ``FLOOR``)
    attr = np.flatnonzero(ok & _own_attributes(p)[f])
    if len(attr):
        ok[attr] = [any("".join(s) == p.table_names[ki][0] for s in p.stems[fi] if s)
                    for fi, ki in zip(f[attr], k[attr])]
    # two names that meet only once each has lost its table's module word, and the two words
    # differ (``TIP_MATERIAL_STATUS_KEY``, ``LIBRARY_MATERIAL_STATUS_KEY``: ``MATERIAL_STATUS_KEY``
    # both), name two modules' entities: no join
    two = np.flatnonzero(ok & (p.module_word[f] != "") & (p.module_word[k] != "") & (p.module_word[f] != p.module_word[k]))
    if len(two):  # unless one whole name is a name of the other (FAC_BUILDING_KEY, a BUILDING_ table's BUILDING_KEY)
        ok[two] = [p.full_names[fi][0] in p.full_names[ki] or p.full_names[ki][0] in p.full_names[fi]
                   for fi, ki in zip(f[two].tolist(), k[two].tolist())]
    return ok


def _same_names(
    p: ColumnProfile, f: np.ndarray, k: np.ndarray, rule: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The matches ``f -> k`` with the same name sorted out: a reference when ``k`` is a key, two
    siblings when neither is known unique (and not two attributes), none otherwise; no match of
    two tables' own keys alike only without their prefixes, of two generated identifiers, or of
    a table's and its archive's keys."""
    is_same = rule == list(RULES).index("same name")
    uniq_f = np.nan_to_num(p.unique[f], nan=0.0) >= 0.95
    key_k = (p.own_key[k] | p.pk_declared[k] | p.unique_declared[k]) & ~p.copied[k]  # a copy's key is its table's
    sib = is_same & ~key_k & ~uniq_f
    sib = _attributes_apart(p, f, k, sib)
    rule = np.where(sib, list(RULES).index("sibling"), rule)
    # two tables' own keys whose names meet only without their tables' prefixes (cd_demo_sk in
    # customer_demographics, hd_demo_sk in household_demographics) are two surrogate keys, unless
    # the name is the referenced table's; one name in both (film_text.film_id, film.film_id;
    # a table and its copy) is a 1:1 join
    raw = np.array([x[0] if x else "" for x in p.full_names], dtype=object)
    same_raw = raw[f] == raw[k]
    keys_alike = p.own_key[f] & p.own_key[k] & (p.names_table[k] < 2) & ~same_raw
    # two UUIDs of one name, each unique in its table and named after neither table (MusicBrainz's
    # ``artist.gid`` and ``artist_gid_redirect.gid``, a retired one), are two tables' own generated
    # identifiers: no row of one holds the other's
    ident = p.uuid & (p.pk_declared | p.unique_declared | p.own_key)
    two_ids = ident[f] & ident[k] & same_raw & (p.names_table[f] < 2) & (p.names_table[k] < 2)
    keep = (~is_same | key_k | sib) & ~keys_alike & ~two_ids & ~_archived(p, f, k, same_raw)
    return f[keep], k[keep], rule[keep]


def _attributes_apart(p: ColumnProfile, f: np.ndarray, k: np.ndarray, sib: np.ndarray) -> np.ndarray:
    """``sib`` less two attributes of tables whose keys are declared (customers.postal_code,
    employees.postal_code; both out of their keys), which are no two references to one entity
    unless a table of the database is it (nor are two of a postal address's or a telephone's
    parts, keys declared or not, unless either table is one of them: ``ZIP_CANADA``)."""
    loose = np.flatnonzero(sib & ~p.in_pk[f] & ~p.in_pk[k])
    fl, kl = f[loose], k[loose]
    contact = np.array([_contact_parts(p, i, l) for i, l in zip(fl.tolist(), kl.tolist())], dtype=bool)
    attrs = loose[(p.table_has_pk[fl] & p.table_has_pk[kl]) | contact]
    if len(attrs):
        sib = sib.copy()
        db_names: dict[int, list[str]] = {}
        for db in set(p.database[f[attrs]].tolist()):
            db_names[db] = list(dict.fromkeys(x for i in np.flatnonzero(p.database == db).tolist() for x in p.table_names[i]))
        sib[attrs] = [_names_a_table(p, fi, db_names[int(p.database[fi])]) for fi in f[attrs].tolist()]
    return sib


def _confidence(p: ColumnProfile, f: np.ndarray, k: np.ndarray, rule: np.ndarray) -> np.ndarray:
    """The confidence of each match: its rule's, :data:`NO_KEY_WORD` times it without a key word,
    :data:`NATURAL` times it for a natural key word, :data:`SAME_KEY_WORD` more for one key word."""
    conf = np.array(list(RULES.values()), dtype=np.float64)[rule]
    conf = np.where(p.has_key_word[f], conf, conf * NO_KEY_WORD)
    kw = np.array([x or "" for x in p.key_word], dtype=object)
    natural = np.isin(kw, list(NATURAL_KEY_WORDS))
    conf = np.where(natural[f] | natural[k], conf * NATURAL, conf)  # building_number: a weaker key than building_key
    return np.where((kw[f] == kw[k]) & (kw[f] != ""), conf + SAME_KEY_WORD, conf)  # *_code references a *_code
