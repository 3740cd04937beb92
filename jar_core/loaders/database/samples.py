"""Column statistics and sample values from a table's first rows: the share of distinct values
(:attr:`~jar_core.schema.Column.unique_ratio`) and the first distinct values, JSON-friendly
(:attr:`~jar_core.schema.Column.sample`), read within a row count and a byte budget.

The input side of METHOD.md: sample values are what value matching finds a question's names in
('Iron Maiden' -> ``artist.name``), and evidence for the join rules (inclusion, types, uniqueness).
A long value is kept only as its first characters and a digest.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import math
import sys
import warnings
from contextlib import closing
from decimal import Decimal
from typing import Any, Sequence

from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError

from jar_core.loaders.database.connect import error_message
from jar_core.loaders.declarations import DEFAULT_SAMPLE_VALUES, MAX_SAMPLE_CHARS, enum_sample
from jar_core.loaders.database.rows import bounded_rows
from jar_core.schema import Table

__all__ = ["enum_sample", "DEFAULT_SAMPLE_BYTES", "DEFAULT_SAMPLE_VALUES", "MAX_SAMPLE_CHARS"]

logger = logging.getLogger(__name__)


#: Default budget of the statistics query of one table: reading stops after this many bytes of values.
DEFAULT_SAMPLE_BYTES = 16 * 2**20


#: Characters (bytes of a binary value) of one value the statistics query reads at most: a
#: longer one is cut in SQL and known by this prefix and its length.
_LONG_VALUE_CHARS = 4096


_SKIP = object()  # marks a value that has no place in a JSON sample (bytes, NaN)


def _add_statistics(
    conn: Connection, table: Table, schema: str | None, sample_rows: int, sample_values: int, sample_bytes: int,
    where: str, secrets: Sequence[str] = (),
) -> None:
    """Fill the column statistics of ``table`` from its first rows (one bounded, streamed query).

    At most ``sample_rows`` rows are read, and no more once the values read add up to
    ``sample_bytes`` (a value counted at its full length); a long value is read as its first
    :data:`_LONG_VALUE_CHARS` characters and its length where the dialect allows
    (:func:`bounded_rows`), and kept only as its first characters and a digest.
    """
    chars = min(_LONG_VALUE_CHARS, max(sample_bytes, MAX_SAMPLE_CHARS))
    stats = [_ColumnStats(sample_values) for _ in table.columns]
    n_rows, budget, complete = 0, sample_bytes, True
    try:
        with closing(bounded_rows(conn, table, schema, sample_rows, chars, stream=True)) as rows:
            for row in rows:
                n_rows += 1
                for column_stats, (value, length) in zip(stats, row):
                    if value is not None:
                        budget -= _size(value) + max(0, (length or 0) - _length(value))
                        column_stats.add(value, length)
                if budget <= 0:
                    complete = False
                    break
    except SQLAlchemyError as err:
        conn.rollback()
        warnings.warn(
            f"the rows of table {table.name!r} of {where} could not be read ({error_message(err, secrets)}); "
            "it is loaded without sample values (value matching will not find its names)",
            stacklevel=2,
        )
        return
    if budget <= 0:
        logger.info("statistics of table %r of %s from its first %d rows (%d-byte budget)", table.name, where,
                    n_rows, sample_bytes)
    if complete and n_rows < sample_rows:
        table.row_count = n_rows
    for col, column_stats in zip(table.columns, stats):
        col.unique_ratio, sample = column_stats.result(n_rows)
        if not col.enum:  # an enumeration keeps its type's labels
            col.sample = sample


class _ColumnStats:
    """Distinct non-null values of a column (long ones by digest) and its first JSON-friendly samples."""

    def __init__(self, sample_values: int) -> None:
        self.sample_values = sample_values
        self.distinct: dict[Any, None] = {}
        self.samples: dict[Any, None] = {}

    def add(self, value: Any, length: int | None = None) -> None:
        """Count ``value`` (the first characters of a value of ``length``, when it was cut)."""
        value = _hashable(value)
        key = _compact(value, length)
        if key in self.distinct:
            return
        self.distinct[key] = None
        if len(self.samples) < self.sample_values:
            converted = _json_value(value)
            if converted is not _SKIP:
                self.samples.setdefault(converted, None)

    def result(self, n_rows: int) -> tuple[float | None, tuple[Any, ...]]:
        """(distinct values / ``n_rows``, samples in first-seen order); ``(None, ())`` for no rows."""
        if n_rows == 0:
            return None, ()
        return len(self.distinct) / n_rows, tuple(self.samples)


def _column_stats(values: Sequence[Any], n_rows: int, sample_values: int) -> tuple[float | None, tuple[Any, ...]]:
    """(distinct non-null values / ``n_rows``, up to ``sample_values`` JSON-friendly values in first-seen order)."""
    stats = _ColumnStats(sample_values)
    for value in values:
        if value is not None:
            stats.add(value)
    return stats.result(n_rows)


def _size(value: Any) -> int:
    """Bytes a value takes in memory (strings and binary values by their length)."""
    if isinstance(value, memoryview):
        return value.nbytes
    return sys.getsizeof(value)


def _length(value: Any) -> int:
    """Characters of a string, bytes of a binary value, 0 for anything else."""
    if isinstance(value, memoryview):
        return value.nbytes
    return len(value) if isinstance(value, (str, bytes, bytearray)) else 0


def _compact(value: Any, length: int | None = None) -> Any:
    """A hashable stand-in for ``value`` that tells distinct values apart without keeping long ones
    (by their ``length``, when given: that of the whole value of which ``value`` is the start)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        return ("\0bytes", length or len(data), hashlib.blake2b(data, digest_size=16).digest())
    if isinstance(value, str) and len(value) > MAX_SAMPLE_CHARS:
        data = value.encode("utf-8", "surrogatepass")
        return ("\0text", length or len(value), hashlib.blake2b(data, digest_size=16).digest())
    return value


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:  # lists, dicts (JSON / ARRAY columns)
        return json.dumps(value, default=str, ensure_ascii=False, sort_keys=True)
    return value


def _json_value(value: Any) -> Any:
    """``value`` as a JSON-friendly sample: dates as ISO strings, Decimal as float; bytes and NaN skipped."""
    if isinstance(value, (bool, int)):
        return value
    if isinstance(value, Decimal):
        return float(value) if value.is_finite() else _SKIP
    if isinstance(value, float):
        return value if math.isfinite(value) else _SKIP
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _SKIP
    if isinstance(value, (_dt.date, _dt.time)):
        text = value.isoformat()
    elif isinstance(value, str):
        text = value
    else:
        text = str(value)
    return text[:MAX_SAMPLE_CHARS]
