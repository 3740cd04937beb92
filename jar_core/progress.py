"""Progress bars for long work (indexing, evaluation): tqdm on stderr, or nothing."""
from __future__ import annotations

import sys
from typing import Iterable, TypeVar

__all__ = ["progress"]

T = TypeVar("T")


def progress(iterable: Iterable[T], *, total: int, desc: str, enabled: bool, unit: str = "it") -> Iterable[T]:
    """``iterable`` wrapped in a tqdm bar on stderr when ``enabled``, else unchanged."""
    if not enabled:
        return iterable
    from tqdm import tqdm

    return tqdm(iterable, total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)
