"""Join graphs saved with an index: arrays, the rules version they were inferred under, and a
digest of the column statistics they were inferred from.

A saved graph is used only when it was inferred by the same rules (:func:`rules_version`) from the
same inputs: the schema's structure is vouched for by the index's fingerprint, the statistics the
fingerprint leaves out (uniqueness ratios and sample values) by :func:`inputs_digest`.
"""
from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from jar_core.joins import graph as _graph
from jar_core.joins.graph import EVIDENCE, JoinGraph
from jar_core.schema import Schema

__all__ = ["rules_version", "RULE_SOURCES", "inputs_digest", "graph_arrays", "graph_from_arrays", "graph_name"]

_FIELDS = ("a", "b", "confidence", "evidence")


#: The modules whose source makes a join graph, relative to the ``jar_core`` package:
#: :mod:`jar_core.joins.graph` and every ``jar_core`` module it imports, directly or not (the rules,
#: the word segmentation their names are read with, the schema). Not the stages that only read a
#: graph (``compat``, ``calibration``, ``path``): a calibration fitted again or a faster
#: candidate matrix leaves saved graphs as they are. ``tests/test_saved_join_graphs.py`` checks
#: the list against the imports.
RULE_SOURCES = (
    "_gc.py", "column_types.py", "errors.py", "glued.py", "names.py", "schema.py",
    "joins/__init__.py", "joins/across.py", "joins/alike.py", "joins/blocking.py", "joins/checks.py", "joins/composite.py",
    "joins/copies.py", "joins/declared.py", "joins/edges.py", "joins/graph.py", "joins/hierarchy.py",
    "joins/inclusion.py", "joins/keys.py", "joins/links.py", "joins/name_facts.py", "joins/naming.py",
    "joins/people.py", "joins/preference.py", "joins/profile.py", "joins/store.py", "joins/through.py",
    "joins/types.py", "joins/uncertain.py", "joins/value_support.py", "joins/words.py",
)


@functools.lru_cache(maxsize=None)
def rules_version() -> str:
    """:data:`~jar_core.joins.graph.JOIN_RULES_VERSION` and a digest of the rules' source.

    The digest covers :data:`RULE_SOURCES` (each rule is a module of its own, its tunables beside
    it, and this module, which saves the graphs), by path and content, and the installed version
    of the ``wordsegment`` package, whose word counts the rules split names by
    (:mod:`jar_core.glued`): a graph saved by other rule code (a constant changed without a version
    bump) or other counts is stale as well; where the source cannot be read the version alone counts.
    """
    h = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    try:
        for name in RULE_SOURCES:
            h.update(name.encode("utf-8") + b"\0" + (package / name).read_bytes() + b"\0")
    except OSError:  # pragma: no cover - an installation without readable sources
        return str(_graph.JOIN_RULES_VERSION)
    h.update(b"wordsegment\0" + _installed("wordsegment").encode("utf-8"))
    return f"{_graph.JOIN_RULES_VERSION}-{h.hexdigest()[:16]}"


def _installed(package: str) -> str:
    """The installed version of ``package`` (``"absent"`` when it is not installed)."""
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def _default(v: Any) -> Any:
    return v.hex() if isinstance(v, (bytes, bytearray)) else str(v)  # as Schema.to_dict writes them


def inputs_digest(schema: Schema) -> str:
    """A SHA-256 of what the join rules read and :meth:`Schema.fingerprint` leaves out: every
    column's uniqueness ratio and sample values, in schema order, as the index saves them."""
    payload = [[c.unique_ratio, c.sample] for t in schema.tables for c in t.columns]
    blob = json.dumps(payload, ensure_ascii=False, default=_default).encode("utf-8", "surrogatepass")
    return hashlib.sha256(blob).hexdigest()


def graph_name(cross_database: bool) -> str:
    """The name a graph's arrays are saved under."""
    return "across" if cross_database else "within"


def graph_arrays(graph: JoinGraph, cross_database: bool, n_tables: int) -> dict[str, np.ndarray]:
    """The arrays that save ``graph`` of an index of ``n_tables`` tables (``table_a`` / ``table_b``
    follow from the columns), with its edges by table (:meth:`JoinGraph.by_table`)."""
    name = graph_name(cross_database)
    offsets, edges = graph.by_table(n_tables)
    return {
        f"{name}_a": np.ascontiguousarray(graph.a, dtype=np.int64),
        f"{name}_b": np.ascontiguousarray(graph.b, dtype=np.int64),
        f"{name}_confidence": np.ascontiguousarray(graph.confidence, dtype=np.float32),
        f"{name}_evidence": np.ascontiguousarray(graph.evidence, dtype=np.int64),
        f"{name}_table_offsets": np.ascontiguousarray(offsets, dtype=np.int64),
        f"{name}_table_edges": np.ascontiguousarray(edges),
    }


def graph_from_arrays(
    arrays: Mapping[str, np.ndarray], cross_database: bool, col_table: np.ndarray, n_tables: int,
) -> JoinGraph:
    """The graph saved by :func:`graph_arrays`; ``ValueError`` if the arrays are not a valid graph
    of an index of ``n_tables`` tables whose columns belong to the tables ``col_table``. A graph
    saved without its edges by table gets them at first use."""
    name = graph_name(cross_database)
    try:
        a, b, conf, ev = (arrays[f"{name}_{x}"] for x in _FIELDS)
    except KeyError as e:
        raise ValueError(f"array {e.args[0]} is missing") from None
    n = a.shape[0] if a.ndim == 1 else -1
    for x, arr, dtype in (("a", a, np.int64), ("b", b, np.int64), ("confidence", conf, np.float32),
                          ("evidence", ev, np.int64)):
        if arr.dtype != dtype or arr.ndim != 1 or arr.shape[0] != n:
            raise ValueError(f"array {name}_{x} has dtype {arr.dtype} and shape {arr.shape}, expected {np.dtype(dtype)} "
                             f"and ({max(n, 0)},)")
    if n:
        n_cols = len(col_table)
        if min(int(a.min()), int(b.min())) < 0 or max(int(a.max()), int(b.max())) >= n_cols:
            raise ValueError(f"graph {name} joins columns outside the index's {n_cols}")
        if int(ev.min()) < 0 or int(ev.max()) >= len(EVIDENCE):
            raise ValueError(f"graph {name} names evidence outside 0..{len(EVIDENCE) - 1}")
        if not np.isfinite(conf).all():
            raise ValueError(f"graph {name} holds non-finite confidences")
    table_a, table_b = col_table[a], col_table[b]
    return JoinGraph(a=a, b=b, confidence=conf, evidence=ev, table_a=table_a, table_b=table_b,
                     table_index=_table_index(arrays, name, n, n_tables, table_a, table_b))


def _table_index(
    arrays: Mapping[str, np.ndarray], name: str, n: int, n_tables: int, table_a: np.ndarray, table_b: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The saved edges by table of graph ``name`` (``n`` edges), checked, or ``None`` if not saved."""
    offsets, edges = arrays.get(f"{name}_table_offsets"), arrays.get(f"{name}_table_edges")
    if offsets is None and edges is None:
        return None
    if offsets is None or edges is None:
        raise ValueError(f"graph {name} holds half of its edges by table")
    if offsets.dtype != np.int64 or offsets.shape != (n_tables + 1,) or edges.ndim != 1 \
            or edges.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        raise ValueError(f"arrays {name}_table_offsets / {name}_table_edges have dtypes {offsets.dtype} / {edges.dtype} "
                         f"and shapes {offsets.shape} / {edges.shape}, expected int64 ({n_tables + 1},) and int32 or int64")
    expected = n + int(np.count_nonzero(table_a != table_b))
    if int(offsets[0]) != 0 or int(offsets[-1]) != len(edges) or len(edges) != expected \
            or (n_tables and bool((np.diff(offsets) < 0).any())) \
            or (len(edges) and (int(edges.min()) < 0 or int(edges.max()) >= n)):
        raise ValueError(f"graph {name}'s edges by table do not index its {n} edges")
    return offsets, edges
