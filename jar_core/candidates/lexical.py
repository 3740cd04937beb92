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
"""
from __future__ import annotations

import logging
import weakref
from typing import TYPE_CHECKING

import numpy as np

from jar_core.errors import InvalidArgumentError
from jar_core.index.texts import table_text
from jar_core.joins.profile import singular

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.index.schema_index import SchemaIndex

__all__ = ["LexicalIndex", "corpus_index", "fuse", "normalized", "singulars", "table_tokens", "tokenize",
           "DEFAULT_LEXICAL_RELEVANCE"]

# The default weight of BM25 in the search's coarse relevance (``TableRetriever(lexical_relevance=...)``)
# is defined with the other options.
from jar_core.options import DEFAULT_LEXICAL_RELEVANCE  # noqa: E402

# This stage's state, kept per schema index (and dropped with it): the BM25 tokens of each table
# tokenized so far, and the BM25 index of the whole corpus once built.
_TOKENS: "weakref.WeakKeyDictionary[SchemaIndex, dict[int, list[str]]]" = weakref.WeakKeyDictionary()
_CORPUS: "weakref.WeakKeyDictionary[SchemaIndex, LexicalIndex]" = weakref.WeakKeyDictionary()


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


def table_tokens(index: "SchemaIndex", tables: np.ndarray) -> list[list[str]]:
    """The BM25 tokens of ``table_text`` of the tables at positions ``tables``, tokenized once per
    table and kept with the index (a lake's shortlists come back to the same tables)."""
    cache = _TOKENS.setdefault(index, {})
    todo = list(dict.fromkeys(int(i) for i in tables if int(i) not in cache))
    if todo:
        texts = [table_text(index.schema.tables[i]) for i in todo]
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
