"""Which joins an answer shows as join keys, and in which order: joins that know when they are
unsure (METHOD.md, "Output"; the calibration is :mod:`jar_core.joins.calibration`).

* :class:`Key`: one key between two selected tables, with the rule's score, its calibrated
  confidence and whether it is trusted (:func:`make_key`);
* :func:`key_forest`: the spanning forest over the needed tables' trusted keys, by calibrated
  confidence, and the best untrusted candidate joining each two of its components that the
  forest leaves apart (the *unverified* joins: the answer says the tables have no known key);
* :func:`optional_keys`: how each optional table joins the tables before it, trusted or not;
* :func:`ranked`: the trusted keys between one pair of tables, the one whose column names the
  question speaks of first (``head_physician_id`` for "Who is the head of the Oncology
  department?"), then by confidence (:func:`question_fit`).

The search is not changed: it still uses every join above ``min_join_score``. This is what a
model is shown, and only what the library trusts is shown as a key.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Mapping, Sequence

import numpy as np

from jar_core.joins.edges import EVIDENCE, SIBLINGS
from jar_core.joins.calibration import calibrated, calibrated_matrix, trusted, trusted_confidence
from jar_core.joins.path import components, spanning_tree
from jar_core.joins.words import KEY_WORDS, words, written_words

__all__ = ["Key", "make_key", "graph_keys", "key_forest", "optional_keys", "question_words", "question_fit", "ranked", "strength"]

#: Pairs of the selection (positions ``a < b``) and their keys, best calibrated confidence first.
PairKeys = Mapping[tuple[int, int], Sequence["Key"]]

#: Letters a question's word may add to a role word it stands for (``ship`` -> ``shipped``,
#: ``head`` -> ``headed``; not ``head`` -> ``headquarters``).
_INFLECTION = 3


@dataclass(frozen=True)
class Key:
    """``a.left = b.right`` between the ``a``-th and ``b``-th selected tables: the rule's ``score``
    and ``evidence``, the calibrated ``confidence`` and whether it is ``trusted`` (shown as a key)."""

    a: int
    left: str
    b: int
    right: str
    score: float
    evidence: str
    confidence: float
    trusted: bool

    @property
    def declared(self) -> bool:
        return self.evidence == "declared"

    def flipped(self) -> "Key":
        """The same key written from ``b``'s side."""
        return Key(self.b, self.right, self.a, self.left, self.score, self.evidence, self.confidence, self.trusted)


def make_key(a: int, left: str, b: int, right: str, score: float, evidence: str) -> Key:
    """A :class:`Key` with its calibrated confidence and trust (:mod:`jar_core.joins.calibration`:
    1 and trusted for ``declared``, the score itself and trusted for the paper's pair ``score``)."""
    return Key(a, left, b, right, float(score), evidence, calibrated(score, evidence), trusted(score, evidence))


def graph_keys(edges: Sequence[tuple[int, str, int, str, float, int]]) -> list[Key]:
    """The :class:`Key` of each join graph edge ``(a, left, b, right, score, evidence)``
    (``evidence`` an index into :data:`~jar_core.joins.graph.EVIDENCE`), calibrated at once
    (:func:`~jar_core.joins.calibration.calibrated_matrix`): as :func:`make_key` gives them."""
    if not edges:
        return []
    scores = np.array([e[4] for e in edges], dtype=np.float64)
    codes = np.array([e[5] for e in edges], dtype=np.int64)
    conf = calibrated_matrix(scores, codes).tolist()
    return [Key(a, left, b, right, float(score), EVIDENCE[code], c, trusted_confidence(c, EVIDENCE[code]))
            for (a, left, b, right, score, code), c in zip(edges, conf)]


def _best(keys: Iterable[Key], want: bool) -> Key | None:
    """The first key of ``keys`` (best first) whose trust is ``want``."""
    return next((k for k in keys if k.trusted == want), None)


def key_forest(pairs: PairKeys, needed: np.ndarray) -> tuple[list[tuple[int, int]], list[Key]]:
    """The pairs ``(a, b)`` of the spanning forest over the needed tables' trusted keys (the
    heaviest calibrated confidences; a key on every column of a composite key first, as
    :func:`jar_core.joins.path.join_tree`; by :func:`weight`), and the unverified keys: the best untrusted candidate
    between two of the forest's components, as many as join them up (strongest first)."""
    n = len(needed)
    conf, first = np.zeros((n, n)), np.zeros((n, n), dtype=bool)
    for (a, b), keys in pairs.items():
        best = _best(keys, True)
        if best is not None and needed[a] and needed[b]:
            conf[a, b] = conf[b, a] = max(weight(best), 1e-9)
            first[a, b] = first[b, a] = best.evidence == "composite key"
    core = np.flatnonzero(needed)
    forest = spanning_tree(conf[np.ix_(core, core)], first[np.ix_(core, core)])
    tree = [(int(core[x]), int(core[y])) for x, y, _ in forest]
    label = components(n, [(a, b, 0.0) for a, b in tree]).tolist()
    apart = [k for (a, b), keys in pairs.items() if needed[a] and needed[b] and label[a] != label[b]
             for k in [_best(keys, False)] if k is not None]
    unverified = []
    for k in sorted(apart, key=lambda k: (strength(k), k.a, k.b)):
        la, lb = label[k.a], label[k.b]
        if la != lb:
            unverified.append(k)
            label = [la if x == lb else x for x in label]
    return tree, unverified


def optional_keys(pairs: PairKeys, needed: np.ndarray) -> list[tuple[int, int, bool]]:
    """How each optional table (``~needed``) would join the tables before it in the answer (the
    needed ones and the optional ones before it): ``(a, b, trusted)``, ``b`` the optional table and
    ``a`` the table of its most confident trusted key to them, else of its best untrusted candidate
    (none for a table with no key to them)."""
    before, out = needed.copy(), []
    for b in np.flatnonzero(~needed).tolist():
        for want in (True, False):
            cands = []
            for a in np.flatnonzero(before).tolist():
                key = _best(pairs.get((min(a, b), max(a, b)), ()), want)
                if key is not None:
                    cands.append((strength(key), a))
            if cands:
                out.append((min(cands)[-1], b, want))
                break
        before[b] = True
    return out


def question_words(question: str) -> frozenset[str]:
    """The question's words as names are read (singular, lower case: :func:`jar_core.joins.words.words`
    of each written word, whose cache then holds words, not questions)."""
    return frozenset(w for written in written_words(question) for w in words(written))


@lru_cache(maxsize=1 << 14)
def _roles(left_table: str, left: str, right_table: str, right: str) -> frozenset[str]:
    """The words one of a key's columns has and the other lacks, naming neither table nor a key:
    the role a reference plays (``head`` of ``departments.head_physician_id =
    physicians.physician_id``, ``ship`` of ``ship_date_key = date_key``, ``cited`` of
    ``CITE.CITEDPAPERID = PAPER.PAPERID``: names are read with their run-together words split);
    none where both columns are named alike (``school_code = school_code``: an attribute two
    tables share, no role)."""
    names = {*words(left_table, glued=True), *words(right_table, glued=True)}
    own = set(words(left, glued=True)) ^ set(words(right, glued=True))  # CITEDPAPERID: cited, paper, id
    return frozenset(w for w in own if w not in KEY_WORDS and w not in names)


def question_fit(question: frozenset[str], left_table: str, left: str, right_table: str, right: str) -> int:
    """How many of the key's role words (its columns' words that name neither table nor a key) the
    question says, as written or inflected (``ship`` in "shipped")."""
    return sum(
        1 for w in _roles(left_table, left, right_table, right)
        if w in question or any(q.startswith(w) and len(q) - len(w) <= _INFLECTION for q in question if len(w) >= 4)
    )


#: Evidence names of siblings (:data:`jar_core.joins.edges.SIBLINGS`).
_SIBLING_EVIDENCE = frozenset(EVIDENCE[i] for i in SIBLINGS)


def weight(key: Key) -> float:
    """How strong a key is, larger for a stronger one (a spanning tree's weight): the calibrated
    confidence to a tenth, then the rules' score (in [0, 1], a hundredth of it: it orders only
    keys of one tenth). Confidences a hundredth apart (a same-name key at 0.98, an entity key at
    0.99) are the calibration's noise: ranked by them, the keys shown flipped with each refit of
    the calibration on the keys shown."""
    return round(key.confidence, 1) + 0.01 * key.score


def strength(key: Key) -> float:
    """A sort key, strongest first: :func:`weight`, negated."""
    return -weight(key)


def ranked(keys: Sequence[Key], question: frozenset[str], names: Sequence[str]) -> list[Key]:
    """The trusted ``keys`` between one pair of tables (``names``: the selected tables' names by
    position), references before siblings (two references of one key: a shortcut through its
    table, never in place of a reference between the two), then the one the question fits best
    (:func:`question_fit`), ties by :func:`strength` (then as given: the rules' order)."""
    fit = [question_fit(question, names[k.a], k.left, names[k.b], k.right) for k in keys]
    sib = [k.evidence in _SIBLING_EVIDENCE for k in keys]
    order = sorted(range(len(keys)), key=lambda i: (sib[i], -fit[i], strength(keys[i])))
    return [keys[i] for i in order if keys[i].trusted]
