"""The options record (jar_core.options) is what every entry point reads: one row per check."""
import inspect

import pytest

from jar_core.options import CALL_OPTIONS, RETRIEVER_OPTIONS, option
from jar_core.retriever import TableRetriever


def test_the_retriever_takes_the_record_s_options_with_its_defaults():
    params = [p for p in inspect.signature(TableRetriever.__init__).parameters.values()
              if p.kind is p.KEYWORD_ONLY and p.name != "index"]
    assert [p.name for p in params] == [o.name for o in RETRIEVER_OPTIONS]
    assert {p.name: p.default for p in params} == {o.name: o.default for o in RETRIEVER_OPTIONS}


@pytest.mark.parametrize("command", ["retrieve", "serve"])
def test_every_flag_of_the_record_is_an_argument_of_the_command(command):
    from jar_core.cli.main import build_parser

    parser = build_parser()._subparsers._group_actions[0].choices[command]
    flags = {s for a in parser._actions for s in a.option_strings}
    assert {o.flag for o in RETRIEVER_OPTIONS if o.flag} <= flags
    assert {"-k"} <= flags


@pytest.mark.parametrize("name, value, message", [
    ("candidates", 0, "candidates must be >= 1"),
    ("min_join_score", 2, r"min_join_score must be a number in \[0, 1\]"),
    ("expand", -1, "expand must be an integer >= 0"),
    ("hubness", 3, r"hubness must be a weight in \[0, 2\]"),
    ("joins", "magic", "joins must be one of rules, paper"),
    ("k", 0, "k must be >= 1"),
])
def test_the_record_s_checks(name, value, message):
    from jar_core.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match=message):
        option(name).checked(value)


def test_the_per_call_arguments_are_defined_once():
    assert [o.name for o in CALL_OPTIONS] == ["k", "include", "exclude", "database"]
    assert option("k").checked("auto") == "auto" and option("include").checked("books") == ["books"]


def test_the_choices_agree_with_the_stages_that_read_them():
    from jar_core import options
    from jar_core.candidates.ann import FIRST_STAGES
    from jar_core.joins.compat import JOIN_MODES

    assert (options.JOIN_MODES, options.FIRST_STAGES) == (JOIN_MODES, FIRST_STAGES)
