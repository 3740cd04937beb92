"""The tables of a DDL file, built statement by statement from sqlglot's trees, their references
resolved at the end.

Part of the input of METHOD.md, "The task": the corpus of tables with their declared keys (primary,
unique, foreign), from which the join rules start. ``CREATE TABLE`` (also as an element of ``CREATE
SCHEMA s``), ``ALTER TABLE`` (added columns and keys, dropped and renamed columns, renamed tables,
``ATTACH PARTITION``, a column's new type: ``ALTER [COLUMN] c [SET DATA] TYPE t``, T-SQL's ``ALTER
COLUMN c t``, MySQL's ``MODIFY`` and ``CHANGE``), ``COMMENT ON TABLE/COLUMN``, ``CREATE UNIQUE
INDEX`` on one column (a key, :attr:`Column.unique`), the file's domains, alias types and
enumerations (:mod:`~jar_core.loaders.ddl.user_types`). ``INHERITS`` children get their parents'
columns; partitions and the children that add no column are left out unless asked for.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections import Counter
from typing import Sequence

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import SqlglotError
from sqlglot.tokens import Token

from jar_core.errors import DDLParseError, SchemaError
from jar_core.loaders.ddl.expressions import (
    CLUSTERED,
    constraint_kinds,
    is_inline_index,
    literal_text,
    node_name,
    node_names,
    table_name,
    unique_columns,
)
from jar_core.loaders.ddl.remarks import column_remark
from jar_core.loaders.ddl.repair import parse_tokens, without_key_names
from jar_core.loaders.ddl.tables import RawForeignKey, TableDef
from jar_core.loaders.ddl.user_types import UserTypes
from jar_core.loaders.declarations import enum_sample, inline_enum_labels, unique_index_column
from jar_core.schema import Column, ForeignKey, Table

__all__ = ["Builder"]

_ATTACH_PARTITION = re.compile(
    r"\AALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(?P<parent>[^\s(]+)\s+ATTACH\s+PARTITION\s+(?P<child>[^\s(]+)",
    re.IGNORECASE,
)


class Builder:
    """Accumulates table definitions from parsed statements and resolves references at the end."""

    def __init__(self, *, database: str, dialect: Dialect, origin: str, partitions: bool = False) -> None:
        self.database = database
        self.dialect = dialect
        self.origin = origin
        self.partitions = partitions
        self.tables: dict[tuple[str, str], TableDef] = {}  # changed by _put and _remove only
        # the keys of ``tables`` (in its order) by lower-case (database, name), and by lower-case name
        self._folded: dict[tuple[str, str], dict[tuple[str, str], None]] = {}
        self._named: dict[str, dict[tuple[str, str], None]] = {}
        self.skipped: dict[int, TableDef] = {}  # id of a partition left out -> the table holding its rows
        self.types = UserTypes(dialect=dialect, origin=origin)  # domains, alias types, enumerations

    # -- lookup -----------------------------------------------------------------------
    def find(self, database: str, name: str) -> TableDef | None:
        """The table ``database.name``: exact match first, then the first created of those that
        match case-insensitively."""
        if (database, name) in self.tables:
            return self.tables[(database, name)]
        keys = self._folded.get((database.lower(), name.lower()))
        return self.tables[next(iter(keys))] if keys else None

    def _put(self, tdef: TableDef) -> None:
        """Add ``tdef`` to :attr:`tables` under its name, and to the case-insensitive maps."""
        key = (tdef.database, tdef.name)
        self.tables[key] = tdef
        self._folded.setdefault((key[0].lower(), key[1].lower()), {})[key] = None
        self._named.setdefault(key[1].lower(), {})[key] = None

    def _remove(self, tdef: TableDef) -> None:
        """Take ``tdef`` out of :attr:`tables` and of the case-insensitive maps."""
        key = (tdef.database, tdef.name)
        del self.tables[key]
        for index, folded in ((self._folded, (key[0].lower(), key[1].lower())), (self._named, key[1].lower())):
            del index[folded][key]
            if not index[folded]:
                del index[folded]

    def _qualified(self, table: exp.Table) -> tuple[str, str]:
        return (table.db or self.database, table_name(table))

    def _unqualified(self, name: str) -> TableDef | None:
        """The one table called ``name`` in any database, when a schema-qualified name finds none
        (``ALTER TABLE TPCD.NATION`` after ``CREATE TABLE NATION``: the script's schema was the
        connection's default); ``None`` when there is none or several."""
        keys = self._named.get(name.lower(), {})
        return self.tables[next(iter(keys))] if len(keys) == 1 else None

    # -- statements ---------------------------------------------------------------------
    def create(
        self, tree: exp.Create, number: int, snippet: str, *, schema: str | None = None, remark: str | None = None,
    ) -> None:
        """Add the table ``tree`` creates; ``remark``: the SQL comment describing it
        (:func:`~jar_core.loaders.ddl.remarks.table_remark`), its comment unless a clause gives one."""
        if str(tree.args.get("kind") or "").upper() != "TABLE":
            return
        target = tree.this
        table_node = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(table_node, exp.Table):
            return
        database, name = self._qualified(table_node)
        if schema is not None and not table_node.db:  # an element of CREATE SCHEMA s
            database = schema
        # An untyped column (SQLite ``CREATE TABLE t (a, b)``) is a bare identifier.
        items = [
            exp.ColumnDef(this=i.copy()) if isinstance(i, exp.Identifier) else i
            for i in (target.expressions if isinstance(target, exp.Schema) else [])
        ]
        properties = tree.args.get("properties")
        partition_of = properties.find(exp.PartitionedOfProperty) if properties is not None else None
        inherits = properties.find(exp.InheritsProperty) if properties is not None else None
        parents = [t for t in (inherits.expressions if inherits is not None else ()) if isinstance(t, exp.Table)]
        if not any(isinstance(i, exp.ColumnDef) for i in items) and partition_of is None and not parents:
            raise SchemaError(
                f"table {f'{database}.{name}'!r} has no columns: {self.origin}, statement {number} "
                f"({snippet!r}) defines none"
            )
        tdef = TableDef(database=database, name=name, sql_schema=table_node.db or schema, parents=parents)
        if partition_of is not None and isinstance(partition_of.this, exp.Table):
            tdef.partition_of = partition_of.this
            tdef.parents.insert(0, partition_of.this)  # its columns are the parent's
        for item in items:
            self._add_item(tdef, item)
        defined = [node_name(i.this) for i in items if isinstance(i, exp.ColumnDef) and not is_inline_index(i)]
        times = Counter(n.lower() for n in defined)
        twice = sorted({n for n in defined if times[n.lower()] > 1}, key=str.lower)
        if twice:
            warnings.warn(
                f"{self.origin}: table {name!r} (statement {number}) defines column(s) "
                f"{', '.join(map(repr, twice))} more than once; the first definition is kept",
                stacklevel=3,
            )
        comment = properties.find(exp.SchemaCommentProperty) if properties is not None else None
        tdef.comment = (literal_text(comment.this) if comment is not None else None) or remark
        earlier = self.find(database, name)
        if earlier is not None:
            keep_first = bool(tree.args.get("exists"))  # CREATE TABLE IF NOT EXISTS
            warnings.warn(
                f"{self.origin}: table {f'{database}.{name}'!r} is created twice (statement {number} again); "
                + ("the earlier definition is kept (IF NOT EXISTS)" if keep_first else "the later definition replaces it"),
                stacklevel=3,
            )
            if keep_first:
                return
            self._remove(earlier)
        self._put(tdef)

    def alter(self, tree: exp.Alter, number: int) -> None:
        if not isinstance(tree.this, exp.Table):
            return
        database, name = self._qualified(tree.this)
        tdef = self.find(database, name) or self._unqualified(name)
        if tdef is None:
            # a statement that only drops or alters (pg_dump --clean's DROP CONSTRAINT IF EXISTS
            # before the tables it drops and creates again) loses nothing: no warning
            altering = (exp.Drop, exp.AlterColumn, exp.ModifyColumn)
            if all(isinstance(a, altering) for a in tree.args.get("actions") or ()):
                return
            warnings.warn(
                f"{self.origin}: ALTER TABLE {f'{database}.{name}'!r} (statement {number}) names no table "
                "created before it; its columns and keys are ignored",
                stacklevel=3,
            )
            return
        for action in tree.args.get("actions") or ():
            if isinstance(action, exp.Drop) and str(action.args.get("kind") or "").upper() == "COLUMN":
                for col in action.args.get("tables") or ():
                    self._drop_column(tdef, node_name(col))
            elif isinstance(action, exp.RenameColumn):
                self._rename_column(tdef, node_name(action.this), node_name(action.args.get("to")))
            elif isinstance(action, exp.AlterRename) and isinstance(action.this, exp.Table):
                self._rename_table(tdef, table_name(action.this))
            elif isinstance(action, exp.AlterColumn):  # SET DEFAULT, DROP NOT NULL...: only a new type counts
                if isinstance(action.args.get("dtype"), exp.DataType):
                    self._retype_column(tdef, node_name(action.this), action.args["dtype"])
            elif isinstance(action, exp.ModifyColumn) and isinstance(action.this, exp.ColumnDef):
                self._modify_column(tdef, action.this, node_name(action.args.get("rename_from")))
            else:
                # Oracle's ADD (CONSTRAINT ..., col type) comes as a Schema of the added items
                added = isinstance(action, (exp.AddConstraint, exp.Schema)) and not isinstance(action.this, exp.Table)
                for item in action.expressions if added else [action]:
                    self._add_item(tdef, item)

    @staticmethod
    def _drop_column(tdef: TableDef, name: str) -> None:
        """``ALTER TABLE ... DROP COLUMN name``: the column, and the keys it is part of, go."""
        col = tdef.column(name)
        if col is None:
            return
        tdef.columns.remove(col)
        tdef.reindex()
        tdef.primary_key = [c for c in tdef.primary_key if c.lower() != col.name.lower()]
        tdef.unique = [c for c in tdef.unique if c.lower() != col.name.lower()]
        tdef.foreign_keys = [fk for fk in tdef.foreign_keys if col.name.lower() not in (c.lower() for c in fk.columns)]

    def _rename_column(self, tdef: TableDef, old: str, new: str) -> None:
        """``ALTER TABLE ... RENAME COLUMN old TO new``, in the table's keys and in the references
        to it too."""
        col = tdef.column(old)
        if col is None or not new:
            return
        tdef.columns[tdef.columns.index(col)] = dataclasses.replace(col, name=new)
        tdef.reindex()

        def renamed(names: Sequence[str]) -> tuple[str, ...]:
            return tuple(new if n.lower() == col.name.lower() else n for n in names)

        tdef.primary_key = list(renamed(tdef.primary_key))
        tdef.unique = list(renamed(tdef.unique))
        for fk in tdef.foreign_keys:
            fk.columns = renamed(fk.columns)
        for owner in self.tables.values():
            for fk in owner.foreign_keys:
                if fk.ref_columns and self._lookup(owner, fk.ref_database, fk.ref_table) is tdef:
                    fk.ref_columns = renamed(fk.ref_columns)

    def _rename_table(self, tdef: TableDef, new: str) -> None:
        """``ALTER TABLE ... RENAME TO new`` (in the table's own schema)."""
        if not new or self.find(tdef.database, new) is not None:
            return
        self._remove(tdef)
        tdef.name = new
        self._put(tdef)

    def attach_partition(self, tree: exp.Command) -> None:
        """``ALTER TABLE [ONLY] parent ATTACH PARTITION child ...`` (``pg_dump`` output), which
        sqlglot reads as an opaque command: ``child`` is a partition of ``parent``."""
        m = _ATTACH_PARTITION.match(tree.sql(dialect=self.dialect))
        if m is None:
            return
        try:
            parent, child = (exp.to_table(m.group(g), dialect=self.dialect) for g in ("parent", "child"))
        except SqlglotError:
            return
        tdef = self.find(*self._qualified(child)) or self._unqualified(child.name)
        if tdef is not None:
            tdef.partition_of = parent

    def comment(self, tree: exp.Comment) -> None:
        kind = str(tree.args.get("kind") or "").upper()
        target, text = tree.this, literal_text(tree.args.get("expression"))
        if kind == "TABLE" and isinstance(target, exp.Table):
            tdef = self.find(*self._qualified(target))
            if tdef is not None:
                tdef.comment = text
        elif kind == "COLUMN" and isinstance(target, exp.Column):
            tdef = self.find(target.db or self.database, target.table)
            col = tdef.column(target.name) if tdef is not None else None
            if col is not None:
                col.comment = text

    # -- table items ----------------------------------------------------------------------
    def _add_item(self, tdef: TableDef, item: exp.Expr) -> None:
        if isinstance(item, exp.ColumnDef):
            self._add_column(tdef, item)
        elif isinstance(item, exp.PrimaryKey):
            tdef.primary_key.extend(node_names(item.expressions))
        elif isinstance(item, exp.ForeignKey):
            self._add_reference(tdef, node_names(item.expressions), item.args.get("reference"))
        elif isinstance(item, exp.UniqueColumnConstraint):  # UNIQUE (a): a key of one column
            cols = unique_columns(item) or ()
            if len(cols) == 1:
                tdef.unique.append(cols[0])
        elif isinstance(item, exp.Constraint):  # CONSTRAINT name <PRIMARY KEY | FOREIGN KEY ...>
            parts = item.expressions
            if any(isinstance(p, exp.PrimaryKeyColumnConstraint) for p in parts):
                # T-SQL: CONSTRAINT pk PRIMARY KEY [NON]CLUSTERED (a, b)
                indexed = [p for p in parts if isinstance(p, CLUSTERED)]
                tdef.primary_key.extend(name for p in indexed for name in node_names(p.this))
            for part in parts:
                self._add_item(tdef, part)

    def unique_index(self, chunk: list[Token], text: str) -> None:
        """``CREATE UNIQUE INDEX name ON t (a)``: column ``a`` of ``t`` is declared unique. An index
        on several columns or on an expression, a partial one (``WHERE``), an index sqlglot cannot
        parse or one on a table not created before it declares no key of one column: skipped."""
        try:
            tree = parse_tokens(self.dialect, without_key_names(chunk), text)
        except SqlglotError:
            return
        found = unique_index_column(tree)
        if found is None:
            return
        table, column = found
        tdef = self.find(*self._qualified(table)) or self._unqualified(table.name)
        if tdef is not None and tdef.column(column) is not None:
            tdef.unique.append(column)

    def domain(self, chunk: Sequence[Token], text: str) -> None:
        """``CREATE DOMAIN name [AS] type ...``: read into :attr:`types` (:meth:`UserTypes.domain`)."""
        self.types.domain(chunk, text)

    def type_statement(self, chunk: Sequence[Token], text: str) -> None:
        """``CREATE TYPE`` / ``ALTER TYPE``: read into :attr:`types` (:meth:`UserTypes.type_statement`);
        ``ALTER TYPE name RENAME TO new`` renames an enumeration and the type of its columns."""
        renamed = self.types.type_statement(chunk, text)
        if renamed is not None:
            self._rename_enum(*renamed)

    def _rename_enum(self, key: str, new: Token) -> None:
        """``ALTER TYPE name RENAME TO new``: enumeration ``key`` is called ``new`` in its schema,
        and so is the type of the columns declared with it before (as a database reports them)."""
        found = self.types.renamed_enum(key, new)
        if found is None:
            return
        new_key, spelled = found
        for tdef in self.tables.values():
            for i, col in enumerate(tdef.columns):
                if self.types.enum_key(col.type, tdef.sql_schema or tdef.database) == key:
                    qualifier = col.type.rpartition(".")[0]
                    tdef.columns[i] = dataclasses.replace(col, type=f"{qualifier}.{spelled}" if qualifier else spelled)
        self.types.rename_enum(key, new_key)

    def _enumerations(self, tdef: TableDef) -> None:
        """Mark the columns of ``tdef`` declared with an enumeration's name (``mood``,
        ``public.mood``, ``"Mood"``; :func:`user_type`) as such, its labels as their sample."""
        for col in tdef.columns:
            key = self.types.enum_key(col.type, tdef.sql_schema or tdef.database)
            if key is not None:
                col.enum, col.sample = True, enum_sample(self.types.enums[key])

    def _add_column(self, tdef: TableDef, node: exp.ColumnDef) -> None:
        name = node_name(node.this)
        if is_inline_index(node):  # no column; a UNIQUE one is a key, as CREATE UNIQUE INDEX is
            for spec in constraint_kinds(node):
                if isinstance(spec, exp.UniqueColumnConstraint):
                    self._add_item(tdef, spec)
            return
        if not name or tdef.column(name) is not None:  # ALTER ... MODIFY of a known column
            return
        tdef.columns.append(self._column(tdef, node, name))

    def _base_type(self, declared: str, tdef: TableDef) -> str:
        """A column's type: the base type of a domain or an alias type of the file, else ``declared``."""
        return self.types.base_type(declared, tdef.sql_schema or tdef.database)

    def _typed(self, tdef: TableDef, column: Column, kind: exp.DataType | None) -> Column:
        """``column`` of ``tdef`` with type ``kind``: a domain's or alias type's base type, an inline
        enumeration's labels as its sample (MySQL's ``ENUM('G', 'PG')`` and ``SET(...)``, DuckDB's
        ``ENUM(...)``); a named enumeration is marked when the tables are built."""
        labels = inline_enum_labels(kind)
        return dataclasses.replace(
            column, type=self._base_type(kind.sql(dialect=self.dialect), tdef) if kind is not None else "",
            enum=labels is not None, sample=enum_sample(labels) if labels is not None else (),
        )

    def _column(self, tdef: TableDef, node: exp.ColumnDef, name: str) -> Column:
        """The column ``node`` defines in ``tdef``; its key constraints are added to ``tdef``."""
        column = self._typed(tdef, Column(name=name), node.args.get("kind"))
        specs = constraint_kinds(node)
        for i, spec in enumerate(specs):
            # a key with a column list after a column, without a comma (T-SQL reads WideWorldImportersDW's
            # [ISO Week Number] INT NOT NULL CONSTRAINT pk PRIMARY KEY CLUSTERED ([Date] ASC)), is the
            # table's key on the listed columns, as it is after a comma; sqlglot reads the list of
            # PRIMARY KEY [NON]CLUSTERED (a) as the next constraint
            listed = specs[i + 1] if i + 1 < len(specs) and isinstance(specs[i + 1], CLUSTERED) else None
            if isinstance(spec, exp.PrimaryKeyColumnConstraint):
                tdef.primary_key.extend(node_names(listed.this) if listed is not None and listed.this else (name,))
            elif isinstance(spec, exp.UniqueColumnConstraint) and unique_columns(spec, named=False) is not None:
                self._add_item(tdef, spec)  # UNIQUE [NON]CLUSTERED (a)
            elif isinstance(spec, exp.UniqueColumnConstraint):
                tdef.unique.append(name)
            elif isinstance(spec, (exp.PrimaryKey, exp.ForeignKey)):  # PRIMARY KEY (a), FOREIGN KEY (a) REFERENCES
                self._add_item(tdef, spec)
            elif isinstance(spec, exp.Reference):
                self._add_reference(tdef, (name,), spec)
            elif isinstance(spec, exp.CommentColumnConstraint):
                column.comment = literal_text(spec.this)
            elif isinstance(spec, exp.ComputedColumnConstraint):  # AS (expr), GENERATED ALWAYS AS (expr)
                column.computed = True
        if column.comment is None:  # no COMMENT clause: the SQL comment on its line
            column.comment = column_remark(node)
        return column

    def _retype_column(self, tdef: TableDef, name: str, kind: exp.DataType) -> None:
        """``ALTER TABLE ... ALTER [COLUMN] name [SET DATA] TYPE kind`` (PostgreSQL, T-SQL's
        ``ALTER COLUMN name kind``): the column has type ``kind``."""
        col = tdef.column(name)
        if col is not None:
            tdef.columns[tdef.columns.index(col)] = self._typed(tdef, col, kind)

    def _modify_column(self, tdef: TableDef, node: exp.ColumnDef, old: str) -> None:
        """MySQL's ``ALTER TABLE ... MODIFY [COLUMN] name definition`` and ``CHANGE [COLUMN] old name
        definition``: the column (renamed, in the table's keys too) has the new definition; its
        comment stays unless the definition gives one."""
        name = node_name(node.this)
        col = tdef.column(old or name)
        if col is None or not name:
            return
        if name != col.name:
            other = tdef.column(name)
            if other is not None and other is not col:
                return  # CHANGE a b where b exists: an error to the database
            self._rename_column(tdef, col.name, name)
            col = tdef.column(name)
        fresh = self._column(tdef, node, name)
        tdef.columns[tdef.columns.index(col)] = dataclasses.replace(fresh, comment=fresh.comment or col.comment)

    def _add_reference(self, tdef: TableDef, columns: tuple[str, ...], reference: exp.Expr | None) -> None:
        if not isinstance(reference, exp.Reference) or not columns:
            return
        target = reference.this
        table_node = target.this if isinstance(target, exp.Schema) else target
        if not isinstance(table_node, exp.Table):
            return
        ref_columns = node_names(target.expressions) if isinstance(target, exp.Schema) else ()
        tdef.foreign_keys.append(RawForeignKey(columns, table_node.db or None, table_name(table_node), ref_columns))

    # -- result ---------------------------------------------------------------------------
    def _lookup(self, owner: TableDef, database: str | None, name: str) -> TableDef | None:
        """The table ``owner`` names ``database.name``: an unqualified name in ``owner``'s database,
        then in the default one; a qualified name that names no table, the one table of that name."""
        candidates = [database] if database is not None else list(dict.fromkeys([owner.database, self.database]))
        found = next(filter(None, (self.find(db, name) for db in candidates)), None)
        if found is None and database is not None:
            found = self._unqualified(name)
        return found

    def _table_of(self, owner: TableDef, node: exp.Table) -> TableDef | None:
        return self._lookup(owner, node.db or None, table_name(node))

    def _inherit(self) -> None:
        """Give each ``INHERITS`` child its parents' columns before its own (parents first, so
        that a grandchild gets its grandparent's too); mark the children that add no column."""
        done: set[int] = set()

        def columns(tdef: TableDef, path: tuple[int, ...] = ()) -> list[Column]:
            if id(tdef) in done:
                return tdef.columns
            if id(tdef) in path:  # PostgreSQL refuses it: "circular inheritance is not allowed"
                by_id = {id(t): t for t in self.tables.values()}
                circle = [by_id[i] for i in path[path.index(id(tdef)):]] + [tdef]
                raise DDLParseError(
                    f"{self.origin}: the inheritance of tables "
                    f"{' -> '.join(repr(f'{t.database}.{t.name}') for t in circle)} is circular "
                    "(INHERITS, PARTITION OF): a table cannot inherit its own columns"
                )
            inherited: list[Column] = []
            names: set[str] = set()  # theirs, lower case
            for node in tdef.parents:
                parent = self._table_of(tdef, node)
                if parent is None:
                    if not tdef.columns:
                        raise SchemaError(
                            f"table {f'{tdef.database}.{tdef.name}'!r} has no columns: {self.origin} defines none "
                            f"and it takes them from {node.sql()!r}, which it does not define"
                        )
                    warnings.warn(f"{self.origin}: table {tdef.name!r} inherits from {node.sql()!r}, which is not "
                                  "defined; its columns are missing", stacklevel=4)
                    continue
                for col in columns(parent, (*path, id(tdef))):
                    if col.name.lower() not in names:
                        names.add(col.name.lower())
                        # what a column is, not its table's constraints (keys are not inherited)
                        inherited.append(Column(name=col.name, type=col.type, nl_name=col.nl_name,
                                                comment=col.comment, computed=col.computed))
            own = [c for c in tdef.columns if c.name.lower() not in names]
            if tdef.parents and not own and tdef.partition_of is None:
                tdef.partition_of = tdef.parents[0]  # a copy of its parent, like a partition
            tdef.columns = inherited + own
            tdef.reindex()
            done.add(id(tdef))
            return tdef.columns

        for tdef in list(self.tables.values()):
            columns(tdef)

    def _root(self, tdef: TableDef) -> TableDef | None:
        """The defined table whose rows ``tdef``'s are (through partitions and copies), or ``None``."""
        seen = {id(tdef)}
        root = None
        while tdef.partition_of is not None:
            parent = self._table_of(tdef, tdef.partition_of)
            if parent is None or id(parent) in seen:
                break
            seen.add(id(parent))
            root = tdef = parent
        return root

    def build(self) -> list[Table]:
        self._inherit()
        for tdef in self.tables.values():
            for name in tdef.primary_key:
                col = tdef.column(name)
                if col is not None:
                    col.primary_key = True
            for name in tdef.unique:
                col = tdef.column(name)
                if col is not None:
                    col.unique = True
            if self.types.enums:
                self._enumerations(tdef)
        roots = {} if self.partitions else {id(t): self._root(t) for t in self.tables.values()}
        self.skipped = {k: r for k, r in roots.items() if r is not None}
        kept = [t for t in self.tables.values() if id(t) not in self.skipped]
        # the schemas of one file are one database's: joins between them are inferred
        catalog = self.database if len({t.database for t in kept}) > 1 else None
        return [
            Table(
                database=t.database,
                name=t.name,
                columns=t.columns,
                foreign_keys=[self._resolve(t, fk) for fk in t.foreign_keys],
                comment=t.comment,
                sql_schema=t.sql_schema,
                catalog=catalog,
            )
            for t in kept
        ]

    def _resolve(self, owner: TableDef, fk: RawForeignKey) -> ForeignKey:
        """Qualify the referenced table; a reference without columns targets its primary key."""
        found = self._lookup(owner, fk.ref_database, fk.ref_table)
        if found is not None and id(found) in self.skipped:  # a partition: its parent holds the rows
            found = self.skipped[id(found)]
        ref_id = f"{found.database}.{found.name}" if found else f"{fk.ref_database or owner.database}.{fk.ref_table}"
        ref_columns = fk.ref_columns
        if not ref_columns and found is not None:
            ref_columns = tuple(c.name for c in found.columns if c.primary_key)
        return ForeignKey(fk.columns, ref_id, ref_columns)
