"""A table as a DDL file defines it so far: its columns, keys and references as written, before the
references are resolved (:class:`~jar_core.loaders.ddl.builder.Builder`).

Part of the input of METHOD.md, "The task": the corpus of tables with their declared keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from jar_core.schema import Column

__all__ = ["RawForeignKey", "TableDef"]


@dataclass
class RawForeignKey:
    """``FOREIGN KEY (columns) REFERENCES [ref_database.]ref_table [(ref_columns)]`` as written."""

    columns: tuple[str, ...]
    ref_database: str | None  # None: unqualified reference
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass
class TableDef:
    """One table of the file, changed by the statements after its ``CREATE TABLE``."""

    database: str
    name: str
    columns: list[Column] = field(default_factory=list)
    primary_key: list[str] = field(default_factory=list)
    unique: list[str] = field(default_factory=list)  # columns declared unique on their own
    foreign_keys: list[RawForeignKey] = field(default_factory=list)
    comment: str | None = None
    sql_schema: str | None = None  # the schema the DDL names the table with (``sales.orders``)
    parents: list[exp.Table] = field(default_factory=list)  # INHERITS (a, b)
    partition_of: exp.Table | None = None  # PARTITION OF p, or ALTER TABLE p ATTACH PARTITION this
    # lower-case name -> positions in ``columns``, of its first ``_indexed`` columns (:meth:`column`)
    _at: dict[str, list[int]] = field(default_factory=dict, repr=False)
    _indexed: int = field(default=0, repr=False)

    def column(self, name: str) -> Column | None:
        """The column called ``name`` (exact match first, then case-insensitive), by a map of the
        names that follows appended columns (after any other change: :meth:`reindex`)."""
        if self._indexed > len(self.columns):
            self.reindex()
        for i in range(self._indexed, len(self.columns)):
            self._at.setdefault(self.columns[i].name.lower(), []).append(i)
        self._indexed = len(self.columns)
        spots = self._at.get(name.lower(), [])
        exact = next((self.columns[i] for i in spots if self.columns[i].name == name), None)
        return exact or (self.columns[spots[0]] if spots else None)

    def reindex(self) -> None:
        """Forget where the columns are: after one is removed or renamed, or ``columns`` replaced."""
        self._at, self._indexed = {}, 0
