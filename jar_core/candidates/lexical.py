"""A lexical first stage (BM25 over the table texts, with ``bm25s``) fused with dense similarity.

``fused = (1 - alpha) * r + alpha * bm25 / max(bm25)`` ranks the tables for the candidate set
(``lexical``, 0.7 by default) and, with a smaller weight (``lexical_relevance``,
:data:`DEFAULT_LEXICAL_RELEVANCE`), gives the coarse relevance ``r`` the search weighs, so a table
the question names word for word keeps its edge once it is a candidate. BM25 scores every table
from one index, built at the first question and kept, up to 20,000 tables with the brute-force
first stage; in a larger lake, or behind an approximate index or a vector store, it scores the
first stage's dense shortlist (the 200 tables most similar to the question), so a lake pays for
200 texts per question, not all; a candidate outside the shortlist (added by expansion or value
matching) has BM25 0. Both weights were measured on Spider and BEAVER-DW together
(docs/results.md, "Beyond the paper").

Words are compared in the singular, in the question and in the table texts alike (``vendors``
finds the ``Vendor`` table, ``categories`` a ``category`` column): questions name things in the
plural, schemas mostly in the singular. Plurals only: a stemmer (Snowball's English) also merged
``offered`` with ``offer`` and ``customer`` with ``custom``, and measured worse (docs/results.md).
Run-together names are read as their words (:func:`jar_core.glued.split_glued`), except a word
that spells names of other tables of its database one after another, a key word after them
optional (:func:`bm25_name`: t2s_scholar's link table ``PAPERDATASET`` and its ``PAPERID``):
that word names the tables it refers to, and read split it would make a link table match every
question that names one of them, its short text ranked first (t2s_scholar's default, every name
split: complete recall 21.2 and 48.6 at K = 3 and 5, against 27.6 and 54.6 with these names whole).
"""
from __future__ import annotations

import functools
import logging
import weakref
from typing import TYPE_CHECKING

import numpy as np

from jar_core.errors import InvalidArgumentError
from jar_core.glued import ID_WORDS, MAX_LETTERS, split_glued
from jar_core.index.texts import table_text
from jar_core.joins.profile import singular
from jar_core.names import humanize

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["LexicalIndex", "bm25_name", "corpus_index", "fuse", "normalized", "singulars", "table_tokens", "tokenize",
           "DEFAULT_LEXICAL_RELEVANCE"]

# The default weight of BM25 in the search's coarse relevance (``TableRetriever(lexical_relevance=...)``)
# is defined with the other options.
from jar_core.options import DEFAULT_LEXICAL_RELEVANCE  # noqa: E402

# This stage's state, kept per schema index (and dropped with it): the BM25 tokens of each table
# tokenized so far, and the BM25 index of the whole corpus once built.
_TOKENS: "weakref.WeakKeyDictionary[SchemaIndex, dict[int, list[str]]]" = weakref.WeakKeyDictionary()
_CORPUS: "weakref.WeakKeyDictionary[SchemaIndex, LexicalIndex]" = weakref.WeakKeyDictionary()
_NAMES: "weakref.WeakKeyDictionary[SchemaIndex, dict[str, frozenset[str]]]" = weakref.WeakKeyDictionary()


def singulars(tokens: list[str]) -> list[str]:
    """``tokens`` in the singular (:func:`jar_core.joins.profile.singular`): the BM25 "stemmer"."""
    return [singular(w) for w in tokens]


def tokenize(texts: list[str]) -> list[list[str]]:
    """BM25 tokens of ``texts``: English stop words out, the rest in the singular. Questions and
    table texts go through this one function, so both sides always read words alike."""
    import bm25s

    return bm25s.tokenize(texts, stopwords="en", stemmer=singulars, return_ids=False, show_progress=False)


class LexicalIndex:
    """BM25 over ``table_text`` of the tables at positions ``tables`` (default: all) of an index."""

    def __init__(self, index: "SchemaIndex", tables: "np.ndarray | None" = None) -> None:
        try:
            import bm25s
        except ImportError as e:
            raise InvalidArgumentError("lexical= needs the bm25s package (pip install bm25s), or pass lexical=0") from e
        self.tables = np.arange(len(index.schema.tables)) if tables is None else np.asarray(tables, dtype=np.int64)
        quiet = logging.getLogger("bm25s")
        level = quiet.level
        quiet.setLevel(logging.WARNING)  # its debug lines ("Building index from IDs") are not ours to print
        tokens = table_tokens(index, self.tables)
        self._model = None  # no table text has a word (names of stop words, digits, symbols): BM25 scores 0
        try:
            if any(tokens):
                self._model = bm25s.BM25()
                self._model.index(tokens, show_progress=False)
        finally:
            quiet.setLevel(level)
        self.n = len(self.tables)

    def scores(self, question: str) -> np.ndarray:
        """BM25 score of each of :attr:`tables` for ``question`` (0 where no word is shared)."""
        toks = tokenize([question])[0] if self._model is not None else []
        if not toks:
            return np.zeros(self.n, dtype=np.float32)
        return np.asarray(self._model.get_scores(toks), dtype=np.float32)


def bm25_name(name: str, tables: frozenset[str]) -> str:
    """``name`` as BM25 reads it: :func:`~jar_core.names.humanize`, each run-together word split
    (:func:`~jar_core.glued.split_glued`) unless it spells two or more of ``tables`` (flat
    lower-case names of its database's tables) one after another, or one and a key word
    (``paperdataset``, ``paperid`` beside ``paper`` and ``dataset``: whole).

    Example:
        >>> bm25_name("ELEMENTOFFINANCIALSTATEMENT", frozenset({"paper"}))
        'element of financial statement'
        >>> bm25_name("PAPERDATASET_PAPERID", frozenset({"paper", "dataset"}))
        'paperdataset paperid'
    """
    return " ".join(w if _spells(w, tables) else " ".join(split_glued(w)) for w in humanize(name).split())


@functools.lru_cache(maxsize=1 << 16)
def _spells(word: str, tables: frozenset[str]) -> bool:
    """Whether ``word`` is names of ``tables`` one after another (two or more, or one and a key word)."""
    if len(word) > MAX_LETTERS or not tables:
        return False
    n = len(word)
    # count[j]: the most table names that spell word[:j] (0: none, -1: not spelt)
    count = [0] + [-1] * n
    for i in range(n):
        if count[i] < 0:
            continue
        for j in range(i + 3, n + 1):
            if word[i:j] in tables:
                count[j] = max(count[j], count[i] + 1)
    return count[n] >= 2 or any(word.endswith(k) and count[n - len(k)] >= 1 for k in ID_WORDS)


def _table_names(index: "SchemaIndex") -> dict[str, frozenset[str]]:
    """Per database, its tables' names written flat in lower case, and in the singular: read off
    the corpus's structure (:func:`jar_core.index.structure.structure`), no table read (a lake's
    first question would otherwise parse every table)."""
    from jar_core.index.structure import structure

    s = structure(index.schema)
    flat: dict[int, tuple[str, str]] = {}  # per distinct table name
    out: dict[int, set[str]] = {}
    for db, name in np.unique(np.stack([s.database, s.name]), axis=1).T.tolist():
        words = flat.get(name)
        if words is None:
            f = "".join(humanize(s.names[name]).split())
            words = flat[name] = (f, singular(f))
        out.setdefault(db, set()).update(words)
    return {s.databases[db]: frozenset(v) for db, v in out.items()}


def table_tokens(index: "SchemaIndex", tables: np.ndarray) -> list[list[str]]:
    """The BM25 tokens of ``table_text`` (names read by :func:`bm25_name`) of the tables at
    positions ``tables``, tokenized once per table and kept with the index (a lake's shortlists
    come back to the same tables)."""
    cache = _TOKENS.setdefault(index, {})
    todo = list(dict.fromkeys(int(i) for i in tables if int(i) not in cache))
    if todo:
        names = _NAMES.get(index)
        if names is None:
            names = _NAMES[index] = _table_names(index)
        texts = [table_text(t, name=functools.partial(bm25_name, tables=names.get(t.database, frozenset())))
                 for t in (index.schema.tables[i] for i in todo)]
        for i, toks in zip(todo, tokenize(texts)):
            cache[i] = list(toks)
    return [cache[int(i)] for i in tables]


def corpus_index(index: "SchemaIndex") -> LexicalIndex:
    """The :class:`LexicalIndex` of every table of ``index``, built at the first call and kept with the index."""
    lex = _CORPUS.get(index)
    if lex is None:
        lex = _CORPUS[index] = LexicalIndex(index)
    return lex


def normalized(bm25: np.ndarray) -> np.ndarray:
    """``bm25 / max(bm25)`` (zeros when no table shares a word with the question)."""
    top = float(bm25.max()) if bm25.size else 0.0
    return bm25 / top if top > 0 else np.zeros_like(bm25)


def fuse(r: np.ndarray, bm25: np.ndarray, alpha: float) -> np.ndarray:
    """``(1 - alpha) * r + alpha * bm25 / max(bm25)``."""
    return (1.0 - alpha) * r + alpha * normalized(bm25)
