"""What a column's name tells the join rules: its key word, its entity words, whether it names its
own table (METHOD.md, the join graph: names are the first evidence of a join).

A name's *stem* is its entity words before the key word (``customer`` of ``customer_id``), per
name variant: as written, without a warehouse-style column prefix (``o_custkey`` -> ``custkey``)
or a module prefix (``FAC_BUILDING.FAC_BUILDING_KEY`` -> ``BUILDING_KEY``). A table goes by its
whole name, its head noun and its name without a qualifier (:func:`table_words`).
"""
from __future__ import annotations

import functools
import re
from bisect import bisect_right
from itertools import accumulate
from typing import Sequence

from jar_core.joins.words import KEY_WORDS, MAX_ALIAS, abbreviates, glued_stems, singular, words, written_words
from jar_core.schema import Schema, Table

__all__ = ["table_prefix", "split_key_word", "is_row_number", "TABLE_QUALIFIERS", "GLUED_QUALIFIERS", "UUID_TYPE",
           "counts", "table_words", "table_names", "names_the_table", "GENERIC_HEADS", "name_facts", "module_words",
           "long_modules", "MODULE_TABLES", "ARCHIVE_WORDS", "is_archive", "initial_key", "flat_name"]

_GLUED = ("key", "id", "sk")  # glued to the stem in prefixed warehouse names: ``custkey``


def table_prefix(t: Table) -> str | None:
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


def split_key_word(tokens: list[str], glued: bool, leading: bool = True) -> tuple[list[str], str | None]:
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


def is_row_number(name: str) -> bool:
    """Whether a column name numbers its table's rows (``row_id``, ``ROWID``): :func:`_row_number`."""
    return _row_number(*split_key_word(words(name, glued=True), glued=False))[2]


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


#: A measure's word before a number word (``VALUENUM``, ``amount_num``): a number measured, not a
#: numbered entity (``value`` read as a table's name with the key word ``num``).
MEASURE_WORDS = frozenset({"value", "val", "amount", "amt", "price", "cost", "score", "rate", "reading", "measure",
                           "measurement"})
MEASURE_NUMBER_WORDS = frozenset({"num", "number", "numeric", "nbr"})


@functools.lru_cache(maxsize=1 << 16)
def counts(name: str) -> bool:
    """Whether column ``name`` is a count, a sum or a measured number by its name: a first word of
    :data:`COUNT_WORDS` (as written: ``units``, not ``unit_price``), more words after it and no key
    word (``count_id`` is a key); two words, one of :data:`MEASURE_WORDS` and a number word
    (``VALUENUM``: a value as a number); or one word in the plural (``stops``, ``employees``: a
    count or a list of them; a reference names one entity)."""
    raw = written_words(name, glued=True)
    if len(raw) == 2 and raw[0] in MEASURE_WORDS and raw[1] in MEASURE_NUMBER_WORDS:
        return True
    if len(raw) == 1 and len(raw[0]) > 3 and singular(raw[0]) != raw[0]:
        return True  # one word in the plural (``flight.stops``, ``employees``): how many, or a list
    return len(raw) > 1 and raw[0] in COUNT_WORDS and split_key_word(words(name, glued=True), glued=False)[1] is None


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

def names_the_table(stem: str, tnames: list[str], twords: list[str]) -> bool:
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
    stem, _ = split_key_word(list(tokens), glued=False)
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
    return _abbreviated_key(token, entities)


#: Letters of the longest abbreviation a key name glued to its key word is read by (``stuid``).
MAX_GLUED_ABBREVIATION = 5


def _abbreviated_key(token: str, entities: frozenset[str]) -> tuple[list[str], str] | None:
    """``(stem, key word)`` of a key name written as one word by an abbreviation of a table's name
    and a key word (``stuid``: ``stu`` of ``student``, ``actid``, ``deptno``), when the token is no
    word (``valid``, ``casino``: :func:`jar_core.glued.is_word`) and the abbreviation, of three to
    :data:`MAX_GLUED_ABBREVIATION` letters, abbreviates a table of the database
    (:func:`~jar_core.joins.words.abbreviates`); ``None`` otherwise."""
    from jar_core.glued import is_word

    for kw in ("id", "no", "num", "key"):
        rest = token[: -len(kw)]
        if not token.endswith(kw) or not 3 <= len(rest) <= MAX_GLUED_ABBREVIATION or rest in entities:
            continue
        if any(abbreviates(rest, e) for e in entities) and not is_word(token):
            return [rest], kw
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


#: Letters of the longest initials a key name is read by (``aid`` of ``author``, ``tsid`` of
#: ``tv_series``): one per word of a table's name, up to three words.
MAX_INITIALS = 3


def flat_name(name: str) -> str:
    """``name`` in lower case without separators: ``A_ID`` and ``aid`` alike."""
    return re.sub(r"[^0-9a-z]", "", name.lower())


def initial_key(twords: Sequence[str]) -> str:
    """The key name a table's initials make (``aid`` for ``author``, ``tsid`` for ``tv_series``):
    each word's first letter and ``id``; ``""`` for a name of no word or of more than
    :data:`MAX_INITIALS` words."""
    if not 1 <= len(twords) <= MAX_INITIALS or not all(w[:1].isalpha() for w in twords):
        return ""
    return "".join(w[0] for w in twords) + LEADING_KEY_WORD


def _initials(stem: list[str], kw: str | None, own: str, known: frozenset[str]) -> tuple[list[str], str | None]:
    """A key named by a table's initials and ``id`` (``aid``, written as one word), read as those
    letters and the key word, in its own table (``own``: :func:`initial_key` of the table) or where
    it is the key of one table of the database (``known``: ``writes.aid`` refers to ``author.aid``);
    else ``(stem, kw)`` as they are (``paid``, ``void``: no table's initials)."""
    if kw is None and len(stem) == 1:
        token = stem[0]
        if 3 <= len(token) <= MAX_INITIALS + 2 and token.endswith(LEADING_KEY_WORD) and (token == own or token in known):
            return [token[:-2]], LEADING_KEY_WORD
    return stem, kw


def name_facts(
    name: str, prefix: str | None, tnames: list[str], twords: list[str], module: bool = True,
    entities: frozenset[str] = frozenset(), initial_keys: frozenset[str] = frozenset(),
) -> tuple[str | None, bool, list[list[str]], list[str], int, str]:
    """``(key word, flag, stems per variant, full names, named as its table's key, module word)``
    of column ``name`` in a table with names ``tnames`` / words ``twords`` and column prefix
    ``prefix``; ``module``: the table's first word is a module prefix (:data:`MODULE_TABLES`);
    ``entities``: the flat names of the database's tables; ``initial_keys``: the keys its tables'
    initials name (:func:`initial_key`), each of one table.

    The last is 2 when the name is one of the table's names with a key word (or a bare key word:
    ``id``), 1 when it names the table otherwise: only the start of a name
    (``fclt_building_key`` in ``FCLT_BUILDING_ADDRESS``) or without a key word
    (``model_list.Model``), 0 when it does not name the table. The module word is the prefix a
    variant of the name dropped (``fac`` of ``FAC_BUILDING_KEY``), else ``""``."""
    toks = words(name, glued=True)  # run-together words apart: ``CASHEQUIVALENTSID`` -> cash equivalent id
    variants = [(toks, False)]
    dropped = ""
    if prefix and len(toks) > 1 and toks[0] == prefix:
        variants.append((toks[1:], True))
    elif module and len(toks) > 2 and len(twords) > 1 and toks[0] == twords[0] and not _generic_rest(toks[1:]):
        variants.append((toks[1:], False))  # the table's module prefix: FAC_BUILDING.FAC_BUILDING_KEY
        dropped = toks[0]
    v_stems, v_full, kw, row = [], [], None, False
    own_initials = initial_key(twords)
    for vt, stripped in variants:
        stem, k, is_row = _row_number(*split_key_word(vt, glued=stripped, leading=vt is toks))  # ``row_id``: a bare ``id``
        stem, k = _initials(stem, k, own_initials, initial_keys)  # ``author.aid``, ``writes.aid``
        row = row or is_row
        if k is None and len(stem) > 2 and stem[len(stem) // 2] == LEADING_KEY_WORD and \
                stem[: len(stem) // 2] == stem[len(stem) // 2 + 1:]:  # ``customer_idcustomer`` read apart
            stem, k = stem[: len(stem) // 2], LEADING_KEY_WORD
        elif k is None and stem and entities:  # ``customerid``, ``ab_itemid``
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
    elif kw == LEADING_KEY_WORD and own_initials and any("".join(s) + kw == own_initials for s in v_stems if s):
        named_own = 2  # its table's initials: ``author.aid``, ``tv_series.ts_id``
    else:
        named_own = 1 if any(names_the_table("".join(s), tnames, twords) or _ends_of(s, twords) for s in v_stems if s) else 0
    return kw, flag, v_stems, list(dict.fromkeys(v_full)), named_own, dropped


#: A table's leading word is a module prefix (``FCLT_`` in ``FCLT_BUILDING``) only when at least
#: this many tables of its database (its :attr:`~jar_core.schema.Table.join_scope`) start with
#: it: the one table it leads is a compound name (``EmailAddress`` is no ``email`` module's ``Address``).
MODULE_TABLES = 2


def module_words(schema: Schema) -> set[tuple[str, str]]:
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


def long_modules(schema: Schema) -> dict[tuple[str, str], list[str]]:
    """``(database, table name) -> entity words`` of the tables led by a module prefix of two words
    or more (Rails' ``active_storage_`` in ``active_storage_blobs``: ``blob``), which the one-word
    prefixes of :func:`module_words` miss (every ``active`` table goes on with ``storage``). A
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


#: Last words of a table name that make it another table's archive (``TransactionHistoryArchive``).
ARCHIVE_WORDS = frozenset({"archive", "archived"})


def is_archive(table_words: list[list[str]]) -> bool:
    """Whether a table whose names are ``table_words`` is an archive: its whole name ends with an
    :data:`ARCHIVE_WORDS` word (``TransactionHistoryArchive``, ``People_Archive``;
    ``transactionhistoryarchive`` written as one word)."""
    if not table_words or not table_words[0]:
        return False
    last = table_words[0][-1]
    return last in ARCHIVE_WORDS or (len(table_words[0]) == 1 and bool(glued_stems(last, ARCHIVE_WORDS)))
