"""Name words and sample values as the join rules compare them (METHOD.md, the join graph: names
and values are the evidence).

A name split into words (camelCase, ``snake_case``, a column's run-together words; singular: :func:`words`), a sample value as
compared across columns (:func:`value_key`), the type class sample values show
(:func:`sample_class`), abbreviations (:func:`abbreviates`) and the 0/1 incidence of rows of
items (:func:`incidence`: names or values) that the rules multiply instead of looping over pairs.
"""
from __future__ import annotations

import functools
import re
from datetime import date, datetime
from typing import Any, Sequence

import numpy as np
from scipy import sparse

from jar_core.glued import split_glued
from jar_core.schema import TypeFamily

__all__ = ["KEY_WORDS", "MAX_ALIAS", "singular", "words", "written_words", "value_key", "incidence", "sample_class",
           "fractional", "glued_stems", "abbreviates", "ABBREVIATION_LETTERS"]

#: Words that end a key column's name (``customer_id``, ``o_custkey``, ``cr_reason_sk``...).
KEY_WORDS = frozenset({"id", "key", "sk", "code", "no", "num", "number", "nr", "uid", "pk", "fk", "guid", "uuid"})
#: Letters of the longest alias the naming rules make of a part of a name (a role's entity, an
#: abbreviation, a tail, a module prefix, a table's name glued to a key word): more than any real
#: identifier has (PostgreSQL's have 63 at most, SQL Server's and Oracle's 128), so a longer name
#: (SQLite's have no limit) costs time and memory linear in its length; it still goes by its whole.
MAX_ALIAS = 256
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


#: Words that end like a plural in ``-ies`` and are their own singular.
_SAME_IN_SINGULAR = frozenset({"series", "species"})
#: ``-uses`` after a consonant drops ``es`` (``statuses``, ``campuses``), after a vowel ``s`` (``houses``).
_CONSONANT_USES = re.compile(r"[^aeiou]uses$")


#: Plurals no suffix rule reads (``People.PersonID``: a table of people keyed by a person's id).
_IRREGULAR_PLURALS = {"people": "person", "persons": "person", "children": "child", "men": "man", "women": "woman"}


def singular(w: str) -> str:
    """English singular of one lower-case word (``categories`` -> ``category``, ``boxes`` -> ``box``,
    ``courses`` -> ``course``, ``statuses`` -> ``status``, ``ids`` -> ``id``)."""
    if len(w) > 4 and w.endswith("ies"):
        return w if w in _SAME_IN_SINGULAR else w[:-3] + "y"
    if len(w) > 4 and (w.endswith(("sses", "xes", "ches", "shes")) or _CONSONANT_USES.search(w)):
        return w[:-2]
    if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")):
        return w[:-1]
    if len(w) == 3 and w.endswith("s") and w[1] not in "aeiouy":  # ``ids``, ``pcs``; not ``gas``, ``bus``
        return w[:-1]
    return w


def words(name: str, *, glued: bool = False) -> list[str]:
    """``"SupportRepId"`` -> ``["support", "rep", "id"]``; ``"FCLT_ROOMS"`` -> ``["fclt", "room"]``;
    ``"People"`` -> ``["person"]`` (:data:`_IRREGULAR_PLURALS`: a name's entity, which its keys name);
    ``glued``: a run-together word split too (:func:`written_words`), a compound's inner words as
    written (``salesorderid`` -> ``sales``, ``order``, ``id``: the words of ``salesorder``)."""
    return list(_words(name, glued))


def _entity(w: str) -> str:
    return _IRREGULAR_PLURALS.get(w) or singular(w)


@functools.lru_cache(maxsize=1 << 16)
def _words(name: str, glued: bool) -> tuple[str, ...]:
    if not glued:
        return tuple(_entity(w) for w in written_words(name))
    out: list[str] = []
    for part in written_words(name):
        pieces = split_glued(part)
        # a run-together word's pieces are one compound: in the singular where it ends, or before a key word
        out += [_entity(w) if i == len(pieces) - 1 or pieces[i + 1] in KEY_WORDS else w for i, w in enumerate(pieces)]
    return tuple(out)


def written_words(name: str, *, glued: bool = False) -> list[str]:
    """A name's words as written, lower case, plurals kept (``units_on_order`` -> ``units``, ``on``, ``order``);
    ``glued``: a run-together word split too (:func:`jar_core.glued.split_glued`: ``CUSTOMERID`` ->
    ``customer``, ``id``), as a column's name is read (a table's name written as one word is read
    whole: :func:`jar_core.joins.name_facts.table_words`)."""
    return list(_written_words(name, glued))


@functools.lru_cache(maxsize=1 << 16)
def _written_words(name: str, glued: bool) -> tuple[str, ...]:
    parts = _WORD.findall(_CAMEL.sub(" ", name).lower())
    return tuple(w for part in parts for w in split_glued(part)) if glued else tuple(parts)


def value_key(v: Any) -> str:
    """A sample value as compared across columns: trimmed, lower case, ``3.0`` as ``3``."""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v).strip().lower()


_REAL = re.compile(r"^[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?$")
_DATE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?)?$|^\d{1,2}:\d{2}(:\d{2})?$")


def incidence(rows: Sequence[Sequence[str]], vocab: dict[str, int] | None = None) -> tuple[sparse.csr_matrix, np.ndarray]:
    """Row x item 0/1 matrix of ``rows`` (each item once per row) and each row's item count.

    Items are numbered in ``vocab`` (a fresh one by default); pass one ``vocab`` to two calls to
    compare two sets of rows, then widen the first matrix to the final ``len(vocab)``.
    """
    vocab = {} if vocab is None else vocab
    # a list shared by several rows (the profile shares the lists of repeated names) is numbered once
    seen: dict[int, int] = {}
    code = np.fromiter((seen.setdefault(id(items), len(seen)) for items in rows), dtype=np.int64, count=len(rows))
    del seen
    # a list's first row is where its code first appears (codes are numbered in order)
    first = np.flatnonzero(np.diff(np.maximum.accumulate(np.concatenate([[-1], code]))) > 0)
    d_indptr, d_indices = [0], []
    for i in first.tolist():
        d_indices.extend(sorted({vocab.setdefault(x, len(vocab)) for x in rows[i]}))
        d_indptr.append(len(d_indices))
    d_start = np.array(d_indptr, dtype=np.int64)
    del d_indptr
    lengths = np.diff(d_start)[code]
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    gather = np.repeat(d_start[:-1][code] - indptr[:-1], lengths) + np.arange(int(indptr[-1]), dtype=np.int64)
    indices = np.array(d_indices, dtype=np.int64)[gather]
    m = sparse.csr_matrix(
        (np.ones(len(indices), dtype=np.float32), indices, indptr), shape=(len(rows), max(len(vocab), 1)),
    )
    return m, lengths


def sample_class(values: Sequence[Any]) -> str | None:
    """The type class the sample values show (``numeric``, ``date-time``, ``text``), None if no values."""
    vals = [v for v in values if v is not None and str(v).strip() != ""]
    if not vals:
        return None
    if all(isinstance(v, bool) for v in vals):
        return TypeFamily.BOOLEAN.value
    if all(isinstance(v, (int, float)) or (isinstance(v, str) and _REAL.match(v.strip())) for v in vals):
        return "numeric"
    if all(isinstance(v, (date, datetime)) or (isinstance(v, str) and _DATE.match(v.strip())) for v in vals):
        return TypeFamily.DATETIME.value
    return TypeFamily.TEXT.value


def fractional(values: Sequence[Any]) -> bool:
    """Whether a number among ``values`` has a fraction (``6.5``, ``"12.50"``; not ``3.0``)."""
    for v in values:
        if isinstance(v, bool) or v is None:
            continue
        if isinstance(v, str):
            if not _REAL.match(v.strip()):
                continue
            v = float(v)
        if isinstance(v, (int, float)) and not float(v).is_integer():
            return True
    return False



def glued_stems(word: str, suffixes: Sequence[str] | frozenset[str]) -> list[str]:
    """What is left of ``word``, a name written as one word, without each of ``suffixes`` it ends
    with, three letters or more (``transactionhistoryarchive`` -> ``transactionhistory``)."""
    return [word[: -len(q)] for q in suffixes if word.endswith(q) and len(word) - len(q) >= 3]


#: ``mgmt``); a longer one only cuts the word's end (``product`` of ``productdescription``).
ABBREVIATION_LETTERS = 5


@functools.lru_cache(maxsize=1 << 16)
def abbreviates(short: str, name: str) -> bool:
    """Whether ``short`` abbreviates the word ``name``: three letters or more, shorter, the same first two
    letters and the rest in order (``cust`` of ``customer``, ``emp`` of ``employee``, ``dept`` of
    ``department``, ``acct`` of ``account``; not ``cat`` of ``contact``)."""
    if not 3 <= len(short) < len(name) or short[:2] != name[:2]:
        return False
    if len(short) > ABBREVIATION_LETTERS:  # a longer name is written out: only its start is cut
        return name.startswith(short)
    rest = iter(name[2:])
    return all(ch in rest for ch in short[2:])
