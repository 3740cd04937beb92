"""The schema index: table and column embeddings computed once for a schema.

Saved as a directory holding ``vectors.npz`` (NumPy arrays), ``schema.json`` and
``meta.json`` (format version, model name, schema fingerprint, array shapes and a SHA-256
of each file). Loading reads each file once and checks what it read; saving writes a new
directory beside the target and exchanges the two atomically, so a reader never sees a mix
of two indexes or no index at all.
"""

from __future__ import annotations

import ctypes
import errno
import hashlib
import io
import json
import logging
import os
import re
import shutil
import sys
import tempfile
import time
import uuid
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

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
        self._join_graphs: dict[bool, Any] = {}
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

    @property
    def value_index(self) -> Any:
        """The schema's :class:`~jar_core.values.ValueIndex` of sample values (built on first use)."""
        vi = getattr(self, "_value_index", None)
        if vi is None:
            from jar_core.values import ValueIndex

            vi = self._value_index = ValueIndex.from_schema(self.schema)
        return vi

    def join_graph(self, *, cross_database: bool = False) -> Any:
        """The schema's :class:`~jar_core.joins.JoinGraph` (inferred on first use, then kept)."""
        graph = self._join_graphs.get(cross_database)
        if graph is None:
            from jar_core.joins import build_join_graph

            graph = self._join_graphs[cross_database] = build_join_graph(
                self.schema, self.col_offsets, cross_database=cross_database
            )
        return graph

    # -- persistence ----------------------------------------------------------------
    def save(self, path: str | os.PathLike[str], *, store_samples: bool = True) -> Path:
        """Write the index to directory ``path``; readers see the old index or the new one, never neither.

        The files are written to a temporary directory beside ``path`` that then takes its place
        in one atomic exchange where the system has one (Linux, macOS). A failed save leaves the
        old index intact and removes its temporary directory; one killed outright leaves it
        behind for the next save to remove. With ``store_samples=False`` the column sample
        values (rows of the source) are left out of the saved schema.

        Raises:
            IndexLoadError: ``path`` is a file, or a directory that is not an index.
            IndexSaveError: the files cannot be written (an ``OSError`` too).
        """
        target = Path(path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _sweep(target)
            check_index_target(target)
            tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}{_TMP}{os.getpid()}-", dir=target.parent))
        except OSError as e:
            raise IndexSaveError(f"cannot save the index at {target}: {e.strerror or e}") from e
        try:
            self._write(tmp, store_samples)
            _publish(tmp, target)
        except OSError as e:
            if isinstance(e, IndexSaveError):
                raise
            raise IndexSaveError(f"cannot save the index at {target}: {e.strerror or e}") from e
        finally:
            shutil.rmtree(tmp, ignore_errors=True)  # after an exchange it holds the old index
        return target

    def _write(self, folder: Path, store_samples: bool) -> None:
        buf = io.BytesIO()
        np.savez(buf, table_vectors=self.table_vectors, column_vectors=self.column_vectors,
                 name_vectors=self.name_vectors)
        schema = self.schema.to_dict()
        if not store_samples:
            for t in schema["tables"]:
                for c in t["columns"]:
                    c.pop("sample", None)
        files = {
            "vectors.npz": buf.getvalue(),
            "schema.json": json.dumps(schema, ensure_ascii=False).encode("utf-8"),
        }
        meta = {
            "format_version": FORMAT_VERSION,
            "model": self.model_name,
            "schema_fingerprint": self.schema.fingerprint(),
            "tables": len(self.schema.tables),
            "columns": int(self.col_offsets[-1]),
            "dim": int(self.table_vectors.shape[1]),
            "samples": bool(store_samples),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "sha256": {n: hashlib.sha256(data).hexdigest() for n, data in files.items()},
        }
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

        Raises :class:`IndexLoadError` if it is missing, truncated, corrupt or malformed, and
        :class:`StaleIndexError` if ``schema`` or ``model_name`` is given and differs from the
        one the index was built for.
        """
        p = Path(path)
        for attempt in range(_LOAD_ATTEMPTS):
            files, ident = _read_index_files(p)
            try:
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
        for fname in _DATA_FILES:
            data = files[fname]
            if data is None:
                raise IndexLoadError(f"index at {p} is corrupt or truncated: {fname} is missing")
            if hashlib.sha256(data).hexdigest() != meta["sha256"][fname]:
                raise IndexLoadError(f"index at {p} is corrupt or truncated: {fname} does not match its checksum")
        if schema is not None and schema.fingerprint() != meta["schema_fingerprint"]:
            raise StaleIndexError(f"index at {p} was built for another schema; rebuild it")
        if schema is None:
            schema = _parse_schema(p, files["schema.json"])  # type: ignore[arg-type]
            if schema.fingerprint() != meta["schema_fingerprint"]:
                raise IndexLoadError(f"index at {p} is corrupt: schema.json does not match its fingerprint")
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
        return index


# -- reading and writing index directories -------------------------------------------------

_DATA_FILES = ("vectors.npz", "schema.json")
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
        files = {name: _read(p, name, dfd) for name in ("meta.json", *_DATA_FILES)}
    finally:
        if dfd is not None:
            os.close(dfd)
    if files["meta.json"] is None:
        raise IndexLoadError(f"no index at {p} (meta.json missing)")
    return files, (st.st_dev, st.st_ino)


def _read(p: Path, name: str, dfd: int | None) -> bytes | None:
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_BINARY", 0), dir_fd=dfd) if dfd is not None else \
            os.open(p / name, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return None
    except OSError as e:
        raise IndexLoadError(f"cannot read {name} of the index at {p}: {e.strerror or e}") from e
    with os.fdopen(fd, "rb") as f:
        try:
            return f.read()
        except OSError as e:
            raise IndexLoadError(f"cannot read {name} of the index at {p}: {e.strerror or e}") from e


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


def _parse_vectors(p: Path, data: bytes) -> dict[str, np.ndarray]:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in _ARRAYS}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
        raise IndexLoadError(f"index at {p} is corrupt: vectors.npz unreadable ({e})") from e
    for name, arr in arrays.items():
        if arr.dtype != np.float32:
            raise IndexLoadError(f"index at {p} is corrupt: {name} has dtype {arr.dtype}, expected float32")
    return arrays


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
