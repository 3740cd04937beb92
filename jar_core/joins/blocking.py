"""Blocking: the candidate column pairs of joins across databases, never all pairs.

Within a database the rules compare every column with every other (a database is small). Across
the databases of a lake that is quadratic: every copy of ``singer.singer_id`` is named like every
other, and small numbers (1, 2, 3...) lie in thousands of columns. So the pairs the rules judge
across databases are found by *blocking*:

* a **block** is one item both columns carry: a name alias of a naming rule (``customerid``, the
  same aliases :mod:`.naming` matches within a database) or a sample value (for inclusion);
* within a block every column has a place in one **order** over the whole schema: its type class,
  then a MinHash sketch of its sample values (two columns of equal values sit side by side, a
  column whose values lie inside another's is often next to it), then its position;
* a referencing column is compared with at most :data:`WINDOW` columns of each block it is in,
  the nearest to it in that order (all of them in a block that small), and only with columns
  of *other* databases;
* a value in more than :data:`VALUE_CAP` columns is no block at all (a value that common carries
  no evidence across databases), and a referencing column probes only its rarest values, as
  many as a key holding :data:`~.inclusion.MIN_INCLUSION` of them must share (prefix filtering:
  a key missing every probe cannot hold enough of the column's values).

So the pairs compared grow with the number of columns times the window, not with its square.
The rules themselves (:mod:`.naming`, :mod:`.inclusion`, the checks of :mod:`.graph`) then
decide on those pairs as they do within a database.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import sparse

from jar_core.joins.profile import ColumnProfile, incidence

__all__ = ["WINDOW", "VALUE_CAP", "SKETCH_SEED", "order_rank", "windowed_pairs", "name_pairs", "value_probes",
           "common_values"]

#: Columns of one block a referencing column is compared with (the nearest in the order).
WINDOW = 8
#: A sample value found in more columns than this is no evidence across databases.
VALUE_CAP = 1000
#: Seed of the MinHash permutations (fixed: the same schema gives the same graph).
SKETCH_SEED = 20240509
_SKETCHES = 2


def sketch(values: sparse.csr_matrix, n_hashes: int = _SKETCHES, seed: int = SKETCH_SEED) -> np.ndarray:
    """``n x n_hashes`` MinHash signature of each row's values (a random permutation of the value
    ids per hash; the smallest permuted id of the row's values); rows without values get the
    largest id + 1."""
    n, v = values.shape
    rng = np.random.default_rng(seed)
    out = np.full((n, n_hashes), v, dtype=np.int64)
    has = np.diff(values.indptr) > 0
    starts = values.indptr[:-1][has]
    for h in range(n_hashes):
        perm = rng.permutation(v).astype(np.int64)
        if values.nnz:
            out[has, h] = np.minimum.reduceat(perm[values.indices], starts)
    return out


def order_rank(p: ColumnProfile) -> np.ndarray:
    """Each column's place in the blocking order: type class, MinHash sketch, position."""
    sk = sketch(p.values)
    keys = [np.arange(p.n)] + [sk[:, h] for h in range(sk.shape[1] - 1, -1, -1)] + [p.type_class]
    order = np.lexsort(keys)
    rank = np.empty(p.n, dtype=np.int64)
    rank[order] = np.arange(p.n)
    return rank


def windowed_pairs(
    a: sparse.csr_matrix, b: sparse.csr_matrix, rank: np.ndarray, database: np.ndarray, window: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, j)`` of rows of ``a`` and ``b`` (both the schema's columns, over one item
    vocabulary) that share an item and lie in different databases; each row ``i`` is paired, per
    item, with at most ``window`` rows ``j`` carrying it, the nearest to ``i`` in ``rank`` (half
    on either side; the rows of its own database take no place, up to ``window`` of them; ``window``
    :data:`WINDOW` by default). Unique pairs, sorted by ``i`` then ``j``."""
    window = WINDOW if window is None else window
    n = len(rank)
    a, b = a.tocsr(), b.tocsr()
    a_row = np.repeat(np.arange(a.shape[0], dtype=np.int64), np.diff(a.indptr))
    b_row = np.repeat(np.arange(b.shape[0], dtype=np.int64), np.diff(b.indptr))
    a_item, b_item = a.indices.astype(np.int64), b.indices.astype(np.int64)
    if len(a_row) == 0 or len(b_row) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    # b's entries in order of (item, rank); a's entries located among them
    stride = n + 1
    b_key = b_item * stride + rank[b_row]
    order = np.argsort(b_key, kind="stable")
    b_key, b_row, b_item = b_key[order], b_row[order], b_item[order]
    lo = np.searchsorted(b_item, a_item, side="left")
    hi = np.searchsorted(b_item, a_item, side="right")
    found = hi > lo
    a_row, a_item, lo, hi = a_row[found], a_item[found], lo[found], hi[found]
    pos = np.searchsorted(b_key, a_item * stride + rank[a_row])
    # rows of the own database take no place: the window widened once by as many places as
    # they took in it (at most ``window`` more; a database holds few columns of one item)
    width = np.minimum(hi - lo, window)
    start = np.clip(pos - width // 2, lo, hi - width)
    i, j = _expand(a_row, start, width, b_row)
    own = database[i] == database[j]
    if own.any():
        extra = np.bincount(np.searchsorted(np.cumsum(width), np.flatnonzero(own), side="right"),
                            minlength=len(width))
        width2 = np.minimum(hi - lo, width + np.minimum(extra, window))
        start = np.clip(pos - width2 // 2, lo, hi - width2)
        i, j = _expand(a_row, start, width2, b_row)
    keep = database[i] != database[j]
    i, j = i[keep], j[keep]
    if len(i) == 0:
        return i, j
    pair = np.unique(i * n + j)
    return pair // n, pair % n


def _expand(a_row: np.ndarray, start: np.ndarray, width: np.ndarray, b_row: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(a_row[e], b_row[start[e] + t])`` for every entry ``e`` and ``t < width[e]``."""
    total = int(width.sum())
    ends = np.cumsum(width)
    entry = np.repeat(np.arange(len(width)), width)
    t = np.arange(total) - np.repeat(ends - width, width)
    return a_row[entry], b_row[start[entry] + t]


def name_pairs(
    a_rows: Sequence[Sequence[str]], b_rows: Sequence[Sequence[str]], rank: np.ndarray, database: np.ndarray,
    window: int | None = None,
) -> sparse.coo_matrix:
    """:func:`windowed_pairs` of two lists of name aliases, as the ``row`` / ``col`` of a COO
    matrix (the shape of :func:`jar_core.joins.naming._product`'s answer)."""
    vocab: dict[str, int] = {}
    a, _ = incidence(a_rows, vocab)
    b, _ = incidence(b_rows, vocab)
    v = max(len(vocab), 1)
    a.resize((a.shape[0], v))
    b.resize((b.shape[0], v))
    i, j = windowed_pairs(a, b, rank, database, window)
    return sparse.coo_matrix((np.ones(len(i), dtype=np.float32), (i, j)), shape=(len(a_rows), len(b_rows)))


def common_values(values: sparse.csr_matrix, cap: int | None = None) -> np.ndarray:
    """Whether each value id is found in more than ``cap`` (:data:`VALUE_CAP`) columns."""
    cap = VALUE_CAP if cap is None else cap
    return np.bincount(values.indices, minlength=values.shape[1]) > cap


def value_probes(values: sparse.csr_matrix, rows: np.ndarray, share: float, cap: int | None = None) -> sparse.csr_matrix:
    """The values each of ``rows`` probes with: its rarest ``n - ceil(share * n) + 1`` of its ``n``
    values (a column holding ``share`` of them holds one of these), less the values in more than
    ``cap`` (:data:`VALUE_CAP`) columns. A matrix of all the schema's rows (the others empty)."""
    cap = VALUE_CAP if cap is None else cap
    n, v = values.shape
    deg = np.bincount(values.indices, minlength=v)
    sel = np.zeros(n, dtype=bool)
    sel[rows] = True
    counts = np.diff(values.indptr)
    row = np.repeat(np.arange(n), counts)
    item = values.indices.astype(np.int64)
    m = sel[row]
    row, item = row[m], item[m]
    order = np.lexsort((item, deg[item], row))  # per row, rarest first
    row, item = row[order], item[order]
    nv = counts[row]
    first = np.searchsorted(row, row, side="left")
    place = np.arange(len(row)) - first
    need = nv - np.ceil(share * nv - 1e-9).astype(np.int64) + 1
    keep = (place < need) & (deg[item] <= cap)
    row, item = row[keep], item[keep]
    return sparse.csr_matrix((np.ones(len(row), dtype=np.float32), (row, item)), shape=(n, v))
