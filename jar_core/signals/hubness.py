"""Hub tables: fine relevance corrected for how well a table matches *any* phrase.

Fine relevance ``F_ji`` is the best column match of sub-query ``q_j`` in table ``i``
(:func:`jar_core.signals.matrices.fine_relevance`). A wide table with many generic columns (``name``,
``description``, ``term_code``, ``status``...) has some column close to almost every phrase, so it
covers every sub-query a little and wins coverage it does not deserve: in an embedding space such
points are *hubs*, near neighbours of everything. The correction is the one of hubness reduction
(CSLS and its relatives): subtract from each table's similarities its similarity to phrases in
general,

    ``h_i = mean over probes p (columns of other tables) of max_{c in table i} cos(p, c)``

    ``F'_ji = F_ji - weight * (h_i - h_bar)``

where the probes are the schema's own column vectors (all of them, or a fixed sample of
:data:`PROBES` in a larger schema) standing for the phrases questions use, and ``h_bar`` is the
mean ``h`` of the schema's tables (of a fixed sample of :data:`BASELINE_TABLES` in a larger schema)
so that ``F`` keeps its scale. A table's own columns are never its probes.

Scores are computed for the tables that become candidates only, and kept on the index (one float
per table; the copies of a table in a lake, with the same column texts, share one), so a lake
pays in proportion to what questions touch. Weight 0 is the paper's ``F``;
the default, :data:`DEFAULT_HUBNESS`, was measured on Spider and BEAVER-DW (docs/results.md,
"Beyond the paper").
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import numpy as np

from jar_core.index.texts import column_text
from jar_core.joins.compat import column_positions

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["DEFAULT_HUBNESS", "MIN_TABLES", "PROBES", "BASELINE_TABLES", "HubScores", "hub_scores", "corrected"]

# The default weight of the correction (``TableRetriever(hubness=...)``) is defined with the other options.
from jar_core.options import DEFAULT_HUBNESS  # noqa: E402
#: Probe columns: every column of a schema up to this many, else a fixed sample of this many.
PROBES = 1024
#: Tables whose mean hub score is the baseline ``h_bar``: all of them up to this many, else a sample.
BASELINE_TABLES = 256
_SEED = 0
_BLOCK = 4096  # columns scored per matrix product


class HubScores:
    """The hub scores of one index's tables, computed on demand and kept."""

    def __init__(self, index: "SchemaIndex") -> None:
        self._index_ref = weakref.ref(index)  # the index keeps its scores, not the other way round
        offsets = np.asarray(index.col_offsets, dtype=np.int64)
        self._offsets = offsets
        n_columns = int(offsets[-1])
        n_tables = len(offsets) - 1
        rng = np.random.default_rng(_SEED)
        if n_columns <= PROBES:
            probes = np.arange(n_columns, dtype=np.int64)
        else:
            probes = np.sort(rng.choice(n_columns, PROBES, replace=False))
        self._probe_table = np.searchsorted(offsets, probes, side="right") - 1
        self._probes = np.ascontiguousarray(np.asarray(index.column_vectors[probes], dtype=np.float32))
        self._scores = np.full(n_tables, np.nan, dtype=np.float32)
        self._by_text: dict[tuple[str, ...], float] = {}  # column texts -> score
        if n_tables <= BASELINE_TABLES:
            base = np.arange(n_tables, dtype=np.int64)
        else:
            base = np.sort(rng.choice(n_tables, BASELINE_TABLES, replace=False))
        self.baseline = float(self.scores(base).mean()) if n_tables else 0.0

    def scores(self, tables: np.ndarray) -> np.ndarray:
        """``h`` of the tables at positions ``tables`` (computed for those not seen before; the
        copies of a table in a lake, with the same column texts, share one score)."""
        tables = np.asarray(tables, dtype=np.int64)
        todo = np.unique(tables[np.isnan(self._scores[tables])])
        if len(todo):
            keys = {int(t): self._key(int(t)) for t in todo}
            for t, k in keys.items():
                self._scores[t] = self._by_text.get(k, np.nan)
            new = todo[np.isnan(self._scores[todo])]
            if len(new):
                self._compute(new)
                for t in new.tolist():
                    self._by_text.setdefault(keys[t], float(self._scores[t]))
        return self._scores[tables]

    def _key(self, t: int) -> tuple[str, ...]:
        table = self._index_ref().schema.tables[t]
        return tuple(column_text(table, i) for i in range(len(table.columns)))

    def _compute(self, tables: np.ndarray) -> None:
        offsets = self._offsets
        sizes = offsets[tables + 1] - offsets[tables]
        have = sizes > 0
        self._scores[tables[~have]] = 0.0  # a table without columns matches nothing
        tables, sizes = tables[have], sizes[have]
        # blocks of whole tables, about _BLOCK columns each
        ends = np.cumsum(sizes)
        start = 0
        while start < len(tables):
            stop = max(int(np.searchsorted(ends, ends[start] - sizes[start] + _BLOCK, side="right")), start + 1)
            block, bsizes = tables[start:stop], sizes[start:stop]
            cols = column_positions(offsets, block)
            # columns x probes, so each table's best match is a reduction over contiguous rows
            sims = np.asarray(self._index_ref().column_vectors[cols], dtype=np.float32) @ self._probes.T
            best = np.maximum.reduceat(sims, np.concatenate([[0], np.cumsum(bsizes)[:-1]]), axis=0)
            own = block[:, None] == self._probe_table[None, :]  # a table's own columns are not its probes
            counted = (~own).sum(axis=1)
            total = np.where(own, 0.0, best).sum(axis=1)
            self._scores[block] = np.where(counted > 0, total / np.maximum(counted, 1), 0.0)
            start = stop


#: This stage's state: the :class:`HubScores` of each index, for as long as the index lives.
_KEPT: "weakref.WeakKeyDictionary[SchemaIndex, HubScores]" = weakref.WeakKeyDictionary()


def hub_scores(index: "SchemaIndex") -> HubScores:
    """The :class:`HubScores` of ``index`` (made once, kept for as long as the index lives)."""
    hubs = _KEPT.get(index)
    if hubs is None:
        hubs = _KEPT[index] = HubScores(index)
    return hubs


#: A schema of fewer tables is not corrected: a table's hub score compares it with the columns of
#: the other tables, and two other tables are too few to say which table matches phrases in general
#: (measured on the development suite, docs/results.md "The rule for the default").
MIN_TABLES = 4


def corrected(F: np.ndarray, index: "SchemaIndex", tables: np.ndarray, weight: float) -> np.ndarray:
    """``F - weight * (h - h_bar)`` for the tables at positions ``tables`` (the columns of ``F``);
    ``F`` as it is in a schema of fewer than :data:`MIN_TABLES` tables."""
    if weight == 0 or F.size == 0 or len(index.schema.tables) < MIN_TABLES:
        return F
    hubs = hub_scores(index)
    return (F - weight * (hubs.scores(tables) - hubs.baseline)[None, :]).astype(F.dtype, copy=False)
