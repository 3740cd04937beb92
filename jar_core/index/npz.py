"""The arrays of an index directory as ``.npz`` files that can be used where they lie (mapped).

Part of the on-disk format (:mod:`jar_core.index.store`; METHOD.md, "Offline indexing": the
index is computed once and saved). :func:`write_npz` streams each array into an uncompressed
``.npz`` whose array data starts at a multiple of 64 bytes (a mapped array is copied from its
file, not read through the map); :func:`npz_arrays` reads such a file as read-only views of its
bytes or memory map, and any other ``.npz`` (compressed, or written by ``np.savez``) as bounded
copies: a member's declared size is checked before its array is allocated.
"""
from __future__ import annotations

import hashlib
import io
import math
import mmap
import os
import struct
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from jar_core.errors import IndexSaveError

__all__ = ["write_npz", "npz_arrays", "write_file", "file_sha256", "all_finite", "release_pages", "sha256_released",
           "CHUNK_BYTES"]

#: Array data in the ``.npz`` files this module writes starts at a multiple of this many bytes,
#: so the arrays can be used where they lie in the file (mapped) without a copy.
_ALIGN = 64
_ZIP_PAD_FIELD = 0xD935  # the extra field of zip aligners: padding, ignored by readers


#: Bytes per read when files are copied or hashed.
_COPY_BYTES = 16 << 20
#: Mapped files are read in chunks of this many bytes, each chunk's pages released after use.
CHUNK_BYTES = 64 << 20


def release_pages(data: Any, start: int = 0, end: int | None = None) -> None:
    """Drop the pages of bytes ``start:end`` (default: all) of the memory map ``data`` from this
    process (they are read again from the file if used later), so that reading a large index does
    not leave all of it resident; nothing where ``data`` is not a map or the system cannot."""
    if not isinstance(data, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED"):
        return
    start -= start % mmap.PAGESIZE
    end = len(data) if end is None else min(end, len(data))
    if end > start:
        try:
            data.madvise(mmap.MADV_DONTNEED, start, end - start)
        except (OSError, ValueError):  # pragma: no cover - an advice the system refuses
            pass


def sha256_released(data: Any, chunk: int = CHUNK_BYTES) -> str:
    """SHA-256 (hex) of ``data`` (bytes or a memory map) read in chunks of ``chunk`` bytes, a map's
    pages released after each (:func:`release_pages`)."""
    h = hashlib.sha256()
    view = memoryview(data)
    for a in range(0, len(view), chunk):
        h.update(view[a : a + chunk])
        release_pages(data, a, a + chunk)
    view.release()
    return h.hexdigest()


def all_finite(arr: np.ndarray, rows: int = 1 << 16, after: Any = None) -> bool:
    """Whether ``arr`` holds finite values only (checked in blocks of rows: no array of its size);
    ``after(a, b)`` is called once rows ``a:b`` are checked."""
    for a in range(0, arr.shape[0], rows):
        if not np.isfinite(arr[a : a + rows]).all():
            return False
        if after is not None:
            after(a, a + rows)
    return True



def write_file(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def file_sha256(path: Path) -> str:
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


def write_npz(path: Path, arrays: dict[str, np.ndarray]) -> str:
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
    return file_sha256(path)


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


def npz_arrays(data: Any, shapes: dict[str, tuple[int, ...]] | None = None) -> dict[str, np.ndarray]:
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
