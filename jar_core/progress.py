"""Progress bars for long work (indexing, evaluation): tqdm on stderr, or nothing."""
from __future__ import annotations

import sys
from typing import Any, Iterable, TypeVar

__all__ = ["progress", "counter"]

T = TypeVar("T")


def progress(iterable: Iterable[T], *, total: int, desc: str, enabled: bool, unit: str = "it") -> Iterable[T]:
    """``iterable`` wrapped in a tqdm bar on stderr when ``enabled``, else unchanged."""
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)


class _Silent:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def counter(*, total: int, desc: str, enabled: bool, unit: str = "it", initial: int = 0) -> Any:
    """A bar advanced by ``update(n)`` and ended by ``close()`` (tqdm on stderr when ``enabled``,
    else one that shows nothing). Off a terminal (a log file) it redraws every 10 seconds."""
    if not enabled:
        return _Silent()
    from tqdm import tqdm

    tty = sys.stderr.isatty()
    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=not tty, dynamic_ncols=True,
                initial=initial, mininterval=0.1 if tty else 10.0, unit_scale=True)
