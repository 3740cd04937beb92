"""Publishing a saved index directory atomically (part of the on-disk format, :mod:`jar_core.index.store`).

A save writes the new index into a temporary directory beside the target (``.NAME.tmp-PID-...``);
:func:`publish` then exchanges the two in one system call where the system has one (Linux's
``renameat2``, macOS's ``renamex_np``), else with two renames. :func:`sweep` removes what saves
killed outright left beside the target (their process is gone).
"""
from __future__ import annotations

import ctypes
import errno
import logging
import os
import re
import shutil
import sys
import uuid
from pathlib import Path
from typing import Any

__all__ = ["TMP", "OLD", "publish", "sweep"]

log = logging.getLogger(__name__)

#: The infixes of the temporary directories of a save (``.NAME.tmp-PID-...``, ``.NAME.old-PID-...``).
TMP, OLD = ".tmp-", ".old-"


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


def sweep(target: Path) -> None:
    """Remove what saves of ``target`` killed outright left beside it (their process is gone)."""
    pattern = re.compile(re.escape(f".{target.name}") + rf"(?:{re.escape(TMP)}|{re.escape(OLD)})(\d+)-")
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return
    for entry in entries:
        m = pattern.match(entry.name)
        if m and not _pid_alive(int(m.group(1))):
            log.info("removing %s, left by an interrupted save", entry.path)
            shutil.rmtree(entry.path, ignore_errors=True)


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


def publish(tmp: Path, target: Path) -> None:
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
    old = target.with_name(f".{target.name}{OLD}{os.getpid()}-{uuid.uuid4().hex[:8]}")
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
