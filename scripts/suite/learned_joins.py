#!/usr/bin/env python3
"""Would one learned scorer over the join rules' evidence beat the rules? Measured on declared keys.

    JAR_RETRIEVAL_THREADS=1 python scripts/suite/learned_joins.py [FOLDER ...] [--json out.json]

Without folders: every ``*_nokeys`` folder of the suite (as ``run_suite.py`` finds them) whose
keyed twin declares foreign keys (Spider's train databases, MIMIC-III, eICU, KaggleDBQA). The
truth is the keyed twin's declared keys; the schema read is the twin without them.

The candidates of a scorer are the column pairs ``f -> k`` of one database, ``f`` and ``k`` in two
tables of compatible type, ``f`` holding keys (:attr:`ColumnProfile.keyless` and flags left out)
and ``k`` a key as far as anything tells (:meth:`ColumnProfile.keyish`, or a key word in its
name). Their features: the rules' calibrated confidence of the pair and its evidence (the join
graph of :mod:`jar_core.joins`, whatever rule found it, but the search's only evidence, which no
answer shows as a key), the column facts the rules read
(:class:`~jar_core.joins.profile.ColumnProfile`: own key, adopted key, the name naming its table,
key words, equal names, the entity words naming the other table, the types), and the embedding
model's similarity between ``f``'s entity words and ``k``'s table name and between the two
columns' names. Three scorers (scikit-learn's logistic regression, standardised, with and
without the embedding's similarities, and gradient boosting) are checked out of sample in two
ways: by database (5 folds over the databases of every benchmark, no database in its own
training set), and by family (each benchmark scored by a model trained on the others only).

A scorer, like the answer, shows one join per pair of tables: its best column pair at or above
the threshold. Printed per benchmark and threshold: the table pairs joined, the share right
(the two columns are one declared key, or two references of one: the keys' connected columns)
and the share of the declared keys' table pairs joined by a right column pair; the rules at the
threshold the library shows keys above (0.5) and at 0.9 beside them; then the logistic
regression's weights. Needs scikit-learn.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from join_reliability import are_equal, declared_keys, equal_columns  # noqa: E402
from run_suite import DEFAULT_ROOTS, find_folders  # noqa: E402

from jar_core.joins.calibration import SEARCH_ONLY, apply_fit, trust_threshold  # noqa: E402
from jar_core.joins.edges import EVIDENCE  # noqa: E402
from jar_core.joins.graph import build_join_graph  # noqa: E402
from jar_core.joins.profile import ColumnProfile  # noqa: E402
from jar_core.loaders import load_benchmark  # noqa: E402
from jar_core.names import readable  # noqa: E402

#: The rules' evidence a feature each (``declared`` never occurs without keys; the search's only
#: evidence, :data:`~jar_core.joins.calibration.SEARCH_ONLY`, is never shown, so it is no feature).
RULE_EVIDENCE = tuple(e for e in EVIDENCE if e != "declared" and e not in SEARCH_ONLY)
FEATURES = ("rules' confidence", *(f"rule: {e}" for e in RULE_EVIDENCE),
            "k own key", "k adopted key", "k names its table", "k names its table otherwise", "k key word",
            "f key word", "f own key", "f names its table", "f names its table otherwise", "equal names",
            "f's entity names k's table", "entity words shared", "same type class", "both integers",
            "own keys named as f", "embedding: f's entity ~ k's table", "embedding: f ~ k")
THRESHOLDS = (0.1, 0.3, 0.5)


class Candidates:
    """The candidate pairs of one benchmark without keys, their features and labels."""

    def __init__(self, folder: Path, keys: list[tuple[tuple[str, str], tuple[str, str]]], embedder: Any) -> None:
        bench = load_benchmark(folder)
        schema = bench.schema
        self.name = bench.name
        sizes = np.array([len(t.columns) for t in schema.tables], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        p = ColumnProfile.from_schema(schema, offsets)
        columns = [(t, c) for t in schema.tables for c in t.columns]
        where = {(t.id, c.name): i for i, (t, c) in enumerate(columns)}
        # the keyed twin's declared keys (``keys``) as column positions, referencing first
        self.keys = {(where[a], where[b]) for a, b in keys if a in where and b in where and a != b}
        self.table = p.table
        graph = build_join_graph(schema, offsets, profile=p)
        self.rules: dict[frozenset[int], tuple[float, str]] = {}
        for a, b, score, ev in zip(graph.a.tolist(), graph.b.tolist(), graph.confidence.tolist(),
                                   graph.evidence.tolist()):
            name = EVIDENCE[ev]
            if name in SEARCH_ONLY:
                continue
            conf = float(apply_fit(np.asarray([score]), name)[0])
            pair = frozenset((a, b))
            if conf > self.rules.get(pair, (-1.0, ""))[0]:
                self.rules[pair] = (conf, name)
        self.rows, feats = self._pairs(p)
        self.groups = np.array([f"{self.name}/{columns[f][0].database}" for f, _ in self.rows], dtype=object)
        self.y = np.array([(f, k) in self.keys for f, k in self.rows], dtype=bool)
        self.X = np.column_stack([np.asarray(feats, dtype=np.float64).reshape(len(self.rows), -1),
                                  *self._similarities(p, columns, embedder)])

    def _pairs(self, p: ColumnProfile) -> tuple[list[tuple[int, int]], list[list[float]]]:
        keyish = p.keyish() | p.own_key | p.has_key_word
        by_db: dict[int, list[int]] = defaultdict(list)
        owned: dict[int, Counter[str]] = defaultdict(Counter)  # per database, its own keys' names
        for i in range(p.n):
            by_db[int(p.database[i])].append(i)
            if p.own_key[i]:
                owned[int(p.database[i])].update(set(p.full_names[i]))
        rows, feats = [], []
        for db, cols in by_db.items():
            for f in cols:
                if p.keyless[f] or p.flag[f]:
                    continue
                stems = ["".join(s) for s in p.stems[f] if s]
                stem_words = {w for s in p.stems[f] for w in s}
                for k in cols:
                    if p.table[k] == p.table[f] or not keyish[k] or p.keyless[k]:
                        continue
                    tf, tk = int(p.type_class[f]), int(p.type_class[k])
                    if tf != tk and p.other_class not in (tf, tk):
                        continue
                    conf, ev = self.rules.get(frozenset((f, k)), (0.0, ""))
                    table_words = {w for ws in p.table_words[k] for w in ws}
                    rows.append((f, k))
                    feats.append([conf, *(float(ev == e) for e in RULE_EVIDENCE),
                                  p.own_key[k], p.adopted[k], p.names_table[k] == 2, p.names_table[k] == 1,
                                  p.has_key_word[k], p.has_key_word[f], p.own_key[f], p.names_table[f] == 2,
                                  p.names_table[f] == 1, bool(set(p.full_names[f]) & set(p.full_names[k])),
                                  any(s in p.table_names[k] for s in stems),
                                  len(stem_words & table_words) / max(1, len(stem_words | table_words)),
                                  tf == tk and tf != p.other_class, p.integer[f] and p.integer[k],
                                  min((owned[db][n] for n in p.full_names[f]), default=0)])
        return rows, feats

    def _similarities(self, p: ColumnProfile, columns: list[Any], embedder: Any) -> list[np.ndarray]:
        def entity(f: int) -> str:
            return " ".join(p.stems[f][0]) if p.stems[f] and p.stems[f][0] else readable(columns[f][1].name)

        left = [entity(f) for f, _ in self.rows]
        tables = [readable(columns[k][0].name) for _, k in self.rows]
        names_f = [readable(columns[f][1].name) for f, _ in self.rows]
        names_k = [readable(columns[k][1].name) for _, k in self.rows]
        texts = sorted(set(left) | set(tables) | set(names_f) | set(names_k))
        if not texts:
            return [np.zeros(0), np.zeros(0)]
        vec = dict(zip(texts, _unit(embedder.embed_documents(texts))))
        return [np.array([float(vec[a] @ vec[b]) for a, b in zip(x, z)]) for x, z in ((left, tables), (names_f, names_k))]

    def scored(self, probability: np.ndarray) -> list[tuple[frozenset[int], float]]:
        return [(frozenset(r), float(s)) for r, s in zip(self.rows, probability)]

    def by_rules(self) -> list[tuple[frozenset[int], float]]:
        return [(pair, conf) for pair, (conf, _) in self.rules.items()]

    def judge(self, scored: list[tuple[frozenset[int], float]], threshold: float) -> dict[str, Any]:
        """The best column pair per table pair at or above ``threshold``: how many, how many right,
        and how many of the declared keys' table pairs it joins rightly."""
        best: dict[frozenset[int], tuple[float, frozenset[int]]] = {}
        for pair, s in scored:
            tables = frozenset(int(self.table[c]) for c in pair)
            if s >= threshold and len(tables) == 2 and s > best.get(tables, (-1.0, pair))[0]:
                best[tables] = (s, pair)
        equal = equal_columns(sorted(self.keys))
        right = {t for t, (_, pair) in best.items() if are_equal(equal, *pair)}
        truth = {frozenset(int(self.table[c]) for c in key) for key in self.keys}
        return {"shown": len(best), "right": len(right), "declared": len(truth), "held": len(truth & right)}


def _unit(v: np.ndarray) -> np.ndarray:
    """Rows of ``v`` scaled to length 1 in float64 (:func:`jar_core.embed.settings.normalize`
    works in float32, which moves the scorers' figures)."""
    v = np.asarray(v, dtype=np.float64)
    return v / np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-12)


def _models() -> dict[str, Any]:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    def logistic() -> Any:
        return make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))

    every, names_only = slice(None), slice(0, len(FEATURES) - 2)
    return {"logistic regression": (logistic, every),
            "gradient boosting": (lambda: HistGradientBoostingClassifier(max_iter=200, random_state=0), every),
            "logistic regression without the embedding": (logistic, names_only)}


def out_of_sample(sets: list[Candidates], make: Any, columns: slice, *, by: str) -> list[np.ndarray]:
    """Each benchmark's candidate probabilities from models of the feature ``columns`` that never
    saw its database (``by`` ``"database"``: 5 folds over every database of the suite) or its
    benchmark (``"family"``)."""
    from sklearn.model_selection import GroupKFold

    X = np.vstack([s.X for s in sets])[:, columns]
    y = np.concatenate([s.y for s in sets])
    groups = np.concatenate([s.groups if by == "database" else np.full(len(s.y), s.name, dtype=object) for s in sets])
    prob = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=5 if by == "database" else len(sets)).split(X, y, groups):
        prob[test] = make().fit(X[train], y[train]).predict_proba(X[test])[:, 1]
    return np.split(prob, np.cumsum([len(s.y) for s in sets])[:-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("folders", nargs="*", type=Path)
    ap.add_argument("--json", type=Path, metavar="OUT.json", help="every figure printed, as JSON")
    args = ap.parse_args(argv)
    try:
        models = _models()
    except ImportError:
        ap.error("needs scikit-learn (pip install scikit-learn)")
    from jar_core.embed.embedders import get_embedder

    folders = [f for f in find_folders(args.folders or [p for p in DEFAULT_ROOTS if p.exists()])
               if f.name.endswith("_nokeys")]
    embedder, sets, t0 = get_embedder(), [], time.perf_counter()
    for i, folder in enumerate(folders, 1):
        keyed = folder.with_name(folder.name[: -len("_nokeys")])
        keys = declared_keys(load_benchmark(keyed).schema) if (keyed / "dev.json").is_file() else []
        if not keys:
            continue
        print(f"learned joins: [{i}/{len(folders)}] {folder}", file=sys.stderr, flush=True)
        sets.append(Candidates(folder, keys, embedder))
    if len(sets) < 2:
        ap.error("needs two or more _nokeys folders whose keyed twin declares foreign keys")
    out: dict[str, Any] = {"benchmarks": {}, "weights": {}}
    shown = trust_threshold()
    for s in sets:
        out["benchmarks"][s.name] = {"candidates": len(s.y), "declared keys": len(s.keys),
                                     "rules": {str(t): s.judge(s.by_rules(), t) for t in (shown, 0.9)}}
    for by in ("database", "family"):
        for model, (make, columns) in models.items():
            for s, prob in zip(sets, out_of_sample(sets, make, columns, by=by)):
                out["benchmarks"][s.name][f"{model}, by {by}"] = {str(t): s.judge(s.scored(prob), t) for t in THRESHOLDS}
    print(f"Table pairs joined, right, and declared keys' table pairs joined rightly ({time.perf_counter() - t0:.0f} s)\n")
    print("| benchmark | scorer | threshold | joined | right (%) | declared held (%) |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for name, rows in out["benchmarks"].items():
        for scorer, by_t in rows.items():
            if not isinstance(by_t, dict):
                continue
            for t, m in by_t.items():
                print(f"| {name} | {scorer} | {float(t):.1f} | {m['shown']} | {100 * m['right'] / max(1, m['shown']):.1f} | "
                      f"{m['held']} of {m['declared']} ({100 * m['held'] / max(1, m['declared']):.1f}) |")
    fit = models["logistic regression"][0]().fit(np.vstack([s.X for s in sets]), np.concatenate([s.y for s in sets]))
    out["weights"] = dict(zip(FEATURES, np.round(fit[-1].coef_[0], 3).tolist()))
    print("\nLogistic regression on every benchmark, weights of the standardised features:\n")
    for f, w in sorted(out["weights"].items(), key=lambda kv: -abs(kv[1])):
        print(f"  {w:+.2f}  {f}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
