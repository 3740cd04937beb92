"""Run-together names read as words (METHOD.md, input signals: a table is read by its name's
words): ``elementoffinancialstatement`` -> ``element of financial statement``,
``shortterminvestmentsid`` -> ``short term investments id``.

A name no convention spells (no case change, no underscore) is one long token that neither the
embedding model nor BM25 nor the join rules read as the words it is made of. :func:`split_glued`
asks a word segmenter (the ``wordsegment`` package: Norvig's unigram counts of English web text,
with its dynamic programme) for the token's most likely words, and keeps them only when each is
a word the counts know well; otherwise the token stays whole. Codes and abbreviations (``isbn``,
``ssn``, ``cusip``, ``hadm``) and words (``valid``, ``username``) stay whole.

The segmenter's vocabulary is the counts' words of :data:`MIN_COUNT` or more (about 100,000 of
333,000: 14 MB and 0.14 s to load on our machine, once per process, at the first token that
needs it); rarer web tokens are mostly run-together names themselves (``productid``,
``startdate``), which the segmenter then splits. Key words (:data:`ID_WORDS`) are
:data:`ID_WORD_BOOST` times as likely in a name as in web text, so ``customerid`` is ``customer
id`` while ``rapid`` and ``fluid`` stay whole. Each token's answer is cached: a lake of 100,000
tables repeats its words.
"""
from __future__ import annotations

import functools
import io
import re
import threading
from typing import Any

__all__ = ["split_glued", "unglue", "is_word", "MIN_LETTERS", "MAX_LETTERS", "MIN_COUNT", "ID_WORDS", "ID_WORD_BOOST"]

#: Letters of the shortest token read as run together (``custid``); a shorter one is a word, a code
#: or an abbreviation (``labid``, ``hadm``, ``fclt``) as often as not.
MIN_LETTERS = 6
#: Letters of the longest token segmented (PostgreSQL's identifiers have 63 at most): a longer one
#: costs time linear in its length and stays whole.
MAX_LETTERS = 64
#: The least count (in the segmenter's unigram counts of about a trillion words) of a word of its
#: vocabulary, and of a word of four letters or fewer in a split (``cust`` 6e5; not ``aute``).
MIN_COUNT = 1e5
#: The least count of a two-letter word in a split (``of``, ``to``, ``in``, ``by``; not ``er``, ``st``, ``la``).
COMMON_COUNT = 1e9
#: Key words that end a reference's name (``customerid``, ``deptno``, ``custkey``).
ID_WORDS = frozenset({"id", "key", "no", "num", "nr", "sk"})
#: How much likelier a key word is in a name than in web text (10: ``customerid`` splits; ``rapid``,
#: ``fluid``, ``casino``, ``donkey`` do not, as they do from 100 or 300).
ID_WORD_BOOST = 10.0

_LOCK = threading.Lock()
_SEGMENTER: list[Any] = []
_WORD = re.compile(r"[^\W_]+|[\W_]+", re.UNICODE)


def _segmenter() -> Any:
    """The loaded segmenter, made at the first call (thread-safe)."""
    if _SEGMENTER:
        return _SEGMENTER[0]
    with _LOCK:
        if not _SEGMENTER:
            _SEGMENTER.append(_make_segmenter())
    return _SEGMENTER[0]


def _make_segmenter() -> Any:
    from wordsegment import Segmenter

    class NameSegmenter(Segmenter):  # type: ignore[misc]
        """wordsegment's segmenter over its common words, key words weighted as names use them."""

        def load(self) -> None:
            with io.open(self.UNIGRAMS_FILENAME, encoding="utf-8") as f:
                for line in f:
                    word, _, count = line.partition("\t")
                    n = float(count)
                    if n >= MIN_COUNT:
                        self.unigrams[word] = n
            self.total = self.TOTAL
            self.limit = self.LIMIT

        def score(self, word: str, previous: str | None = None) -> float:
            s = float(super().score(word, previous))
            return s * ID_WORD_BOOST if word in ID_WORDS else s

    seg = NameSegmenter()
    seg.load()
    return seg


def _words_known(pieces: list[str], counts: dict[str, float]) -> bool:
    """Whether every piece of a split is a word the counts know well (:data:`MIN_COUNT`,
    :data:`COMMON_COUNT`): ``cust id`` and ``element of ...`` are; ``had m``, ``la bid``, ``grad aute`` not."""
    for p in pieces:
        n = counts.get(p, 0.0)
        if len(p) < 2 or n < MIN_COUNT:
            return False
        if len(p) == 2 and p not in ID_WORDS and n < COMMON_COUNT:
            return False
    return True


@functools.lru_cache(maxsize=1 << 18)
def split_glued(token: str) -> tuple[str, ...]:
    """The words of one lower-case token of a name, its segmenter's split when the token is run
    together, else the token alone.

    Example:
        >>> split_glued("elementoffinancialstatement")
        ('element', 'of', 'financial', 'statement')
        >>> split_glued("customerid"), split_glued("isbn"), split_glued("valid")
        (('customer', 'id'), ('isbn',), ('valid',))
    """
    if not MIN_LETTERS <= len(token) <= MAX_LETTERS or not (token.isascii() and token.isalpha() and token.islower()):
        return (token,)
    seg = _segmenter()
    pieces = seg.segment(token)
    if len(pieces) < 2 or "".join(pieces) != token or not _words_known(pieces, seg.unigrams):
        return (token,)
    return tuple(pieces)


@functools.lru_cache(maxsize=1 << 16)
def is_word(token: str) -> bool:
    """Whether the lower-case ``token`` is a word the segmenter's counts know well (:data:`MIN_COUNT`):
    ``valid``, ``paid``, ``casino`` are; ``stuid``, ``actid`` are not."""
    return _segmenter().unigrams.get(token, 0.0) >= MIN_COUNT


@functools.lru_cache(maxsize=1 << 16)
def unglue(text: str) -> str:
    """``text`` (lower case) with each run-together word split by :func:`split_glued`, the rest
    as it is (``"sales salesorderheader"`` -> ``"sales sales order header"``)."""
    return "".join(" ".join(split_glued(part)) if part[:1].isalnum() else part for part in _WORD.findall(text))
