"""Question decomposition into concepts / sub-queries ``q_j`` (METHOD.md, "Decomposition").

A :class:`Decomposer` turns a question into a :class:`Decomposition`. Shipped here:

* :class:`HeuristicDecomposer` (the default): no LLM, no downloaded data. Content-word phrases
  of the question (stop words removed), with schema vocabulary matched where it helps
  (``"singers ... age"`` over a table ``singer`` with a column ``age`` gives ``"singer:age"``).
* :class:`PrecomputedDecomposer`: sub-queries given per question (a benchmark's ``decomp.json``).

An LLM-backed decomposer (in the adapters) implements the same protocol.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Iterable, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from jar_core.glued import split_glued
from jar_core.joins.profile import singular as _singular
from jar_core.schema import Schema, split_camel

__all__ = ["Decomposition", "Decomposer", "HeuristicDecomposer", "PrecomputedDecomposer", "STOP_WORDS"]


@dataclass(frozen=True)
class Decomposition:
    """The sub-queries of a question and the decomposer that produced them."""

    subqueries: tuple[str, ...]
    source: str


@runtime_checkable
class Decomposer(Protocol):
    """Splits a question into sub-queries. ``schema`` is the corpus being searched (may be ignored)."""

    name: str

    def decompose(self, question: str, schema: Schema | None = None) -> Decomposition:
        ...


# English function words plus the question / aggregation vocabulary of text-to-SQL questions.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before being below
    between both but by can could did do does doing down during each either else ever every few for from further
    had has have having he her here hers herself him himself his how however i if in into is isn't it its itself
    just let me more most much must my myself neither no nor not now of off on once one only or other others our
    ours ourselves out over own per same shall she should so some such than that the their theirs them themselves
    then there these they this those through to too under until up upon us very was we were what whatever when
    where whether which while who whom whose why will with within without would yet you your yours yourself
    yourselves
    show list give find return display tell get provide compute calculate count number numbers total totals
    average avg mean sum minimum maximum min max many much highest lowest largest smallest biggest greatest least
    top bottom first last most least order ordered sort sorted ascending descending asc desc distinct different
    unique each every including include includes included respectively corresponding along together whose
    please also etc value values record records row rows entry entries info information detail details data
    """.split()
)

_TOKEN = re.compile(r"\"[^\"]*\"|'[^']*'|[^\W_][\w'\-]*", re.UNICODE)


_NAME_WORD = re.compile(r"[^\W_]+")


def _words(name: str) -> list[str]:
    """A name's words as a question spells them: camelCase, ``snake_case`` and run-together words
    apart (:func:`jar_core.glued.split_glued`: ``orderdetails`` -> ``order``, ``detail``), singular."""
    return [_singular(p) for w in _NAME_WORD.findall(split_camel(name).lower()) for p in split_glued(w)]


@functools.lru_cache(maxsize=1 << 16)
def _phrase(name: str) -> str:
    """A table or column name as the question's words would spell it (names repeat: cached)."""
    return " ".join(_words(name))


class HeuristicDecomposer:
    """Content-word phrases of the question, matched to schema vocabulary where it helps.

    1. Spans of up to four words that name a table or a column of the schema (compared on
       singular lower-case words) are found first, longest first; they survive stop-word
       removal ("list price" stays a concept).
    2. Quoted literals and numbers are dropped (values, not concepts); stop words split the
       other words into content-word phrases of at most ``max_words`` words.
    3. A column phrase becomes ``"<table>:<column>"`` with the nearest table named in the
       question that has that column (the following one first: "price of books"); a table
       used that way is not repeated on its own.
    4. At most ``max_subqueries`` phrases, in question order, duplicates removed.
    """

    name = "heuristic"

    def __init__(self, *, max_subqueries: int = 6, max_words: int = 3) -> None:
        self.max_subqueries = max_subqueries
        self.max_words = max_words
        self._vocab_cache: tuple[str, dict[str, str], dict[str, set[str]], set[str]] | None = None

    def _vocab(self, schema: Schema | None) -> tuple[dict[str, str], dict[str, set[str]], set[str]]:
        """``(table phrases, column phrases per table phrase, all column phrases)`` of ``schema``."""
        if schema is None:
            return {}, {}, set()
        key = schema.fingerprint()  # not id(schema): an address is reused once a schema is freed
        if self._vocab_cache is not None and self._vocab_cache[0] == key:
            return self._vocab_cache[1], self._vocab_cache[2], self._vocab_cache[3]
        from jar_core._gc import gc_paused

        from jar_core.index.structure import structure

        s = structure(schema)  # each distinct name once: no table read
        tables: dict[str, str] = {}
        columns: dict[str, set[str]] = {}
        with gc_paused():
            table_phrase = [_phrase(x) for x in s.labels]
            column_phrase = [_phrase(x) for x in s.column_labels]
            for code in dict.fromkeys(s.label.tolist()):  # in the tables' order
                tw = table_phrase[code]
                tables.setdefault(tw, tw)
                columns.setdefault(tw, set())
            col_table = np.repeat(s.label, np.diff(s.col_offsets))
            n = max(len(column_phrase), 1)
            for pair in np.unique(col_table * n + s.column_label).tolist():
                columns[table_phrase[pair // n]].add(column_phrase[pair % n])
            all_columns = set().union(*columns.values()) if columns else set()
        self._vocab_cache = (key, tables, columns, all_columns)
        return tables, columns, all_columns

    def decompose(self, question: str, schema: Schema | None = None) -> Decomposition:
        tables, columns, all_columns = self._vocab(schema)
        raw = [t for t in _TOKEN.findall(question)]
        low = [t.lower().strip("'-") for t in raw]
        sing = [_singular(w) for w in low]
        # 1. schema spans (longest first, up to 4 words) survive stop-word removal
        spans: list[tuple[int, int, str, str]] = []  # (start, end, kind, text)
        i = 0
        while i < len(raw):
            hit = None
            for n in range(min(4, len(raw) - i), 0, -1):
                if any(t[0] in "\"'" for t in raw[i : i + n]):
                    continue
                text = " ".join(sing[i : i + n])
                if n == 1 and low[i] in STOP_WORDS:
                    continue
                if text in tables:
                    hit = (i, i + n, "table", text)
                elif text in all_columns:
                    hit = (i, i + n, "column", text)
                if hit:
                    break
            if hit:
                spans.append(hit)
                i = hit[1]
            else:
                spans.append((i, i + 1, "word", low[i]))
                i += 1
        # 2. runs of content words between stop words; schema spans are units of their own
        items: list[tuple[str, str, int]] = []  # (kind, text, position)
        run: list[str] = []
        for start, end, kind, text in spans:
            tok = raw[start]
            is_value = tok[0] in "\"'" or text.replace(".", "").isdigit()
            if kind == "word" and not is_value and text and text not in STOP_WORDS:
                run.append(text)
                continue
            if run:
                items.append(("word", " ".join(run), start))
                run = []
            if kind != "word":
                items.append((kind, text, start))
        if run:
            items.append(("word", " ".join(run), len(raw)))
        # 3. columns take the nearest table named in the question that has them (after, then before)
        table_pos = [(pos, text) for kind, text, pos in items if kind == "table"]
        phrases: list[str] = []
        used_tables: set[str] = set()
        for kind, text, pos in items:
            if kind == "column":
                owners = [t for p, t in sorted(table_pos, key=lambda pt: (pt[0] < pos, abs(pt[0] - pos)))
                          if text in columns.get(t, ())]
                if owners:
                    phrases.append(f"{owners[0]}:{text}")
                    used_tables.add(owners[0])
                    continue
                phrases.append(text)
            elif kind == "table":
                phrases.append(text)
            else:
                words = text.split()
                phrases.extend(" ".join(words[j : j + self.max_words]) for j in range(0, len(words), self.max_words))
        out = [p for p in dict.fromkeys(phrases) if p not in used_tables]
        return Decomposition(tuple(out[: self.max_subqueries]), self.name)


class PrecomputedDecomposer:
    """Sub-queries given in advance (a benchmark's ``decomp.json``), by exact question text.

    Questions not in the mapping go to ``fallback`` (the heuristic by default).
    """

    name = "precomputed"

    def __init__(
        self, mapping: Mapping[str, Sequence[str]] | Iterable[tuple[str, Sequence[str]]],
        fallback: Decomposer | None = None,
    ) -> None:
        items = mapping.items() if isinstance(mapping, Mapping) else mapping
        self._map: dict[str, tuple[str, ...]] = {}
        for q, subs in items:
            self._map.setdefault(q, tuple(s for s in subs if isinstance(s, str) and s.strip()))
        self.fallback = fallback or HeuristicDecomposer()

    def decompose(self, question: str, schema: Schema | None = None) -> Decomposition:
        if question in self._map:
            return Decomposition(self._map[question], self.name)
        return self.fallback.decompose(question, schema)

    def __contains__(self, question: object) -> bool:
        return question in self._map
