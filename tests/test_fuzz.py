"""Fuzzing (hypothesis, a bounded number of examples): schemas, questions, DDL and gold SQL.

Every input must work or raise a :class:`~jar_core.errors.JarError`; anything else fails the
test (and hypothesis shrinks it). ``scripts/fuzz.py`` runs the same targets with more examples.
"""
from __future__ import annotations

import importlib.util
import logging
import warnings
from pathlib import Path

import pytest

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from jar_core.errors import JarError  # noqa: E402

_spec = importlib.util.spec_from_file_location("jar_fuzz", Path(__file__).resolve().parents[1] / "scripts" / "fuzz.py")
fuzz = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fuzz)  # type: ignore[union-attr]

#: Examples per target inside the test suite (``scripts/fuzz.py --examples N`` for more).
EXAMPLES = 60
bounded = settings(max_examples=EXAMPLES, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large])


def _run(target, *args):
    logging.getLogger("sqlglot").setLevel(logging.CRITICAL)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            target(*args)
        except JarError:
            pass


@bounded
@given(fuzz.schema_dicts)
def test_fuzzed_schemas_raise_only_library_errors(d):
    _run(fuzz.target_schema, d)


@bounded
@given(fuzz.questions)
def test_fuzzed_questions_raise_only_library_errors(q):
    _run(fuzz.target_question, q)


@bounded
@given(fuzz.ddl_text, st.sampled_from(fuzz.DIALECTS))
def test_fuzzed_ddl_raises_only_library_errors(text, dialect):
    _run(fuzz.target_ddl, text, dialect)


@bounded
@given(fuzz.sql_text, st.sampled_from(fuzz.DIALECTS))
def test_fuzzed_gold_sql_raises_only_library_errors(sql, dialect):
    _run(fuzz.target_gold, sql, dialect)


def test_the_fuzz_command_reports_no_crash(capsys):
    assert fuzz.main(["--examples", "5", "--seed", "1"]) == 0
    assert "0 crashes outside the library's error hierarchy" in capsys.readouterr().out
