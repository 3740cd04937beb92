"""The schema index: table and column embeddings computed once for a schema.

Saved as a directory holding ``vectors.npz`` (NumPy arrays), ``schema.json`` and
``meta.json`` (format version, model name, schema fingerprint, array shapes and a SHA-256
of each file). Loading checks all of it; saving is atomic (written beside the target and
renamed into place).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from jar_core.embedding import CachedEmbedder, Embedder, get_embedder
from jar_core.errors import IndexLoadError, StaleIndexError
from jar_core.progress import progress as _progress
from jar_core.schema import Schema, Table

__all__ = [
    "SchemaIndex", "FORMAT_VERSION", "table_text", "column_text", "column_name_text", "humanize", "cache_dir",
    "cache_path",
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


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


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
            if arr.ndim != 2 or arr.shape[0] != rows:
                raise IndexLoadError(f"index array {name} has shape {arr.shape}, expected ({rows}, dim)")
        self._features: Any = None
        self._join_graphs: dict[bool, Any] = {}

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
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the index to directory ``path`` atomically (a failed save leaves any old index intact)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
        try:
            np.savez(
                tmp / "vectors.npz",
                table_vectors=self.table_vectors,
                column_vectors=self.column_vectors,
                name_vectors=self.name_vectors,
            )
            with open(tmp / "schema.json", "w", encoding="utf-8") as f:
                json.dump(self.schema.to_dict(), f, ensure_ascii=False)
            meta = {
                "format_version": FORMAT_VERSION,
                "model": self.model_name,
                "schema_fingerprint": self.schema.fingerprint(),
                "tables": len(self.schema.tables),
                "columns": int(self.col_offsets[-1]),
                "dim": int(self.table_vectors.shape[1]),
                "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                "sha256": {n: _sha256(tmp / n) for n in ("vectors.npz", "schema.json")},
            }
            with open(tmp / "meta.json", "w", encoding="utf-8") as f:
                json.dump(meta, f, indent=2)
                f.flush()
                os.fsync(f.fileno())
            old = None
            if target.exists():
                if not (target / "meta.json").exists() and any(target.iterdir()):
                    raise IndexLoadError(f"{target} exists and is not an index; refusing to overwrite it")
                old = target.with_name(f".{target.name}.old-{os.getpid()}")
                os.replace(target, old)
            os.replace(tmp, target)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], *, schema: Schema | None = None, model_name: str | None = None,
    ) -> "SchemaIndex":
        """Read an index saved by :meth:`save`.

        Raises :class:`IndexLoadError` if it is missing, truncated or corrupt, and
        :class:`StaleIndexError` if ``schema`` or ``model_name`` is given and differs from the
        one the index was built for.
        """
        p = Path(path)
        if not (p / "meta.json").is_file():
            raise IndexLoadError(f"no index at {p} (meta.json missing)")
        try:
            meta = json.loads((p / "meta.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise IndexLoadError(f"index at {p} is corrupt: meta.json unreadable ({e})") from e
        if not isinstance(meta, dict) or meta.get("format_version") != FORMAT_VERSION:
            raise IndexLoadError(
                f"index at {p} has format version {meta.get('format_version') if isinstance(meta, dict) else '?'}, "
                f"this version reads {FORMAT_VERSION}; rebuild it with 'jar-retrieval index'"
            )
        for fname, digest in (meta.get("sha256") or {}).items():
            fp = p / fname
            if not fp.is_file() or _sha256(fp) != digest:
                raise IndexLoadError(f"index at {p} is corrupt or truncated: {fname} does not match its checksum")
        if model_name is not None and meta.get("model") != model_name:
            raise StaleIndexError(
                f"index at {p} was built with model {meta.get('model')!r}, not {model_name!r}; rebuild it"
            )
        try:
            saved_schema = Schema.from_dict(json.loads((p / "schema.json").read_text(encoding="utf-8")))
            with np.load(p / "vectors.npz", allow_pickle=False) as z:
                arrays = {k: z[k] for k in ("table_vectors", "column_vectors", "name_vectors")}
        except (OSError, ValueError, KeyError, zipfile.BadZipFile) as e:
            raise IndexLoadError(f"index at {p} is corrupt: {e}") from e
        if saved_schema.fingerprint() != meta.get("schema_fingerprint"):
            raise IndexLoadError(f"index at {p} is corrupt: schema.json does not match its fingerprint")
        if schema is not None and schema.fingerprint() != meta.get("schema_fingerprint"):
            raise StaleIndexError(f"index at {p} was built for another schema; rebuild it")
        return cls(schema=schema or saved_schema, model_name=meta["model"], **arrays)


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
