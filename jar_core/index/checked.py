"""Vectors of a large index checked block by block as they are first read (METHOD.md, "Offline
indexing": the index is loaded ready to answer).

A lake's vectors are gigabytes (a column vector per column) of which a question reads a few
hundred rows. Hashing them whole at every load would cost more than everything else the load
does, so an index whose vectors file is larger than :data:`CHECK_WHOLE_BYTES` is saved with a
SHA-256 of each block of rows (about :data:`BLOCK_BYTES` each, :func:`block_digests`; kept in
``schema.sqlite``, itself checked whole at load), and loaded as :class:`CheckedRows`: a block is
hashed and its values checked finite the first time a row of it is read, and a block that does
not match raises :class:`~jar_core.errors.IndexLoadError` before any of its values is used. An
index below that size is checked whole at load, as before.
"""
from __future__ import annotations

import hashlib
import mmap
import os
import threading
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from jar_core.errors import IndexLoadError
from jar_core.index.npz import release_pages

__all__ = ["BLOCK_BYTES", "CHECK_WHOLE_BYTES", "CheckedRows", "block_digests", "block_rows", "saved_blocks", "wrap_arrays"]

#: The rows of a block take about this many bytes (small: the hub correction's probes, a thousand
#: columns spread over the whole index, then read a thousand blocks).
BLOCK_BYTES = 64 << 10
#: A vectors file up to this size is checked whole at load; a larger one block by block, when read.
CHECK_WHOLE_BYTES = 256 << 20


def block_rows(arr: np.ndarray) -> int:
    """Rows per block of ``arr`` (at least one): about :data:`BLOCK_BYTES`."""
    return max(1, BLOCK_BYTES // max(int(arr.strides[0]) if arr.ndim else 1, 1))


def block_digests(arr: np.ndarray, rows: int) -> bytes:
    """The SHA-256 of each block of ``rows`` rows of ``arr``, in order, 32 bytes each; a mapped
    ``arr`` (a build's arrays) is read in chunks whose pages are released after."""
    plain = np.ascontiguousarray(arr)
    mapped = getattr(arr, "_mmap", None) if isinstance(arr, np.memmap) else None
    step = rows * max(1, (64 << 20) // max(rows * int(plain.strides[0]) if plain.ndim else 1, 1))
    out = []
    for c in range(0, len(plain), step):
        out += [hashlib.sha256(memoryview(plain[a : a + rows]).cast("B")).digest()
                for a in range(c, min(c + step, len(plain)), rows)]
        release_pages(mapped)
    return b"".join(out)


#: Rows at most this many apart are read in one ``pread`` (the rows between them dropped).
_GAP = 8


class _Blocks:
    """One array's rows (``plain``: a view of the map ``data`` of its file, open as ``fd``, at byte
    ``offset``), which blocks of them were checked, and their digests.

    Rows are read with ``pread``, not through the map: the system maps a file's pages a folio at
    a time, often far more than asked (a megabyte for a row of 1.5 kB), and they count in the
    process's memory while mapped."""

    def __init__(self, plain: np.ndarray, rows: int, digests: bytes, what: str, fd: int | None, offset: int,
                 data: Any = None) -> None:
        self.plain, self.rows, self.digests, self.what, self.fd, self.offset = plain, rows, digests, what, fd, offset
        self.data = data
        self.row_bytes = int(plain.strides[0]) if plain.ndim else 0
        self.done = np.zeros(len(digests) // 32, dtype=bool)
        self.lock = threading.Lock()

    def _read(self, start: int, stop: int) -> np.ndarray:
        """Rows ``start:stop`` as a new array (from the file with ``pread``, else from the map)."""
        if self.fd is None:
            return np.array(self.plain[start:stop])
        n = (stop - start) * self.row_bytes
        data = os.pread(self.fd, n, self.offset + start * self.row_bytes)
        if len(data) != n:
            raise IndexLoadError(f"{self.what} is corrupt or truncated: rows {start}..{stop - 1} cannot be read")
        return np.frombuffer(data, dtype=self.plain.dtype).reshape((stop - start, *self.plain.shape[1:]))

    def check(self, blocks: np.ndarray) -> None:
        todo = blocks[~self.done[blocks]]
        if not len(todo):
            return
        with self.lock:
            for b in todo.tolist():
                if self.done[b]:
                    continue
                a, z = b * self.rows, min((b + 1) * self.rows, len(self.plain))
                part = self._read(a, z)
                if hashlib.sha256(memoryview(part).cast("B")).digest() != self.digests[32 * b : 32 * b + 32]:
                    raise IndexLoadError(f"{self.what} is corrupt: rows {a}..{z - 1} do not match their checksum")
                if not np.isfinite(part).all():
                    raise IndexLoadError(f"{self.what} is corrupt: rows {a}..{z - 1} hold non-finite values (NaN or infinity)")
                self.done[b] = True

    def take(self, key: Any) -> np.ndarray:
        """Rows ``key`` (an index of the first axis: an integer, a slice, integers or a mask), checked."""
        n = len(self.plain)
        if isinstance(key, slice):
            idx = np.arange(n)[key]
        else:
            idx = np.asarray(key)
            if idx.dtype == bool:
                idx = np.flatnonzero(idx)
            if idx.dtype.kind not in "iu":
                raise IndexError(f"rows must be integers, a slice or a mask, got {idx.dtype}")
            if idx.size and (idx.min() < -n or idx.max() >= n):
                raise IndexError(f"row index out of range for {n} rows")
            idx = np.where(idx < 0, idx + n, idx).astype(np.int64)
        rows, inverse = np.unique(idx.ravel(), return_inverse=True)
        self.check(np.unique(rows // self.rows))
        if self.fd is None:  # no handle: through the map, whose pages are then released
            out = self.plain[rows]
            self.release()
            return out[inverse.reshape(idx.shape)]
        # runs of rows at most _GAP apart, one read each (the rows between are read and dropped)
        starts = np.concatenate([[0], np.flatnonzero(np.diff(rows) > _GAP) + 1])
        ends = np.concatenate([starts[1:], [len(rows)]])
        parts = [self._read(int(rows[a]), int(rows[z - 1]) + 1) for a, z in zip(starts.tolist(), ends.tolist())]
        at = np.concatenate([[0], np.cumsum([len(q) for q in parts])])
        picked = np.concatenate(parts)[np.repeat(at[:-1] - rows[starts], ends - starts) + rows]
        return picked[inverse.reshape(idx.shape)]

    def release(self) -> None:
        """Release the pages of this array's map from the process (read again from the file if used)."""
        if len(self.plain):
            release_pages(self.data, self.offset, self.offset + len(self.plain) * self.row_bytes)

    def check_all(self) -> None:
        self.check(np.arange(len(self.done)))

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def _plain(x: Any) -> Any:
    if isinstance(x, CheckedRows):
        return x.verified()
    if isinstance(x, (tuple, list)):
        return type(x)(_plain(y) for y in x)
    return x


class CheckedRows(np.ndarray):
    """A read-only array of an index's vectors whose rows are checked block by block when first
    read: indexing checks the blocks of the rows asked for and gives a plain array; any other
    NumPy operation on it checks it whole first (:meth:`verified`)."""

    _blocks: _Blocks | None = None

    @classmethod
    def wrap(cls, arr: np.ndarray, rows: int, digests: bytes, what: str, fd: int | None = None,
             offset: int = 0, data: Any = None) -> "CheckedRows":
        """``arr`` (C-ordered, a view of the map ``data``), to be checked against ``digests`` of
        blocks of ``rows`` rows read from the file open as ``fd`` (owned: closed with the array)
        at byte ``offset``."""
        if len(digests) != 32 * -(-len(arr) // rows):
            raise IndexLoadError(f"{what} is corrupt: {len(digests)} block checksums for {len(arr)} rows of {rows}")
        out = arr.view(cls)
        out._blocks = _Blocks(arr, rows, digests, what, fd, offset, data)
        weakref.finalize(out, out._blocks.close)
        return out

    def __array_finalize__(self, obj: Any) -> None:
        self._blocks = None  # a view NumPy derives is not checked by rows: take rows by indexing

    def __getitem__(self, key: Any) -> Any:
        blocks = self._blocks
        if blocks is None:
            return np.ndarray.__getitem__(self.view(np.ndarray), key)
        if isinstance(key, tuple):
            if not key:
                return self.verified()
            first, rest = key[0], key[1:]
        else:
            first, rest = key, ()
        if isinstance(first, (int, np.integer)):
            rows = blocks.take(np.array([first]))[0]
        elif first is Ellipsis or first is None:
            return self.verified()[key]
        else:
            rows = blocks.take(first)
        return rows[(slice(None), *rest)] if rest and not isinstance(first, (int, np.integer)) else rows[rest]

    def verified(self) -> np.ndarray:
        """The whole array, every block checked, as a plain array."""
        if self._blocks is None:
            return self.view(np.ndarray)
        self._blocks.check_all()
        return self._blocks.plain

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if "out" in kwargs:
            kwargs["out"] = _plain(kwargs["out"])
        return getattr(ufunc, method)(*_plain(inputs), **kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        return func(*_plain(args), **{k: _plain(v) for k, v in kwargs.items()})

    def __reduce__(self) -> Any:
        return self.verified().__reduce__()


def saved_blocks(p: Path, data: Any, meta: dict[str, Any], read: Any) -> dict[str, tuple[int, bytes]] | None:
    """``{array: (rows per block, digests)}`` when the vectors in ``data`` are to be checked by
    blocks as read (a mapped file larger than :data:`CHECK_WHOLE_BYTES` saved with block
    checksums: ``meta["blocks"]`` names the arrays, ``read(name)`` gives each one's saved
    ``(rows, digests)``), else ``None``: checked whole at load."""
    names = meta.get("blocks")
    if names is None or not isinstance(data, mmap.mmap) or len(data) <= CHECK_WHOLE_BYTES:
        return None
    out: dict[str, tuple[int, bytes]] = {}
    for name in names if isinstance(names, list) else ():
        rows, digests = read(name) if isinstance(name, str) else (None, None)
        if type(rows) is int and rows > 0 and isinstance(digests, bytes) and len(digests) % 32 == 0:
            out[name] = (rows, digests)
    if not isinstance(names, list) or len(out) != len(names):
        raise IndexLoadError(f"index at {p} is corrupt: the block checksums of the vectors are missing or malformed")
    return out


def wrap_arrays(
    p: Path, arrays: dict[str, np.ndarray], blocks: dict[str, tuple[int, bytes]], data: Any, fd: int | None,
) -> dict[str, np.ndarray]:
    """``arrays`` (views of the map ``data`` of the file open as ``fd``, read from it with ``pread``
    where given: each array gets a handle of its own) as :class:`CheckedRows` against ``blocks``
    (:func:`saved_blocks`)."""
    missing = [n for n in arrays if n not in blocks]
    if missing:
        raise IndexLoadError(f"index at {p} is corrupt: no block checksums of {missing[0]}")
    base = np.frombuffer(data, dtype=np.uint8, count=1).__array_interface__["data"][0]
    out: dict[str, np.ndarray] = {}
    for n, a in arrays.items():
        offset = a.__array_interface__["data"][0] - base
        out[n] = CheckedRows.wrap(a, blocks[n][0], blocks[n][1], f"index at {p}: {n}",
                                  None if fd is None else os.dup(fd), offset, data)
    return out
