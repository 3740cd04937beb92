"""The schema index: table and column embeddings computed once for a schema.

Saved as a directory holding ``vectors.npz`` (NumPy arrays), ``schema.json``, ``joins.npz``
(the inferred join graphs, :mod:`jar_core.joins`), for a large corpus ``ann.faiss`` (the
approximate index of the first stage, :mod:`jar_core.ann`) and ``meta.json`` (format version, model name,
schema fingerprint, array shapes, the join rules' version and a SHA-256 of each file). Loading
reads each file once and checks what it read; saving writes a new directory beside the target
and exchanges the two atomically, so a reader never sees a mix of two indexes or no index at all.

A loaded index is ready to answer: the vectors are mapped from the file rather than copied
(where the system can map files), and the join graph is read, not inferred again.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
from functools import lru_cache
import io
import json
import logging
import mmap
import os
import re
import shutil
import struct
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jar_core._gc import gc_paused
# the approximate index of the first stage: optional, mapped, read on first use (jar_core.ann)
from jar_core.ann import ANN_FILE as _ANN_FILE
from jar_core.embedding import CachedEmbedder, Embedder, get_embedder
from jar_core.errors import IndexLoadError, IndexSaveError, JarError, StaleIndexError
from jar_core.progress import progress as _progress
from jar_core.schema import Schema, Table

__all__ = [
    "SchemaIndex", "FORMAT_VERSION", "table_text", "column_text", "column_name_text", "humanize", "cache_dir",
    "cache_path", "check_index_target",
]

log = logging.getLogger(__name__)

#: Bumped whenever the on-disk layout or the serialization of texts changes.
FORMAT_VERSION = 1

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@lru_cache(maxsize=1 << 18)
def humanize(name: str) -> str:
    """``"song_release_year"`` / ``"songReleaseYear"`` -> ``"song release year"``."""
    return " ".join(_CAMEL.sub(" ", name).replace("_", " ").split()).lower()


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


@dataclass
class SchemaIndex:
    """Embeddings of a schema's tables and columns.

    Columns of all tables are stacked in table order: the columns of ``schema.tables[t]`` are
    rows ``col_offsets[t]:col_offsets[t + 1]`` of :attr:`column_vectors` and :attr:`name_vectors`.
    """

    schema: Schema
    model_name: str
    table_vectors: np.ndarray
    column_vectors: np.ndarray
    name_vectors: np.ndarray

    def __post_init__(self) -> None:
        sizes = np.array([len(t.columns) for t in self.schema.tables], dtype=np.int64)
        self.col_offsets = np.concatenate([[0], np.cumsum(sizes)])
        self.col_table = np.repeat(np.arange(len(self.schema.tables)), sizes)
        n_t, n_c = len(self.schema.tables), int(self.col_offsets[-1])
        for name, arr, rows in (
            ("table_vectors", self.table_vectors, n_t),
            ("column_vectors", self.column_vectors, n_c),
            ("name_vectors", self.name_vectors, n_c),
        ):
            if not isinstance(arr, np.ndarray) or arr.ndim != 2 or arr.shape[0] != rows:
                raise IndexLoadError(f"index array {name} has shape {np.shape(arr)}, expected ({rows}, dim)")
            if not np.issubdtype(arr.dtype, np.floating):
                raise IndexLoadError(f"index array {name} has dtype {arr.dtype}, expected float32")
            arr = np.asarray(arr, dtype=np.float32)
            setattr(self, name, arr)
            if arr.shape[1] != self.table_vectors.shape[1]:
                raise IndexLoadError(f"index array {name} has dimension {arr.shape[1]}, "
                                     f"table_vectors {self.table_vectors.shape[1]}")
            if not np.isfinite(arr).all():
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

    # -- building -------------------------------------------------------------------
    @classmethod
    def build(
        cls, schema: Schema, embedder: Embedder | Any | None = None, *, batch_size: int = 256,
        progress: bool = False,
    ) -> "SchemaIndex":
        """Embed every table and column of ``schema`` (batched; each distinct text encoded once)."""
        emb = embedder if isinstance(embedder, CachedEmbedder) else CachedEmbedder(get_embedder(embedder))
        tables = [table_text(t) for t in schema.tables]
        cols = [column_text(t, i) for t in schema.tables for i in range(len(t.columns))]
        names = [column_name_text(t, i) for t in schema.tables for i in range(len(t.columns))]
        texts = list(dict.fromkeys(tables + cols + names))
        starts = range(0, len(texts), batch_size)
        for start in _progress(starts, total=len(starts), desc="embedding schema", enabled=progress, unit="batch"):
            emb.embed_documents(texts[start : start + batch_size])
        return cls(
            schema=schema,
            model_name=emb.name,
            table_vectors=emb.embed_documents(tables),
            column_vectors=emb.embed_documents(cols),
            name_vectors=emb.embed_documents(names),
        )

    @property
    def features(self) -> Any:
        """Column features for join scoring (computed on first use, not saved)."""
        if self._features is None:
            from jar_core.join_compat import ColumnFeatures

            self._features = ColumnFeatures.from_index(self)
        return self._features

    def values_of(self, key: tuple[str, ...], tables: "np.ndarray") -> Any:
        """The :class:`~jar_core.values.ValueIndex` of the tables at ``tables`` (the databases
        ``key``), built on first use and kept for the last 64 such sets."""
        cache = self.__dict__.setdefault("_values_by_key", {})
        vi = cache.get(key)
        if vi is None:
            from jar_core.values import ValueIndex

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
        values (rows of the source) are left out of the saved schema. ``ann``: save the
        approximate index of the first stage (:mod:`jar_core.ann`) always (``True``), never
        (``False``), or when one is at hand or the index is large enough (``None``).

        Raises:
            IndexLoadError: ``path`` is a file, or a directory that is not an index.
            IndexSaveError: the files cannot be written (an ``OSError`` too).
        """
        target = Path(path)
        joins = self._joins_to_save()
        from jar_core.ann import to_save

        extra = to_save(self, ann)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _sweep(target)
            check_index_target(target)
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
        vectors = _npz_bytes({"table_vectors": self.table_vectors, "column_vectors": self.column_vectors,
                              "name_vectors": self.name_vectors})
        schema = self.schema.to_dict()
        if not store_samples:
            for t in schema["tables"]:
                for c in t["columns"]:
                    c.pop("sample", None)
        files = {
            "vectors.npz": vectors,
            "schema.json": json.dumps(schema, ensure_ascii=False).encode("utf-8"),
            _JOINS_FILE: _npz_bytes(joins[0]),
        }
        if ann is not None:  # the approximate index of the first stage (jar_core.ann)
            files[_ANN_FILE] = ann[0]
        meta = {
            "format_version": FORMAT_VERSION,
            "model": self.model_name,
            "schema_fingerprint": self.schema.fingerprint(),
            "tables": len(self.schema.tables),
            "columns": int(self.col_offsets[-1]),
            "dim": int(self.table_vectors.shape[1]),
            "samples": bool(store_samples),
            "joins": joins[1],
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "sha256": {n: hashlib.sha256(data).hexdigest() for n, data in files.items()},
        }
        if ann is not None:
            from jar_core.ann import entry_with_vectors

            meta["ann"] = entry_with_vectors(ann[1], meta["sha256"])
        files["meta.json"] = json.dumps(meta, indent=2).encode("utf-8")
        for name, data in files.items():
            with open(folder / name, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())

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
        arrays = _parse_vectors(p, files["vectors.npz"])  # type: ignore[arg-type]
        if arrays["table_vectors"].shape[1:] != (meta["dim"],):
            raise IndexLoadError(
                f"index at {p} is corrupt: vectors of dimension {arrays['table_vectors'].shape[1:]}, meta.json says {meta['dim']}"
            )
        try:
            index = cls(schema=schema, model_name=meta["model"], **arrays)
        except IndexLoadError as e:
            raise IndexLoadError(f"index at {p} is corrupt: {e}") from e
        index.stored_samples = meta.get("samples") is not False
        _read_joins(p, index, meta, files.get(_JOINS_FILE), trusted_schema=schema_given is None)
        from jar_core.ann import read_saved

        read_saved(p, index, meta, files.get(_ANN_FILE))
        return index


# -- reading and writing index directories -------------------------------------------------

_DATA_FILES = ("vectors.npz", "schema.json")
#: The join graphs: optional (an index saved before them has none; they are inferred on first use).
_JOINS_FILE = "joins.npz"
_ARRAYS = ("table_vectors", "column_vectors", "name_vectors")
_TMP, _OLD = ".tmp-", ".old-"
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
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_BINARY", 0), dir_fd=dfd) if dfd is not None else \
            os.open(p / name, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        raise IndexLoadError(f"cannot read {name} of the index at {p}: {e.strerror or e}") from e
    if mapped and _MAP_FILES:
        try:
            return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)  # keeps its own handle of the file
        except (OSError, ValueError):  # an empty file, a file system that cannot map: read it
            pass
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read()
        except OSError as e:
            raise IndexLoadError(f"cannot read {name} of the index at {p}: {e.strerror or e}") from e


#: Files at least this large are hashed in a thread of their own while the load goes on.
_HASH_BESIDE_BYTES = 32 << 20


def _sha256_beside(data: Any) -> Any:
    """A function returning the SHA-256 (hex) of ``data``, computed meanwhile in a thread when
    ``data`` is large (hashlib releases the GIL: the schema is parsed at the same time)."""
    if len(data) < _HASH_BESIDE_BYTES:
        digest = hashlib.sha256(data).hexdigest()
        return lambda: digest
    out: list[str] = []
    thread = threading.Thread(target=lambda: out.append(hashlib.sha256(data).hexdigest()),
                              name="jar-index-checksum", daemon=True)
    thread.start()

    def result() -> str:
        thread.join()
        return out[0] if out else hashlib.sha256(data).hexdigest()

    return result


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


def _parse_vectors(p: Path, data: Any) -> dict[str, np.ndarray]:
    try:
        z = _npz_arrays(data)
        arrays = {k: z[k] for k in _ARRAYS}
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


def _npz_bytes(arrays: dict[str, np.ndarray]) -> bytes:
    """An uncompressed ``.npz`` (``np.load`` reads it) whose arrays' data is aligned to :data:`_ALIGN`."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for key, arr in arrays.items():
            body = io.BytesIO()
            np.lib.format.write_array(body, np.ascontiguousarray(arr), allow_pickle=False)
            data = body.getbuffer()  # the .npy header pads the array data to a multiple of 64
            name = f"{key}.npy"
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_STORED
            zip64 = len(data) * 1.05 > zipfile.ZIP64_LIMIT  # as ZipFile decides it (a 20-byte extra field)
            fixed = 30 + len(name.encode("utf-8")) + 4 + (20 if zip64 else 0)
            pad = -(buf.tell() + fixed) % _ALIGN
            info.extra = struct.pack("<HH", _ZIP_PAD_FIELD, pad) + bytes(pad)
            zf.writestr(info, data)
            del data
    return buf.getvalue()


def _npz_arrays(data: Any) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` in ``data`` (bytes or a memory map) as read-only views of it.

    The SHA-256 of the file, checked before, stands for the members' CRC-32. A member that is
    compressed or stored in Fortran order falls back on ``np.load`` (a copy); one whose data is
    misaligned (an ``.npz`` written by ``np.savez``: an index saved by an older version) is copied.
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
            return _npz_load(data)
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
            return _npz_load(data)
        if fortran or dtype.hasobject:
            return _npz_load(data)
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


def _npz_load(data: Any) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(bytes(data)), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


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
    """Raise :class:`IndexLoadError` if saving an index at ``target`` would overwrite something else."""
    if target.is_symlink() or (target.exists() and not target.is_dir()):
        raise IndexLoadError(f"{target} exists and is not an index directory; refusing to overwrite it")
    if target.is_dir() and not (target / "meta.json").exists() and any(target.iterdir()):
        raise IndexLoadError(f"{target} exists and is not an index; refusing to overwrite it")


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
