"""The schema model: databases, tables, columns, keys and optional column statistics.

Everything the loaders read ends up here and everything downstream (index, signals,
search, adapters) reads only this model. A table is identified across databases by
``"<database>.<table>"`` (:attr:`Table.id`).
"""

from __future__ import annotations

import dataclasses
import difflib
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

from jar_core.column_types import TypeFamily, join_class, keyless_type, normalize_type
from jar_core.errors import SchemaError, UnknownDatabaseError
from jar_core.names import split_camel

__all__ = [
    "TypeFamily",
    "normalize_type", "keyless_type", "join_class", "split_camel",
    "Column",
    "ForeignKey",
    "Table",
    "Schema",
    "MAX_SAMPLE_VALUES",
]

#: At most this many distinct sample values are kept per column (a loader keeps fewer by default).
MAX_SAMPLE_VALUES = 1000


@dataclass
class Column:
    """One column: name, raw type (normalized to :attr:`family`), optional description and statistics.

    ``unique_ratio`` is distinct values / rows (``None`` when unknown); ``sample`` holds up to
    :data:`MAX_SAMPLE_VALUES` distinct values (empty when unknown). ``unique``: the column alone is
    declared unique (a ``UNIQUE`` constraint or a unique index on it alone, no ``WHERE``): an
    alternate key beside the primary key (MIMIC's ``admissions.hadm_id`` beside ``row_id``).
    ``computed``: the column is computed from others (``AS (expr)``, ``GENERATED ALWAYS AS``):
    it holds what its expression makes, so no join is inferred on it (a declared one stands).
    ``enum``: the column's type is an enumeration (PostgreSQL's ``CREATE TYPE ... AS ENUM``,
    MySQL's ``ENUM('a', 'b')`` and ``SET('a', 'b')``, DuckDB's ``ENUM``): it holds one of a few
    labels (a set, several), which :attr:`sample` lists (all of them, in their declared order,
    where the loader knows them), so its :attr:`family` is text and no join is inferred on it.
    """

    name: str
    type: str = ""
    nl_name: str | None = None
    comment: str | None = None
    primary_key: bool = False
    unique_ratio: float | None = None
    sample: tuple[Any, ...] = ()
    unique: bool = False
    computed: bool = False
    enum: bool = False

    def __post_init__(self) -> None:
        name, typ, nl, cm = self.name, self.type, self.nl_name, self.comment
        # the common case (plain ASCII strings) in one expression: loading an index of 50,000
        # tables creates half a million columns
        if not (
            type(name) is str and type(typ) is str and name.isascii() and typ.isascii()
            and (nl is None or (type(nl) is str and nl.isascii()))
            and (cm is None or (type(cm) is str and cm.isascii())) and name.strip()
        ):
            self._check_texts()
        if self.unique_ratio is not None:
            ur = float(self.unique_ratio)
            if not (0.0 <= ur <= 1.0 + 1e-9):
                raise SchemaError(f"column {self.name!r}: unique_ratio {ur} is outside [0, 1]")
            self.unique_ratio = min(ur, 1.0)
        sample = self.sample
        if type(sample) is not tuple or len(sample) > MAX_SAMPLE_VALUES:
            self.sample = tuple(sample[:MAX_SAMPLE_VALUES])

    def _check_texts(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise SchemaError(f"a column name must be a non-empty string, got {self.name!r}")
        for attr in ("type", "nl_name", "comment"):
            value = getattr(self, attr)
            if not (isinstance(value, str) or (value is None and attr != "type")):
                raise SchemaError(f"column {self.name!r}: {attr} must be a string, got {type(value).__name__}")
            _check_text(value, f"column {attr}" if attr != "type" else "column type")
        _check_text(self.name, "column name")

    @property
    def family(self) -> TypeFamily:
        """The normalized type family of :attr:`type`; text for an :attr:`enum` (its declared type
        is a name of the schema's, ``mood``)."""
        return TypeFamily.TEXT if self.enum else normalize_type(self.type)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.nl_name:
            d["nl_name"] = self.nl_name
        if self.comment:
            d["comment"] = self.comment
        if self.primary_key:
            d["primary_key"] = True
        if self.unique_ratio is not None:
            d["unique_ratio"] = self.unique_ratio
        if self.sample:
            d["sample"] = [_jsonable(v) for v in self.sample]
        if self.unique:
            d["unique"] = True
        if self.computed:
            d["computed"] = True
        if self.enum:
            d["enum"] = True
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Column":
        get = d.get
        return cls(  # positional: the fields in order (half a million of them in an index of 50,000 tables)
            d["name"], get("type", ""), get("nl_name"), get("comment"), bool(get("primary_key", False)),
            get("unique_ratio"), tuple(get("sample", ())), bool(get("unique", False)), bool(get("computed", False)),
            bool(get("enum", False)),
        )


def _check_text(value: str | None, what: str) -> None:
    """Raise :class:`SchemaError` if ``value`` holds an unpaired surrogate (it is not text any file can hold)."""
    if value is None or value.isascii():  # isascii is O(1) for most strings: the common case costs nothing
        return
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as e:
        raise SchemaError(f"{what} {value!r} is not valid text (unpaired surrogate at position {e.start})") from None


def _jsonable(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, bytes):
        return v.hex()
    return str(v)


@dataclass(frozen=True)
class ForeignKey:
    """``columns`` of the owning table reference ``ref_columns`` of table ``ref_table`` (a table id)."""

    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"columns": list(self.columns), "ref_table": self.ref_table, "ref_columns": list(self.ref_columns)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "ForeignKey":
        return cls(tuple(d["columns"]), d["ref_table"], tuple(d["ref_columns"]))


@dataclass
class Table:
    """A table of one database. :attr:`id` (``"db.table"``) identifies it across databases.

    ``sql_schema`` is the SQL schema the table lives in when SQL must name it (a PostgreSQL
    schema other than the connection's default, a MySQL database given with ``schema=``...):
    the DDL, join clauses and sample-row queries then qualify the table with it
    (``"music"."track"``), so that the SQL runs as printed. ``None``: the table is named alone.

    ``catalog`` is the database that holds the table's SQL schema when several schemas of one
    database are databases of the corpus (a DDL file with ``sales.orders`` and
    ``production.product``, :func:`~jar_core.loaders.load_database` with several ``schema``):
    queries join across those schemas, so the join rules infer joins between tables of one
    catalog as within one database (:attr:`join_scope`). ``None``: the database is its own catalog.
    """

    database: str
    name: str
    columns: list[Column] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    nl_name: str | None = None
    comment: str | None = None
    row_count: int | None = None
    sql_schema: str | None = None
    catalog: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise SchemaError(f"a table name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.database, str):
            raise SchemaError(f"table {self.name!r}: database must be a string")
        for attr in ("nl_name", "comment", "sql_schema", "catalog"):
            if getattr(self, attr) is not None and not isinstance(getattr(self, attr), str):
                raise SchemaError(f"table {self.name!r}: {attr} must be a string")
            _check_text(getattr(self, attr), f"table {attr}")
        _check_text(self.name, "table name")
        _check_text(self.database, "database name")
        if self.row_count is not None and (isinstance(self.row_count, bool) or not isinstance(self.row_count, int)):
            raise SchemaError(f"table {self.name!r}: row_count must be an integer")
        self.columns = list(self.columns)
        self.foreign_keys = list(self.foreign_keys)

    @property
    def id(self) -> str:
        """``"<database>.<table>"``."""
        return f"{self.database}.{self.name}"

    @property
    def join_scope(self) -> str:
        """What the join rules read as one database: the :attr:`catalog` when there is one (its
        schemas join), else the :attr:`database` (the two kinds of name never meet)."""
        return self.database if self.catalog is None else f"\x00{self.catalog}"

    @property
    def primary_key(self) -> tuple[str, ...]:
        """The primary-key column names, in column order."""
        return tuple(c.name for c in self.columns if c.primary_key)

    def copy_to(self, database: str) -> "Table":
        """This table as a table of ``database``: columns copied, foreign keys pointing at the
        same tables of ``database`` (a renamed copy of a whole database, as in a data lake; no
        :attr:`catalog`: the copy joins no schema of the original's)."""
        return dataclasses.replace(
            self, database=database, catalog=None, columns=[dataclasses.replace(c) for c in self.columns],
            foreign_keys=[ForeignKey(fk.columns, f"{database}.{fk.ref_table.split('.', 1)[1]}", fk.ref_columns)
                          for fk in self.foreign_keys],
        )

    def column(self, name: str) -> Column:
        """The column called ``name`` (exact match first, then case-insensitive)."""
        for c in self.columns:
            if c.name == name:
                return c
        low = name.lower()
        for c in self.columns:
            if c.name.lower() == low:
                return c
        raise UnknownDatabaseError(f"table {self.id!r} has no column {name!r}")

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "database": self.database,
            "name": self.name,
            "columns": [c.to_dict() for c in self.columns],
            "foreign_keys": [fk.to_dict() for fk in self.foreign_keys],
        }
        for k in ("nl_name", "comment", "row_count", "sql_schema", "catalog"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Table":
        return cls(
            database=d["database"],
            name=d["name"],
            columns=[Column.from_dict(c) for c in d.get("columns", [])],
            foreign_keys=[ForeignKey.from_dict(f) for f in d.get("foreign_keys", [])],
            nl_name=d.get("nl_name"),
            comment=d.get("comment"),
            row_count=d.get("row_count"),
            sql_schema=d.get("sql_schema"),
            catalog=d.get("catalog"),
        )


def _did_you_mean(name: str, names: Mapping[str, str], n: int = 5) -> str:
    """``"; did you mean a, b?"`` with what the keys of ``names`` closest to ``name`` stand for
    (their values, at most ``n``), or ``""`` when none is close."""
    close = difflib.get_close_matches(name, list(names), n=8, cutoff=0.6)
    meant = list(dict.fromkeys(names[c] for c in close))[:n]
    return f"; did you mean {', '.join(meant)}?" if meant else ""


class Schema:
    """An ordered collection of tables, possibly from several databases.

    Validates on construction: at least one table, every table has columns, no two tables
    share an id (the same name in two databases is fine), and foreign keys point at tables
    and columns that exist (dangling keys are dropped, they cannot be joins).
    """

    def __init__(self, tables: Iterable[Table], *, dialect: str | None = None, validate: bool = True) -> None:
        if isinstance(tables, (str, bytes, Mapping)) or not isinstance(tables, Iterable):
            hint = " (a schema dictionary goes through Schema.from_dict)" if isinstance(tables, Mapping) else ""
            raise SchemaError(f"a Schema takes an iterable of Table objects, got {type(tables).__name__}{hint}")
        self.tables: list[Table] = list(tables)
        for t in self.tables:
            if not isinstance(t, Table):
                raise SchemaError(f"a Schema takes Table objects, got {type(t).__name__} {t!r:.80}")
        self.dialect = dialect
        self._fingerprint: str | None = None
        self._by_id: dict[str, int] = {}
        self._by_lower_id: dict[str, int] = {}
        for i, t in enumerate(self.tables):
            if t.id in self._by_id:
                raise SchemaError(f"table {t.id!r} appears twice")
            self._by_id[t.id] = i
            self._by_lower_id.setdefault(t.id.lower(), i)
        if validate:
            self.validate()

    # -- validation -----------------------------------------------------------------
    def validate(self) -> None:
        """Raise :class:`SchemaError` if the schema cannot be retrieved from (drops dangling foreign keys)."""
        if not self.tables:
            raise SchemaError("the source has no tables")
        for t in self.tables:
            if not t.columns:
                raise SchemaError(f"table {t.id!r} has no columns")
            if len({c.name for c in t.columns}) == len(t.columns):
                continue
            seen: set[str] = set()
            for c in t.columns:
                if c.name in seen:
                    raise SchemaError(f"table {t.id!r} has column {c.name!r} twice")
                seen.add(c.name)
        for t in self.tables:
            kept = []
            for fk in t.foreign_keys:
                ref = self.find(fk.ref_table)
                if ref is None or len(fk.columns) != len(fk.ref_columns):
                    continue
                try:
                    cols = tuple(t.column(c).name for c in fk.columns)
                    refcols = tuple(ref.column(c).name for c in fk.ref_columns)
                except UnknownDatabaseError:
                    continue
                kept.append(ForeignKey(cols, ref.id, refcols))
            if kept != t.foreign_keys:
                t.foreign_keys = kept
                self._fingerprint = None  # the keys are part of it

    # -- access ---------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.tables)

    def __iter__(self) -> Iterator[Table]:
        return iter(self.tables)

    def __getitem__(self, key: int | str) -> Table:
        if isinstance(key, int):
            return self.tables[key]
        t = self.find(key)
        if t is None:
            counts: dict[str, int] = {}
            for x in self.tables:
                counts[x.name] = counts.get(x.name, 0) + 1
            names = {x.id: x.id for x in self.tables}  # a name to the id it stands for; bare names if unique
            names.update({x.name: x.id for x in self.tables if counts[x.name] == 1})
            raise UnknownDatabaseError(f"no table {key!r} in the schema ({len(self)} tables){_did_you_mean(key, names)}")
        return t

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and self.find(key) is not None

    @property
    def databases(self) -> list[str]:
        """Database names in first-seen order."""
        return list(dict.fromkeys(t.database for t in self.tables))

    def position(self, table_id: str) -> int:
        """Index of a table in :attr:`tables` (see :meth:`find` for the accepted names)."""
        t = self[table_id]
        return self._by_id[t.id]

    def find(self, name: str) -> Table | None:
        """The table named ``"db.table"`` or, when unambiguous, ``"table"``; case-insensitive fallback."""
        if name in self._by_id:
            return self.tables[self._by_id[name]]
        if name.lower() in self._by_lower_id:
            return self.tables[self._by_lower_id[name.lower()]]
        matches = [t for t in self.tables if t.name == name] or [
            t for t in self.tables if t.name.lower() == name.lower()
        ]
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            ids = ", ".join(t.id for t in matches)
            raise UnknownDatabaseError(f"table name {name!r} is ambiguous ({ids}); qualify it as db.table")
        return None

    def resolve(self, names: Iterable[str]) -> list[int]:
        """Positions of the named tables; an unknown name raises :class:`UnknownDatabaseError`
        with the closest names (``did you mean ...?``)."""
        return [self.position(n) for n in names]

    def subset(self, database: str) -> "Schema":
        """The tables of one database (case-insensitive), or :class:`UnknownDatabaseError`."""
        picked = [t for t in self.tables if t.database == database] or [
            t for t in self.tables if t.database.lower() == database.lower()
        ]
        if not picked:
            known = ", ".join(self.databases[:10]) + (" ..." if len(self.databases) > 10 else "")
            hint = _did_you_mean(database, {db: db for db in self.databases})
            raise UnknownDatabaseError(f"unknown database {database!r} (known: {known}){hint}")
        return Schema(picked, dialect=self.dialect, validate=False)

    def with_descriptions(self, descriptions: Mapping[str, str] | None) -> "Schema":
        """This schema with ``descriptions`` as the comments of the tables and columns they name
        (``{"table": text, "table.column": text}``, ``"db.table"`` and ``"db.table.column"`` too;
        they replace a source's comment); ``self`` when they change nothing. A name that is no
        table or column raises :class:`UnknownDatabaseError`."""
        tables: dict[str, Table] = {}
        for key, text in (descriptions or {}).items():
            table, column = self._described(key)
            t = tables.setdefault(table.id, dataclasses.replace(table, columns=list(table.columns)))
            if column is None:
                t.comment = text or None
            else:
                i = next(i for i, c in enumerate(t.columns) if c.name == column)
                t.columns[i] = dataclasses.replace(t.columns[i], comment=text or None)
        changed = {i: t for i, t in tables.items() if t.to_dict() != self[i].to_dict()}
        if not changed:
            return self
        return Schema([changed.get(t.id, t) for t in self.tables], dialect=self.dialect, validate=False)

    def _described(self, key: str) -> tuple[Table, str | None]:
        """(the table, the column's name or ``None``) that a key of :meth:`with_descriptions` names."""
        table = self.find(key)
        if table is not None:
            return table, None
        head, _, column = key.rpartition(".")
        table = self.find(head) if head else None
        if table is None:
            hint = _did_you_mean(head or key, {t.name: t.name for t in self.tables})
            raise UnknownDatabaseError(f"descriptions: no table {head or key!r}{hint}")
        return table, table.column(column).name

    # -- persistence ----------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {"dialect": self.dialect, "tables": [t.to_dict() for t in self.tables]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Schema":
        """The schema of :meth:`to_dict`; a malformed dictionary raises :class:`SchemaError`."""
        if not isinstance(d, Mapping) or not isinstance(d.get("tables", []), list):
            raise SchemaError("a schema dictionary needs a list of tables")
        dialect = d.get("dialect")
        if dialect is not None and not isinstance(dialect, str):
            raise SchemaError(f"the schema's dialect must be a string, got {type(dialect).__name__}")
        try:
            tables = [Table.from_dict(t) for t in d.get("tables", [])]
        except (KeyError, TypeError, AttributeError, ValueError) as e:
            raise SchemaError(f"malformed schema dictionary: {type(e).__name__}: {e}") from e
        return cls(tables, dialect=dialect)

    def fingerprint(self) -> str:
        """A SHA-256 of the schema's structure (names, types, keys, unique columns, descriptions and
        comments; not samples).

        Computed once and kept: a schema is not meant to change once in use (:meth:`validate`
        starts over when it rewrites a foreign key).
        """
        if self._fingerprint is None:
            self._fingerprint = self._compute_fingerprint()
        return self._fingerprint

    def _compute_fingerprint(self) -> str:
        payload = []
        for t in self.tables:
            entry = [
                t.database,
                t.name,
                t.nl_name,
                [[c.name, c.type, c.nl_name, c.primary_key] for c in t.columns],
                sorted([list(fk.columns), fk.ref_table, list(fk.ref_columns)] for fk in t.foreign_keys),
            ]
            if t.sql_schema is not None:  # absent before SQL schemas were recorded: old fingerprints stand
                entry.append(["sql_schema", t.sql_schema])
            if t.catalog is not None:  # the joins between a catalog's schemas depend on it
                entry.append(["catalog", t.catalog])
            unique = [c.name for c in t.columns if c.unique]
            if unique:  # absent before declared unique columns were read: old fingerprints stand
                entry.append(["unique", unique])
            computed = [c.name for c in t.columns if c.computed]
            if computed:  # absent before computed columns were read: old fingerprints stand
                entry.append(["computed", computed])
            enums = [c.name for c in t.columns if c.enum]
            if enums:  # absent before enumerations were read: old fingerprints stand
                entry.append(["enum", enums])
            comments = [[c.name, c.comment] for c in t.columns if c.comment]
            if t.comment or comments:  # absent before descriptions were embedded: old fingerprints stand
                entry.append(["comments", t.comment, comments])
            payload.append(entry)
        blob = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()

    def __repr__(self) -> str:
        return f"Schema({len(self.tables)} tables in {len(self.databases)} database(s))"
