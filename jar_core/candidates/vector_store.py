"""The first stage served by an external vector store (the LangChain and LlamaIndex adapters).

:class:`StoreCandidates` is a :class:`~jar_core.candidates.first_stage.CandidateGenerator` over any vector
store that holds one record per table (:func:`store_records`: the table text, its id, database
and position, and the index's own vector). A subclass only queries its store
(:meth:`StoreCandidates._query`); this class does the rest, the same way for every backend:

* it names the databases the allowed tables belong to, when they are a few
  (``filter_databases``), so that the store can filter on its ``database`` metadata;
* it over-fetches by the number of tables of those databases that are not allowed (exclusions,
  pinned tables) and asks again for more (four times as many) until ``n`` allowed tables are in,
  and the store's last one scores below the ``n``-th (ties and rounding in the store included);
* it keeps the allowed tables only, scores them exactly from ``index.table_vectors`` and orders
  them with :func:`~jar_core.candidates.first_stage.exact_top`: the scores and the tie order are the
  brute-force ones, and so is the top-N whenever the store's own search is exact (an approximate
  index, HNSW or IVFFlat, gives its recall);
* it raises :class:`~jar_core.errors.StaleStoreError` when the store returns tables the index does
  not know, tables whose text or model differ from the index's, or fewer tables than allowed.

Imports neither LangChain nor LlamaIndex.
"""
from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping, Sequence

import numpy as np

from jar_core.candidates.first_stage import exact_top
from jar_core.errors import InvalidArgumentError, StaleStoreError
from jar_core.index.texts import table_text

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["StoreCandidates", "StoreRecord", "StoreHit", "store_records", "index_of", "FILTER_DATABASES"]

#: Default ``filter_databases``: a search confined to at most this many databases names them in
#: the store's metadata filter (more: the store is queried unfiltered and the results filtered).
FILTER_DATABASES = 32

#: A store's score and the exact one may differ by rounding: the store's last result must score
#: this much below the n-th for the top-n to be complete.
TIE_TOLERANCE = 1e-5

#: The metadata keys of a table's record.
METADATA_KEYS = ("table_id", "database", "table", "position", "model")


@dataclass(frozen=True)
class StoreRecord:
    """One table as a vector-store record: ``id`` (the table id, ``"db.table"``), ``text``
    (:func:`jar_core.index.schema_index.table_text`), ``metadata`` (``table_id``, ``database``, ``table``,
    ``position`` in the index's schema, ``model``: the index's embedding model) and ``vector``
    (its row of ``index.table_vectors``, unit length)."""

    id: str
    text: str
    metadata: dict[str, Any]
    vector: np.ndarray


@dataclass(frozen=True)
class StoreHit:
    """A table a store returned: its document id, and its text and metadata where the store gives them."""

    id: str | None
    text: str | None = None
    metadata: Mapping[str, Any] | None = None


def index_of(source: Any) -> "SchemaIndex":
    """The :class:`~jar_core.index.schema_index.SchemaIndex` of a :class:`~jar_core.retriever.TableRetriever`
    (built if needed) or the index itself; anything else is an :class:`InvalidArgumentError`."""
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.retriever import TableRetriever

    if isinstance(source, SchemaIndex):
        return source
    if isinstance(source, TableRetriever):
        return source.index
    for attr in ("retriever", "table_retriever"):  # the LangChain and LlamaIndex JoinAwareRetriever
        inner = getattr(source, attr, None)
        if isinstance(inner, TableRetriever):
            return inner.index
    raise InvalidArgumentError(
        f"expected a TableRetriever, a JoinAwareRetriever or a SchemaIndex, got {type(source).__name__}"
    )


def store_records(index: "SchemaIndex", batch_size: int = 500) -> Iterator[list[StoreRecord]]:
    """The index's tables as store records, in batches of ``batch_size``, in schema order."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise InvalidArgumentError(f"batch_size must be a positive integer, got {batch_size!r}")
    tables = index.schema.tables
    for start in range(0, len(tables), int(batch_size)):
        yield [
            StoreRecord(
                id=t.id,
                text=table_text(t),
                metadata={"table_id": t.id, "database": t.database, "table": t.name, "position": i,
                          "model": index.model_name},
                vector=index.table_vectors[i],
            )
            for i, t in enumerate(tables[start : start + batch_size], start)
        ]


class _Lookup:
    """Per index: table id -> position, and each table's database as a code."""

    def __init__(self, index: "SchemaIndex") -> None:
        schema = index.schema
        self.positions: dict[str, int] = {t.id: i for i, t in enumerate(schema.tables)}
        self.databases: list[str] = schema.databases
        code = {db: i for i, db in enumerate(self.databases)}
        self.db_codes = np.fromiter((code[t.database] for t in schema.tables), dtype=np.int64, count=len(schema))
        self.db_sizes = np.bincount(self.db_codes, minlength=len(self.databases))


class StoreCandidates:
    """A :class:`~jar_core.candidates.first_stage.CandidateGenerator` over an external vector store (base class).

    Subclasses implement :meth:`_query`, and set :attr:`filters_tables` when their store applies
    the ``allows`` test itself. See the module's documentation for what this class does.

    Args:
        filter_databases: name at most this many databases in the store's metadata filter
            (``0``: never filter in the store; the results are always filtered here).
    """

    #: Whether :meth:`_query` returns allowed tables only (the store applies ``allows``): no
    #: over-fetching for exclusions then.
    filters_tables: bool = False
    #: Whether :meth:`_query` passes ``databases`` to the store as a filter (else it is ``None``).
    filters_databases: bool = True

    def __init__(self, *, filter_databases: int = FILTER_DATABASES) -> None:
        if isinstance(filter_databases, bool) or not isinstance(filter_databases, (int, np.integer)) or filter_databases < 0:
            raise InvalidArgumentError(f"filter_databases must be an integer >= 0, got {filter_databases!r}")
        self.filter_databases = int(filter_databases)
        self._lookup: tuple[Any, _Lookup] | None = None
        self._lock = threading.Lock()

    # -- what a subclass provides ----------------------------------------------------------
    def _query(
        self, vector: list[float], k: int, databases: list[str] | None, allows: Callable[[str], bool]
    ) -> Sequence[StoreHit]:
        """The store's ``k`` nearest records to ``vector``, nearest first; only records whose
        ``database`` metadata is in ``databases`` where it is not ``None`` (or all: they are
        filtered here too). ``allows(table_id)`` tells whether a table may be returned (True for
        ids the index does not know, so that a stale store is seen)."""
        raise NotImplementedError

    # -- the search ------------------------------------------------------------------------
    def _lookup_for(self, index: "SchemaIndex") -> _Lookup:
        with self._lock:
            if self._lookup is not None and self._lookup[0]() is index:
                return self._lookup[1]
            look = _Lookup(index)
            self._lookup = (weakref.ref(index), look)
            return look

    def search(
        self, index: "SchemaIndex", query: np.ndarray, n: int, allowed: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        allowed = np.asarray(allowed, dtype=bool)
        if allowed.shape != (len(index.table_vectors),):
            raise InvalidArgumentError(f"allowed has shape {allowed.shape}, expected ({len(index.table_vectors)},)")
        n_allowed = int(allowed.sum())
        want = min(int(n), n_allowed)
        if want <= 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        look = self._lookup_for(index)
        databases: list[str] | None = None
        scope = len(allowed)  # tables the store may return
        if self.filters_tables:
            scope = n_allowed
        elif self.filters_databases and self.filter_databases:
            present = np.flatnonzero(np.bincount(look.db_codes[allowed], minlength=len(look.databases)))
            if len(present) < len(look.databases) and len(present) <= self.filter_databases:
                databases = [look.databases[c] for c in present]
                scope = int(look.db_sizes[present].sum())
        hidden = scope - n_allowed  # tables of the scope that the store may return first, dropped here
        # one more than needed: the store's last result shows that nothing it left out ties the n-th
        k = want + min(hidden, max(want, 32)) + 1
        if k >= scope:
            k = scope + 1  # the whole scope; a store that honours its filter returns fewer: no second call
        vector = [float(x) for x in np.asarray(query, dtype=np.float32)]
        positions = look.positions

        def allows(table_id: str) -> bool:
            p = positions.get(table_id)
            return p is None or bool(allowed[p])

        while True:
            hits = list(self._query(vector, k, databases, allows))
            pos = self._positions(index, look, hits)
            exhausted = len(hits) < k
            keep = pos[allowed[pos]]
            if len(keep) >= want:
                scores = index.table_vectors[keep] @ query
                nth = -np.partition(-scores, want - 1)[want - 1]
                last = float((index.table_vectors[pos] @ query).min())
                if exhausted or last < nth - TIE_TOLERANCE:
                    return exact_top(scores, keep, want)
            elif exhausted:
                if not hits:
                    raise StaleStoreError(
                        f"the vector store returned no tables ({want} of {n_allowed} allowed tables asked for"
                        f"{' in database(s) ' + ', '.join(databases) if databases else ''}): load the index's "
                        "tables into it first (add_tables)"
                    )
                raise StaleStoreError(
                    f"the vector store returned {len(keep)} of the {want} allowed tables asked for: it holds fewer "
                    "tables than the index; load the index's tables into it (add_tables)"
                )
            k *= 4

    def _positions(self, index: "SchemaIndex", look: _Lookup, hits: list[StoreHit]) -> np.ndarray:
        """Positions of the hits in the index (first occurrence), or :class:`StaleStoreError`."""
        out: dict[int, None] = {}
        tables = index.schema.tables
        for hit in hits:
            meta = hit.metadata or {}
            tid = meta.get("table_id") or hit.id
            p = look.positions.get(tid) if isinstance(tid, str) else None
            if p is None:
                raise StaleStoreError(
                    f"the vector store holds {'a record without a table id' if tid is None else f'table {tid!r}'}, "
                    "which is not a table of the index: it holds other tables (loaded for another schema, or "
                    "other documents); load this index's tables into a store or collection of their own (add_tables)"
                )
            model = meta.get("model")
            if model is not None and model != index.model_name:
                raise StaleStoreError(
                    f"table {tid!r} was loaded into the vector store with model {model!r}, the index uses "
                    f"{index.model_name!r}: load the tables again (add_tables)"
                )
            if hit.text is not None and hit.text != table_text(tables[p]):
                raise StaleStoreError(
                    f"table {tid!r} changed since it was loaded into the vector store: load the tables again (add_tables)"
                )
            out.setdefault(p)
        return np.fromiter(out, dtype=np.int64, count=len(out))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(filter_databases={self.filter_databases})"
