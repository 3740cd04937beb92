"""A question's words that name no table or column may be values of a database's kinds table.

"Find all Bars in Los Angeles", "the number of Dentists", "Moroccan restaurant": a business's
category is a value, and without sample rows nothing in the schema's names says which table holds
it. A database with one table named as a kind of things (Yelp's ``category``, a ``genre`` table, a
``Ref_Document_Types``) holds such values there. So a sub-query that matches no candidate's column
well (its best fine relevance below ``floor``) counts as covered by that table at ``floor``
(:func:`credit_kinds`; ``TableRetriever(kind_values=...)``, default
:data:`jar_core.options.DEFAULT_KIND_VALUES`), unless the question's words in it were found among
a column's sample values (:func:`resolved_by_values`: the value's table is known). A database
with two tables or more so named (a forum's post types, vote types and close reasons; ATIS's
classes of service and compartment classes) gets none: nothing tells which of them holds the value.
A database with no such table holds its kinds in a column named so (a restaurant's ``food_type``,
an admission's ``admission_type``, a program's courses' ``category``): its tables with such a
column are its kinds tables, if at most :data:`MAX_KIND_COLUMN_TABLES`. The credit is local
(:func:`kinds_among`): only the kinds tables of the strongest candidate's database get it, as value
matches count only near the strongest candidates; a question is asked of one database, and a
sub-query nothing matches says nothing of which.
"""
from __future__ import annotations

import re
import weakref
from typing import TYPE_CHECKING, Iterable, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["KIND_WORDS", "MAX_KIND_COLUMN_TABLES", "kind_tables", "kinds_among", "credit_kinds", "resolved_by_values"]

#: Words that name a table as a kind of things (singular, as :func:`jar_core.joins.words.words` reads them).
KIND_WORDS = frozenset({"category", "type", "kind", "class", "genre"})

#: A database without a kinds table has its tables with a column named as a kind (last word a
#: :data:`KIND_WORDS` word) as kinds tables if they are at most this many (Advising's program courses
#: and program requirements both have a ``category``; chosen on the development suite, docs/results.md).
MAX_KIND_COLUMN_TABLES = 2
_WORD = re.compile(r"\w+")

#: This stage's state: each index's kinds tables, for as long as the index lives.
_KINDS: "weakref.WeakKeyDictionary[SchemaIndex, np.ndarray]" = weakref.WeakKeyDictionary()


def kind_tables(index: "SchemaIndex") -> np.ndarray:
    """bool per table of ``index.schema``: named by a :data:`KIND_WORDS` word, and the only table so
    named in its database (its :attr:`~jar_core.schema.Table.join_scope`); in a database with no
    table so named, its tables with a column whose name ends with such a word, if at most
    :data:`MAX_KIND_COLUMN_TABLES`."""
    got = _KINDS.get(index)
    if got is None:
        from jar_core.index.structure import structure
        from jar_core.joins.words import words

        s = structure(index.schema)  # each distinct name split once; no table read
        named = np.array([bool(KIND_WORDS.intersection(words(n))) for n in s.names], dtype=bool)[s.name]
        per = np.bincount(s.scope[named], minlength=len(s.scopes))
        kind_column = np.array([(w := words(n)) != [] and w[-1] in KIND_WORDS for n in s.column_labels], dtype=bool)
        # per table, whether any of its columns is one (every table has a column: Schema checks it)
        column = np.logical_or.reduceat(kind_column[s.column_label], s.col_offsets[:-1])
        per_column = np.bincount(s.scope[column], minlength=len(s.scopes))
        got = _KINDS[index] = (named & (per[s.scope] == 1)) | (
            column & (per[s.scope] == 0) & (per_column[s.scope] <= MAX_KIND_COLUMN_TABLES))
    return got


def kinds_among(index: "SchemaIndex", candidates: np.ndarray, r: np.ndarray) -> np.ndarray:
    """bool per candidate: a kinds table (:func:`kind_tables`) of the database of the candidate of
    highest coarse relevance ``r``."""
    from jar_core.index.structure import structure

    candidates = np.asarray(candidates, dtype=np.int64)
    if not len(candidates):
        return np.zeros(0, dtype=bool)
    scope = structure(index.schema).scope[candidates]
    return kind_tables(index)[candidates] & (scope == scope[int(np.argmax(r))])


def credit_kinds(F: np.ndarray, kinds: np.ndarray, floor: float, resolved: np.ndarray | None = None) -> np.ndarray:
    """``F`` (sub-queries x candidates) with each sub-query whose best fine relevance is below
    ``floor`` covered at ``floor`` by the candidates that are kinds tables (``kinds``, bool per
    candidate), except the sub-queries ``resolved`` (bool per sub-query: a value found elsewhere);
    ``F`` itself when there is nothing to credit (``floor`` 0 included)."""
    if floor <= 0 or F.size == 0 or not kinds.any():
        return F
    low = F.max(axis=1) < floor
    if resolved is not None:
        low &= ~np.asarray(resolved, dtype=bool)
    if not low.any():
        return F
    out = F.copy()
    rows = np.ix_(low, kinds)
    out[rows] = np.maximum(out[rows], floor)
    return out


def resolved_by_values(subqueries: Sequence[str], spans: Iterable[str]) -> np.ndarray:
    """bool per sub-query: it holds every word of a span of the question found among a column's
    sample values (``spans``, the value matches that are no hints), so its value's table is known."""
    found = [set(_WORD.findall(s.lower())) for s in spans]
    found = [f for f in found if f]
    return np.array([any(f <= set(_WORD.findall(q.lower())) for f in found) for q in subqueries], dtype=bool)
