"""Column profiles: what the join rules know of each column, stacked over the whole schema.

For every column (in ``SchemaIndex`` order): its table and database (its table's
:attr:`~jar_core.schema.Table.join_scope`: one catalog's schemas are one database), the name
split into words (camelCase and ``snake_case``, singular), the words without a warehouse-style table
prefix (``o_custkey`` -> ``custkey``), the key word it ends with (``id``, ``key``, ``sk``,
``code``...) and the entity words before it (the *stem*), whether the name marks it as its
own table's key, its uniqueness, its distinct sample values, and a type class *checked
against the sample values* (a declared ``text`` column whose samples are all integers is
numeric: declared types are often wrong).
"""
from __future__ import annotations

import functools
import re
from bisect import bisect_right
from dataclasses import dataclass
from datetime import date, datetime
from itertools import accumulate
from typing import Any, Sequence

import numpy as np
from scipy import sparse

from jar_core.schema import Column, Schema, Table, TypeFamily, join_class, keyless_type

__all__ = ["ColumnProfile", "words", "singular", "KEY_WORDS", "value_key", "sample_class", "fractional", "incidence"]

#: Words that end a key column's name (``customer_id``, ``o_custkey``, ``cr_reason_sk``...).
KEY_WORDS = frozenset({"id", "key", "sk", "code", "no", "num", "number", "nr", "uid", "pk", "fk", "guid", "uuid"})
_GLUED = ("key", "id", "sk")  # glued to the stem in prefixed warehouse names: ``custkey``
#: Letters of the longest alias the naming rules make of a part of a name (a role's entity, an
#: abbreviation, a tail, a module prefix, a table's name glued to a key word): more than any real
#: identifier has (PostgreSQL's have 63 at most, SQL Server's and Oracle's 128), so a longer name
#: (SQLite's have no limit) costs time and memory linear in its length; it still goes by its whole.
MAX_ALIAS = 256
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


#: Words that end like a plural in ``-ies`` and are their own singular.
_SAME_IN_SINGULAR = frozenset({"series", "species"})
#: ``-uses`` after a consonant drops ``es`` (``statuses``, ``campuses``), after a vowel ``s`` (``houses``).
_CONSONANT_USES = re.compile(r"[^aeiou]uses$")


#: Plurals no suffix rule reads (``People.PersonID``: a table of people keyed by a person's id).
_IRREGULAR_PLURALS = {"people": "person", "persons": "person", "children": "child", "men": "man", "women": "woman"}


def singular(w: str) -> str:
    """English singular of one lower-case word (``categories`` -> ``category``, ``boxes`` -> ``box``,
    ``courses`` -> ``course``, ``statuses`` -> ``status``, ``ids`` -> ``id``)."""
    if len(w) > 4 and w.endswith("ies"):
        return w if w in _SAME_IN_SINGULAR else w[:-3] + "y"
    if len(w) > 4 and (w.endswith(("sses", "xes", "ches", "shes")) or _CONSONANT_USES.search(w)):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    if len(w) == 3 and w.endswith("s") and w[1] not in "aeiouy":  # ``ids``, ``pcs``; not ``gas``, ``bus``
        return w[:-1]
    return w


def words(name: str) -> list[str]:
    """``"SupportRepId"`` -> ``["support", "rep", "id"]``; ``"FCLT_ROOMS"`` -> ``["fclt", "room"]``;
    ``"People"`` -> ``["person"]`` (:data:`_IRREGULAR_PLURALS`: a name's entity, which its keys name)."""
    return list(_words(name))


@functools.lru_cache(maxsize=1 << 16)
def _words(name: str) -> tuple[str, ...]:
    return tuple(_IRREGULAR_PLURALS.get(w) or singular(w) for w in _written_words(name))


def _written_words(name: str) -> list[str]:
    """A name's words as written, lower case, plurals kept (``units_on_order`` -> ``units``, ``on``, ``order``)."""
    return _WORD.findall(_CAMEL.sub(" ", name).lower())


def value_key(v: Any) -> str:
    """A sample value as compared across columns: trimmed, lower case, ``3.0`` as ``3``."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v).strip().lower()


_INT = re.compile(r"^[+-]?\d+$")
_REAL = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?$|^\d{1,2}:\d{2}(:\d{2})?$")


def incidence(rows: Sequence[Sequence[str]], vocab: dict[str, int] | None = None) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Row x item 0/1 matrix of ``rows`` (each item once per row) and each row's item count.

    Items are numbered in ``vocab`` (a fresh one by default); pass one ``vocab`` to two calls to
    compare two sets of rows, then widen the first matrix to the final ``len(vocab)``.
    """
    vocab = {} if vocab is None else vocab
    # a list shared by several rows (the profile shares the lists of repeated names) is numbered once
    seen: dict[int, int] = {}
    code = np.fromiter((seen.setdefault(id(items), len(seen)) for items in rows), dtype=np.int64, count=len(rows))
    del seen
    # a list's first row is where its code first appears (codes are numbered in order)
    first = np.flatnonzero(np.diff(np.maximum.accumulate(np.concatenate([[-1], code]))) > 0)
    d_indptr, d_indices = [0], []
    for i in first.tolist():
        d_indices.extend(sorted({vocab.setdefault(x, len(vocab)) for x in rows[i]}))
        d_indptr.append(len(d_indices))
    d_start = np.array(d_indptr, dtype=np.int64)
    del d_indptr
    lengths = np.diff(d_start)[code]
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    gather = np.repeat(d_start[:-1][code] - indptr[:-1], lengths) + np.arange(int(indptr[-1]), dtype=np.int64)
    indices = np.array(d_indices, dtype=np.int64)[gather]
    m = sparse.csr_matrix(
        (np.ones(len(indices), dtype=np.float32), indices, indptr), shape=(len(rows), max(len(vocab), 1)),
    )
    return m, lengths


def sample_class(values: Sequence[Any]) -> str | None:
    """The type class the sample values show (``numeric``, ``date-time``, ``text``), None if no values."""
    vals = [v for v in values if v is not None and str(v).strip() != ""]
    if not vals:
        return None
    if all(isinstance(v, bool) for v in vals):
        return TypeFamily.BOOLEAN.value
    if all(isinstance(v, (int, float)) or (isinstance(v, str) and _REAL.match(v.strip())) for v in vals):
        return "numeric"
    if all(isinstance(v, (date, datetime)) or (isinstance(v, str) and _DATE.match(v.strip())) for v in vals):
        return TypeFamily.DATETIME.value
    return TypeFamily.TEXT.value


def fractional(values: Sequence[Any]) -> bool:
    """Whether a number among ``values`` has a fraction (``6.5``, ``"12.50"``; not ``3.0``)."""
    for v in values:
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, str):
            if not _REAL.match(v.strip()):
                continue
            v = float(v)
        if isinstance(v, (int, float)) and not float(v).is_integer():
            return True
    return False


def _table_prefix(t: Table) -> str | None:
    """The short prefix most of a table's columns share (``c_`` in TPC-H ``customer``), if any."""
    firsts = [c.name.split("_", 1)[0].lower() for c in t.columns if "_" in c.name]
    if len(t.columns) < 2 or len(firsts) < 0.8 * len(t.columns):
        return None
    head = max(set(firsts), key=lambda x: (firsts.count(x), x))
    if firsts.count(head) < 0.8 * len(t.columns) or not (1 <= len(head) <= 4) or not head.isalpha():
        return None
    tw = words(t.name)
    initials = "".join(w[0] for w in tw if w)
    flat = "".join(tw)
    if initials.startswith(head) or flat.startswith(head) or head.startswith(initials):
        return singular(head)
    return None


def _split(tokens: list[str], glued: bool, leading: bool = True) -> tuple[list[str], str | None]:
    """``(stem, key word)`` of a name's words; ``glued`` also splits ``custkey`` -> ``cust`` + ``key``.
    The key word comes last, or with ``leading`` (a name as written, not what is left of it without
    a prefix: ``SUBJECT_ID_SORT`` is no ``sort`` id) ``id`` first (:data:`LEADING_KEY_WORD`:
    ``id_cliente``, the way of schemas written in Spanish, Italian, Portuguese or French, and
    MySQL Workbench's ``idUser``)."""
    if len(tokens) > 1 and tokens[-1] in KEY_WORDS:
        return tokens[:-1], tokens[-1]
    if tokens and tokens[-1] in KEY_WORDS:
        return [], tokens[-1]
    if glued and tokens:
        last = tokens[-1]
        for suf in _GLUED:
            if last.endswith(suf) and len(last) >= len(suf) + 3:
                return tokens[:-1] + [last[: -len(suf)]], suf
    if leading and len(tokens) > 1 and tokens[0] in LEADING_KEY_WORDS:  # ``id_cliente``, ``idUsuarios``
        return tokens[1:], tokens[0]
    return tokens, None


#: Entity words that name a table's storage row, no entity (``row_id``, ``ROWID``, ``row_num``, MIMIC's
#: surrogate key of every table): such a name is read as a bare ``id``, its own table's key or nothing.
ROW_WORDS = frozenset({"row"})
_ROW_GLUED = {"rowid": "id", "rownum": "num"}


def _row_number(stem: list[str], kw: str | None) -> tuple[list[str], str | None, bool]:
    """``(stem, key word, numbers rows)`` of a name's stem and key word: a row number (``row_id``,
    ``ROWID``, :data:`ROW_WORDS`) has no entity, a bare key word."""
    if kw is None and len(stem) == 1 and stem[0] in _ROW_GLUED:  # ``ROWID``
        return [], _ROW_GLUED[stem[0]], True
    if kw is not None and stem and ROW_WORDS.issuperset(stem):
        return [], kw, True
    return stem, kw, False


def _is_row_number(name: str) -> bool:
    """Whether a column name numbers its table's rows (``row_id``, ``ROWID``): :func:`_row_number`."""
    return _row_number(*_split(words(name), glued=False))[2]


#: Trailing words that qualify a table rather than name its entity (``date_dim``, ``model_list``,
#: ``SalesOrderHeader``: a sales order).
TABLE_QUALIFIERS = frozenset({
    "dim", "dimension", "fact", "tbl", "table", "list", "all", "hist", "history", "new", "old", "info", "data",
    "detail", "master", "lookup", "lkp", "ref", "map", "mapping", "tmp", "temp", "view", "vw", "snapshot",
    "archive", "current", "stage", "stg", "header",
})
#: Qualifiers read off the end of a table name written as one word (``salesorderheader`` is a
#: ``salesorder``): the long ones only, which end no other word a table is named by (``playlist``
#: is no ``play`` list).
GLUED_QUALIFIERS = ("history", "header", "detail", "archive", "snapshot", "mapping", "lookup")


def glued_stems(word: str, suffixes: Sequence[str] | frozenset[str]) -> list[str]:
    """What is left of ``word``, a name written as one word, without each of ``suffixes`` it ends
    with, three letters or more (``transactionhistoryarchive`` -> ``transactionhistory``)."""
    return [word[: -len(q)] for q in suffixes if word.endswith(q) and len(word) - len(q) >= 3]


#: Key words read off the end of a column name written as one word (``customerid``,
#: ``billtoaddressid``), longest first, when what is left names a table of the database.
GLUED_KEY_WORDS = ("number", "guid", "uuid", "code", "key", "num", "uid", "id", "sk", "no", "nr")

#: Declared types of a UUID: an identifier generated for its row (MusicBrainz's ``gid``), shared by
#: no other table's rows unless one references the other.
UUID_TYPE = re.compile(r"^\s*(uuid|uniqueidentifier)\b", re.I)
#: Words that mark a flag column (``is_current_term``, ``has_pet``, ``term_flag``): never a reference.
FLAG_WORDS = frozenset({"is", "has", "flag", "ind", "indicator", "yn"})
#: First words of a count or a sum (``units_on_order``, ``NUM_OF_ROOMS``, ``TOTAL_UNITS``): a measure
#: of the entity its name ends with, never a reference to it.
COUNT_WORDS = frozenset({"num", "number", "nbr", "count", "cnt", "total", "sum", "qty", "quantity", "units",
                         "amount", "amt", "avg", "average"})


@functools.lru_cache(maxsize=1 << 16)
def counts(name: str) -> bool:
    """Whether column ``name`` is a count or a sum by its name: a first word of :data:`COUNT_WORDS`
    (as written: ``units``, not ``unit_price``), more words after it and no key word
    (``count_id`` is a key)."""
    raw = _written_words(name)
    return len(raw) > 1 and raw[0] in COUNT_WORDS and _split(words(name), glued=False)[1] is None


def table_words(t: Table) -> list[list[str]]:
    """The entity names a table goes by, as word lists: its words, without its first word (the
    head noun comes last), and without a trailing qualifier (``car_makers`` -> ``car maker``,
    ``maker``; ``date_dim`` -> ``date dim``, ``dim``, ``date``); a table that is its entity's
    record (``PurchaseOrderHeader``, :data:`ENTITY_QUALIFIERS`) goes by that entity's head noun
    too (``order``), as ``WorkOrder`` does."""
    tw = words(t.name)
    out = [tw]
    if len(tw) > 1:
        out.append(tw[1:])  # the head noun comes last: ``car_makers`` is a kind of ``maker``
        if tw[-1] in TABLE_QUALIFIERS:
            out.append(tw[:-1])
            if len(tw) > 2 and tw[-1] in ENTITY_QUALIFIERS:  # a purchase order, a kind of ``order``
                out.append(tw[1:-1])
    elif tw:  # one word as written: ``salesorderheader`` (PostgreSQL folds unquoted SalesOrderHeader)
        stems = glued_stems(tw[0], GLUED_QUALIFIERS)
        if stems:
            out.append([stems[0]])
    keep, seen = [], set()
    for ws in out:
        flat = "".join(ws)
        if flat not in seen and (len(flat) >= 3 or (ws is tw and tw)):  # a name of no word names nothing
            seen.add(flat)
            keep.append(ws)
    return keep


def table_names(t: Table) -> list[str]:
    """:func:`table_words` joined: ``car_makers`` -> ``carmaker``, ``maker``, ``car``."""
    return ["".join(ws) for ws in table_words(t)]


#: Letters of the longest abbreviation with letters dropped inside the word (``dept``, ``acct``,
#: ``mgmt``); a longer one only cuts the word's end (``product`` of ``productdescription``).
ABBREVIATION_LETTERS = 5


@functools.lru_cache(maxsize=1 << 16)
def abbreviates(short: str, name: str) -> bool:
    """Whether ``short`` abbreviates the word ``name``: three letters or more, shorter, the same first two
    letters and the rest in order (``cust`` of ``customer``, ``emp`` of ``employee``, ``dept`` of
    ``department``, ``acct`` of ``account``; not ``cat`` of ``contact``)."""
    if not 3 <= len(short) < len(name) or short[:2] != name[:2]:
        return False
    if len(short) > ABBREVIATION_LETTERS:  # a longer name is written out: only its start is cut
        return name.startswith(short)
    rest = iter(name[2:])
    return all(ch in rest for ch in short[2:])


def _names_table(stem: str, tnames: list[str], twords: list[str]) -> bool:
    """Whether ``stem`` (flat entity words) names the table: equal, the start of one of its names
    ``tnames``, or one of its words ``twords`` or an abbreviation of one (``dept`` of
    ``departments``: letters dropped inside a word, never across words)."""
    if not stem:
        return False
    for n in tnames:
        if stem == n or (len(stem) >= 3 and n.startswith(stem)):
            return True
    return len(stem) >= 3 and any(stem == w or abbreviates(stem, w) for w in twords)


def _ends_of(stem: list[str], twords: list[str]) -> bool:
    """Whether ``stem`` is the table's name without words from its middle: its first and last
    words and others in order (``student_course`` of ``Student_Enrolment_Courses``)."""
    if not 2 <= len(stem) < len(twords) or stem[0] != twords[0] or stem[-1] != twords[-1]:
        return False
    rest = iter(twords[1:-1])
    return all(w in rest for w in stem[1:-1])


#: Qualifiers of a table that is the record of its entity, not a copy or a part of it: a sales
#: order's header is the sales order, a customer dimension the customer (``hist``, ``all`` and
#: ``detail`` tables are copies or parts).
ENTITY_QUALIFIERS = frozenset({"header", "master", "dim", "dimension"})


#: Head nouns that name no entity alone: what is left of ``AddressTypeID`` without ``Address``.
GENERIC_HEADS = frozenset({"type", "status", "category", "class", "kind", "group", "level", "mode", "state", "reason",
                           "role", "detail", "info", "line", "item"})


def _generic_rest(tokens: list[str]) -> bool:
    """Whether ``tokens`` (a name without its first word) are one generic head noun and a key word
    (``type_id``): ``AddressType.AddressTypeID`` is then no module's ``TypeID``, which
    ``ContactType.ContactTypeID`` would share."""
    stem, _ = _split(list(tokens), glued=False)
    return len(stem) == 1 and singular(stem[0]) in GENERIC_HEADS


#: The key word MySQL Workbench writes before a table's name (``idcustomer``, and
#: ``customer_idcustomer`` for a reference to it): read so only before a table's whole name.
LEADING_KEY_WORD = "id"
#: Key words written before the entity in a name of words (``id_cliente``, ``codigo_cliente``,
#: ``cod_prodotto``: schemas written in Spanish, Portuguese, Italian or French).
LEADING_KEY_WORDS = frozenset({LEADING_KEY_WORD, "cod", "codigo", "codice"})


def _glued_key(token: str, entities: frozenset[str]) -> tuple[list[str], str] | None:
    """``(stem, key word)`` of a name written as one word that ends with a key word glued to the
    name of a table of its database (``entities``: the database's table names, flat and singular),
    or that name after a role (``customerid`` -> ``customer`` + ``id``; ``billtoaddressid`` ->
    ``billto``, ``address`` + ``id``); ``None`` otherwise (``valid``, ``paid``: no ``val`` or ``pa``
    table)."""
    for kw in GLUED_KEY_WORDS:
        if not token.endswith(kw) or len(token) - len(kw) < 2:
            continue
        rest = token[: -len(kw)]
        if rest in entities:
            return [rest], kw
        # the longest table name it ends with, of 3 letters or more (and MAX_ALIAS or fewer)
        for j in range(max(1, len(rest) - MAX_ALIAS), len(rest) - 2):
            if rest[j:] in entities:
                return [rest[:j], rest[j:]], kw
    return None


_VOWELS = frozenset("aeiouy")


def _entity_first(stem: list[str], entities: frozenset[str]) -> list[str]:
    """The words of a name whose key word came first (``codigo_empleado_rep_ventas``) in the order of
    a name whose key word comes last: the entity before its role (Spanish, Portuguese, Italian and
    French word order) put after it (``rep ventas empleado``, as ``SalesRepEmployee``), when the
    first words name a table of the database (``entities``) and all of them do not; a table's
    plural in ``-es`` is named by its singular (``id_proveedor``: ``proveedores``)."""
    def named(part: list[str]) -> list[str] | None:
        """``part``, its last word as :func:`words` reads a table's Spanish or Portuguese plural in
        ``-es`` (``direcciones`` -> ``direccione`` for ``id_direccion``), when it names a table."""
        if "".join(part) in entities:
            return part
        if part[-1][-1:] not in _VOWELS and "".join(part) + "e" in entities:
            return part[:-1] + [part[-1] + "e"]
        return None

    if not stem:
        return stem
    whole = named(stem)
    if whole is not None:
        return whole
    ends = list(accumulate(map(len, stem)))  # the first words of MAX_ALIAS letters or fewer
    for j in range(min(len(stem) - 1, bisect_right(ends, MAX_ALIAS)), 0, -1):
        if (first := named(stem[:j])) is not None:
            return stem[j:] + first
    return stem


def _leading_glued_key(token: str, entities: frozenset[str], own: Sequence[str], before: str | None) -> list[str] | None:
    """The entity of MySQL Workbench's key names: ``id`` glued before a table's name, in that
    table itself (``customer.idcustomer``) or after that name (``order.customer_idcustomer``);
    ``None`` for any other word that starts so (``users.identity`` beside an ``entities`` table)."""
    rest = token[len(LEADING_KEY_WORD):]
    if token.startswith(LEADING_KEY_WORD) and rest in entities and (rest in own or rest == before):
        return [rest]
    return None


def _name_facts(
    name: str, prefix: str | None, tnames: list[str], twords: list[str], module: bool = True,
    entities: frozenset[str] = frozenset(),
) -> tuple[str | None, bool, list[list[str]], list[str], int, str]:
    """``(key word, flag, stems per variant, full names, named as its table's key, module word)``
    of column ``name`` in a table with names ``tnames`` / words ``twords`` and column prefix
    ``prefix``; ``module``: the table's first word is a module prefix (:data:`MODULE_TABLES`).

    The last is 2 when the name is one of the table's names with a key word (or a bare key word:
    ``id``), 1 when it names the table otherwise: only the start of a name
    (``fclt_building_key`` in ``FCLT_BUILDING_ADDRESS``) or without a key word
    (``model_list.Model``), 0 when it does not name the table. The module word is the prefix a
    variant of the name dropped (``fac`` of ``FAC_BUILDING_KEY``), else ``""``."""
    toks = words(name)
    variants = [(toks, False)]
    dropped = ""
    if prefix and len(toks) > 1 and toks[0] == prefix:
        variants.append((toks[1:], True))
    elif module and len(toks) > 2 and len(twords) > 1 and toks[0] == twords[0] and not _generic_rest(toks[1:]):
        variants.append((toks[1:], False))  # the table's module prefix: FAC_BUILDING.FAC_BUILDING_KEY
        dropped = toks[0]
    v_stems, v_full, kw, row = [], [], None, False
    for vt, stripped in variants:
        stem, k, is_row = _row_number(*_split(vt, glued=stripped, leading=vt is toks))  # ``row_id``: a bare ``id``
        row = row or is_row
        if k is None and stem and entities:  # ``customerid``, ``ab_itemid``
            glued = _glued_key(stem[-1], entities)
            if glued is not None:
                stem, k = stem[:-1] + glued[0], glued[1]
            else:
                before = stem[-2] if len(stem) > 1 else None
                lead = _leading_glued_key(stem[-1], entities, tnames, before)
                if lead is not None:  # ``customer_idcustomer``: the table's name, then its key's: one entity
                    stem, k = (stem[:-2] if before == lead[0] else stem[:-1]) + lead, LEADING_KEY_WORD
        elif k in LEADING_KEY_WORDS and vt and vt[0] == k and entities:
            stem = _entity_first(stem, entities)
        kw = kw or k
        v_stems.append(stem)
        v_full.append("".join(stem) + (k or ""))
    flag = bool(toks) and (toks[0] in FLAG_WORDS or toks[-1] in FLAG_WORDS)
    bare = kw is not None and all(not s for s in v_stems)  # ``id``, ``key``, ``code``
    if bare and row:  # a row number keys its table only where no column is named after it
        named_own = 1
    elif bare or (kw is not None and any("".join(s) in tnames for s in v_stems if s)):
        named_own = 2
    else:
        named_own = 1 if any(_names_table("".join(s), tnames, twords) or _ends_of(s, twords) for s in v_stems if s) else 0
    return kw, flag, v_stems, list(dict.fromkeys(v_full)), named_own, dropped


#: A table's leading word is a module prefix (``FCLT_`` in ``FCLT_BUILDING``) only when at least
#: this many tables of its database (its :attr:`~jar_core.schema.Table.join_scope`) start with
#: it: the one table it leads is a compound name (``EmailAddress`` is no ``email`` module's ``Address``).
MODULE_TABLES = 2


def _module_words(schema: Schema) -> set[tuple[str, str]]:
    """``(database, word)`` of the module prefixes: leading words of ``MODULE_TABLES`` or more
    multi-word table names of the database that go on with different words. Tables that share
    their first two words share a compound name, not a module: ``PurchaseOrders`` and
    ``PurchaseOrderLines`` are a purchase order's, whose ``PurchaseOrderID`` is no ``OrderID``."""
    nexts: dict[tuple[str, str], set[str]] = {}
    count: dict[tuple[str, str], int] = {}
    for t in schema.tables:
        tw = words(t.name)
        if len(tw) > 1:
            count[(t.join_scope, tw[0])] = count.get((t.join_scope, tw[0]), 0) + 1
            nexts.setdefault((t.join_scope, tw[0]), set()).add(tw[1])
    return {k for k, v in count.items() if v >= MODULE_TABLES and len(nexts[k]) > 1}


def _long_modules(schema: Schema) -> dict[tuple[str, str], list[str]]:
    """``(database, table name) -> entity words`` of the tables led by a module prefix of two words
    or more (Rails' ``active_storage_`` in ``active_storage_blobs``: ``blob``), which the one-word
    prefixes of :func:`_module_words` miss (every ``active`` table goes on with ``storage``). A
    prefix that ``MODULE_TABLES`` or more tables of the database start with and go on from with
    different words; the longest such prefix of a table. None where the prefix is a table's name
    (``StockItems``: ``StockItemHoldings`` is a stock item's, no module's ``Holdings``), where the
    rest is a qualifier (``SalesOrderHeader``) or a generic word alone (``IAP_SUBJECT_CATEGORY`` is
    no database's ``category``), nor where the rest names another table."""
    tws = [(t.join_scope, tuple(words(t.name))) for t in schema.tables]
    count: dict[tuple[str, tuple[str, ...]], int] = {}
    nexts: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    names: dict[str, set[str]] = {}
    # prefixes of MAX_ALIAS letters or fewer
    most = [bisect_right(list(accumulate(map(len, tw))), MAX_ALIAS) for _, tw in tws]
    for t, (scope, tw), m in zip(schema.tables, tws, most):
        names.setdefault(scope, set()).update(table_names(t))
        for n in range(2, min(len(tw), m + 1)):
            count[(scope, tw[:n])] = count.get((scope, tw[:n]), 0) + 1
            nexts.setdefault((scope, tw[:n]), set()).add(tw[n])
    out: dict[tuple[str, str], list[str]] = {}
    for t, (scope, tw), m in zip(schema.tables, tws, most):
        for n in range(min(len(tw) - 1, m), 1, -1):
            lead = (scope, tw[:n])
            if count.get(lead, 0) >= MODULE_TABLES and len(nexts[lead]) > 1:
                rest = list(tw[n:])
                flat = "".join(rest)
                if ("".join(tw[:n]) not in names[scope] and len(flat) >= 3 and flat not in names[scope]
                        and not (len(rest) == 1 and (rest[0] in TABLE_QUALIFIERS or rest[0] in GENERIC_HEADS))):
                    out[(scope, t.name)] = rest
                break
    return out


#: Trailing words that make a table a copy of the table it is named after, when it holds all of
#: that table's columns (``Customers_Archive``, ``FCLT_BUILDING_HIST_1``, ``orders_bak``).
COPY_WORDS = TABLE_QUALIFIERS | {"archived", "audit", "backup", "bak", "copy", "log", "prev", "previous", "staging"}


def _copy_bases(schema: Schema) -> list[int]:
    """Per table, the position of the table it copies, else ``-1``: a table of the same database
    named as it and :data:`COPY_WORDS` words or numbers after (``Customers_Archive``,
    ``FCLT_BUILDING_HIST_1``; ``transactionhistoryarchive`` written as one word) that holds every
    column of it (case-folded names); a copy of a copy (``FCLT_BUILDING_HIST_1`` of
    ``FCLT_BUILDING_HIST``) copies the first table. A history, an archive, a backup or a staging
    copy: its rows are versions or copies of the base table's rows, so a reference to the entity
    is to the base table (the copy's key repeats per version, or is the base table's key again)."""
    by_name: dict[tuple[str, str], int] = {}
    for ti, t in enumerate(schema.tables):
        by_name.setdefault((t.join_scope, "".join(_written_words(t.name))), ti)
    out = [-1] * len(schema.tables)
    for ti, t in enumerate(schema.tables):
        tw = _written_words(t.name)
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


def _adopted_keys(
    schema: Schema, col_offsets: np.ndarray, own: np.ndarray, table: np.ndarray, database: np.ndarray,
    names_table: np.ndarray, full: list[list[str]], key_word: list[str | None], flags: list[bool],
    unique: list[float], keyless: list[bool], stems: list[list[list[str]]], tnames: list[list[str]],
) -> np.ndarray:
    """bool per column: the key of a table that has no other (no primary key declared, no column
    named after it), taken from its first column when that column carries the key of another table
    of its database, named after that table: a subtype keyed by its supertype's key
    (``Person.BusinessEntityID``, ``BusinessEntity.BusinessEntityID``), and a key column elsewhere
    in the database names the table by its whole name (``Customer.PersonID``). It answers to its table's
    names only (:func:`jar_core.joins.naming.naming`): ``Customer.PersonID`` references it, a
    ``BusinessEntityID`` elsewhere still references ``BusinessEntity``. A first column known to repeat
    values (``lineitem.l_orderkey`` in a database) is no key."""
    out = np.zeros(len(own), dtype=bool)
    keyed = np.zeros(len(schema.tables), dtype=bool)
    keyed[table[own]] = True
    if keyed.all():
        return out
    supers: dict[int, set[str]] = {}
    for i in np.flatnonzero(own & (names_table == 2)).tolist():
        supers.setdefault(int(database[i]), set()).update(full[i])
    # the entities the database's key columns name (``PersonID``: ``person``), per database
    named: dict[int, set[str]] = {}
    for i in np.flatnonzero(~own).tolist():
        if key_word[i] is not None:
            named.setdefault(int(database[i]), set()).update("".join(s) for s in stems[i] if s)
    for ti, t in enumerate(schema.tables):
        if keyed[ti] or t.primary_key or not t.columns:
            continue
        i = int(col_offsets[ti])
        u = unique[i]
        db = int(database[i])
        if (key_word[i] is None or flags[i] or keyless[i] or (u == u and u < 0.95)
                or not supers.get(db, set()).intersection(full[i]) or not tnames[i]
                or tnames[i][0] not in named.get(db, ())):
            continue
        out[i] = True
    return out


def _typed_stems(table: Sequence[int], stems: list[list[list[str]]], full: list[list[str]]) -> np.ndarray:
    """bool per column (:attr:`ColumnProfile.typed_stem`): its entity words ``<x>`` (one name
    variant's) have an ``<x>_type`` column in its table (Rails' polymorphic ``record_id`` /
    ``record_type``, ``scan_id`` / ``scan_type``)."""
    types = {(t, n) for t, names in zip(table, full) for n in names if n.endswith("type")}
    if not types:
        return np.zeros(len(stems), dtype=bool)
    return np.fromiter((any(st and (t, "".join(st) + "type") in types for st in v) for t, v in zip(table, stems)),
                       dtype=bool, count=len(stems))


def _typed_part(
    schema: Schema, table: Sequence[int], stems: list[list[list[str]]], typed: np.ndarray,
    leads: set[tuple[str, str]],
) -> np.ndarray:
    """bool per column: ``typed`` (:func:`_typed_stems`) and its entity words are not its table's
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


def _part_references(
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
    module prefixes (:func:`_module_words`)."""
    out = np.zeros(len(own), dtype=bool)
    one_to_one = np.zeros(len(own), dtype=bool)
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
    for i in np.flatnonzero(np.asarray(unique_declared, dtype=bool) & with_kw).tolist():
        ti = int(table[i])
        flat = ["".join(st) for st in stems[i] if st]
        if flat and not any(f in whole[ti] for f in flat):  # by its whole name: travis' ``org_id`` of
            # every table, unique, is each row's id in another database, not ``organizations``'
            names = by_scope[schema.tables[ti].join_scope]
            one_to_one[i] = any(names.get(f, ti) != ti for f in flat)
    return out, one_to_one


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


#: What an enumeration's declared type tells (see ``by_type`` in :meth:`ColumnProfile.from_schema`):
#: text labels, no key (a status or a kind is no reference, even named like one: zync's
#: ``integrations.state`` of type ``integration_state`` is no ``integration_states.id``).
_ENUM_TYPE = (TypeFamily.TEXT.join_class, True, False, False, False)


@dataclass
class ColumnProfile:
    """Per-column join facts over the whole schema (see the module docstring)."""

    table: np.ndarray  # int: position of the column's table
    database: np.ndarray  # int: code of the column's database (join scope: a catalog's schemas are one)
    type_class: np.ndarray  # int code; ``other`` (unknown) is compatible with every class
    keyless: np.ndarray  # bool: holds no key (its declared type, :func:`keyless_type`, fractional sample values, a count by its name: :func:`counts`, computed: :attr:`Column.computed`, or an enumeration's labels: :attr:`Column.enum`)
    decimal: np.ndarray  # bool: declared a real number (``numeric``, ``float``) and no sample values say integers
    integer: np.ndarray  # bool: declared an integer
    uuid: np.ndarray  # bool: declared a UUID (:data:`UUID_TYPE`): an identifier generated for its row
    from_samples: np.ndarray  # bool: type class read off the sample values
    other_class: int
    key_word: list[str | None]  # the key word the name ends with
    flag: np.ndarray  # bool: a flag (``is_current``, ``*_flag``, or one or two distinct values and no key word)
    name_flag: np.ndarray  # bool: a flag by its name alone (``is_current``, ``*_flag``)
    stems: list[list[str]]  # entity words before the key word, per name variant (with/without prefix)
    own_key: np.ndarray  # bool: the column is its table's key (declared, or named after its table and not a :attr:`part_reference`)
    adopted: np.ndarray  # bool: an own key taken from a keyless table's first column (:func:`_adopted_keys`)
    names_table: np.ndarray  # int8: 2 the column's name is its table's name with a key word, 1 names it otherwise, 0 not
    unique: np.ndarray  # float: distinct/rows, NaN when unknown
    pk_declared: np.ndarray  # bool: the table declares a primary key and this column is it
    table_has_pk: np.ndarray  # bool: the column's table declares a primary key
    in_pk: np.ndarray  # bool: the column is in its table's declared primary key (one of several too)
    unique_declared: np.ndarray  # bool: declared unique on its own (:attr:`Column.unique`), not the primary key, nor a one-to-one reference named after another table (:func:`_part_references`)
    fk_from: np.ndarray  # bool: the referencing column of a declared foreign key
    part_reference: np.ndarray  # bool: named after a part of its table's name that is another table (:func:`_part_references`): a reference, no key
    typed_stem: np.ndarray  # bool: its entity words ``<x>`` have an ``<x>_type`` column in its table (:func:`_typed_stems`)
    copy_source: np.ndarray  # int: the copied table's column of the same name, for a column of a copy (:func:`_copy_bases`); else -1
    values: sparse.csr_matrix  # column x distinct sample value incidence
    n_values: np.ndarray
    full_names: list[list[str]]  # flat names with their key word, per variant
    module_word: np.ndarray  # object: the module prefix one of the name's variants dropped, else ""
    table_names: list[list[str]]  # entity names of the column's table
    table_words: list[list[list[str]]]  # the same, as word lists
    declared: list[tuple[int, int]]  # declared (referencing, referenced) column pairs
    class_codes: dict[str, int]  # type class name -> code in ``type_class``

    @classmethod
    def from_schema(cls, schema: Schema, col_offsets: np.ndarray | None = None) -> "ColumnProfile":
        if col_offsets is None:
            sizes = np.array([len(t.columns) for t in schema.tables], dtype=np.int64)
            col_offsets = np.concatenate([[0], np.cumsum(sizes)])
        classes: dict[str, int] = {"other": 0}
        dbs: dict[str, int] = {}
        table, database, tclass, from_s = [], [], [], []
        keyless, decimal, integer, uuid = [], [], [], []
        key_word, stems, full, tnames_l, own, uniq, pk_decl, has_pk = [], [], [], [], [], [], [], []
        in_pk: list[bool] = []
        unique_decl: list[bool] = []
        value_rows: list[list[str]] = []
        twords_l: list[list[list[str]]] = []
        flags: list[bool] = []
        name_flags: list[bool] = []
        module_words: list[str] = []
        # what a name tells depends on the names alone: worked out once per (column, table, prefix)
        # and per table name, shared (never changed) by the columns that repeat them
        by_table: dict[tuple[str, str, int], tuple[list[str], list[list[str]], list[str]]] = {}
        by_name: dict[tuple[str, str, str | None, bool, int], tuple[str | None, bool, list[list[str]], list[str], int, str]] = {}
        # what a declared type tells: (join class, holds no key, real, integer), once per type
        by_type: dict[str | None, tuple[str, bool, bool, bool, bool]] = {}
        named_level: list[int] = []  # how exactly each column names its table (see _name_facts)
        names_table: list[int] = []
        leads = _module_words(schema)
        long_leads = _long_modules(schema)
        whole_sets: dict[str, set[str]] = {}  # per database, its tables' whole names
        for t in schema.tables:
            whole_sets.setdefault(t.join_scope, set()).add("".join(words(t.name)))
        one_set: dict[frozenset[str], frozenset[str]] = {}  # one set for a lake's copies of a database
        wholes = {scope: one_set.setdefault(frozenset(v), frozenset(v)) for scope, v in whole_sets.items()}

        def names_of(t: Table) -> tuple[list[str], list[list[str]], list[str]]:
            """The table's entity names, word lists and words: :func:`table_words`, the name without
            a long module prefix too; for a table led by another table's name, none that is a third
            table's whole name (``wallets_invoice_custom_sections`` links wallets to
            ``invoice_custom_sections``, which an ``invoice_custom_section_id`` names; a module's
            ``scan_reports`` is still a ``report`` beside ``reports``)."""
            rest = long_leads.get((t.join_scope, t.name))
            others = wholes[t.join_scope]
            key = (t.name, "".join(rest) if rest else "", id(others))
            named = by_table.get(key)
            if named is None:
                tn, tw = table_names(t), table_words(t)
                if rest and key[1] not in tn:
                    tn, tw = tn + [key[1]], tw + [rest]
                tws = words(t.name)
                link = len(tws) > 1 and tws[0] in others  # led by a table's name: a link, no module
                keep = [j for j, x in enumerate(tn) if j == 0 or not link or x not in others]
                named = by_table[key] = ([tn[j] for j in keep], [tw[j] for j in keep], tws)
            return named

        # per database, the flat names of its tables: what a key word glued to a name may follow
        # (one set for databases with the same names: a lake's copies share their names' facts)
        scope_names: dict[str, set[str]] = {}
        for t in schema.tables:
            scope_names.setdefault(t.join_scope, set()).update(names_of(t)[0])
        shared: dict[frozenset[str], frozenset[str]] = {}
        entities = {scope: shared.setdefault(names, names)
                    for scope, names in ((scope, frozenset(v)) for scope, v in scope_names.items())}
        for ti, t in enumerate(schema.tables):
            prefix = _table_prefix(t)
            tnames, twl, twords = names_of(t)
            module = bool(twords) and (t.join_scope, twords[0]) in leads  # a name of no word leads nothing
            pk = t.primary_key
            db = dbs.setdefault(t.join_scope, len(dbs))
            # a primary key that numbers the table's rows (``row_id``) leaves the column named after
            # the table (``icustays.icustay_id``) its key too
            pk_row = len(pk) == 1 and _is_row_number(pk[0])
            for c in t.columns:
                table.append(ti)
                database.append(db)
                vals = [x for x in (value_key(v) for v in c.sample if v is not None) if x != ""]
                value_rows.append(vals)
                seen = sample_class(c.sample)
                typed = _ENUM_TYPE if c.enum else by_type.get(c.type)
                if typed is None:
                    fam = c.family
                    typed = by_type[c.type] = (join_class(c.type, fam), keyless_type(c.type), fam is TypeFamily.REAL,
                                               fam is TypeFamily.INTEGER, bool(UUID_TYPE.match(c.type or "")))
                declared_class, no_key, real, whole, generated = typed
                tclass.append(classes.setdefault(seen if seen is not None else declared_class, len(classes)))
                from_s.append(seen is not None)
                frac = seen == "numeric" and fractional(c.sample)
                keyless.append(no_key or frac or counts(c.name) or c.computed)
                decimal.append(real and (seen != "numeric" or frac))
                integer.append(whole)
                uuid.append(generated)
                ents = entities[t.join_scope]
                facts = by_name.get((c.name, t.name, prefix, module, id(ents)))
                if facts is None:
                    facts = by_name[(c.name, t.name, prefix, module, id(ents))] = _name_facts(
                        c.name, prefix, tnames, twords, module, ents)
                kw, flag, v_stems, v_full, named_own, dropped = facts
                module_words.append(dropped)
                key_word.append(kw)
                # an ordinal or a category with one or two values (credit_order: 1, 2) is no reference
                few = c.unique_ratio is not None and t.row_count is not None and c.unique_ratio * t.row_count < 3
                flags.append(flag or (kw is None and few and t.row_count >= 3))
                name_flags.append(flag)
                stems.append(v_stems)
                full.append(v_full)
                tnames_l.append(tnames)
                twords_l.append(twl)
                is_pk = pk == (c.name,)
                not_unique = c.unique_ratio is not None and c.unique_ratio < 0.95 and not c.unique
                own.append(is_pk or ((not pk or pk_row or c.unique) and named_own > 0 and not not_unique
                                     and (kw is not None or c.unique_ratio == 1.0)))
                named_level.append(named_own if own[-1] and not is_pk else 0)
                names_table.append(named_own)
                uniq.append(1.0 if c.unique else np.nan if c.unique_ratio is None else float(c.unique_ratio))
                unique_decl.append(c.unique and not is_pk)
                pk_decl.append(is_pk)
                has_pk.append(bool(pk))
                in_pk.append(c.name in pk)
        n = len(table)
        declared: list[tuple[int, int]] = []
        fk_from = np.zeros(n, dtype=bool)
        own_arr = np.array(own, dtype=bool)
        # a table named exactly by one key column (FCLT_BUILDING_ADDRESS_KEY) is not also keyed by
        # another key column that names only the start of it (FCLT_BUILDING_KEY: a reference to
        # FCLT_BUILDING); a natural key without a key word (model_list.Model beside ModelId) stays
        level = np.array(named_level, dtype=np.int8)
        table_arr = np.array(table, dtype=np.int64)
        with_kw = np.array([k is not None for k in key_word], dtype=bool)
        exact = np.zeros(len(schema.tables), dtype=bool)
        exact[table_arr[level == 2]] = True
        own_arr &= ~((level == 1) & with_kw & exact[table_arr])
        # an id named after a part of its table beside a type of it (``targets_scans.scan_id``
        # beside ``scan_type``) holds ids of several tables: a polymorphic reference, no key
        typed = _typed_stems(table, stems, full)
        is_id = np.array([k == "id" for k in key_word], dtype=bool)
        own_arr &= ~(_typed_part(schema, table, stems, typed, leads) & is_id)
        # a table keyed by a bare ``id`` (Rails, Django) is not keyed by a column named after it
        # too: ``scan_reports.scan_report_id``, ``cphc_facilities.facility_id`` refer to others
        # (a row number, MIMIC's ``ROW_ID``, leaves it: see ``pk_row`` above)
        worded = np.array([any(st) for st in stems], dtype=bool)
        bare = is_id & ~worded
        bare &= ~np.array([_is_row_number(c.name) for t in schema.tables for c in t.columns], dtype=bool)
        by_bare = np.zeros(len(schema.tables), dtype=bool)
        by_bare[table_arr[bare & own_arr]] = True
        own_arr &= ~((level > 0) & worded & by_bare[table_arr])
        from jar_core.joins.declared import declared_columns

        for ga, gb, single in declared_columns(schema, col_offsets):
            declared.append((ga, gb))
            if single:
                # a column that declares its reference gets no other; a column of a composite
                # key (lineitem.l_suppkey of (l_partkey, l_suppkey) -> partsupp) still names its
                # own entity (supplier) and may reference it
                fk_from[ga] = True
                own_arr[gb] = True  # a referenced column is a key
        database_arr = np.array(database, dtype=np.int64)
        part_ref, one_to_one = _part_references(schema, table_arr, own_arr, key_word, stems, pk_decl, unique_decl, leads)
        own_arr &= ~part_ref
        unique_arr = np.array(unique_decl, dtype=bool) & ~one_to_one
        adopted = _adopted_keys(schema, col_offsets, own_arr, table_arr, database_arr,
                                np.array(names_table, dtype=np.int8), full, key_word, flags, uniq, keyless,
                                stems, tnames_l)
        own_arr |= adopted
        copy_source = np.full(n, -1, dtype=np.int64)
        for ti, b in enumerate(_copy_bases(schema)):
            if b >= 0:  # every column of the copied table is in its copy
                names = {c.name.casefold(): j for j, c in enumerate(schema.tables[b].columns, start=int(col_offsets[b]))}
                for j, c in enumerate(schema.tables[ti].columns, start=int(col_offsets[ti])):
                    copy_source[j] = names.get(c.name.casefold(), -1)
        vm, n_values = incidence(value_rows)
        return cls(
            table=table_arr, database=database_arr,
            type_class=np.array(tclass, dtype=np.int32), from_samples=np.array(from_s, dtype=bool),
            keyless=np.array(keyless, dtype=bool), decimal=np.array(decimal, dtype=bool),
            integer=np.array(integer, dtype=bool), uuid=np.array(uuid, dtype=bool), other_class=classes["other"], key_word=key_word, flag=np.array(flags, dtype=bool),
            name_flag=np.array(name_flags, dtype=bool), stems=stems, own_key=own_arr, adopted=adopted,
            names_table=np.array(names_table, dtype=np.int8),
            unique=np.array(uniq, dtype=np.float64), pk_declared=np.array(pk_decl, dtype=bool),
            table_has_pk=np.array(has_pk, dtype=bool), in_pk=np.array(in_pk, dtype=bool),
            unique_declared=unique_arr, fk_from=fk_from, part_reference=part_ref,
            typed_stem=typed, copy_source=copy_source, values=vm,
            n_values=n_values, full_names=full, module_word=np.array(module_words, dtype=object), table_names=tnames_l, table_words=twords_l, declared=declared,
            class_codes=dict(classes),
        )

    @property
    def n(self) -> int:
        return int(self.table.shape[0])

    def rows(self, rows: np.ndarray) -> "ColumnProfile":
        """The profile of the columns at positions ``rows`` (sorted), numbered ``0..len(rows)-1``.

        Tables and databases keep their codes, values their vocabulary; declared keys are kept
        where both columns are among ``rows``.
        """
        rows = np.asarray(rows, dtype=np.int64)
        pos = {int(g): i for i, g in enumerate(rows)}
        lst = rows.tolist()
        local = np.full(self.n, -1, dtype=np.int64)  # a copied column's position among ``rows``
        local[rows] = np.arange(len(rows))
        source = self.copy_source[rows]
        return ColumnProfile(
            table=self.table[rows], database=self.database[rows], type_class=self.type_class[rows],
            keyless=self.keyless[rows], decimal=self.decimal[rows], integer=self.integer[rows], uuid=self.uuid[rows],
            from_samples=self.from_samples[rows], other_class=self.other_class,
            key_word=[self.key_word[i] for i in lst], flag=self.flag[rows], name_flag=self.name_flag[rows], stems=[self.stems[i] for i in lst],
            own_key=self.own_key[rows], adopted=self.adopted[rows], names_table=self.names_table[rows], unique=self.unique[rows], pk_declared=self.pk_declared[rows],
            table_has_pk=self.table_has_pk[rows], in_pk=self.in_pk[rows], unique_declared=self.unique_declared[rows],
            fk_from=self.fk_from[rows], part_reference=self.part_reference[rows], typed_stem=self.typed_stem[rows], copy_source=np.where(source >= 0, local[np.maximum(source, 0)], -1),
            values=self.values[rows],
            n_values=self.n_values[rows], full_names=[self.full_names[i] for i in lst], module_word=self.module_word[rows],
            table_names=[self.table_names[i] for i in lst], table_words=[self.table_words[i] for i in lst],
            declared=[(pos[a], pos[b]) for a, b in self.declared if a in pos and b in pos],
            class_codes=self.class_codes,
        )

    @functools.cached_property
    def copied(self) -> np.ndarray:
        """bool: a column of a copy that the copied table has too (:attr:`copy_source`)."""
        return self.copy_source >= 0

    @functools.cached_property
    def has_key_word(self) -> np.ndarray:
        """bool: the column's name ends with a key word (:attr:`key_word` is set)."""
        return np.fromiter((k is not None for k in self.key_word), dtype=bool, count=self.n)

    @functools.cached_property
    def lead_word(self) -> np.ndarray:
        """object: the leading word of the column's table name (its family: ``fac`` of
        ``FAC_ROOMS``); a table named by one word heads its family (``Customers`` of
        ``CustomerTransactions`` and ``Customers_Archive``)."""
        return np.array([tw[0][0] if tw and tw[0] else "" for tw in self.table_words], dtype=object)

    def keyish(self) -> np.ndarray:
        """Columns that can be the referenced side of a join: a key, as far as anything tells.

        The table's key (declared or named after the table), a column with a key word in its name
        declared unique (an alternate key: MIMIC's ``admissions.hadm_id`` beside ``row_id``), or
        one that is not known to repeat values, in a table that declares no primary key.
        Uniqueness alone does not make a key: in a small table every column is unique. A copy's
        column that its copied table has (:attr:`copied`) is none: references go to the copied
        table (``CustomerTransactions.CustomerID`` -> ``Customers``, not ``Customers_Archive``).
        """
        not_unique = np.nan_to_num(self.unique, nan=1.0) < 0.95
        return (self.own_key | self.pk_declared | (self.has_key_word & self.unique_declared)
                | (self.has_key_word & ~not_unique & ~self.table_has_pk & ~self.part_reference)) & ~self.copied
