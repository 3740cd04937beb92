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
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from jar_core.joins.keys import (
    adopted_keys, copy_bases, declared_columns, dictionary_keys, part_references, typed_part, typed_stems,
)
from jar_core.joins.name_facts import (
    UUID_TYPE, counts, flat_name, initial_key, is_row_number, long_modules, module_words, name_facts, table_names, table_prefix, table_words,
)
from jar_core.joins.words import (  # noqa: F401 - read from here by the other layers
    KEY_WORDS, fractional, incidence, sample_class, singular, value_key, words,
)
from jar_core.schema import Column, Schema, Table, TypeFamily, join_class, keyless_type

__all__ = ["ColumnProfile", "words", "singular", "KEY_WORDS", "value_key", "sample_class", "fractional", "incidence"]

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
    adopted: np.ndarray  # bool: an own key taken from a keyless table's first column (:func:`adopted_keys`)
    dictionary: np.ndarray  # bool: an own key, the code a keyless table of text spells out (:func:`dictionary_keys`)
    names_table: np.ndarray  # int8: 2 the column's name is its table's name with a key word, 1 names it otherwise, 0 not
    unique: np.ndarray  # float: distinct/rows, NaN when unknown
    pk_declared: np.ndarray  # bool: the table declares a primary key and this column is it
    table_has_pk: np.ndarray  # bool: the column's table declares a primary key
    in_pk: np.ndarray  # bool: the column is in its table's declared primary key (one of several too)
    unique_declared: np.ndarray  # bool: declared unique on its own (:attr:`Column.unique`), not the primary key, nor a one-to-one reference named after another table (:func:`part_references`)
    fk_from: np.ndarray  # bool: the referencing column of a declared foreign key
    part_reference: np.ndarray  # bool: named after a part of its table's name that is another table (:func:`part_references`): a reference, no key
    typed_stem: np.ndarray  # bool: its entity words ``<x>`` have an ``<x>_type`` column in its table (:func:`typed_stems`)
    copy_source: np.ndarray  # int: the copied table's column of the same name, for a column of a copy (:func:`copy_bases`); else -1
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
        """The profiles of every column of ``schema`` (columns stacked in table order from
        ``col_offsets``, as in the index), in named steps: the names its tables go by, each
        column's facts, which columns key their tables, the declared references, the copies."""
        if col_offsets is None:
            sizes = np.array([len(t.columns) for t in schema.tables], dtype=np.int64)
            col_offsets = np.concatenate([[0], np.cumsum(sizes)])
        names = _TableNames(schema)
        c = _read_columns(schema, names)
        table = np.array(c.table, dtype=np.int64)
        database = np.array(c.database, dtype=np.int64)
        rows = np.array([is_row_number(col.name) for t in schema.tables for col in t.columns], dtype=bool)
        own, typed = _own_keys(schema, c, table, names.leads, rows)
        declared, fk_from = _declared_references(schema, col_offsets, own)
        part_ref, one_to_one = part_references(schema, table, own, c.key_word, c.stems, c.pk_declared,
                                               c.unique_declared, names.leads)
        own &= ~part_ref
        adopted = adopted_keys(schema, col_offsets, own, table, database, np.array(c.names_table, dtype=np.int8),
                               c.full, c.key_word, c.flag, c.unique, c.keyless, c.stems, c.table_names,
                               [tc == c.classes.get("numeric", -1) for tc in c.type_class])
        own |= adopted
        dictionary = dictionary_keys(schema, col_offsets, own, rows, database, c.key_word, c.flag, c.keyless,
                                     c.stems, c.full, c.table_names, names.entities, part_ref | typed)
        own |= dictionary
        values, n_values = incidence(c.value_rows)
        return cls(
            table=table, database=database,
            type_class=np.array(c.type_class, dtype=np.int32), from_samples=np.array(c.from_samples, dtype=bool),
            keyless=np.array(c.keyless, dtype=bool), decimal=np.array(c.decimal, dtype=bool),
            integer=np.array(c.integer, dtype=bool), uuid=np.array(c.uuid, dtype=bool),
            other_class=c.classes["other"], key_word=c.key_word, flag=np.array(c.flag, dtype=bool),
            name_flag=np.array(c.name_flag, dtype=bool), stems=c.stems, own_key=own, adopted=adopted,
            dictionary=dictionary,
            names_table=np.array(c.names_table, dtype=np.int8),
            unique=np.array(c.unique, dtype=np.float64), pk_declared=np.array(c.pk_declared, dtype=bool),
            table_has_pk=np.array(c.table_has_pk, dtype=bool), in_pk=np.array(c.in_pk, dtype=bool),
            unique_declared=np.array(c.unique_declared, dtype=bool) & ~one_to_one, fk_from=fk_from,
            part_reference=part_ref, typed_stem=typed,
            copy_source=_copy_sources(schema, col_offsets, len(c.table)), values=values,
            n_values=n_values, full_names=c.full, module_word=np.array(c.module_word, dtype=object),
            table_names=c.table_names, table_words=c.table_words, declared=declared, class_codes=dict(c.classes),
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
            own_key=self.own_key[rows], adopted=self.adopted[rows], dictionary=self.dictionary[rows],
            names_table=self.names_table[rows], unique=self.unique[rows], pk_declared=self.pk_declared[rows],
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


class _TableNames:
    """The names each table goes by, worked out once per table name and shared (never changed) by
    the columns of the tables that repeat it (a lake's copies of a database)."""

    def __init__(self, schema: Schema) -> None:
        self.leads = module_words(schema)
        self.long_leads = long_modules(schema)
        self._by_table: dict[tuple[str, str, int], tuple[list[str], list[list[str]], list[str]]] = {}
        whole_sets: dict[str, set[str]] = {}  # per database, its tables' whole names
        written: dict[str, set[str]] = {}  # and their names as written (case folded)
        for t in schema.tables:
            whole_sets.setdefault(t.join_scope, set()).add("".join(words(t.name)))
            written.setdefault(t.join_scope, set()).add(t.name.casefold())
        one_set: dict[frozenset[str], frozenset[str]] = {}  # one set for a lake's copies of a database
        self._wholes = {scope: one_set.setdefault(frozenset(v), frozenset(v)) for scope, v in whole_sets.items()}
        self._written = {scope: one_set.setdefault(frozenset(v), frozenset(v)) for scope, v in written.items()}
        # per database, the flat names of its tables: what a key word glued to a name may follow
        # (one set for databases with the same names: a lake's copies share their names' facts)
        scope_names: dict[str, set[str]] = {}
        for t in schema.tables:
            scope_names.setdefault(t.join_scope, set()).update(self.of(t)[0])
        shared: dict[frozenset[str], frozenset[str]] = {}
        self.entities = {scope: shared.setdefault(names, names)
                         for scope, names in ((scope, frozenset(v)) for scope, v in scope_names.items())}
        # per database, the keys named by one table's initials (``author.aid``, :func:`initial_key`):
        # what a column of that name elsewhere refers to (``writes.aid``); a name two tables own is none
        owners: dict[str, dict[str, int]] = {}
        for t in schema.tables:
            key = initial_key(words(t.name))
            flat = [flat_name(c.name) for c in t.columns] if key else []
            if key in flat and "id" not in flat:  # a table keyed by a bare ``id`` is keyed by it
                got = owners.setdefault(t.join_scope, {})
                got[key] = got.get(key, 0) + 1
        self.initial_keys = {scope: shared.setdefault(keys, keys) for scope, keys in (
            (scope, frozenset(k for k, n in owners.get(scope, {}).items() if n == 1)) for scope in self.entities)}

    def written(self, scope: str) -> frozenset[str]:
        """The names of the tables of join scope ``scope`` as written (case folded)."""
        return self._written[scope]

    def of(self, t: Table) -> tuple[list[str], list[list[str]], list[str]]:
        """The table's entity names, word lists and words: :func:`table_words`, the name without
        a long module prefix too; for a table led by another table's name, none that is a third
        table's whole name (``wallets_invoice_custom_sections`` links wallets to
        ``invoice_custom_sections``, which an ``invoice_custom_section_id`` names; a module's
        ``scan_reports`` is still a ``report`` beside ``reports``)."""
        rest = self.long_leads.get((t.join_scope, t.name))
        others = self._wholes[t.join_scope]
        key = (t.name, "".join(rest) if rest else "", id(others))
        named = self._by_table.get(key)
        if named is None:
            tn, tw = table_names(t), table_words(t)
            if rest and key[1] not in tn:
                tn, tw = tn + [key[1]], tw + [rest]
            tws = words(t.name)
            link = len(tws) > 1 and tws[0] in others  # led by a table's name: a link, no module
            keep = [j for j, x in enumerate(tn) if j == 0 or not link or x not in others]
            named = self._by_table[key] = ([tn[j] for j in keep], [tw[j] for j in keep], tws)
        return named


@dataclass
class _Columns:
    """The facts of each column as :func:`_read_columns` reads them, one list entry per column."""

    classes: dict[str, int] = field(default_factory=lambda: {"other": 0})
    table: list[int] = field(default_factory=list)
    database: list[int] = field(default_factory=list)
    value_rows: list[list[str]] = field(default_factory=list)
    type_class: list[int] = field(default_factory=list)
    from_samples: list[bool] = field(default_factory=list)
    keyless: list[bool] = field(default_factory=list)
    decimal: list[bool] = field(default_factory=list)
    integer: list[bool] = field(default_factory=list)
    uuid: list[bool] = field(default_factory=list)
    module_word: list[str] = field(default_factory=list)
    key_word: list[str | None] = field(default_factory=list)
    flag: list[bool] = field(default_factory=list)
    name_flag: list[bool] = field(default_factory=list)
    stems: list[list[list[str]]] = field(default_factory=list)
    full: list[list[str]] = field(default_factory=list)
    table_names: list[list[str]] = field(default_factory=list)
    table_words: list[list[list[str]]] = field(default_factory=list)
    own: list[bool] = field(default_factory=list)
    named_level: list[int] = field(default_factory=list)  # how exactly each column names its table (see name_facts)
    names_table: list[int] = field(default_factory=list)
    unique: list[float] = field(default_factory=list)
    unique_declared: list[bool] = field(default_factory=list)
    pk_declared: list[bool] = field(default_factory=list)
    table_has_pk: list[bool] = field(default_factory=list)
    in_pk: list[bool] = field(default_factory=list)


#: What a column's name tells (:func:`name_facts`): (key word, flag, stems per variant, full names,
#: named as its table's key, module word).
_NameFacts = tuple[str | None, bool, list[list[str]], list[str], int, str]
#: What a declared type tells: (join class, holds no key, real, integer, UUID).
_TypeFacts = tuple[str, bool, bool, bool, bool]


def _type_facts(c: Column, by_type: dict[str | None, _TypeFacts]) -> _TypeFacts:
    """What column ``c``'s declared type tells, once per type (an enumeration: :data:`_ENUM_TYPE`)."""
    typed = _ENUM_TYPE if c.enum else by_type.get(c.type)
    if typed is None:
        fam = c.family
        typed = by_type[c.type] = (join_class(c.type, fam), keyless_type(c.type), fam is TypeFamily.REAL,
                                   fam is TypeFamily.INTEGER, bool(UUID_TYPE.match(c.type or "")))
    return typed


def _read_columns(schema: Schema, names: _TableNames) -> _Columns:
    """Each column's facts: its table and database, its sample values and their type class, what
    its declared type and its name tell, whether its name makes it its table's key."""
    out = _Columns()
    dbs: dict[str, int] = {}
    # what a name tells depends on the names alone: worked out once per (column, table, prefix)
    by_name: dict[tuple[str, str, str | None, bool, int, int], _NameFacts] = {}
    by_type: dict[str | None, _TypeFacts] = {}
    for ti, t in enumerate(schema.tables):
        prefix = table_prefix(t)
        tnames, twl, twords = names.of(t)
        module = bool(twords) and (t.join_scope, twords[0]) in names.leads  # a name of no word leads nothing
        pk = t.primary_key
        db = dbs.setdefault(t.join_scope, len(dbs))
        # a primary key that numbers the table's rows (``row_id``) leaves the column named after
        # the table (``icustays.icustay_id``) its key too
        pk_row = len(pk) == 1 and is_row_number(pk[0])
        # a one-column primary key whose name does not name the table (``business.bid``: a
        # surrogate) leaves the column named exactly after the table with a key word
        # (``business.business_id``) its key too: the entity's own id, which others reference
        ents, inits = names.entities[t.join_scope], names.initial_keys[t.join_scope]
        written = names.written(t.join_scope)
        # (a key named by the table's initials, ``business.bid``, is such a surrogate too)
        pk_other = len(pk) == 1 and not pk_row and (
            _name_facts(by_name, pk[0], t.name, prefix, tnames, twords, module, ents, inits)[4] == 0
            or flat_name(pk[0]) == initial_key(twords))
        for c in t.columns:
            out.table.append(ti)
            out.database.append(db)
            out.value_rows.append([x for x in (value_key(v) for v in c.sample if v is not None) if x != ""])
            seen = sample_class(c.sample)
            declared_class, no_key, real, whole, generated = _type_facts(c, by_type)
            out.type_class.append(out.classes.setdefault(seen if seen is not None else declared_class, len(out.classes)))
            out.from_samples.append(seen is not None)
            frac = seen == "numeric" and fractional(c.sample)
            # a count by its name, unless it is written as a table of its database is
            # (``Undergoes.Procedures`` of a ``Procedures`` table: a reference, as ``Stay.Patient``
            # is; ``FLIGHT.STOPS`` beside a ``STOP`` table stays a count)
            counted = counts(c.name) and c.name.casefold() not in written
            out.keyless.append(no_key or frac or counted or c.computed)
            out.decimal.append(real and (seen != "numeric" or frac))
            out.integer.append(whole)
            out.uuid.append(generated)
            kw, flag, v_stems, v_full, named_own, dropped = _name_facts(
                by_name, c.name, t.name, prefix, tnames, twords, module, ents, inits)
            out.module_word.append(dropped)
            out.key_word.append(kw)
            # an ordinal or a category with one or two values (credit_order: 1, 2) is no reference
            few = c.unique_ratio is not None and t.row_count is not None and c.unique_ratio * t.row_count < 3
            out.flag.append(flag or (kw is None and few and t.row_count >= 3))
            out.name_flag.append(flag)
            out.stems.append(v_stems)
            out.full.append(v_full)
            out.table_names.append(tnames)
            out.table_words.append(twl)
            is_pk = pk == (c.name,)
            not_unique = c.unique_ratio is not None and c.unique_ratio < 0.95 and not c.unique
            out.own.append(is_pk or ((not pk or pk_row or c.unique) and named_own > 0 and not not_unique
                                     and (kw is not None or c.unique_ratio == 1.0))
                           or (pk_other and named_own == 2 and kw is not None and not not_unique))
            out.named_level.append(named_own if out.own[-1] and not is_pk else 0)
            out.names_table.append(named_own)
            out.unique.append(1.0 if c.unique else np.nan if c.unique_ratio is None else float(c.unique_ratio))
            out.unique_declared.append(c.unique and not is_pk)
            out.pk_declared.append(is_pk)
            out.table_has_pk.append(bool(pk))
            out.in_pk.append(c.name in pk)
    return out


def _name_facts(
    kept: dict[tuple[str, str, str | None, bool, int, int], _NameFacts], column: str, table: str, prefix: str | None,
    tnames: list[str], twords: list[str], module: bool, entities: frozenset[str], initial_keys: frozenset[str],
) -> _NameFacts:
    """:func:`name_facts` of ``column`` in ``table``, worked out once per (column, table, prefix,
    module, entities, initial keys) and ``kept``."""
    key = (column, table, prefix, module, id(entities), id(initial_keys))
    facts = kept.get(key)
    if facts is None:
        facts = kept[key] = name_facts(column, prefix, tnames, twords, module, entities, initial_keys)
    return facts


def _own_keys(
    schema: Schema, c: _Columns, table: np.ndarray, leads: set[tuple[str, str]], rows: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """``(own, typed)`` bool per column (``rows``: the columns that number their table's rows,
    :func:`is_row_number`): its table's key by its name (:attr:`_Columns.own`), less a
    column that names only the start of a table another key column names exactly, a polymorphic
    ``<x>_id`` and a column named after a table keyed by a bare ``id``; and
    :attr:`ColumnProfile.typed_stem`."""
    own = np.array(c.own, dtype=bool)
    # a table named exactly by one key column (FCLT_BUILDING_ADDRESS_KEY) is not also keyed by
    # another key column that names only the start of it (FCLT_BUILDING_KEY: a reference to
    # FCLT_BUILDING); a natural key without a key word (model_list.Model beside ModelId) stays
    level = np.array(c.named_level, dtype=np.int8)
    with_kw = np.array([k is not None for k in c.key_word], dtype=bool)
    exact = np.zeros(len(schema.tables), dtype=bool)
    exact[table[level == 2]] = True
    own &= ~((level == 1) & with_kw & exact[table])
    # an id named after a part of its table beside a type of it (``targets_scans.scan_id``
    # beside ``scan_type``) holds ids of several tables: a polymorphic reference, no key
    typed = typed_stems(c.table, c.stems, c.full)
    is_id = np.array([k == "id" for k in c.key_word], dtype=bool)
    own &= ~(typed_part(schema, c.table, c.stems, typed, leads) & is_id)
    # a table keyed by a bare ``id`` (Rails, Django) is not keyed by a column named after it
    # too: ``scan_reports.scan_report_id``, ``cphc_facilities.facility_id`` refer to others
    # (a row number, MIMIC's ``ROW_ID``, leaves it: see ``pk_row`` in :func:`_read_columns`)
    worded = np.array([any(st) for st in c.stems], dtype=bool)
    bare = is_id & ~worded
    bare &= ~rows
    by_bare = np.zeros(len(schema.tables), dtype=bool)
    by_bare[table[bare & own]] = True
    own &= ~((level > 0) & worded & by_bare[table])
    return own, typed


def _declared_references(
    schema: Schema, col_offsets: np.ndarray, own: np.ndarray,
) -> tuple[list[tuple[int, int]], np.ndarray]:
    """``(declared, fk_from)``: the declared ``(referencing, referenced)`` column pairs, and per
    column whether it declares a reference of one column; ``own`` gains the referenced columns."""
    declared: list[tuple[int, int]] = []
    fk_from = np.zeros(len(own), dtype=bool)
    for ga, gb, single in declared_columns(schema, col_offsets):
        declared.append((ga, gb))
        if single:
            # a column that declares its reference gets no other; a column of a composite
            # key (lineitem.l_suppkey of (l_partkey, l_suppkey) -> partsupp) still names its
            # own entity (supplier) and may reference it
            fk_from[ga] = True
            own[gb] = True  # a referenced column is a key
    return declared, fk_from


def _copy_sources(schema: Schema, col_offsets: np.ndarray, n: int) -> np.ndarray:
    """Per column, the copied table's column of the same name for a column of a copy
    (:func:`~.keys.copy_bases`), else -1."""
    copy_source = np.full(n, -1, dtype=np.int64)
    for ti, b in enumerate(copy_bases(schema)):
        if b >= 0:  # every column of the copied table is in its copy
            names = {c.name.casefold(): j for j, c in enumerate(schema.tables[b].columns, start=int(col_offsets[b]))}
            for j, c in enumerate(schema.tables[ti].columns, start=int(col_offsets[ti])):
                copy_source[j] = names.get(c.name.casefold(), -1)
    return copy_source
