"""The scope of a question: the tables the search may return (one database of the corpus, tables
excluded, tables pinned) and the databases near a set of tables (ours; not in METHOD.md).

:class:`DatabaseScope` indexes the schema's tables by database once (at first use) and answers
:meth:`~DatabaseScope.positions` (a database's tables, as :meth:`Schema.subset` finds it),
:meth:`~DatabaseScope.near_databases` (where value evidence is looked for) and
:meth:`~DatabaseScope.allowed` (the mask of a question's ``database`` / ``include`` / ``exclude``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from jar_core.errors import InvalidArgumentError
from jar_core.index.structure import structure
from jar_core.options import check_table_names

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.schema import Schema

__all__ = ["DatabaseScope"]


class DatabaseScope:
    """The tables of each database and join scope of ``schema``, grouped once."""

    def __init__(self, schema: "Schema") -> None:
        self.schema = schema
        self._db_positions: tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None = None
        self._scope_databases: dict[int, set[str]] | None = None

    def positions(self, database: str) -> np.ndarray:
        """Positions of ``database``'s tables (as :meth:`Schema.subset`: exact name, else
        case-insensitive); an unknown name raises :class:`~jar_core.errors.UnknownDatabaseError`."""
        if self._db_positions is None:
            s = structure(self.schema)  # the tables' database codes: no table read
            order, bounds = s.by_database
            groups = {db: order[bounds[i] : bounds[i + 1]] for i, db in enumerate(s.databases)}
            folded: dict[str, list[np.ndarray]] = {}
            for db, rows in groups.items():
                folded.setdefault(db.lower(), []).append(rows)
            self._db_positions = (groups, {db: np.sort(np.concatenate(rows)) for db, rows in folded.items()})
        exact, folded = self._db_positions
        pos = exact.get(database)
        if pos is None:
            pos = folded.get(database.lower())
        if pos is None:
            self.schema.subset(database)  # raises UnknownDatabaseError with the known names
        return pos

    def near_databases(self, positions: np.ndarray) -> set[str]:
        """The databases of the tables at ``positions`` and of their join scopes (the other
        schemas of a catalog)."""
        s = structure(self.schema)
        if self._scope_databases is None:
            scopes: dict[int, set[str]] = {}
            for scope, db in set(zip(s.scope.tolist(), s.database.tolist())):
                scopes.setdefault(scope, set()).add(s.databases[db])
            self._scope_databases = scopes  # type: ignore[assignment]
        return {db for p in positions.tolist() for db in self._scope_databases[int(s.scope[int(p)])]}  # type: ignore[index]

    def allowed(
        self, database: str | None, include: Sequence[str], exclude: Sequence[str],
    ) -> tuple[np.ndarray, list[int]]:
        """The tables the search may return (a mask: ``database``'s, not ``exclude``'d) and the
        positions of the ``include``'d ones; a table both included and excluded raises
        :class:`~jar_core.errors.InvalidArgumentError`."""
        if database is not None:
            allowed = np.zeros(len(self.schema), dtype=bool)
            allowed[self.positions(database)] = True
        else:
            allowed = np.ones(len(self.schema), dtype=bool)
        inc = self.schema.resolve(check_table_names(include, "include"))
        exc = self.schema.resolve(check_table_names(exclude, "exclude"))
        clash = set(inc) & set(exc)
        if clash:
            names = ", ".join(self.schema.tables[i].id for i in sorted(clash))
            raise InvalidArgumentError(f"tables both included and excluded: {names}")
        allowed[exc] = False
        return allowed, inc
