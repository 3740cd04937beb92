"""The schema index: table and column embeddings computed once for a schema (METHOD.md, "Offline indexing").

:class:`SchemaIndex` holds the vectors of the texts of :mod:`jar_core.index.texts`, the schema's
join graphs (:mod:`jar_core.joins`, inferred on first use and saved with the index) and, for a
large corpus, the approximate index of the first stage (:mod:`jar_core.index.ann`). It is saved
as a directory and loaded from one (:mod:`jar_core.index.store`: checksums, atomic publish).

Building embeds each distinct text once, all of them sorted by length, in chunks
(:mod:`jar_core.index.build`); with a work directory (:func:`build_index`: ``.DIR.partial``
beside the index) the vectors are written there as they come, so that an interrupted build
resumes. :meth:`SchemaIndex.update` reuses an older index's vectors by text. The column-name
vectors of the paper's join mode are embedded only when that mode asks for them
(:meth:`SchemaIndex.ensure_name_vectors`).

A loaded index is ready to answer: the vectors are mapped from the file rather than copied
(where the system can map files), and the join graph is read, not inferred again.
"""

from __future__ import annotations

import logging
import os
import shutil
import threading
from dataclasses import InitVar, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from jar_core.embed.embedders import DEFAULT_MODEL_NAME, CachedEmbedder, Embedder, get_embedder
from jar_core.errors import EmbeddingError, IndexLoadError, IndexSaveError, StaleIndexError
from jar_core.index import ann as saved_ann
from jar_core.index.build import CHUNK_TEXTS, embed_texts, gather
from jar_core.index.npz import all_finite
from jar_core.index.store import (
    JOINS_FILE, check_index_target, load_directory, lock_exclusively, partial_dir, read_index_files, read_saved_joins,
    save_directory, without_samples, write_index_files,
)
from jar_core.index.structure import structure
from jar_core.index.texts import column_text, name_texts, rows_by_text, table_text
from jar_core.joins.compat import ColumnFeatures
from jar_core.schema import Schema, Table

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.ann import AnnIndex, SavedAnn
    from jar_core.joins.graph import JoinGraph

__all__ = ["SchemaIndex", "BuildReport", "build_index"]

log = logging.getLogger(__name__)

#: Guards the build of an index's approximate index (one build, however many threads ask).
_ANN_LOCK = threading.Lock()


def _inner(embedder: Embedder | Any | None) -> Embedder:
    """The embedder that encodes for a build: a :class:`CachedEmbedder`'s own model (a build's
    vectors are kept in the index, not in the cache)."""
    emb = embedder.inner if isinstance(embedder, CachedEmbedder) else get_embedder(embedder)
    return emb.inner if isinstance(emb, CachedEmbedder) else emb


def _changes(old: Schema, new: Schema, *, samples: bool = True) -> dict[str, tuple[str, ...]]:
    """The table ids ``added``, ``dropped`` and ``changed`` from ``old`` to ``new``: any
    difference of their saved form (:meth:`Table.to_dict`), sample values too unless not ``samples``
    (an enumeration's labels always)."""
    before = {t.id: t for t in old.tables}
    after = {t.id: t for t in new.tables}

    def saved(t: Table) -> dict[str, Any]:
        d = t.to_dict()
        if not samples:
            without_samples(d["columns"])
        return d

    return {
        "added": tuple(i for i in after if i not in before),
        "dropped": tuple(i for i in before if i not in after),
        "changed": tuple(i for i, t in after.items() if i in before and saved(before[i]) != saved(t)),
    }


@dataclass(frozen=True)
class BuildReport:
    """What :meth:`SchemaIndex.build` or :meth:`SchemaIndex.update` did (``index.report``)."""

    #: Distinct texts the vectors come from.
    texts: int
    #: Texts encoded by this call.
    embedded: int
    #: Texts read back from the work directory of an interrupted build.
    resumed: int = 0
    #: Texts whose vectors were taken from the older index (an update).
    reused: int = 0
    #: Table ids added, dropped and changed (an update).
    added: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()


@dataclass(eq=False)
class SchemaIndex:
    """Embeddings of a schema's tables and columns.

    Columns of all tables are stacked in table order: the columns of ``schema.tables[t]`` are
    rows ``col_offsets[t]:col_offsets[t + 1]`` of :attr:`column_vectors` and :attr:`name_vectors`.
    :attr:`name_vectors` (the ``"<db> <table> <column>"`` texts, read by the paper's join mode
    only) is ``None`` until :meth:`ensure_name_vectors` embeds it. ``checked``: the arrays are
    known to be finite (built here), so they are not scanned again.

    The index owns its caches: the join graphs, the column features of the paper's pair score,
    the link tables, and the approximate index of the first stage (:mod:`jar_core.index.ann`).
    The stages that keep state of their own per index (BM25, value matches) keep it themselves,
    keyed by the index (identity: ``eq=False``).
    """

    schema: Schema
    model_name: str
    table_vectors: np.ndarray
    column_vectors: np.ndarray
    name_vectors: np.ndarray | None = None
    checked: InitVar[bool] = False

    if TYPE_CHECKING:
        # Set by this class only, absent until then: the approximate index of the first stage once
        # built or read (:meth:`approximate_index`), and the checked bytes of the one saved with the
        # index until then (:meth:`load`).
        _ann: AnnIndex
        _ann_saved: SavedAnn

    def __post_init__(self, checked: bool = False) -> None:
        self.col_offsets = structure(self.schema).col_offsets  # saved with a loaded index: no table read
        self.col_table = np.repeat(np.arange(len(self.col_offsets) - 1), np.diff(self.col_offsets))
        n_t, n_c = len(self.schema.tables), int(self.col_offsets[-1])
        for name, arr, rows in (
            ("table_vectors", self.table_vectors, n_t),
            ("column_vectors", self.column_vectors, n_c),
            ("name_vectors", self.name_vectors, n_c),
        ):
            if arr is None and name == "name_vectors":
                continue
            if not isinstance(arr, np.ndarray) or arr.ndim != 2 or arr.shape[0] != rows:
                raise IndexLoadError(f"index array {name} has shape {np.shape(arr)}, expected ({rows}, dim)")
            if not np.issubdtype(arr.dtype, np.floating):
                raise IndexLoadError(f"index array {name} has dtype {arr.dtype}, expected float32")
            if arr.dtype != np.float32:
                arr = arr.astype(np.float32)
            setattr(self, name, arr)
            if arr.shape[1] != self.table_vectors.shape[1]:
                raise IndexLoadError(f"index array {name} has dimension {arr.shape[1]}, "
                                     f"table_vectors {self.table_vectors.shape[1]}")
            if not checked and not all_finite(arr):
                raise IndexLoadError(f"index array {name} holds non-finite values (NaN or infinity)")
        self._features: ColumnFeatures | None = None
        #: Join graphs by ``cross_database`` flag, ready to use.
        self._join_graphs: dict[bool, JoinGraph] = {}
        #: The inputs digest (:func:`jar_core.joins.store.inputs_digest`) each graph was inferred
        #: from, where it was not inferred from :attr:`schema` here (read from a saved index).
        self._graph_inputs: dict[bool, str] = {}
        #: Graphs read from a saved index loaded with a schema of its own: used once that schema's
        #: statistics are known to be those the graph was inferred from (``(graph, digest)``).
        self._saved_graphs: dict[bool, tuple[JoinGraph, str]] = {}
        self._inputs_digest: str | None = None
        #: Whether the saved index this was loaded from holds sample values (``True`` when built).
        self.stored_samples = True
        #: The embedder that built this index (for :meth:`ensure_name_vectors`), if built here.
        self._embedder: Embedder | None = None
        #: What the build or update that made this index did (``None`` when loaded).
        self.report: BuildReport | None = None
        #: :func:`jar_core.joins.graph.link_tables` of the join graph, by ``cross_database`` flag
        self._link_tables: dict[bool, tuple[JoinGraph, np.ndarray]] = {}

    # -- building -------------------------------------------------------------------
    @classmethod
    def build(
        cls, schema: Schema, embedder: Embedder | Any | None = None, *, progress: bool = False,
        work_dir: str | os.PathLike[str] | None = None, chunk_size: int = CHUNK_TEXTS,
    ) -> "SchemaIndex":
        """Embed every table and column of ``schema``.

        Each distinct text is encoded once: all of them sorted by length, ``chunk_size`` per call
        of the encoder (a :class:`CachedEmbedder` is bypassed: its cache would hold every vector).
        The column-name texts of the paper's join mode are not embedded
        (:meth:`ensure_name_vectors`).

        With ``work_dir`` the vectors are written to files there as they are encoded and the
        index's arrays are mapped from them, not held in memory; a build interrupted and run
        again with the same texts and model continues from the chunks written. The directory is
        left in place (the arrays live there): remove it once the index is saved, as
        :func:`build_index` does.
        """
        return cls._embed(schema, _inner(embedder), None, progress, work_dir, chunk_size)

    @classmethod
    def update(
        cls, old: "SchemaIndex", schema: Schema, embedder: Embedder | Any | None = None, *, progress: bool = False,
        work_dir: str | os.PathLike[str] | None = None, chunk_size: int = CHUNK_TEXTS,
    ) -> "SchemaIndex":
        """The index of ``schema`` (tables added, dropped or changed since ``old``'s schema) with
        ``old``'s vectors reused by text: only texts ``old`` lacks are embedded. The name vectors
        are carried over (and completed) when ``old`` has them; the join graph is inferred again
        for the databases whose tables changed and taken from ``old`` for the others.
        ``index.report`` lists the tables added, dropped and changed (any difference, sample
        values too, unless ``old`` was saved without them: then they are not compared).

        Raises :class:`StaleIndexError` if ``embedder`` is not ``old``'s model.
        """
        emb = _inner(embedder)
        if emb.name != old.model_name:
            raise StaleIndexError(f"the index was built with model {old.model_name!r}, not {emb.name!r}; "
                                  "rebuild it rather than update it")
        index = cls._embed(schema, emb, old, progress, work_dir, chunk_size)
        assert index.report is not None
        # the databases from the tables themselves: a table id does not split (a table "order.items")
        ids = {i for part in (index.report.added, index.report.dropped, index.report.changed) for i in part}
        changed = {t.database for s in (old.schema, schema) for t in s.tables if t.id in ids}
        index._update_join_graph(old, changed)
        return index

    @classmethod
    def _embed(
        cls, schema: Schema, emb: Embedder, old: "SchemaIndex | None", progress: bool,
        work_dir: str | os.PathLike[str] | None, chunk_size: int,
    ) -> "SchemaIndex":
        work = Path(work_dir) if work_dir is not None else None
        if work is not None:
            try:
                work.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise IndexSaveError(f"cannot create the work directory {work}: {e.strerror or e}") from e
        kinds = {
            "table_vectors": [table_text(t) for t in schema.tables],
            "column_vectors": [column_text(t, i) for t in schema.tables for i in range(len(t.columns))],
        }
        sources: list[Any] = [None]
        known: dict[str, tuple[int, int]] = {}
        if old is not None:
            if old.name_vectors is not None:
                kinds["name_vectors"] = name_texts(schema)
            known = rows_by_text(old.schema, with_names=old.name_vectors is not None)
            sources += [old.table_vectors, old.column_vectors, old.name_vectors]
        missing: dict[str, int] = {}
        plans: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name, texts in kinds.items():
            which = np.zeros(len(texts), dtype=np.int8)
            rows = np.empty(len(texts), dtype=np.int64)
            for i, t in enumerate(texts):
                hit = known.get(t)
                if hit is None:
                    rows[i] = missing.setdefault(t, len(missing))
                else:
                    which[i], rows[i] = hit
            plans[name] = (which, rows)
        reused = len({t for texts in kinds.values() for t in texts if t in known}) if known else 0
        del kinds, known
        vectors, order, resumed = embed_texts(
            list(missing), emb.embed_documents, model=emb.name, work=work, chunk_size=chunk_size, progress=progress,
            desc="embedding schema",
        )
        sources[0] = vectors
        dim = int(vectors.shape[1]) if len(missing) else int(old.table_vectors.shape[1])  # type: ignore[union-attr]
        if old is not None and dim != old.table_vectors.shape[1]:
            raise StaleIndexError(f"the index holds vectors of dimension {old.table_vectors.shape[1]}, "
                                  f"model {emb.name!r} gives {dim}; rebuild it")
        arrays = {}
        for name, (which, rows) in plans.items():
            new = which == 0
            rows[new] = order[rows[new]]
            arrays[name] = gather(sources, which, rows, dim, work / f"{name}.npy" if work is not None else None)
        index = cls(schema=schema, model_name=emb.name, checked=True, **arrays)
        index._embedder = emb
        index.report = BuildReport(texts=len(missing) + reused, embedded=len(missing) - resumed, resumed=resumed,
                                   reused=reused, **(_changes(old.schema, schema, samples=old.stored_samples)
                                                    if old is not None else {}))
        return index

    def _update_join_graph(self, old: "SchemaIndex", changed: set[str]) -> None:
        """The within-database join graph: ``old``'s joins inside the databases not ``changed``,
        the rules run again on the others (joins never cross databases there)."""
        from jar_core.index.build import merge_database_graphs

        if not old.has_join_graph(cross_database=False):
            return  # inferred on first use
        graph = merge_database_graphs(old.schema, old.join_graph(cross_database=False), old.col_offsets,
                                      self.schema, self.col_offsets, changed)
        if graph is not None:
            self._join_graphs[False] = graph

    def ensure_name_vectors(self, embedder: Embedder | Any | None = None, *, progress: bool = False) -> np.ndarray:
        """:attr:`name_vectors`, embedded now if the index lacks them (the paper's join mode needs
        them; each distinct text once, sorted by length, in chunks).

        ``embedder`` must be the index's model; by default the one that built the index, else
        the bundled model if the index was built with it.

        Raises:
            StaleIndexError: ``embedder`` is another model, or gives vectors of another dimension.
            EmbeddingError: no embedder is given and the index's model is not at hand.
        """
        if self.name_vectors is not None:
            return self.name_vectors
        if embedder is not None:
            emb = _inner(embedder)
        elif self._embedder is not None:
            emb = self._embedder
        elif self.model_name == DEFAULT_MODEL_NAME:
            emb = _inner(None)
        else:
            raise EmbeddingError(
                f"the paper's join mode needs the column-name vectors, which this index does not hold; "
                f"pass an embedder of model {self.model_name!r} (index.ensure_name_vectors(embedder))"
            )
        if emb.name != self.model_name:
            raise StaleIndexError(f"the index was built with model {self.model_name!r}, not {emb.name!r}")
        texts = name_texts(self.schema)
        positions: dict[str, int] = {}
        idx = np.fromiter((positions.setdefault(t, len(positions)) for t in texts), dtype=np.int64, count=len(texts))
        vectors, order, _ = embed_texts(list(positions), emb.embed_documents, model=emb.name, progress=progress,
                                        desc="embedding column names")
        if vectors.shape[1] != self.table_vectors.shape[1]:
            raise StaleIndexError(f"the index holds vectors of dimension {self.table_vectors.shape[1]}, "
                                  f"model {emb.name!r} gives {vectors.shape[1]}")
        self.name_vectors = vectors[order[idx]]
        self._features = None
        return self.name_vectors

    @property
    def features(self) -> ColumnFeatures:
        """Column features for the paper's join scoring (computed on first use, not saved; the
        name vectors embedded first if missing: :meth:`ensure_name_vectors`)."""
        if self._features is None:
            name_vectors = self.ensure_name_vectors()
            self._features = ColumnFeatures.from_schema(self.schema, self.col_offsets, name_vectors)
        return self._features

    def join_graph(self, *, cross_database: bool = False) -> JoinGraph:
        """The schema's :class:`~jar_core.joins.JoinGraph`: read from the saved index, else
        inferred on first use; then kept (and saved with the index)."""
        graph = self._join_graphs.get(cross_database)
        if graph is None and self._saved_join_graph(cross_database):
            graph = self._join_graphs[cross_database]
        if graph is None:
            from jar_core.joins import build_join_graph

            graph = self._join_graphs[cross_database] = build_join_graph(
                self.schema, self.col_offsets, cross_database=cross_database
            )
            self._graph_inputs.pop(cross_database, None)
        return graph

    def link_tables(self, *, cross_database: bool = False) -> np.ndarray:
        """Boolean ``(T,)``: the tables that only link others (:func:`jar_core.joins.graph.link_tables`),
        worked out once per :meth:`join_graph`."""
        graph = self.join_graph(cross_database=cross_database)
        hit = self._link_tables.get(cross_database)
        if hit is None or hit[0] is not graph:
            from jar_core.joins.graph import link_tables

            hit = self._link_tables[cross_database] = (graph, link_tables(self.schema, graph, self.col_offsets))
        return hit[1]

    def has_join_graph(self, *, cross_database: bool = False) -> bool:
        """Whether :meth:`join_graph` is ready without inferring it (kept, or read from the saved index)."""
        return cross_database in self._join_graphs or self._saved_join_graph(cross_database)

    def _saved_join_graph(self, cross_database: bool) -> bool:
        """Adopt the graph read from the saved index if this schema's statistics are those it was
        inferred from (a schema given to :meth:`load` may hold newer sample values)."""
        saved = self._saved_graphs.pop(cross_database, None)
        if saved is None:
            return False
        graph, digest = saved
        if digest != self._schema_inputs_digest():
            log.info("saved join graph not used: the schema's sample values or uniqueness differ from the saved ones")
            return False
        self._join_graphs[cross_database] = graph
        return True

    def _schema_inputs_digest(self) -> str:
        if self._inputs_digest is None:
            from jar_core.joins.store import inputs_digest

            self._inputs_digest = inputs_digest(self.schema)
        return self._inputs_digest

    # -- persistence ----------------------------------------------------------------
    def save(self, path: str | os.PathLike[str], *, store_samples: bool = True, ann: bool | None = None) -> Path:
        """Write the index to directory ``path``; readers see the old index or the new one, never neither.

        The files are written to a temporary directory beside ``path`` that then takes its place
        in one atomic exchange where the system has one (Linux, macOS). A failed save leaves the
        old index intact and removes its temporary directory; one killed outright leaves it
        behind for the next save to remove. With ``store_samples=False`` the column sample
        values (rows of the source) are left out of the saved schema; an enumeration's labels
        (:attr:`Column.enum`, from the schema, not from rows) are kept. ``ann``: save the
        approximate index of the first stage (:mod:`jar_core.index.ann`) always (``True``), never
        (``False``), or when one is at hand or the index is large enough (``None``).

        Raises:
            IndexSaveError: ``path`` is a file, or a directory holding anything but an index
                (:func:`check_index_target`: nothing in it is removed), or the files cannot be
                written (an ``OSError`` too).
        """
        joins = self._joins_to_save()
        ann_bytes = saved_ann.to_save(self.table_vectors, self.__dict__.get("_ann"), self.__dict__.get("_ann_saved"),
                                      ann, self.approximate_index)
        arrays = {"table_vectors": self.table_vectors, "column_vectors": self.column_vectors}
        if self.name_vectors is not None:
            arrays["name_vectors"] = self.name_vectors
        return save_directory(Path(path), lambda folder: write_index_files(
            folder, self.schema, self.model_name, arrays, store_samples=store_samples, joins=joins, ann=ann_bytes,
        ))

    def _joins_to_save(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """The arrays and the meta entry of the join graphs to save: every graph at hand, and
        the default one (within databases) inferred now if it is not, so that a loaded index is
        ready to answer."""
        from jar_core.joins.store import graph_arrays, graph_name, rules_version

        for cross in list(self._saved_graphs):
            self._saved_join_graph(cross)
        self.join_graph(cross_database=False)
        arrays: dict[str, np.ndarray] = {}
        graphs: dict[str, Any] = {}
        for cross, graph in sorted(self._join_graphs.items()):
            arrays.update(graph_arrays(graph, cross, len(self.schema.tables)))
            # the link tables of the graph: a loaded lake reads no table to find them
            arrays[f"{graph_name(cross)}_links"] = self.link_tables(cross_database=cross).astype(np.uint8)
            inputs = self._graph_inputs.get(cross) or self._schema_inputs_digest()
            graphs[graph_name(cross)] = {"cross_database": cross, "edges": len(graph), "inputs": inputs}
        return arrays, {"rules": rules_version(), "graphs": graphs}

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], *, schema: Schema | None = None, model_name: str | None = None,
    ) -> "SchemaIndex":
        """Read an index saved by :meth:`save`.

        Each file is read once and checked as read (SHA-256, types, shapes, finite values), so a
        save running meanwhile cannot mix two indexes: a directory replaced during the read is
        read again. With ``schema`` given the saved schema is not parsed (its checksum and
        fingerprint vouch for it) and ``schema`` is the index's schema.

        The saved join graphs are used when the join rules are those that inferred them (else
        they are inferred again on first use) and, with ``schema`` given, when its sample values
        and uniqueness ratios are the saved ones (checked on first use).

        Raises :class:`IndexLoadError` if it is missing, truncated, corrupt or malformed, and
        :class:`StaleIndexError` if ``schema`` or ``model_name`` is given and differs from the
        one the index was built for.
        """
        return load_directory(
            Path(path), lambda p, files: cls._from_files(p, files, schema=schema, model_name=model_name)
        )

    @classmethod
    def _from_files(
        cls, p: Path, files: dict[str, bytes | None], *, schema: Schema | None, model_name: str | None
    ) -> "SchemaIndex":
        meta, schema_read, arrays, mapped = read_index_files(p, files, schema=schema, model_name=model_name)
        try:
            index = cls(schema=schema_read, model_name=meta["model"], checked=mapped, **arrays)
        except IndexLoadError as e:
            raise IndexLoadError(f"index at {p} is corrupt: {e}") from e
        index.stored_samples = meta.get("samples") is not False
        saved_joins = read_saved_joins(p, meta, files.get(JOINS_FILE), index.col_table, len(index.col_offsets) - 1)
        for cross, (graph, inputs, links) in saved_joins.items():
            if schema is None:  # the schema was read from the index: the graphs are used as they are
                index._join_graphs[cross] = graph
                index._graph_inputs[cross] = inputs
                if links is not None:
                    index._link_tables[cross] = (graph, links)
            else:  # once the schema's statistics are known to be the saved ones (join_graph)
                index._saved_graphs[cross] = (graph, inputs)
        saved = saved_ann.read_saved(p, index.table_vectors, meta, files.get(saved_ann.ANN_FILE))
        if saved is not None:
            index._ann_saved = saved
        return index

    # -- the approximate index of the first stage -------------------------------------
    def approximate_index(self, *, nlist: int | None = None) -> AnnIndex:
        """The approximate index of :attr:`table_vectors` (:mod:`jar_core.index.ann`): kept, else
        read from the saved index, else built (``nlist`` inverted lists); then kept."""
        kept = self.__dict__.get("_ann")
        if kept is not None and kept.source is self.table_vectors:
            return kept
        with _ANN_LOCK:
            kept = self.__dict__.get("_ann")
            if kept is not None and kept.source is self.table_vectors:
                return kept
            self._ann = saved_ann.approximate_index(self.table_vectors, self.__dict__.pop("_ann_saved", None), nlist=nlist)
            return self._ann


def build_index(
    schema: Schema, path: str | os.PathLike[str], embedder: Embedder | Any | None = None, *,
    old: SchemaIndex | None = None, progress: bool = False, store_samples: bool = True, chunk_size: int = CHUNK_TEXTS,
    ann: bool | None = None,
) -> SchemaIndex:
    """Build the index of ``schema`` (with ``old``: update it, :meth:`SchemaIndex.update`) and save it at ``path``.

    The vectors are written as they are embedded to the work directory :func:`partial_dir`
    (disk-backed, not held in memory): a build killed midway and run again with the same schema
    and model continues from the chunks written there; other texts or another model start
    over. The directory is removed once the index is saved (``jar-retrieval index`` calls this).
    ``ann``: save the approximate index of the first stage always / never / from
    ``ANN_THRESHOLD`` tables (``True`` / ``False`` / ``None``, :meth:`SchemaIndex.save`).

    Raises:
        IndexSaveError: ``path`` is not an index directory (:func:`check_index_target`: nothing
            is embedded then), another build of ``path`` is running, or the files cannot be written.
    """
    target = Path(path)
    check_index_target(target)
    work = partial_dir(target)
    try:
        work.mkdir(parents=True, exist_ok=True)
        lock = open(work / "lock", "a+b")
    except OSError as e:
        raise IndexSaveError(f"cannot create the work directory {work}: {e.strerror or e}") from e
    with lock:
        lock_exclusively(lock, work)
        if old is not None:
            index = SchemaIndex.update(old, schema, embedder, progress=progress, work_dir=work, chunk_size=chunk_size)
        else:
            index = SchemaIndex.build(schema, embedder, progress=progress, work_dir=work, chunk_size=chunk_size)
        index.save(target, store_samples=store_samples, ann=ann)
        for name in ("table_vectors", "column_vectors", "name_vectors"):
            arr = getattr(index, name)
            if isinstance(arr, np.memmap):  # its file is removed below: not to be copied by a later save
                setattr(index, name, arr.view(np.ndarray))
        shutil.rmtree(work, ignore_errors=True)  # the index's arrays stay mapped (POSIX)
    return index
