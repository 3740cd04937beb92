"""The join confidence calibration (jar_core.joins.calibration, scripts/suite/calibrate_joins.py):
fitted on judged joins with known answers, confidences that mean what they say."""
from __future__ import annotations

import json

import numpy as np
import pytest
from helpers import load_script

import jar_core.joins.calibration as calibration


def _points(evidence: str, score: float, right: int, wrong: int, bench: str = "b") -> list[dict]:
    return [{"benchmark": bench, "evidence": evidence, "score": score, "right": i < right}
            for i in range(right + wrong)]


def test_the_fit_is_the_share_right_per_score_made_monotone():
    cal = load_script("suite/calibrate_joins")
    pts = (_points("same name", 0.97, 95, 5) + _points("same name", 0.74, 45, 5)
           + _points("role", 0.72, 8, 2) + _points("role", 0.87, 2, 8))  # role: a higher score less often right
    table = cal.fit(pts, min_joins=10)
    same = table["evidence"]["same name"]
    assert same["score"] == [0.74, 0.97] and same["right"] == pytest.approx([0.9, 0.95])
    role = table["evidence"]["role"]  # pooled where monotonicity fails: (8 + 2) / 20
    assert role["right"] == pytest.approx([0.5, 0.5])
    # too few joins of a rule: the pooled fit of every inferred join
    small = cal.fit(pts, min_joins=30)
    assert "role" not in small["evidence"] and cal.apply(small, {"evidence": "role", "score": 0.72}) <= 0.95


def test_confidence_means_what_it_says_on_the_fitted_joins(monkeypatch):
    cal = load_script("suite/calibrate_joins")
    pts = _points("same name", 0.97, 97, 3) + _points("sibling", 0.72, 30, 70) + _points("entity", 0.77, 60, 40)
    table = cal.fit(pts, min_joins=10)
    for bin_, n, right, conf in cal.reliability([(cal.apply(table, p), p["right"]) for p in pts]):
        assert abs(right - conf) <= 10, (bin_, right, conf)
    # the library reads the same table: a sibling at 0.72 is right 30% of the time, not shown as a key
    monkeypatch.setattr(calibration, "calibration_table", lambda: json.loads(json.dumps(table)))
    assert calibration.calibrated(0.72, "sibling") == pytest.approx(0.3)
    assert not calibration.trusted(0.72, "sibling") and calibration.trusted(0.97, "same name")
    assert calibration.calibrated(0.5, "declared") == 1.0
    from jar_core.joins.edges import EVIDENCE

    w = np.array([[0, 0.72], [0.72, 0]])
    ev = np.full((2, 2), EVIDENCE.index("sibling"))
    np.testing.assert_allclose(calibration.calibrated_matrix(w, ev), [[0, 0.3], [0.3, 0]])


def test_a_score_below_what_the_fit_saw_is_not_trusted(monkeypatch):
    cal = load_script("suite/calibrate_joins")
    pts = _points("entity", 0.77, 99, 1) + _points("sibling", 0.65, 40, 60) + _points("sibling", 0.72, 80, 20)
    table = cal.fit(pts, min_joins=10)
    monkeypatch.setattr(calibration, "calibration_table", lambda: json.loads(json.dumps(table)))
    # within the rule's scores: its map; a little below: the pooled fit, no more than the rule's least
    assert calibration.calibrated(0.77, "entity") == pytest.approx(0.99)
    assert calibration.calibrated(0.70, "entity") == pytest.approx(np.interp(0.70, *[table["pooled"][k] for k in ("score", "right")]))
    # below every score the fit saw (a flat extension said 0.99): not trusted
    low = calibration.calibrated(0.54, "entity")
    assert low < calibration.trust_threshold() and not calibration.trusted(0.54, "entity")
    assert cal.apply(table, {"evidence": "entity", "score": 0.54}) == pytest.approx(low)
    from jar_core.joins.edges import EVIDENCE

    w = np.array([[0, 0.54], [0.54, 0]])
    np.testing.assert_allclose(calibration.calibrated_matrix(w, np.full((2, 2), EVIDENCE.index("entity"))),
                               [[0, low], [low, 0]])


def test_the_shipped_fit_is_monotone_and_within_0_1():
    table = calibration.calibration_table()
    assert 0 < table["threshold"] < 1
    for fit in [*table["evidence"].values(), table["pooled"]]:
        assert fit["score"] == sorted(fit["score"]) and all(0 <= v <= 1 for v in fit["right"])
        assert np.all(np.diff(fit["right"]) >= 0)


def test_a_join_is_judged_right_by_the_equalities_the_keys_and_gold_sql_chain():
    rel = load_script("suite/join_reliability")
    code = ("w.country", "Code")
    pairs = [(("w.city", "CountryCode"), code), (("w.countrylanguage", "CountryCode"), code),  # declared
             (("w.city", "ID"), ("w.capital", "city_id"))]  # the gold SQL's
    equal = rel.equal_columns(pairs)
    # two references of one key hold one country's code: right, though neither pair says so alone
    assert equal[("w.city", "CountryCode")] == equal[("w.countrylanguage", "CountryCode")]
    assert equal[("w.capital", "city_id")] == equal[("w.city", "ID")]
    # a city's id is no country's code; a column no equality names has no class
    assert equal[("w.city", "ID")] != equal[code] and ("w.city", "Name") not in equal
    assert rel.equal_columns([]) == {}
