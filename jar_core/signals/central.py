"""Central tables: the ones many of their database's other tables reference.

In a schema built around one entity's records (a hospital stay that every diagnosis, drug,
transfer and lab event references; a business that every review, tip and check-in references),
that table is needed by most questions as the way in: the patient's id is kept on it, the
"current hospital encounter" is a row of it. The default search's connection gain counts a
candidate's best join to the selection only (it keeps warehouse dimensions that join everything
from crowding out the relevant tables); for a central table it counts, as the paper's search does,
the sum of its joins to the tables already chosen, so that it comes in as the selection grows
around it (:class:`jar_core.strategies.JoinAwareStrategy`, ``central_sum``).

A table is central when at least :data:`CENTRAL_SHARE` of the other tables of its database hold a
sure reference to it (a join of confidence at least :data:`SURE` going to its key, two siblings
through a key not counted), in a database of at least :data:`CENTRAL_MIN_TABLES` tables. Read off
the join graph once per graph (weak-keyed: the graph keeps no state of this stage).
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex
    from jar_core.joins.edges import JoinGraph

__all__ = ["central_tables", "CENTRAL_SHARE", "CENTRAL_MIN_TABLES", "SURE"]

#: Share of a database's other tables that must reference a table for it to be central (a third:
#: chosen on the development suite, where it lowers no benchmark's complete recall against a half
#: and lifts Advising's course and Yelp's business; a quarter costs MIMIC-III; docs/results.md).
CENTRAL_SHARE = 1 / 3
#: A database of fewer tables has no central table (every table joins most of a handful).
CENTRAL_MIN_TABLES = 4
#: Confidence of a reference that counts.
SURE = 0.9

_CACHE: "weakref.WeakKeyDictionary[JoinGraph, np.ndarray]" = weakref.WeakKeyDictionary()


def central_tables(index: "SchemaIndex", cross_database: bool = False) -> np.ndarray:
    """Boolean per table of ``index.schema``: the central tables (module docstring)."""
    graph = index.join_graph(cross_database=cross_database)
    hit = _CACHE.get(graph)
    if hit is None:
        hit = _CACHE[graph] = _central(index, graph)
    return hit


def _central(index: "SchemaIndex", graph: "JoinGraph") -> np.ndarray:
    from jar_core.joins.edges import is_sibling

    from jar_core.index.structure import structure

    db = np.asarray(structure(index.schema).database, dtype=np.int64)  # codes per table: no table read
    n = len(db)
    size = np.bincount(db)
    keep = ((graph.confidence >= SURE) & ~is_sibling(graph.evidence)
            & (graph.table_a != graph.table_b))
    pairs = np.unique(np.stack([graph.table_a[keep], graph.table_b[keep]]).astype(np.int64), axis=1)
    refs = np.bincount(pairs[1], minlength=n) if pairs.size else np.zeros(n, dtype=np.int64)
    tsize = size[db]
    return (tsize >= CENTRAL_MIN_TABLES) & (refs >= CENTRAL_SHARE * (tsize - 1))
