"""Join inference: which column pairs of a schema join, with what evidence and confidence.

One module per rule, each a pure function over the column profiles of :mod:`.profile`:

* :mod:`.declared`: declared foreign keys (certain joins);
* :mod:`.naming`: naming conventions (``customer_id`` -> ``customer.id``, ``o_custkey`` ->
  ``c_custkey``, ``cr_reason_sk`` -> ``r_reason_sk``, ``ss_sold_date_sk`` -> ``d_date_sk``);
* :mod:`.inclusion`: directional value inclusion (the referencing values lie inside a key's);
* :mod:`.blocking`: the candidate pairs across databases (blocks of name aliases and values,
  a bounded window per block), so a lake's cross-database joins are never all pairs;

:mod:`.graph` composes them into the sparse :class:`JoinGraph` of the whole schema (computed
once per index) and reads the join matrix of a candidate set from it.
"""
from jar_core.joins.graph import JoinGraph, build_join_graph, candidate_join_matrices, candidate_joins
from jar_core.joins.profile import ColumnProfile

__all__ = ["JoinGraph", "ColumnProfile", "build_join_graph", "candidate_joins", "candidate_join_matrices"]
