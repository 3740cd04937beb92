"""The schema index: table and column embeddings computed once for a schema.

Saved as a directory holding ``vectors.npz`` (NumPy arrays), ``schema.json``, ``joins.npz``
(the inferred join graphs, :mod:`jar_core.joins`), for a large corpus ``ann.faiss`` (the
approximate index of the first stage, :mod:`jar_core.candidates.ann`) and ``meta.json`` (format version, model name,
schema fingerprint, array shapes, the join rules' version and a SHA-256 of each file). Loading
reads each file once and checks what it read; saving writes a new directory beside the target
and exchanges the two atomically, so a reader never sees a mix of two indexes or no index at all.
Saving streams the arrays into the files (arrays mapped from disk are copied file to file).

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

import ctypes
import errno
import hashlib
import io
import json
import logging
import math
import mmap
import os
import re
import shutil
import stat
import struct
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from dataclasses import InitVar, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jar_core._gc import gc_paused
# the approximate index of the first stage: optional, mapped, read on first use (jar_core.candidates.ann)
from jar_core.candidates.ann import ANN_FILE as _ANN_FILE
from jar_core.embed.embedders import DEFAULT_MODEL_NAME, CachedEmbedder, Embedder, get_embedder
from jar_core.errors import EmbeddingError, IndexLoadError, IndexSaveError, JarError, StaleIndexError
from jar_core.index.build import CHUNK_TEXTS, embed_texts, gather
from jar_core.names import humanize
from jar_core.schema import Schema, Table

__all__ = [
    "SchemaIndex", "BuildReport", "FORMAT_VERSION", "table_text", "column_text", "column_name_text",
    "cache_dir", "cache_path", "check_index_target", "build_index", "partial_dir",
]

log = logging.getLogger(__name__)

#: Bumped whenever the on-disk layout or the serialization of texts changes.
FORMAT_VERSION = 1


def _tname(t: Table) -> str:
    return t.nl_name or humanize(t.name)


def table_text(t: Table) -> str:
    """``"<db> <table> <col1> <col2> ..."`` (METHOD.md), natural-language names where known."""
    cols = " ".join(c.nl_name or humanize(c.name) for c in t.columns)
    return f"{humanize(t.database)} {_tname(t)} {cols}".strip()


def column_text(t: Table, i: int) -> str:
    """``"<table>:<column>"`` (METHOD.md), the text that sub-queries are matched against."""
    c = t.columns[i]
    return f"{_tname(t)}:{c.nl_name or humanize(c.name)}"


def column_name_text(t: Table, i: int) -> str:
    """``"<db> <table> <column>"``, lower case, underscores as spaces: the join-name text."""
    return f"{humanize(t.database)} {humanize(t.name)} {humanize(t.columns[i].name)}"


def _name_texts(schema: Schema) -> list[str]:
    return [column_name_text(t, i) for t in schema.tables for i in range(len(t.columns))]


def _inner(embedder: Embedder | Any | None) -> Embedder:
    """The embedder that encodes for a build: a :class:`CachedEmbedder`'s own model (a build's
    vectors are kept in the index, not in the cache)."""
    emb = embedder.inner if isinstance(embedder, CachedEmbedder) else get_embedder(embedder)
    return emb.inner if isinstance(emb, CachedEmbedder) else emb


def _all_finite(arr: np.ndarray, rows: int = 1 << 16, after: Any = None) -> bool:
    """Whether ``arr`` holds finite values only (checked in blocks of rows: no array of its size);
    ``after(a, b)`` is called once rows ``a:b`` are checked."""
    for a in range(0, arr.shape[0], rows):
        if not np.isfinite(arr[a : a + rows]).all():
            return False
        if after is not None:
            after(a, a + rows)
    return True


def _without_samples(columns: list[dict[str, Any]]) -> None:
    """Drop the sample values (rows of the source) of saved columns; an enumeration's labels,
    which come from the schema and not from rows, stay."""
    for c in columns:
        if not c.get("enum"):
            c.pop("sample", None)


def _changes(old: Schema, new: Schema, *, samples: bool = True) -> dict[str, tuple[str, ...]]:
    """The table ids ``added``, ``dropped`` and ``changed`` from ``old`` to ``new``: any
    difference of their saved form (:meth:`Table.to_dict`), sample values too unless not ``samples``
    (an enumeration's labels always)."""
    before = {t.id: t for t in old.tables}
    after = {t.id: t for t in new.tables}

    def saved(t: Table) -> dict[str, Any]:
        d = t.to_dict()
        if not samples:
            _without_samples(d["columns"])
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


@dataclass
class SchemaIndex:
    """Embeddings of a schema's tables and columns.

    Columns of all tables are stacked in table order: the columns of ``schema.tables[t]`` are
    rows ``col_offsets[t]:col_offsets[t + 1]`` of :attr:`column_vectors` and :attr:`name_vectors`.
    :attr:`name_vectors` (the ``"<db> <table> <column>"`` texts, read by the paper's join mode
    only) is ``None`` until :meth:`ensure_name_vectors` embeds it. ``checked``: the arrays are
    known to be finite (built here), so they are not scanned again.
    """

    schema: Schema
    model_name: str
    table_vectors: np.ndarray
    column_vectors: np.ndarray
    name_vectors: np.ndarray | None = None
    checked: InitVar[bool] = False

    def __post_init__(self, checked: bool = False) -> None:
        sizes = np.array([len(t.columns) for t in self.schema.tables], dtype=np.int64)
        self.col_offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.col_table = np.repeat(np.arange(len(self.schema.tables)), sizes)
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
            if not checked and not _all_finite(arr):
                raise IndexLoadError(f"index array {name} holds non-finite values (NaN or infinity)")
        self._features: Any = None
        #: Join graphs by ``cross_database`` flag, ready to use.
        self._join_graphs: dict[bool, Any] = {}
        #: The inputs digest (:func:`jar_core.joins.store.inputs_digest`) each graph was inferred
        #: from, where it was not inferred from :attr:`schema` here (read from a saved index).
        self._graph_inputs: dict[bool, str] = {}
        #: Graphs read from a saved index loaded with a schema of its own: used once that schema's
        #: statistics are known to be those the graph was inferred from (``(graph, digest)``).
        self._saved_graphs: dict[bool, tuple[Any, str]] = {}
        self._inputs_digest: str | None = None
        #: Whether the saved index this was loaded from holds sample values (``True`` when built).
        self.stored_samples = True
        #: The embedder that built this index (for :meth:`ensure_name_vectors`), if built here.
        self._embedder: Embedder | None = None
        #: What the build or update that made this index did (``None`` when loaded).
        self.report: BuildReport | None = None

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
                kinds["name_vectors"] = _name_texts(schema)
            known = old._rows_by_text()
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

    def _rows_by_text(self) -> dict[str, tuple[int, int]]:
        """``text -> (source, row)``: the row of that text's vector in :attr:`table_vectors`
        (source 1), :attr:`column_vectors` (2) or :attr:`name_vectors` (3)."""
        out: dict[str, tuple[int, int]] = {}
        tables = self.schema.tables
        for i, t in enumerate(tables):
            out.setdefault(table_text(t), (1, i))
        row = 0
        for t in tables:
            for j in range(len(t.columns)):
                out.setdefault(column_text(t, j), (2, row))
                row += 1
        if self.name_vectors is not None:
            for row, text in enumerate(_name_texts(self.schema)):
                out.setdefault(text, (3, row))
        return out

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
        texts = _name_texts(self.schema)
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
    def features(self) -> Any:
        """Column features for the paper's join scoring (computed on first use, not saved; the
        name vectors embedded first if missing: :meth:`ensure_name_vectors`)."""
        if self._features is None:
            from jar_core.joins.compat import ColumnFeatures

            self._features = ColumnFeatures.from_index(self)
        return self._features

    def values_of(self, key: tuple[str, ...], tables: "np.ndarray") -> Any:
        """The :class:`~jar_core.candidates.values.ValueIndex` of the tables at ``tables`` (the databases
        ``key``), built on first use and kept for the last 64 such sets."""
        cache = self.__dict__.setdefault("_values_by_key", {})
        vi = cache.get(key)
        if vi is None:
            from jar_core.candidates.values import ValueIndex

            if len(cache) >= 64:
                cache.pop(next(iter(cache)))
            vi = cache[key] = ValueIndex.from_schema(self.schema, tables=tables)
        return vi

    def join_graph(self, *, cross_database: bool = False) -> Any:
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
        cache = self.__dict__.setdefault("_link_tables", {})
        hit = cache.get(cross_database)
        if hit is None or hit[0] is not graph:
            from jar_core.joins.graph import link_tables

            hit = cache[cross_database] = (graph, link_tables(self.schema, graph, self.col_offsets))
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
        approximate index of the first stage (:mod:`jar_core.candidates.ann`) always (``True``), never
        (``False``), or when one is at hand or the index is large enough (``None``).

        Raises:
            IndexSaveError: ``path`` is a file, or a directory holding anything but an index
                (:func:`check_index_target`: nothing in it is removed), or the files cannot be
                written (an ``OSError`` too).
        """
        target = Path(path)
        joins = self._joins_to_save()
        from jar_core.candidates.ann import to_save

        extra = to_save(self, ann)
        try:
            check_index_target(target)
            target.parent.mkdir(parents=True, exist_ok=True)
            _sweep(target)
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}{_TMP}{os.getpid()}-", dir=target.parent))
        except OSError as e:
            raise IndexSaveError(f"cannot save the index at {target}: {e.strerror or e}") from e
        try:
            self._write(tmp, store_samples, joins, extra)
            _publish(tmp, target)
        except OSError as e:
            if isinstance(e, IndexSaveError):
                raise
            raise IndexSaveError(f"cannot save the index at {target}: {e.strerror or e}") from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # after an exchange it holds the old index
        return target

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
            arrays.update(graph_arrays(graph, cross))
            inputs = self._graph_inputs.get(cross) or self._schema_inputs_digest()
            graphs[graph_name(cross)] = {"cross_database": cross, "edges": len(graph), "inputs": inputs}
        return arrays, {"rules": rules_version(), "graphs": graphs}

    def _write(self, folder: Path, store_samples: bool, joins: tuple[dict[str, np.ndarray], dict[str, Any]],
               ann: tuple[bytes, dict[str, Any]] | None = None) -> None:
        """Write the files into ``folder``, each streamed and synced (the arrays are never held
        in memory twice), its SHA-256 read back in chunks; ``meta.json`` last. ``ann``: the
        approximate index of the first stage and its meta entry (:mod:`jar_core.candidates.ann`)."""
        arrays = {"table_vectors": self.table_vectors, "column_vectors": self.column_vectors}
        if self.name_vectors is not None:
            arrays["name_vectors"] = self.name_vectors
        digests = {"vectors.npz": _write_npz(folder / "vectors.npz", arrays)}
        schema = self.schema.to_dict()
        if not store_samples:
            for t in schema["tables"]:
                _without_samples(t["columns"])
        data = json.dumps(schema, ensure_ascii=False).encode("utf-8")
        del schema
        _write_file(folder / "schema.json", data)
        digests["schema.json"] = hashlib.sha256(data).hexdigest()
        del data
        digests[_JOINS_FILE] = _write_npz(folder / _JOINS_FILE, joins[0])
        if ann is not None:  # the approximate index of the first stage (jar_core.candidates.ann)
            _write_file(folder / _ANN_FILE, ann[0])
            digests[_ANN_FILE] = hashlib.sha256(ann[0]).hexdigest()
        meta = {
            "format_version": FORMAT_VERSION,
            "model": self.model_name,
            "schema_fingerprint": self.schema.fingerprint(),
            "tables": len(self.schema.tables),
            "columns": int(self.col_offsets[-1]),
            "dim": int(self.table_vectors.shape[1]),
            "samples": bool(store_samples),
            "name_vectors": self.name_vectors is not None,
            "joins": joins[1],
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "sha256": digests,
        }
        if ann is not None:
            from jar_core.candidates.ann import entry_with_vectors

            meta["ann"] = entry_with_vectors(ann[1], meta["sha256"])
        _write_file(folder / "meta.json", json.dumps(meta, indent=2).encode("utf-8"))

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
        p = Path(path)
        for attempt in range(_LOAD_ATTEMPTS):
            files, ident = _read_index_files(p)
            try:
                with gc_paused():  # millions of small objects: no collections while they are made
                    return cls._from_files(p, files, schema=schema, model_name=model_name)
            except StaleIndexError:
                raise
            except IndexLoadError:
                if attempt + 1 < _LOAD_ATTEMPTS and _identity(p) != ident:
                    continue  # a save replaced the directory while it was read
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    @classmethod
    def _from_files(
        cls, p: Path, files: dict[str, bytes | None], *, schema: Schema | None, model_name: str | None
    ) -> "SchemaIndex":
        meta = _parse_meta(p, files["meta.json"])
        if model_name is not None and meta["model"] != model_name:
            raise StaleIndexError(f"index at {p} was built with model {meta['model']!r}, not {model_name!r}; rebuild it")
        if files["vectors.npz"] is None:
            raise IndexLoadError(f"index at {p} is corrupt or truncated: vectors.npz is missing")
        # The vectors' checksum is computed beside the schema's parsing (hashing lets the other
        # thread run); every check still comes before the index is returned, and in file order.
        vectors_digest = _sha256_beside(files["vectors.npz"])

        def check_vectors() -> None:
            if vectors_digest() != meta["sha256"]["vectors.npz"]:
                raise IndexLoadError(f"index at {p} is corrupt or truncated: vectors.npz does not match its checksum")

        schema_given = schema
        try:
            data = files["schema.json"]
            if data is None:
                raise IndexLoadError(f"index at {p} is corrupt or truncated: schema.json is missing")
            if hashlib.sha256(data).hexdigest() != meta["sha256"]["schema.json"]:
                raise IndexLoadError(f"index at {p} is corrupt or truncated: schema.json does not match its checksum")
            if schema is not None and schema.fingerprint() != meta["schema_fingerprint"]:
                raise StaleIndexError(f"index at {p} was built for another schema; rebuild it")
            if schema is None:
                schema = _parse_schema(p, data)
                if schema.fingerprint() != meta["schema_fingerprint"]:
                    raise IndexLoadError(f"index at {p} is corrupt: schema.json does not match its fingerprint")
        except (IndexLoadError, StaleIndexError):
            check_vectors()  # a corrupt vectors.npz is reported first, as it always was
            raise
        check_vectors()
        n_t, n_c, dim = len(schema.tables), sum(len(t.columns) for t in schema.tables), meta["dim"]
        arrays = _parse_vectors(p, files["vectors.npz"],  # type: ignore[arg-type]
                                {"table_vectors": (n_t, dim), "column_vectors": (n_c, dim), _NAME_ARRAY: (n_c, dim)})
        if arrays["table_vectors"].shape[1:] != (meta["dim"],):
            raise IndexLoadError(
                f"index at {p} is corrupt: vectors of dimension {arrays['table_vectors'].shape[1:]}, meta.json says {meta['dim']}"
            )
        mapped = isinstance(files["vectors.npz"], mmap.mmap)
        if mapped:  # checked here block by block, the pages released: no whole file left resident
            bad = _all_finite_mapped(arrays, files["vectors.npz"])
            if bad is not None:
                raise IndexLoadError(f"index at {p} is corrupt: index array {bad} holds non-finite values (NaN or infinity)")
        try:
            index = cls(schema=schema, model_name=meta["model"], checked=mapped, **arrays)
        except IndexLoadError as e:
            raise IndexLoadError(f"index at {p} is corrupt: {e}") from e
        index.stored_samples = meta.get("samples") is not False
        _read_joins(p, index, meta, files.get(_JOINS_FILE), trusted_schema=schema_given is None)
        from jar_core.candidates.ann import read_saved

        read_saved(p, index, meta, files.get(_ANN_FILE))
        return index


# -- reading and writing index directories -------------------------------------------------

_DATA_FILES = ("vectors.npz", "schema.json")
#: The join graphs: optional (an index saved before them has none; they are inferred on first use).
_JOINS_FILE = "joins.npz"
_ARRAYS = ("table_vectors", "column_vectors")
_NAME_ARRAY = "name_vectors"
_TMP, _OLD = ".tmp-", ".old-"
#: Every file an index directory may hold (a save replaces a directory holding these only).
_INDEX_FILES = frozenset({"meta.json", *_DATA_FILES, _JOINS_FILE, _ANN_FILE})
#: A load retries this many times when a save replaces the directory while it is read.
_LOAD_ATTEMPTS = 20


def _identity(p: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(p)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _read_index_files(p: Path) -> tuple[dict[str, bytes | None], tuple[int, int] | None]:
    """The bytes of every file of the index at ``p`` (``None`` when missing) and the directory's identity.

    Where the system allows it the files are opened relative to one open handle of the
    directory, so they all come from the same directory even if a save replaces it meanwhile.
    """
    use_fd = os.open in os.supports_dir_fd and hasattr(os, "O_DIRECTORY")
    dfd: int | None = None
    try:
        if use_fd:
            dfd = os.open(p, os.O_RDONLY | os.O_DIRECTORY)
            st = os.fstat(dfd)
        else:
            st = os.stat(p)
            if not os.path.isdir(p):
                raise NotADirectoryError(p)
    except FileNotFoundError:
        raise IndexLoadError(f"no index at {p} (meta.json missing)") from None
    except NotADirectoryError:
        raise IndexLoadError(f"no index at {p}: it is a file, not an index directory") from None
    except OSError as e:
        raise IndexLoadError(f"cannot read the index at {p}: {e.strerror or e}") from e
    try:
        files = {name: _read(p, name, dfd, mapped=name in ("vectors.npz", _ANN_FILE))
                 for name in ("meta.json", *_DATA_FILES, _JOINS_FILE, _ANN_FILE)}
    finally:
        if dfd is not None:
            os.close(dfd)
    if files["meta.json"] is None:
        raise IndexLoadError(f"no index at {p} (meta.json missing)")
    return files, (st.st_dev, st.st_ino)


def _read(p: Path, name: str, dfd: int | None, mapped: bool = False) -> Any:
    """The bytes of file ``name`` (``None`` when missing); ``mapped``: a read-only memory map of
    it where the system can map it (the vectors: only the pages used are read, none copied).

    A map stays valid when a save replaces the directory: saves write new files and never
    change one in place.
    """
    # non-blocking: opening a FIFO for reading would wait for a writer (no effect on regular files)
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(name, flags, dir_fd=dfd) if dfd is not None else os.open(p / name, flags)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise IndexLoadError(f"cannot read {name} of the index at {p}: {e.strerror or e}") from e
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # a directory, a FIFO, a device (a link to /dev/zero)...
            raise IndexLoadError(f"index at {p} is corrupt: {name} is not a regular file")
        limit = _MAX_BYTES.get(name)
        if limit is not None and st.st_size > limit:
            raise IndexLoadError(f"index at {p} is corrupt: {name} holds {st.st_size} bytes, more than {limit}")
    except (OSError, IndexLoadError) as e:
        os.close(fd)
        if isinstance(e, IndexLoadError):
            raise
        raise IndexLoadError(f"cannot read {name} of the index at {p}: {e.strerror or e}") from e
    if mapped and _MAP_FILES:
        try:
            return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)  # keeps its own handle of the file
        except (OSError, ValueError):  # an empty file, a file system that cannot map: read it
            pass
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read(st.st_size)  # a file saves never change in place: no more than it holds
        except OSError as e:
            raise IndexLoadError(f"cannot read {name} of the index at {p}: {e.strerror or e}") from e


#: The largest ``meta.json`` read (a few kilobytes when saved here).
_MAX_BYTES = {"meta.json": 1 << 20}

#: Files at least this large are hashed in a thread of their own while the load goes on.
_HASH_BESIDE_BYTES = 32 << 20


#: Mapped files are read in chunks of this many bytes, each chunk's pages released after use.
_CHUNK_BYTES = 64 << 20


def _release(data: Any, start: int, end: int) -> None:
    """Drop the pages of bytes ``start:end`` of the memory map ``data`` from this process (they are
    read again from the file if used later), so that checking a large index does not leave all of
    it resident; nothing where ``data`` is not a map or the system cannot."""
    if not isinstance(data, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED"):
        return
    start -= start % mmap.PAGESIZE
    end = min(end, len(data))
    if end > start:
        try:
            data.madvise(mmap.MADV_DONTNEED, start, end - start)
        except (OSError, ValueError):  # pragma: no cover - an advice the system refuses
            pass


def _sha256_chunked(data: Any) -> str:
    """SHA-256 (hex) of ``data`` read in chunks, each released after hashing (:func:`_release`)."""
    h = hashlib.sha256()
    view = memoryview(data)
    for a in range(0, len(view), _CHUNK_BYTES):
        h.update(view[a : a + _CHUNK_BYTES])
        _release(data, a, a + _CHUNK_BYTES)
    view.release()
    return h.hexdigest()


def _sha256_beside(data: Any) -> Any:
    """A function returning the SHA-256 (hex) of ``data``, computed meanwhile in a thread when
    ``data`` is large (hashlib releases the GIL: the schema is parsed at the same time)."""
    if len(data) < _HASH_BESIDE_BYTES:
        digest = hashlib.sha256(data).hexdigest()
        return lambda: digest
    out: list[str] = []
    thread = threading.Thread(target=lambda: out.append(_sha256_chunked(data)),
                              name="jar-index-checksum", daemon=True)
    thread.start()

    def result() -> str:
        thread.join()
        return out[0] if out else _sha256_chunked(data)

    return result


def _all_finite_mapped(arrays: dict[str, np.ndarray], data: Any) -> str | None:
    """The name of the first of ``arrays`` (views of the map ``data``) holding a non-finite value,
    or ``None``; read in blocks (:func:`_all_finite`), each block's pages released after its check."""
    base = np.frombuffer(data, dtype=np.uint8, count=1).__array_interface__["data"][0] if len(data) else 0
    for name, arr in arrays.items():
        if arr.ndim != 2 or arr.shape[0] == 0:
            if not np.isfinite(arr).all():
                return name
            continue
        row_bytes = arr.strides[0]
        start = arr.__array_interface__["data"][0] - base

        def release(a: int, b: int) -> None:
            _release(data, start + a * row_bytes, start + b * row_bytes)

        if not _all_finite(arr, max(1, _CHUNK_BYTES // max(row_bytes, 1)), release):
            return name
    return None


def _parse_meta(p: Path, data: bytes | None) -> dict[str, Any]:
    try:
        meta = json.loads((data or b"").decode("utf-8"))
    except (ValueError, RecursionError) as e:  # JSONDecodeError, UnicodeDecodeError
        raise IndexLoadError(f"index at {p} is corrupt: meta.json unreadable ({e})") from e
    if not isinstance(meta, dict) or meta.get("format_version") != FORMAT_VERSION:
        raise IndexLoadError(
            f"index at {p} has format version {meta.get('format_version') if isinstance(meta, dict) else '?'}, "
            f"this version reads {FORMAT_VERSION}; rebuild it with 'jar-retrieval index'"
        )
    digests = meta.get("sha256")
    if not isinstance(digests, dict) or not all(isinstance(digests.get(n), str) for n in _DATA_FILES):
        raise IndexLoadError(f"index at {p} is corrupt: meta.json lacks the SHA-256 of {' and '.join(_DATA_FILES)}")
    if not isinstance(meta.get("model"), str) or not meta["model"]:
        raise IndexLoadError(f"index at {p} is corrupt: meta.json names no model")
    if not isinstance(meta.get("schema_fingerprint"), str):
        raise IndexLoadError(f"index at {p} is corrupt: meta.json has no schema fingerprint")
    dim = meta.get("dim")
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise IndexLoadError(f"index at {p} is corrupt: meta.json has no valid dimension (dim={dim!r})")
    return meta


def _parse_schema(p: Path, data: bytes) -> Schema:
    try:
        return Schema.from_dict(json.loads(data.decode("utf-8")))
    except (ValueError, RecursionError, JarError) as e:  # JSONDecodeError, UnicodeDecodeError, SchemaError
        raise IndexLoadError(f"index at {p} is corrupt: schema.json is not a valid schema ({e})") from e


def _parse_vectors(p: Path, data: Any, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    try:
        z = _npz_arrays(data, shapes)
        arrays = {k: z[k] for k in _ARRAYS}
        if _NAME_ARRAY in z:  # optional: embedded when the paper's join mode asks for them
            arrays[_NAME_ARRAY] = z[_NAME_ARRAY]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, struct.error) as e:
        raise IndexLoadError(f"index at {p} is corrupt: vectors.npz unreadable ({e})") from e
    for name, arr in arrays.items():
        if arr.dtype != np.float32:
            raise IndexLoadError(f"index at {p} is corrupt: {name} has dtype {arr.dtype}, expected float32")
    return arrays


#: Map the vectors rather than read them (POSIX: a mapped file can still be renamed and removed,
#: which the atomic save does to the index it replaces).
_MAP_FILES = os.name == "posix"
#: Array data in the ``.npz`` files this module writes starts at a multiple of this many bytes,
#: so the arrays can be used where they lie in the file (mapped) without a copy.
_ALIGN = 64
_ZIP_PAD_FIELD = 0xD935  # the extra field of zip aligners: padding, ignored by readers


#: Bytes per read when files are copied or hashed.
_COPY_BYTES = 16 << 20


def _write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _file_sha256(path: Path) -> str:
    """The SHA-256 (hex) of the file at ``path``, read in chunks."""
    h = hashlib.sha256()
    buf = bytearray(_COPY_BYTES)
    view = memoryview(buf)
    with open(path, "rb") as f:
        while n := f.readinto(buf):
            h.update(view[:n])
    return h.hexdigest()


def _mapped_file(arr: np.ndarray) -> tuple[str, int] | None:
    """``(path, offset)`` of the file ``arr``'s data lies in, where ``arr`` is a whole C-ordered
    ``np.memmap`` of it (as :func:`jar_core.index.build.gather` returns); else ``None``."""
    if isinstance(arr, np.memmap) and isinstance(arr.base, mmap.mmap) and arr.flags.c_contiguous and arr.filename:
        return str(arr.filename), int(arr.offset)
    return None


def _write_npz(path: Path, arrays: dict[str, np.ndarray]) -> str:
    """Write an uncompressed ``.npz`` (``np.load`` reads it) whose arrays' data is aligned to
    :data:`_ALIGN`, streaming each array into it (a mapped array is copied from its file, not
    read through the map); return the file's SHA-256."""
    with open(path, "wb") as f:
        with zipfile.ZipFile(f, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
            for key, arr in arrays.items():
                source = _mapped_file(arr)
                if source is None:
                    arr = np.ascontiguousarray(arr)
                head = io.BytesIO()
                np.lib.format.write_array_header_1_0(head, np.lib.format.header_data_from_array_1_0(arr))
                header = head.getvalue()  # pads the array data to a multiple of 64, as write_array does
                size = len(header) + arr.nbytes
                name = f"{key}.npy"
                info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_STORED
                info.file_size = size
                zip64 = size * 1.05 > zipfile.ZIP64_LIMIT  # as ZipFile decides it (a 20-byte extra field)
                fixed = 30 + len(name.encode("utf-8")) + 4 + (20 if zip64 else 0)
                pad = -(f.tell() + fixed) % _ALIGN
                info.extra = struct.pack("<HH", _ZIP_PAD_FIELD, pad) + bytes(pad)
                with zf.open(info, "w") as out:
                    if source is None:
                        np.lib.format.write_array(out, arr, allow_pickle=False)
                    else:
                        out.write(header)
                        _copy_range(source[0], source[1], arr.nbytes, out)
                if info.file_size != size:  # the data would not start where it was aligned
                    raise IndexSaveError(f"{name}: {info.file_size} bytes written, {size} expected")
        f.flush()
        os.fsync(f.fileno())
    return _file_sha256(path)


def _copy_range(path: str, offset: int, n: int, out: Any) -> None:
    """Copy ``n`` bytes of the file at ``path`` from ``offset`` to ``out`` in chunks."""
    buf = bytearray(_COPY_BYTES)
    view = memoryview(buf)
    with open(path, "rb") as src:
        src.seek(offset)
        while n > 0:
            got = src.readinto(view[: min(n, len(buf))])
            if not got:
                raise IndexSaveError(f"{path} ended {n} bytes early")
            out.write(view[:got])
            n -= got


def _npz_arrays(data: Any, shapes: dict[str, tuple[int, ...]] | None = None) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` in ``data`` (bytes or a memory map) as read-only views of it.

    The SHA-256 of the file, checked before, stands for the members' CRC-32. A member that is
    compressed or stored in Fortran order falls back on :func:`_npz_load` (a copy, bounded;
    ``shapes``: the arrays' expected shapes); one whose data is misaligned (an ``.npz`` written by
    ``np.savez``: an index saved by an older version) is copied.
    """
    view = memoryview(data)
    with zipfile.ZipFile(io.BytesIO(data) if isinstance(data, bytes) else data) as zf:
        infos = zf.infolist()
    out: dict[str, np.ndarray] = {}
    for info in infos:
        if not info.filename.endswith(".npy"):
            continue
        key = info.filename[:-4]
        if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 0x1:
            return _npz_load(data, shapes)
        head = bytes(view[info.header_offset : info.header_offset + 30])
        if len(head) < 30 or head[:4] != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"bad local header of {info.filename}")
        n_name, n_extra = struct.unpack("<HH", head[26:30])
        start = info.header_offset + 30 + n_name + n_extra
        end = start + info.file_size
        if end > len(view):
            raise ValueError(f"{info.filename} is truncated")
        f = io.BytesIO(bytes(view[start : min(end, start + 16 + 65536)]))
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
        else:
            return _npz_load(data, shapes)
        if fortran or dtype.hasobject:
            return _npz_load(data, shapes)
        count = 1
        for d in shape:
            count *= int(d)
        offset = start + f.tell()
        if offset + count * dtype.itemsize > end:
            raise ValueError(f"{info.filename} is truncated")
        arr = np.frombuffer(data, dtype=dtype, count=count, offset=offset) if count else np.zeros(0, dtype)
        arr = arr.reshape(shape)
        out[key] = arr if arr.flags.aligned else arr.copy()
    return out


#: A deflated member expands to at most this many bytes per compressed byte (deflate's limit is 1032).
_DEFLATE_RATIO = 1032


def _npz_load(data: Any, shapes: dict[str, tuple[int, ...]] | None = None) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` in ``data`` read by NumPy (copies), each member's size checked
    before its array is allocated: stored or deflated only, its declared size within what its
    compressed bytes can hold, its header's shape and dtype within that size and, for a name in
    ``shapes``, of that shape (``ValueError`` otherwise: no "zip bomb" allocates gigabytes)."""
    out: dict[str, np.ndarray] = {}
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        for info in zf.infolist():
            if not info.filename.endswith(".npy"):
                continue
            key = info.filename[:-4]
            if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                raise ValueError(f"{info.filename} is compressed by method {info.compress_type}, not deflate")
            ratio = 1 if info.compress_type == zipfile.ZIP_STORED else _DEFLATE_RATIO
            if info.file_size > ratio * info.compress_size + 1024:
                raise ValueError(f"{info.filename} declares {info.file_size} bytes in {info.compress_size} compressed")
            with zf.open(info) as f:
                version = np.lib.format.read_magic(f)
                if version not in ((1, 0), (2, 0)):
                    raise ValueError(f"{info.filename} is an array of format {version}")
                read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else \
                    np.lib.format.read_array_header_2_0
                shape, _, dtype = read_header(f)
            nbytes = math.prod(shape) * dtype.itemsize
            if dtype.hasobject or nbytes > info.file_size:
                raise ValueError(f"{info.filename} declares an array of {shape} {dtype} in {info.file_size} bytes")
            expected = (shapes or {}).get(key)
            if expected is not None and tuple(shape) != tuple(expected):
                raise ValueError(f"{info.filename} holds an array of shape {shape}, expected {tuple(expected)}")
            with zf.open(info) as f:
                out[key] = np.lib.format.read_array(f, allow_pickle=False)
    return out


def _read_joins(p: Path, index: SchemaIndex, meta: dict[str, Any], data: Any, *, trusted_schema: bool) -> None:
    """Give ``index`` the join graphs saved with it, if they are vouched for and of these rules.

    An index saved before join graphs were saved, or with graphs of other rules, gets none: they
    are inferred on first use. A graph whose file does not match its checksum or is malformed
    makes the index corrupt, as any other file does. With ``trusted_schema`` (the schema was read
    from the index) the graphs are used as they are; else once the schema's statistics are known
    to be the saved ones (:meth:`SchemaIndex.join_graph`).
    """
    from jar_core.joins.store import graph_from_arrays, rules_version

    entry = meta.get("joins")
    digest = meta["sha256"].get(_JOINS_FILE)
    if not isinstance(entry, dict) or not isinstance(digest, str):
        return
    if entry.get("rules") != rules_version():
        log.info("join graphs of the index at %s were inferred by other join rules (%s, now %s); inferring them again",
                 p, entry.get("rules"), rules_version())
        return
    if data is None:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: {_JOINS_FILE} is missing")
    if hashlib.sha256(data).hexdigest() != digest:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: {_JOINS_FILE} does not match its checksum")
    try:
        arrays = _npz_arrays(data)
        graphs = entry["graphs"]
        if not isinstance(graphs, dict):
            raise ValueError("meta.json lists no graphs")
        for g in graphs.values():
            cross, inputs = g["cross_database"], g["inputs"]
            if not isinstance(cross, bool) or not isinstance(inputs, str):
                raise ValueError(f"meta.json describes a graph as {g!r}")
            graph = graph_from_arrays(arrays, cross, index.col_table)
            if g.get("edges") != len(graph):
                raise ValueError(f"meta.json says {g.get('edges')!r} joins, the file holds {len(graph)}")
            if trusted_schema:
                index._join_graphs[cross] = graph
                index._graph_inputs[cross] = inputs
            else:
                index._saved_graphs[cross] = (graph, inputs)
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, struct.error) as e:
        raise IndexLoadError(f"index at {p} is corrupt: {_JOINS_FILE} unreadable ({e})") from e


def _pid_alive(pid: int) -> bool:
    if os.name != "posix":  # os.kill would end the process elsewhere
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: alive, another user's
        return True
    return True


def _sweep(target: Path) -> None:
    """Remove what saves of ``target`` killed outright left beside it (their process is gone)."""
    pattern = re.compile(re.escape(f".{target.name}") + rf"(?:{re.escape(_TMP)}|{re.escape(_OLD)})(\d+)-")
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        m = pattern.match(entry.name)
        if m and not _pid_alive(int(m.group(1))):
            log.info("removing %s, left by an interrupted save", entry.path)
            shutil.rmtree(entry.path, ignore_errors=True)


def check_index_target(target: Path) -> None:
    """Raise :class:`IndexSaveError` unless saving an index at ``target`` replaces nothing but an index.

    ``target`` must be absent, an empty directory, or a directory holding only the files of an
    index (:data:`_INDEX_FILES`, none a directory) whose ``meta.json`` is one of this format: a
    save replaces the whole directory, so a user's file in it would be lost.
    """
    if target.name in ("", ".", ".."):
        raise IndexSaveError(f"{str(target)!r} names no index directory of its own; give one, e.g. {target / 'index'}")
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise IndexSaveError(f"{target} exists and is not an index directory; refusing to overwrite it")
    try:
        entries = list(os.scandir(target))
    except FileNotFoundError:
        return
    except OSError as e:
        raise IndexSaveError(f"cannot read {target}: {e.strerror or e}") from e
    if not entries:
        return
    others = sorted(e.name for e in entries if e.name not in _INDEX_FILES or e.is_dir(follow_symlinks=False))
    if others:
        raise IndexSaveError(
            f"{target} holds files that are not an index's ({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}); "
            "refusing to replace it: save the index in a directory of its own"
        )
    try:
        _parse_meta(target, _read(target, "meta.json", None))
    except IndexLoadError as e:
        raise IndexSaveError(f"{target} is not an index this version can replace ({e}); refusing to overwrite it: "
                             "remove it yourself or save elsewhere") from None


def _exchange(a: Path, b: Path) -> bool:
    """Swap the directories ``a`` and ``b`` atomically; ``False`` where the system cannot.

    Raises ``FileNotFoundError`` if ``b`` does not exist.
    """
    func, flag = _exchange_call()
    if func is None:
        return False
    if func(os.fsencode(a), os.fsencode(b), flag) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EXDEV):
        return False  # not supported by this system or file system
    raise OSError(err, os.strerror(err), str(b))


_EXCHANGE: tuple[Any, int] | None = None


def _exchange_call() -> tuple[Any, int]:
    """(a C function ``f(a, b, flag)`` that swaps two paths, its flag), or ``(None, 0)``."""
    global _EXCHANGE
    if _EXCHANGE is None:
        _EXCHANGE = (None, 0)
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if sys.platform.startswith("linux") and hasattr(libc, "renameat2"):
                renameat2 = libc.renameat2
                renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
                at_fdcwd, rename_exchange = -100, 2
                _EXCHANGE = (lambda a, b, flag: renameat2(at_fdcwd, a, at_fdcwd, b, flag), rename_exchange)
            elif sys.platform == "darwin" and hasattr(libc, "renamex_np"):
                renamex = libc.renamex_np
                renamex.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_uint]
                _EXCHANGE = (lambda a, b, flag: renamex(a, b, flag), 2)  # RENAME_SWAP
        except (OSError, AttributeError, TypeError):  # no C library to call
            pass
    return _EXCHANGE


def _publish(tmp: Path, target: Path) -> None:
    """Put the complete index directory ``tmp`` at ``target``; the old index, if any, ends at ``tmp``."""
    for _ in range(100):
        try:
            if _exchange(tmp, target):
                return
        except FileNotFoundError:  # no index at target yet
            try:
                os.rename(tmp, target)
                return
            except OSError as e:
                if e.errno in (errno.EEXIST, errno.ENOTEMPTY):
                    continue  # another save created it meanwhile: exchange with that one
                raise
        else:
            break
    # No atomic exchange on this system: two renames (a reader may briefly find no index).
    old = target.with_name(f".{target.name}{_OLD}{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        os.rename(target, old)
    except FileNotFoundError:
        old = None  # type: ignore[assignment]
    try:
        os.rename(tmp, target)
    except OSError:
        if old is not None:
            os.rename(old, target)
        raise
    if old is not None:
        os.rename(old, tmp)  # removed by the caller with the temporary directory

def partial_dir(target: str | os.PathLike[str]) -> Path:
    """The work directory of :func:`build_index` for the index at ``target``: ``.NAME.partial`` beside it."""
    t = Path(target)
    return t.with_name(f".{t.name}.partial")


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
        _lock_exclusively(lock, work)
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


def _lock_exclusively(f: Any, work: Path) -> None:
    """Hold an exclusive lock on the open file ``f`` (where the system has ``flock``)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise IndexSaveError(f"another build is using {work}; wait for it to end") from None
    except OSError:  # a file system without locks
        pass


def cache_dir() -> Path:
    """Where indexes are cached between runs (``$JAR_RETRIEVAL_CACHE`` or ``~/.cache/jar-retrieval``)."""
    base = os.environ.get("JAR_RETRIEVAL_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "jar-retrieval"
    )
    return Path(base) / "indexes"


def cache_path(schema: Schema, model_name: str) -> Path:
    """The cached index of ``schema`` embedded with ``model_name`` (keyed by fingerprint and model)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", model_name.rsplit("/", 1)[-1]).strip("-")[:40]
    key = hashlib.sha256(f"{schema.fingerprint()}|{model_name}".encode()).hexdigest()[:16]
    return cache_dir() / f"{key}-{slug}"
