"""Join inference: which column pairs of a schema join, with what evidence and confidence
(METHOD.md, the join graph).

What the rules read: :mod:`.words` (name words, sample values), :mod:`.name_facts` (what a name
tells), :mod:`.keys` (which columns key their tables), stacked per column in :mod:`.profile`.

The rules, one module each, a function from the column profiles (and the edges so far,
:mod:`.edges`) to edges with evidence and confidence: :mod:`.declared`, :mod:`.naming`
(:mod:`.hierarchy`, :mod:`.people`), :mod:`.inclusion`, :mod:`.value_support`, :mod:`.types`,
:mod:`.across` (with :mod:`.blocking`'s candidate pairs), :mod:`.preference`, :mod:`.uncertain`,
:mod:`.composite`, :mod:`.copies`.

:mod:`.graph` lists them in order and composes them into the sparse :class:`JoinGraph` of the
whole schema (computed once per index, saved by :mod:`.store`) and reads the join matrix of a
candidate set from it; :mod:`.links` reads the link tables off it.
"""
from jar_core.joins.graph import JoinGraph, build_join_graph, candidate_join_matrices, candidate_joins
from jar_core.joins.profile import ColumnProfile

__all__ = ["JoinGraph", "ColumnProfile", "build_join_graph", "candidate_joins", "candidate_join_matrices"]
