"""The on-disk format of an index: its directory, checksums, atomic publish, safe loads (METHOD.md,
"Offline indexing": the index is computed once, saved, and loaded ready to answer).

An index is a directory holding ``vectors.npz`` (the arrays, :mod:`jar_core.index.npz`; above
256 MiB checked by blocks as read, :mod:`jar_core.index.checked`), ``schema.sqlite`` (the tables,
read when used, and the corpus's structure: :mod:`jar_core.index.stored_schema`), ``joins.npz``
(the inferred join graphs, :mod:`jar_core.joins.store`), for a large corpus ``ann.faiss``
(:mod:`jar_core.index.ann`) and ``meta.json`` (format version, model name, schema fingerprint,
array shapes, the join rules' version and a SHA-256 of each file).

* Saving (:func:`save_directory`) writes a new directory beside the target and exchanges the two
  atomically, so a reader never sees a mix of two indexes or no index at all; it refuses a target
  that holds anything but an index (:func:`check_index_target`) and removes what saves killed
  outright left behind.
* Loading (:func:`load_directory`, :func:`read_index_files`) reads each file once, through one
  handle of the directory, and checks what it read (SHA-256, types, shapes, finite values, no
  file but a regular one, bounded sizes); a directory replaced meanwhile is read again. The
  vectors are mapped from the file rather than copied where the system can map files, checked
  in blocks whose pages are then released.
* :func:`cache_dir` / :func:`cache_path`: where the command caches indexes between runs.
"""
from __future__ import annotations

import hashlib
import json
import logging
import mmap
import os
import re
import shutil
import stat
import struct
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import Any, Callable, TypeVar

import numpy as np

from jar_core._gc import gc_paused
from jar_core.errors import IndexLoadError, IndexSaveError, StaleIndexError
from jar_core.index import checked
from jar_core.index.ann import ANN_FILE, entry_with_vectors
from jar_core.index.npz import (
    CHUNK_BYTES, all_finite, file_sha256, npz_arrays, release_pages, sha256_released, write_file, write_npz,
)
from jar_core.index.publish import TMP, publish, sweep
from jar_core.index.stored_schema import (
    SCHEMA_CONNECTION, SCHEMA_FILE, close_saved_schema, connect_at, open_saved_schema, read_blocks, without_samples,
    write_schema_store,
)
from jar_core.index.structure import structure
from jar_core.index.texts import TEXTS_VERSION
from jar_core.schema import Schema

__all__ = [
    "FORMAT_VERSION", "JOINS_FILE", "save_directory", "load_directory", "read_index_files", "write_index_files",
    "read_saved_joins", "check_index_target", "partial_dir", "lock_exclusively", "without_samples", "cache_dir",
    "cache_path",
]

log = logging.getLogger(__name__)

#: Bumped whenever the on-disk layout or the serialization of texts changes (2: the schema in
#: ``schema.sqlite``, read table by table, was ``schema.json`` read whole).
FORMAT_VERSION = 2

_DATA_FILES = ("vectors.npz", SCHEMA_FILE)
#: The join graphs: optional (an index saved before them has none; they are inferred on first use).
JOINS_FILE = "joins.npz"
_ARRAYS = ("table_vectors", "column_vectors")
_NAME_ARRAY = "name_vectors"
#: Every file an index directory may hold (a save replaces a directory holding these only).
_INDEX_FILES = frozenset({"meta.json", *_DATA_FILES, JOINS_FILE, ANN_FILE, "schema.json"})  # and format 1's
#: A load retries this many times when a save replaces the directory while it is read.
_LOAD_ATTEMPTS = 20


_T = TypeVar("_T")


def save_directory(target: Path, write: Callable[[Path], None]) -> Path:
    """Save an index at ``target``: ``write(folder)`` writes its files into a temporary directory
    beside ``target`` that then takes its place (:func:`~jar_core.index.publish.publish`); readers see the old index or
    the new one, never neither. A failed save leaves the old index intact and removes its
    temporary directory; one killed outright leaves it behind for the next save to remove.

    Raises:
        IndexSaveError: ``target`` is a file, or a directory holding anything but an index
            (:func:`check_index_target`: nothing in it is removed), or the files cannot be
            written (an ``OSError`` too).
    """
    try:
        check_index_target(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        sweep(target)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}{TMP}{os.getpid()}-", dir=target.parent))
    except OSError as e:
        raise IndexSaveError(f"cannot save the index at {target}: {e.strerror or e}") from e
    try:
        write(tmp)
        publish(tmp, target)
    except OSError as e:
        if isinstance(e, IndexSaveError):
            raise
        raise IndexSaveError(f"cannot save the index at {target}: {e.strerror or e}") from e
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # after an exchange it holds the old index
    return target


def load_directory(p: Path, read: Callable[[Path, dict[str, Any]], _T]) -> _T:
    """``read(p, files)`` of the bytes (or memory maps) of every file of the index at ``p``
    (``None`` when missing); read again when a save replaced the directory meanwhile and
    ``read`` found it corrupt (up to :data:`_LOAD_ATTEMPTS` times)."""
    for attempt in range(_LOAD_ATTEMPTS):
        before = _identity(p)
        try:
            files, ident = _read_index_files(p)
        except IndexLoadError:  # a file opened as a save replaced the directory (the schema's database)
            if attempt + 1 < _LOAD_ATTEMPTS and _identity(p) != before:
                continue
            raise
        try:
            with gc_paused():  # millions of small objects: no collections while they are made
                return read(p, files)
        except StaleIndexError:
            raise
        except IndexLoadError:
            if attempt + 1 < _LOAD_ATTEMPTS and _identity(p) != ident:
                continue  # a save replaced the directory while it was read
            raise
    raise AssertionError("unreachable")  # pragma: no cover


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
    files: dict[str, Any] = {}
    try:
        for name in ("meta.json", *_DATA_FILES, JOINS_FILE, ANN_FILE):
            # the schema's SQLite connection is opened through the handle its bytes are read from
            files[name] = _read(p, name, dfd, mapped=name in ("vectors.npz", ANN_FILE, SCHEMA_FILE),
                                connect=files if name in (SCHEMA_FILE, "vectors.npz") else None)
        if files["meta.json"] is None:
            raise IndexLoadError(f"no index at {p} (meta.json missing)")
    except BaseException:
        _close_handles(files)
        raise
    finally:
        if dfd is not None:
            os.close(dfd)
    return files, (st.st_dev, st.st_ino)


def _read(p: Path, name: str, dfd: int | None, mapped: bool = False, connect: dict[str, Any] | None = None) -> Any:
    """The bytes of file ``name`` (``None`` when missing); ``mapped``: a read-only memory map of
    it where the system can map it (the vectors: only the pages used are read, none copied);
    ``connect``: an SQLite connection to the file is put there too (:data:`~jar_core.index.stored_schema.SCHEMA_CONNECTION`).

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
    if connect is not None and name == "vectors.npz":
        connect[_VECTORS_FD] = os.dup(fd)  # rows of a large index are read with it (jar_core.index.checked)
    elif connect is not None:
        try:
            connect[SCHEMA_CONNECTION] = connect_at(p, name, fd)
        except IndexLoadError:
            os.close(fd)
            raise
    if mapped and _MAP_FILES:
        try:
            data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)  # keeps its own handle of the file
            os.close(fd)
            return data
        except (OSError, ValueError):  # an empty file, a file system that cannot map: read it
            pass
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read(st.st_size)  # a file saves never change in place: no more than it holds
        except OSError as e:
            raise IndexLoadError(f"cannot read {name} of the index at {p}: {e.strerror or e}") from e


#: The key of a load's files holding a handle of ``vectors.npz`` (closed unless a large index keeps it).
_VECTORS_FD = "vectors.npz:fd"

def _close_handles(files: dict[str, Any]) -> None:
    """Close what a load opened beside the files' bytes, unless the index read keeps it."""
    close_saved_schema(files)
    fd = files.pop(_VECTORS_FD, None)
    if fd is not None:
        os.close(fd)


#: The largest ``meta.json`` read (a few kilobytes when saved here).
_MAX_BYTES = {"meta.json": 1 << 20}

#: Files at least this large are hashed in a thread of their own while the load goes on.
_HASH_BESIDE_BYTES = 32 << 20


#: Mapped files are hashed and checked in chunks of this many bytes (:data:`jar_core.index.npz.CHUNK_BYTES`).
_CHUNK_BYTES = CHUNK_BYTES


def _sha256_beside(data: Any) -> Any:
    """A function returning the SHA-256 (hex) of ``data``, computed meanwhile in a thread when
    ``data`` is large (hashlib releases the GIL: the schema is parsed at the same time)."""
    if len(data) < _HASH_BESIDE_BYTES:
        digest = hashlib.sha256(data).hexdigest()
        return lambda: digest
    out: list[str] = []
    thread = threading.Thread(target=lambda: out.append(sha256_released(data, _CHUNK_BYTES)),
                              name="jar-index-checksum", daemon=True)
    thread.start()

    def result() -> str:
        thread.join()
        return out[0] if out else sha256_released(data, _CHUNK_BYTES)

    return result


def _all_finite_mapped(arrays: dict[str, np.ndarray], data: Any) -> str | None:
    """The name of the first of ``arrays`` (views of the map ``data``) holding a non-finite value,
    or ``None``; read in blocks (:func:`~jar_core.index.npz.all_finite`), each block's pages released after its check."""
    base = np.frombuffer(data, dtype=np.uint8, count=1).__array_interface__["data"][0] if len(data) else 0
    for name, arr in arrays.items():
        if arr.ndim != 2 or arr.shape[0] == 0:
            if not np.isfinite(arr).all():
                return name
            continue
        row_bytes = arr.strides[0]
        start = arr.__array_interface__["data"][0] - base

        def release(a: int, b: int) -> None:
            release_pages(data, start + a * row_bytes, start + b * row_bytes)

        if not all_finite(arr, max(1, _CHUNK_BYTES // max(row_bytes, 1)), release):
            return name
    return None


def _parse_meta(p: Path, data: bytes | None, *, replacing: bool = False) -> dict[str, Any]:
    """``meta.json`` checked; ``replacing``: an index of an older format is accepted too (a save
    may replace it: it is an index, as :func:`check_index_target` asks)."""
    try:
        meta = json.loads((data or b"").decode("utf-8"))
    except (ValueError, RecursionError) as e:  # JSONDecodeError, UnicodeDecodeError
        raise IndexLoadError(f"index at {p} is corrupt: meta.json unreadable ({e})") from e
    version = meta.get("format_version") if isinstance(meta, dict) else None
    if replacing and type(version) is int and 1 <= version < FORMAT_VERSION:
        return meta
    if not isinstance(meta, dict) or version != FORMAT_VERSION:
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


def _parse_vectors(p: Path, data: Any, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    try:
        z = npz_arrays(data, shapes)
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


def read_index_files(
    p: Path, files: dict[str, Any], *, schema: Schema | None, model_name: str | None,
) -> tuple[dict[str, Any], Schema, dict[str, np.ndarray], bool]:
    """``(meta, schema, arrays, mapped)`` of the index at ``p`` whose files :func:`load_directory`
    read, every file checked (SHA-256, types, shapes; the finite values where ``mapped``: the
    vectors are a memory map of their file). With ``schema`` given the saved schema is not
    parsed (its checksum and fingerprint vouch for it) and ``schema`` is returned.

    Raises :class:`IndexLoadError` if a file is missing, truncated, corrupt or malformed, and
    :class:`StaleIndexError` if ``schema`` or ``model_name`` differs from the index's.
    """
    try:
        return _read_checked(p, files, schema=schema, model_name=model_name)
    finally:
        _close_handles(files)  # unless the schema read keeps it


def _read_checked(
    p: Path, files: dict[str, Any], *, schema: Schema | None, model_name: str | None,
) -> tuple[dict[str, Any], Schema, dict[str, np.ndarray], bool]:
    meta = _parse_meta(p, files["meta.json"])
    if model_name is not None and meta["model"] != model_name:
        raise StaleIndexError(f"index at {p} was built with model {meta['model']!r}, not {model_name!r}; rebuild it")
    if meta.get("texts", 1) != TEXTS_VERSION:  # vectors of other texts (jar_core.index.texts)
        raise StaleIndexError(f"index at {p} embeds texts of version {meta.get('texts', 1)}, "
                              f"not {TEXTS_VERSION}; rebuild it")
    if files["vectors.npz"] is None:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: vectors.npz is missing")
    # The vectors' checksum is computed beside the schema's parsing (hashing lets the other
    # thread run); every check still comes before the index is returned, and in file order.
    # a large index's vectors are checked by blocks when read (jar_core.index.checked), not here
    lazy = _MAP_FILES and meta.get("blocks") is not None and isinstance(files["vectors.npz"], mmap.mmap) \
        and len(files["vectors.npz"]) > checked.CHECK_WHOLE_BYTES
    vectors_digest = (lambda: meta["sha256"]["vectors.npz"]) if lazy else _sha256_beside(files["vectors.npz"])

    def check_vectors() -> None:
        if vectors_digest() != meta["sha256"]["vectors.npz"]:
            raise IndexLoadError(f"index at {p} is corrupt or truncated: vectors.npz does not match its checksum")

    try:
        data = files[SCHEMA_FILE]
        if data is None:
            raise IndexLoadError(f"index at {p} is corrupt or truncated: {SCHEMA_FILE} is missing")
        if sha256_released(data, _CHUNK_BYTES) != meta["sha256"][SCHEMA_FILE]:
            raise IndexLoadError(f"index at {p} is corrupt or truncated: {SCHEMA_FILE} does not match its checksum")
        if schema is not None and schema.fingerprint() != meta["schema_fingerprint"]:
            raise StaleIndexError(f"index at {p} was built for another schema; rebuild it")
        blocks = checked.saved_blocks(p, files["vectors.npz"], meta, lambda name: read_blocks(files[SCHEMA_CONNECTION], name)) \
            if lazy else None
        if schema is None:
            schema = open_saved_schema(p, files, meta)
    except (IndexLoadError, StaleIndexError):
        check_vectors()  # a corrupt vectors.npz is reported first, as it always was
        raise
    check_vectors()
    offsets = structure(schema).col_offsets
    n_t, n_c, dim = len(offsets) - 1, int(offsets[-1]), meta["dim"]
    arrays = _parse_vectors(p, files["vectors.npz"],  # type: ignore[arg-type]
                            {"table_vectors": (n_t, dim), "column_vectors": (n_c, dim), _NAME_ARRAY: (n_c, dim)})
    if arrays["table_vectors"].shape[1:] != (meta["dim"],):
        raise IndexLoadError(
            f"index at {p} is corrupt: vectors of dimension {arrays['table_vectors'].shape[1:]}, meta.json says {meta['dim']}"
        )
    mapped = isinstance(files["vectors.npz"], mmap.mmap)
    if blocks is not None:
        arrays = checked.wrap_arrays(p, arrays, blocks, files["vectors.npz"], files.get(_VECTORS_FD))
    elif mapped:  # checked here block by block, the pages released: no whole file left resident
        bad = _all_finite_mapped(arrays, files["vectors.npz"])
        if bad is not None:
            raise IndexLoadError(f"index at {p} is corrupt: index array {bad} holds non-finite values (NaN or infinity)")
    return meta, schema, arrays, mapped


def write_index_files(
    folder: Path, schema: Schema, model_name: str, arrays: dict[str, np.ndarray], *, store_samples: bool,
    joins: tuple[dict[str, np.ndarray], dict[str, Any]], ann: tuple[bytes, dict[str, Any]] | None = None,
) -> None:
    """Write the files of an index into ``folder``, each streamed and synced (the arrays are
    never held in memory twice), its SHA-256 read back in chunks; ``meta.json`` last.

    ``arrays``: ``table_vectors``, ``column_vectors`` and, if embedded, ``name_vectors``;
    ``joins``: the join graphs' arrays and meta entry; ``ann``: the approximate index of the
    first stage and its meta entry (:mod:`jar_core.index.ann`).
    """
    digests = {"vectors.npz": write_npz(folder / "vectors.npz", arrays)}
    blocks: dict[str, bytes] = {}
    if (folder / "vectors.npz").stat().st_size > checked.CHECK_WHOLE_BYTES:  # checked by blocks when loaded
        for name, arr in arrays.items():
            rows = checked.block_rows(arr)
            blocks[f"blocks.{name}"] = rows.to_bytes(8, "little") + checked.block_digests(arr, rows)
    write_schema_store(folder / SCHEMA_FILE, schema, store_samples=store_samples, extra=blocks)
    digests[SCHEMA_FILE] = file_sha256(folder / SCHEMA_FILE)
    digests[JOINS_FILE] = write_npz(folder / JOINS_FILE, joins[0])
    if ann is not None:  # the approximate index of the first stage (jar_core.index.ann)
        write_file(folder / ANN_FILE, ann[0])
        digests[ANN_FILE] = hashlib.sha256(ann[0]).hexdigest()
    meta = {
        "format_version": FORMAT_VERSION,
        "model": model_name,
        "schema_fingerprint": schema.fingerprint(),
        "tables": len(schema.tables),
        "columns": int(arrays["column_vectors"].shape[0]),
        "dim": int(arrays["table_vectors"].shape[1]),
        "samples": bool(store_samples),
        "name_vectors": "name_vectors" in arrays,
        "descriptions": True,  # the texts embed the tables' and columns' comments (jar_core.index.texts)
        "texts": TEXTS_VERSION,
        "joins": joins[1],
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "sha256": digests,
        **({"blocks": [k.split(".", 1)[1] for k in blocks]} if blocks else {}),
    }
    if ann is not None:
        meta["ann"] = entry_with_vectors(ann[1], meta["sha256"])
    write_file(folder / "meta.json", json.dumps(meta, indent=2).encode("utf-8"))


def read_saved_joins(
    p: Path, meta: dict[str, Any], data: Any, col_table: np.ndarray, n_tables: int,
) -> dict[bool, tuple[Any, str, np.ndarray | None]]:
    """The join graphs saved with the index at ``p``, by ``cross_database`` flag, each with the
    digest of the inputs it was inferred from (``col_table``: each column's table position) and
    its link tables (:func:`jar_core.joins.graph.link_tables`, a mask over the ``n_tables``
    tables; ``None`` where the index does not hold them).

    An index saved before join graphs were saved, or with graphs of other rules, has none: they
    are inferred on first use. A graph whose file does not match its checksum or is malformed
    makes the index corrupt, as any other file does.
    """
    from jar_core.joins.store import graph_from_arrays, graph_name, rules_version

    entry = meta.get("joins")
    digest = meta["sha256"].get(JOINS_FILE)
    out: dict[bool, tuple[Any, str, np.ndarray | None]] = {}
    if not isinstance(entry, dict) or not isinstance(digest, str):
        return out
    if entry.get("rules") != rules_version():
        log.info("join graphs of the index at %s were inferred by other join rules (%s, now %s); inferring them again",
                 p, entry.get("rules"), rules_version())
        return out
    if data is None:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: {JOINS_FILE} is missing")
    if hashlib.sha256(data).hexdigest() != digest:
        raise IndexLoadError(f"index at {p} is corrupt or truncated: {JOINS_FILE} does not match its checksum")
    try:
        arrays = npz_arrays(data)
        graphs = entry["graphs"]
        if not isinstance(graphs, dict):
            raise ValueError("meta.json lists no graphs")
        for g in graphs.values():
            cross, inputs = g["cross_database"], g["inputs"]
            if not isinstance(cross, bool) or not isinstance(inputs, str):
                raise ValueError(f"meta.json describes a graph as {g!r}")
            graph = graph_from_arrays(arrays, cross, col_table, n_tables)
            if g.get("edges") != len(graph):
                raise ValueError(f"meta.json says {g.get('edges')!r} joins, the file holds {len(graph)}")
            links = arrays.get(f"{graph_name(cross)}_links")
            if links is not None and (links.dtype != np.uint8 or links.shape != (n_tables,)):
                raise ValueError(f"array {graph_name(cross)}_links has dtype {links.dtype} and shape {links.shape}, "
                                 f"expected uint8 and ({n_tables},)")
            out[cross] = (graph, inputs, None if links is None else links.astype(bool))
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile, struct.error) as e:
        raise IndexLoadError(f"index at {p} is corrupt: {JOINS_FILE} unreadable ({e})") from e
    return out


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
        _parse_meta(target, _read(target, "meta.json", None), replacing=True)
    except IndexLoadError as e:
        raise IndexSaveError(f"{target} is not an index this version can replace ({e}); refusing to overwrite it: "
                             "remove it yourself or save elsewhere") from None


def partial_dir(target: str | os.PathLike[str]) -> Path:
    """The work directory of :func:`build_index` for the index at ``target``: ``.NAME.partial`` beside it."""
    t = Path(target)
    return t.with_name(f".{t.name}.partial")


def lock_exclusively(f: Any, work: Path) -> None:
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
    """Where indexes are cached between runs: ``$JAR_RETRIEVAL_CACHE/indexes``, else ``indexes`` in
    the user's cache directory for ``jar-retrieval`` (``$XDG_CACHE_HOME`` or ``~/.cache`` on Linux,
    ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows)."""
    base = os.environ.get("JAR_RETRIEVAL_CACHE")
    if not base:
        from platformdirs import user_cache_dir

        base = user_cache_dir("jar-retrieval", appauthor=False)
    return Path(base) / "indexes"


def cache_path(schema: Schema, model_name: str) -> Path:
    """The cached index of ``schema`` embedded with ``model_name`` (keyed by fingerprint and model)."""
    slug = re.sub(r"[^A-Za-z0-9]+", "-", model_name.rsplit("/", 1)[-1]).strip("-")[:40]
    key = hashlib.sha256(f"{schema.fingerprint()}|{model_name}".encode()).hexdigest()[:16]
    return cache_dir() / f"{key}-{slug}"


def _last_cached_file(schema: Schema, model_name: str) -> Path:
    key = hashlib.sha256(json.dumps([sorted(schema.databases), model_name]).encode()).hexdigest()[:16]
    return cache_dir() / f"last-{key}"


def last_cached(schema: Schema, model_name: str) -> Path | None:
    """The index cached last for ``schema``'s databases with ``model_name`` (any version of their
    tables and descriptions), or ``None``: the vectors a new version reuses by text."""
    try:
        p = Path(_last_cached_file(schema, model_name).read_text(encoding="utf-8").strip())
    except OSError:
        return None
    return p if p.parent == cache_dir() and p.is_dir() else None


def remember_cached(schema: Schema, model_name: str, path: Path) -> None:
    """Record ``path`` as the index cached last for ``schema``'s databases with ``model_name``
    (written atomically; a cache that cannot be written is left as it is)."""
    f = _last_cached_file(schema, model_name)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{f.name}.", dir=f.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(str(path))
        os.replace(tmp, f)
    except OSError:
        pass
