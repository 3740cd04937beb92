"""The jar-retrieval command: through a subprocess (text and --json) and in-process for bad input."""
import argparse
import json
import os
import re
import sqlite3
import subprocess
import sys

import pytest

from jar_core.cli.main import build_parser, main
from jar_core.demo import DEMO_QUESTION
from helpers import saved_schema, saved_schema_text


def run(args, env_cache):
    env = {**os.environ, "JAR_RETRIEVAL_CACHE": str(env_cache), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "jar_core.cli", *args], capture_output=True, text=True, env=env, timeout=300)


def test_retrieve_text_and_json_through_a_subprocess(tmp_path):
    p = run(["retrieve", "--explain", "-k", "4"], tmp_path)
    assert p.returncode == 0, p.stderr
    assert f"Question: {DEMO_QUESTION}" in p.stdout
    assert "demo.book_authors" in p.stdout and "Step trace" in p.stdout and "Join path:" in p.stdout
    assert "Traceback" not in p.stderr
    p = run(["retrieve", DEMO_QUESTION, "-k", "4", "--json"], tmp_path)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert [t["step"] for t in out["tables"]] == [1, 2, 3, 4]
    assert {"name", "database", "score", "step"} <= set(out["tables"][0])
    assert "book_authors" in [t["name"] for t in out["tables"]]
    assert out["joins"] and set(out["joins"][0]) >= {"left", "right", "score"}
    assert any((tmp_path / "indexes").iterdir())  # the index was cached for the next (warm) run


def test_index_command_and_retrieve_from_the_index(tmp_path, capsys):
    assert main(["index", "--out", str(tmp_path / "idx"), "-q"]) == 0
    assert "indexed 13 tables" in capsys.readouterr().out
    assert main(["retrieve", DEMO_QUESTION, "--index", str(tmp_path / "idx"), "-k", "2", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["tables"]) == 2


def test_k_above_candidates_warns_on_stderr(capsys):
    assert main(["retrieve", "-k", "40", "--json", "-q"]) == 0
    captured = capsys.readouterr()
    assert "warning: k=40 is larger than the 13 candidate tables" in captured.err
    assert len(json.loads(captured.out)["tables"]) == 13


def bad_ddl(tmp_path):
    f = tmp_path / "bad.sql"
    f.write_text("CREATE TABLE a (id INT);\nCREATE TABLE b (x INT y z w);\n")
    return str(f)


def no_table_db(tmp_path):
    f = tmp_path / "empty.db"
    sqlite3.connect(f).close()
    return f"sqlite:///{f}"


@pytest.mark.parametrize(
    "args,message,status",
    [
        (["retrieve", "   "], "the question is empty", 2),
        (["retrieve", "q", "-k", "0"], "k must be >= 1", 2),
        (["retrieve", "q", "--candidates", "0"], "--candidates must be >= 1", 2),
        (["retrieve", "q", "--db", "sqlite:///{tmp}/missing.db"], "does not exist", 1),
        (["retrieve", "q", "--db", "sqlite:///{tmp}"], "'{tmp}' is a directory, not a SQLite database file", 1),
        (["retrieve", "q", "--db", "sqlite:///{tmp}/nofolder/x.db"], "the folder '{tmp}/nofolder' does not exist", 1),
        (["retrieve", "q", "--db", "postgresql://u:secret@127.0.0.1:1/x"], "postgresql://u:***@127.0.0.1:1/x", 1),
        (["retrieve", "q", "--db", "{empty_db}"], "has no tables", 1),
        (["retrieve", "q", "--ddl", "{bad_ddl}"], "statement 2", 1),
        (["retrieve", "q", "--ddl", "{tmp}/nope.sql"], "does not exist", 1),
        (["retrieve", "q", "--benchmark", "{tmp}"], "dev.json is missing", 1),
        (["retrieve", "q", "--db-id", "x"], "--db-id needs --benchmark", 2),
        (["retrieve", "q", "--index", "{tmp}/noindex"], "no index", 1),
        (["retrieve", "q", "--weights", "1,2", "--strategy", "greedy"], "--weights takes", 2),
    ],
)
def test_bad_input_is_one_line_with_its_exit_status(tmp_path, capsys, args, message, status):
    """A usage error (a bad value) exits 2, an unreadable source 1."""
    subs = {"tmp": str(tmp_path), "empty_db": no_table_db(tmp_path), "bad_ddl": bad_ddl(tmp_path)}
    args = [a.format(**subs) for a in args]
    message = message.format(**subs)
    assert main(args) == status
    err = capsys.readouterr().err
    assert err.startswith("jar-retrieval: error: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "secret" not in err
    assert not (tmp_path / "missing.db").exists() and not (tmp_path / "nofolder").exists()


def test_unknown_db_id(benchmarks_dir, capsys):
    assert main(["retrieve", "q", "--benchmark", str(benchmarks_dir / "spider"), "--db-id", "nope", "--no-cache"]) == 1
    assert "unknown database 'nope'" in capsys.readouterr().err


def test_more_bad_input_is_one_line_with_its_exit_status(tmp_path, capsys):
    """A bad value exits 2, a source that cannot be read 1."""
    assert main(["bench", "--repeat", "0"]) == 2
    _one_line_error(capsys, "--repeat must be >= 1")
    assert main(["retrieve", "q", "--index", str(tmp_path / "idx"), "--no-samples"]) == 2
    _one_line_error(capsys, "--no-samples applies to building an index")
    # the URL as written, not the read-only form it is opened with
    assert main(["retrieve", "q", "--db", "sqlite:///:memory:"]) == 1
    _one_line_error(capsys, "database sqlite:///:memory: has no tables")
    db = no_table_db(tmp_path)
    assert main(["retrieve", "q", "--db", db]) == 1
    assert f"database {db} has no tables" in _one_line_error(capsys, "has no tables")
    chinook = tmp_path / "one.db"
    con = sqlite3.connect(chinook)
    con.execute("CREATE TABLE t (a int)")
    con.execute("INSERT INTO t VALUES (1)")
    con.commit()
    con.close()
    assert main(["retrieve", "q", "--ddl", str(chinook)]) == 1
    _one_line_error(capsys, f"it is a SQLite database: read it with --db sqlite:///{chinook}")
    ddl = tmp_path / "mysql.sql"
    ddl.write_text("CREATE TABLE a (id INT UNSIGNED NOT NULL AUTO_INCREMENT, PRIMARY KEY (id)) ENGINE=InnoDB;\n"
                   "CREATE TABLE b (id INT, a_id INT, KEY idx (a_id), CONSTRAINT fk FOREIGN KEY (a_id) "
                   "REFERENCES a (id) ON DELETE RESTRICT);\n")
    if main(["retrieve", "q", "--ddl", str(ddl), "--no-cache"]) == 1:  # sqlglot's generic dialect may read it
        _one_line_error(capsys, "pass it: dialect= / --dialect")
    assert main(["retrieve", "q", "--ddl", str(ddl), "--dialect", "mysql", "--no-cache", "-q"]) == 0


def test_serve_takes_the_search_switches_and_index_has_no_index_source(capsys):
    args = build_parser().parse_args(["serve", "--strategy", "greedy", "--weights", "1,1,1", "--first-stage", "exact"])
    assert (args.strategy, args.weights, args.first_stage) == ("greedy", "1,1,1", "exact")
    with pytest.raises(SystemExit):
        build_parser().parse_args(["index", "--index", "x", "--out", "y"])
    assert "--index" not in build_parser()._subparsers._group_actions[0].choices["index"].format_help()


def test_a_ddl_file_in_utf16_with_its_byte_order_mark_is_read(tmp_path, capsys):
    f = tmp_path / "export.sql"
    f.write_bytes("CREATE TABLE singer (singer_id int primary key, name text);".encode("utf-16"))
    assert main(["retrieve", "singer names", "--ddl", str(f), "-k", "1", "--no-cache", "-q", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tables"][0]["name"] == "singer"


def test_ddl_from_standard_input(monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(
        "CREATE TABLE singer (singer_id int primary key, name text);\n"
        "CREATE TABLE concert (concert_id int primary key, singer_id int REFERENCES singer);\n"))
    assert main(["retrieve", "concerts of each singer", "--ddl", "-", "-k", "2", "--no-cache", "-q", "--json"]) == 0
    assert {t["name"] for t in json.loads(capsys.readouterr().out)["tables"]} == {"singer", "concert"}
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["retrieve", "x", "--ddl", "-", "--no-cache", "-q"]) == 1
    assert "no CREATE TABLE" in capsys.readouterr().err


def test_eval_without_a_multi_table_question_fails(tmp_path, capsys):
    (tmp_path / "dev.json").write_text(json.dumps(
        [{"question": "q", "db_id": "d", "sql": "SELECT a FROM t", "gold_tables": ["d#sep#t"]}]))
    (tmp_path / "dev_tables.json").write_text(json.dumps(
        {f"d#sep#{t}": {"db_id": "d", "table_name_original": t, "column_names_original": [c],
                        "column_types": ["text"]} for t, c in (("t", "a"), ("u", "b"))}))
    assert main(["eval", str(tmp_path), "--methods", "dense", "-q", "--no-cache"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("jar-retrieval: error: ") and "no multi-table question" in err
    assert err.count("\n") == 1 and "Traceback" not in err  # the error alone, no warning before it


def test_usage_errors_exit_2_with_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        main(["retrieve", "q", "-k", "three"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err == ("jar-retrieval retrieve: error: argument -k/--k: -k takes a positive integer or 'auto', got 'three'"
                   " (see jar-retrieval retrieve --help)\n"), err
    with pytest.raises(SystemExit) as e:
        main(["nosuch"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1 and "invalid choice: 'nosuch'" in err, err


def test_an_unknown_option_of_a_command_names_the_command_help(capsys):
    for command, args in (("retrieve", ["q"]), ("index", ["--out", "x"]), ("eval", ["x"])):
        with pytest.raises(SystemExit) as e:
            main([command, *args, "--nonsense"])
        err = capsys.readouterr().err
        assert e.value.code == 2
        assert err == (f"jar-retrieval {command}: error: unrecognized arguments: --nonsense"
                       f" (see jar-retrieval {command} --help)\n"), err
    with pytest.raises(SystemExit) as e:  # an unknown option before the command is the top level's
        main(["--nonsense", "retrieve"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.endswith("unrecognized arguments: --nonsense (see jar-retrieval --help)\n"), err


def test_a_value_beginning_with_minus_and_a_digit_is_the_option_value(tmp_path, capsys):
    parse = build_parser().parse_args
    assert parse(["retrieve", "q", "--weights", "-1,1,1"]).weights == "-1,1,1"
    assert parse(["serve", "--weights", "-.5,1,1"]).weights == "-.5,1,1"
    assert parse(["retrieve", "q", "--lexical", "-1e3"]).lexical == -1e3
    assert parse(["retrieve", "--", "--weights"]).question == "--weights"  # after --: positional
    # and checked by the search's own check (weights in [0, 1e6]), one line and exit 1
    assert main(["retrieve", "q", "--weights", "-1,1,1", "--no-cache"]) == 2
    _one_line_error(capsys, "--weights: weight l_cov must be a number in [0, 1e+06], got -1.0")
    assert main(["retrieve", "q", "--weights", "1,1,1e7", "--strategy", "greedy", "--no-cache"]) == 2
    _one_line_error(capsys, "--weights: weight l_coarse must be a number in [0, 1e+06], got 10000000.0")
    assert main(["eval", str(tmp_path), "--methods", "greedy", "--weights", "1,-2,1"]) == 2
    _one_line_error(capsys, "--weights: weight l_join must be a number in [0, 1e+06], got -2.0")


def _bench_script(tmp_path, *body: str):
    """A script that runs ``jar-retrieval`` with the ``bench`` command replaced by one of ``body``'s
    lines (then ``return 0``); transformers is imported before ``jar_core.cli.main`` where
    ``$IMPORT_FIRST`` is set."""
    script = tmp_path / "run.py"
    script.write_text(
        "import logging, os, sys\n"
        "if os.environ.get('IMPORT_FIRST'):\n"
        "    import transformers.utils.logging\n"
        "import jar_core.cli.main as cli\n"
        "def command(args):\n"
        + "".join(f"    {line}\n" for line in body)
        + "    return 0\n"
        "cli._cmd_bench = command\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    return script


def _offline_env(*unset: str) -> dict[str, str]:
    """The environment offline (``HF_HUB_OFFLINE=1``), without the variables ``unset`` (nor
    ``$IMPORT_FIRST``: a test sets it where it means to)."""
    drop = {*unset, "IMPORT_FIRST"}
    return {**{k: v for k, v in os.environ.items() if k not in drop}, "HF_HUB_OFFLINE": "1"}


def test_verbose_library_log_lines_are_printed_once(tmp_path):
    script = _bench_script(
        tmp_path,
        "from huggingface_hub.utils import logging as hub_logging",
        "hub_logging.get_logger('huggingface_hub.file_download').warning('a hub line')",
        "logging.getLogger('sentence_transformers.SentenceTransformer').info('a model line')",
        "from huggingface_hub import constants",
        "print(constants.HF_HUB_DISABLE_PROGRESS_BARS)",
    )
    env = _offline_env("HF_HUB_DISABLE_PROGRESS_BARS")
    p = subprocess.run([sys.executable, str(script), "--verbose", "bench"], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stderr.splitlines() == ["jar-retrieval: warning: a hub line", "jar-retrieval: a model line"], p.stderr
    p = subprocess.run([sys.executable, str(script), "bench"], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0 and p.stderr == "", p.stderr  # without --verbose: errors only
    assert p.stdout.strip() == "True"  # and no download progress bars (set before huggingface_hub reads it)


def test_verbose_transformers_log_lines_are_in_the_project_format_once(tmp_path):
    """transformers' own handler ('[transformers] message', and also the root's where $CI is set)
    gives way to the root's with --verbose, whether transformers is imported before or after."""
    script = _bench_script(
        tmp_path,
        "from transformers.utils import logging as tlog",
        "tlog.get_logger('transformers.modeling_utils').warning('a transformers line')",
        "tlog.get_logger('transformers.modeling_utils').info('an info line')",  # transformers' level: WARNING
        "tlog.get_logger('sentence_transformers.util').warning('a sentence-transformers line')",
        "logging.getLogger('transformers.tokenization_utils').error('an error line')",
    )
    env = _offline_env("CI", "TRANSFORMERS_VERBOSITY")
    verbose = ["jar-retrieval: warning: a transformers line", "jar-retrieval: warning: a sentence-transformers line",
               "jar-retrieval: error: an error line"]
    for args, extra in ((["bench", "-v"], {}), (["--verbose", "bench"], {"CI": "1", "IMPORT_FIRST": "1"})):
        p = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True,
                           env={**env, **extra}, timeout=300)
        assert p.returncode == 0 and p.stderr.splitlines() == verbose, (args, extra, p.stderr)
    p = subprocess.run([sys.executable, str(script), "bench"], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0 and p.stderr == "jar-retrieval: error: an error line\n", p.stderr  # errors only


def test_without_verbose_transformers_errors_are_printed_once_where_ci_is_set(tmp_path):
    """With $CI set, transformers' logger propagates to the root as well as printing through its
    own handler: an error line came out twice ('[transformers] ...' and 'jar-retrieval: ...')."""
    script = _bench_script(
        tmp_path,
        "from transformers.utils import logging as tlog",
        "tlog.get_logger('transformers.configuration_utils').error('an error line')",
        "tlog.get_logger('transformers.modeling_utils').warning('a warning line')",
        "logging.getLogger('sentence_transformers.util').error('a sentence-transformers error')",
    )
    env = _offline_env("CI", "TRANSFORMERS_VERBOSITY")
    for ci in ("true", "1"):
        for first in ("", "1"):
            p = subprocess.run([sys.executable, str(script), "bench"], capture_output=True, text=True,
                               env={**env, "CI": ci, "IMPORT_FIRST": first}, timeout=300)
            assert p.returncode == 0, p.stderr
            assert p.stderr.splitlines() == ["jar-retrieval: error: an error line",
                                             "jar-retrieval: error: a sentence-transformers error"], (ci, first, p.stderr)


#: A command line of each command (what it needs besides its options).
_COMMANDS = {"retrieve": ["q"], "index": ["--out", "x"], "serve": [], "bench": [], "eval": ["x"]}


def test_the_top_level_options_are_taken_after_the_command_too(capsys):
    from jar_core import __version__

    parser = build_parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert set(subparsers.choices) == set(_COMMANDS)
    for command, args in _COMMANDS.items():
        parse = parser.parse_args
        assert parse([command, *args]).verbose is False
        assert parse(["-v", command, *args]).verbose is True
        assert parse([command, *args, "-v"]).verbose is True, command
        assert parse([command, "--verbose", *args]).verbose is True
        assert parse(["--verbose", command, *args, "-v"]).verbose is True  # given twice: on
        with pytest.raises(SystemExit) as e:
            parse([command, *args, "--version"])
        assert e.value.code == 0 and capsys.readouterr().out == f"jar-retrieval {__version__}\n"
        with pytest.raises(SystemExit):
            parse([command, "--help"])
        help_text = capsys.readouterr().out
        assert "global options (also before the command):" in help_text
        assert "--verbose, -v" in help_text and "--version" in help_text, command
    with pytest.raises(SystemExit) as e:
        parser.parse_args(["--version"])
    assert e.value.code == 0 and capsys.readouterr().out == f"jar-retrieval {__version__}\n"


def test_quiet_is_taken_before_and_after_the_command_too(capsys):
    parser = build_parser()
    parse = parser.parse_args
    for command, args in _COMMANDS.items():
        default = command == "serve"  # serve shows no progress bars, -q or not
        assert parse([command, *args]).quiet is default, command
        assert parse(["-q", command, *args]).quiet is True, command
        assert parse([command, *args, "-q"]).quiet is True, command
        assert parse(["--quiet", command, *args]).quiet is True, command
        assert parse(["--quiet", command, *args, "-q"]).quiet is True  # given twice: on
        both = parse(["-q", command, *args, "-v"])  # they go together: bars off, log lines on
        assert both.quiet is True and both.verbose is True, command
        with pytest.raises(SystemExit):
            parse([command, "--help"])
        help_text = capsys.readouterr().out
        globals_help = help_text[help_text.index("global options (also before the command):"):]
        assert "--quiet, -q" in globals_help and help_text.count("--quiet, -q") == 1, command


def test_quiet_before_the_command_turns_the_progress_bars_off(tmp_path, capsys, monkeypatch):
    from jar_core.cli import main as cli
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    parse = build_parser().parse_args
    for command, args in (("index", ["--out", "x"]), ("retrieve", ["q"])):
        assert cli._progress_enabled(parse([command, *args])) is True
        assert cli._progress_enabled(parse(["-q", command, *args])) is False, command
    seen = []
    real = cli._retriever
    monkeypatch.setattr(cli, "_retriever", lambda args, **kw: seen.append(kw["progress"]) or real(args, **kw))
    assert main(["-q", "index", "--out", str(tmp_path / "idx")]) == 0
    assert main(["--quiet", "retrieve", "customers", "--index", str(tmp_path / "idx")]) == 0
    assert seen == [False, False]
    capsys.readouterr()


def test_quiet_with_verbose_logs_without_download_progress_bars(tmp_path):
    script = _bench_script(
        tmp_path,
        "logging.getLogger('jar_core.index.schema_index').info('a log line')",
        "from huggingface_hub import constants",
        "print(constants.HF_HUB_DISABLE_PROGRESS_BARS is True)",
    )
    env = _offline_env("HF_HUB_DISABLE_PROGRESS_BARS")
    for args, bars_off in ((["-v", "bench"], False), (["-q", "-v", "bench"], True), (["-v", "bench", "-q"], True)):
        p = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0 and p.stderr == "jar-retrieval: a log line\n", (args, p.stderr)
        assert p.stdout.strip() == str(bars_off), args


# -- one-line errors instead of tracebacks, warnings, escaped names, --no-samples ------


def _one_line_error(capsys, message):
    err = capsys.readouterr().err
    assert err.startswith("jar-retrieval: error: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_index_out_onto_an_existing_file_is_refused(tmp_path, capsys):
    f = tmp_path / "notes.txt"
    f.write_text("keep me")
    assert main(["index", "--out", str(f), "--ddl", str(_ddl_file(tmp_path)), "-q", "--model", "no/such-model"]) == 1
    _one_line_error(capsys, "not an index")
    assert f.read_text() == "keep me"


def _ddl_file(tmp_path, text="CREATE TABLE books (id INT PRIMARY KEY, title TEXT);"):
    f = tmp_path / "schema.sql"
    f.write_text(text, encoding="utf-8")
    return f


def test_eval_json_to_an_unwritable_place_fails_before_the_run(tmp_path, capsys):
    assert main(["eval", str(tmp_path / "no-bench"), "--json-file", "/proc/jar-eval.json"]) == 2
    _one_line_error(capsys, "cannot write in /proc")


@pytest.mark.parametrize("question", ["caf\udcc3 books", "books \ud800"])
def test_a_question_of_invalid_utf8_is_one_line(question, capsys):
    assert main(["retrieve", question, "--ddl", "x.sql"]) == 2
    err = _one_line_error(capsys, "surrogate")
    err.encode("utf-8")  # printable as is


def test_deeply_nested_ddl_is_one_line(tmp_path, capsys):
    ddl = _ddl_file(tmp_path, "CREATE TABLE t (a INT DEFAULT " + "(" * 2000 + "1" + ")" * 2000 + ");")
    assert main(["retrieve", "q", "--ddl", str(ddl), "--no-cache"]) == 1
    _one_line_error(capsys, "nests too deeply")


def test_a_benchmark_that_is_not_utf8_is_one_line(tmp_path, capsys):
    (tmp_path / "dev.json").write_bytes(b"[]")
    (tmp_path / "dev_tables.json").write_bytes(b'{"db#sep#caf\xe9": {}}')
    assert main(["retrieve", "q", "--benchmark", str(tmp_path), "--no-cache"]) == 1
    _one_line_error(capsys, "not UTF-8")


def test_a_malformed_index_is_one_line(tmp_path, capsys):
    assert main(["index", "--out", str(tmp_path / "idx"), "-q"]) == 0
    meta = json.loads((tmp_path / "idx" / "meta.json").read_text())
    del meta["model"]
    (tmp_path / "idx" / "meta.json").write_text(json.dumps(meta))
    capsys.readouterr()
    assert main(["retrieve", "q", "--index", str(tmp_path / "idx")]) == 1
    _one_line_error(capsys, "names no model")


def test_an_unwritable_cache_is_a_warning_and_retrieval_goes_on(tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("JAR_RETRIEVAL_CACHE", str(blocker / "cache"))
    assert main(["retrieve", "-k", "2", "--json", "-q"]) == 0
    captured = capsys.readouterr()
    assert "jar-retrieval: warning: index cache not written" in captured.err and "Traceback" not in captured.err
    assert len(json.loads(captured.out)["tables"]) == 2


def test_terminal_escape_sequences_in_names_are_printed_escaped(tmp_path, capsys):
    ddl = _ddl_file(tmp_path, 'CREATE TABLE "books\x1b[2J" (id INT PRIMARY KEY, "title\x9b31m" TEXT);')
    assert main(["retrieve", "books title", "--ddl", str(ddl), "-k", "1", "--no-cache", "--explain"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out and "books\\x1b[2J" in out
    assert main(["retrieve", "books title", "--ddl", str(ddl), "-k", "1", "--no-cache", "--json"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x9b" not in out
    assert json.loads(out)["tables"][0]["name"] == "books\x1b[2J"


def test_index_no_samples_keeps_sample_values_out(tmp_path, capsys):
    assert main(["index", "--out", str(tmp_path / "with"), "-q"]) == 0
    assert main(["index", "--out", str(tmp_path / "without"), "-q", "--no-samples"]) == 0
    assert '"sample"' in saved_schema_text(tmp_path / "with")
    assert '"sample"' not in saved_schema_text(tmp_path / "without")
    assert main(["retrieve", DEMO_QUESTION, "--index", str(tmp_path / "without"), "-k", "3", "--json"]) == 0


def test_index_no_samples_keeps_the_labels_of_enumerations(tmp_path, capsys):
    ddl = tmp_path / "moods.sql"
    ddl.write_text("CREATE TYPE mood AS ENUM ('sad', 'ok');\nCREATE TABLE person (id int PRIMARY KEY, m mood);\n")
    assert main(["index", "--out", str(tmp_path / "idx"), "--ddl", str(ddl), "--dialect", "postgres", "-q",
                 "--no-samples"]) == 0
    saved = saved_schema(tmp_path / "idx")
    assert [c.get("sample") for c in saved["tables"][0]["columns"]] == [None, ["sad", "ok"]]


# -- options: --weights, --sample-rows, --explain legend, candidates, --format, --schema ------


def _json_run(capsys, *args):
    assert main(["retrieve", *args, "-q", "--json"]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_weights_apply_to_the_default_strategy(capsys):
    from jar_core import strategies
    from jar_core.cli import main as cli

    default = _json_run(capsys, "-k", "3")
    assert default["strategy"] == cli._DEFAULT_STRATEGY
    own = strategies.get_strategy(cli._DEFAULT_STRATEGY)
    weights = ",".join(f"{w:g}" for w in (own.l_cov, own.l_join, own.l_coarse))
    same = _json_run(capsys, "-k", "3", "--weights", weights)
    assert [t["id"] for t in same["tables"]] == [t["id"] for t in default["tables"]]
    coarse_only = _json_run(capsys, "-k", "3", "--weights", "0,0,1")
    assert coarse_only["strategy"] == cli._DEFAULT_STRATEGY  # the weights do not switch the strategy
    assert [t["id"] for t in coarse_only["tables"]] != [t["id"] for t in default["tables"]]  # and they are used
    greedy = _json_run(capsys, "-k", "3", "--strategy", "greedy", "--weights", "0,0,1")
    dense = _json_run(capsys, "-k", "3", "--strategy", "dense")
    assert [t["id"] for t in greedy["tables"]] == [t["id"] for t in dense["tables"]]  # relevance alone, as dense


@pytest.mark.parametrize("weights,message", [
    ("banana", "--weights takes l_cov,l_join,l_coarse"), ("1,2", "--weights takes l_cov,l_join,l_coarse"),
    ("1,2,3,4", "--weights takes l_cov,l_join,l_coarse"),
    # out of range: the search's own check (check_weights)
    ("-1,1,1", "--weights: weight l_cov must be a number in [0, 1e+06], got -1.0"),
    ("nan,1,1", "--weights: weight l_cov must be a number in [0, 1e+06], got nan"),
    ("1,inf,1", "--weights: weight l_join must be a number in [0, 1e+06], got inf"),
    ("0,0,0", "--weights: the weights l_cov, l_join, l_coarse are all 0"),
])
def test_bad_weights_are_an_error(weights, message, capsys):
    assert main(["retrieve", "q", f"--weights={weights}"]) == 2
    _one_line_error(capsys, message)


def test_weights_with_another_strategy_are_an_error(capsys):
    assert main(["retrieve", "q", "--weights", "1,1,1", "--strategy", "dense"]) == 2
    _one_line_error(capsys, "does not apply to --strategy dense")


@pytest.mark.parametrize("source", ["--index", "--ddl", "--benchmark"])
@pytest.mark.parametrize("flag, what", [("--sample-rows", "rows read"), ("--sample-values", "values kept")])
def test_sampling_without_a_database_is_an_error(source, flag, what, tmp_path, capsys):
    assert main(["retrieve", "q", source, str(tmp_path), flag, "10"]) == 2
    _one_line_error(capsys, f"{flag} applies to --db ({what} from a live database), not to {source}")


def test_sample_rows_with_a_database(capsys):
    assert main(["retrieve", "q", "--sample-rows", "0"]) == 2
    _one_line_error(capsys, "--sample-rows must be >= 1")
    assert len(_json_run(capsys, "-k", "2", "--sample-rows", "5", "--no-cache")["tables"]) == 2


def test_sample_values_with_a_database(capsys):
    assert main(["retrieve", "q", "--sample-values", "1001"]) == 2
    _one_line_error(capsys, "--sample-values must be from 0 to 1000, got 1001")
    # the demo question names a country: found among the values kept, not with none kept
    assert _json_run(capsys, "--no-cache")["value_matches"]
    assert _json_run(capsys, "--sample-values", "0", "--no-cache")["value_matches"] == []


@pytest.mark.parametrize("source", ["--index", "--benchmark"])
def test_partitions_without_a_database_or_ddl_is_an_error(source, tmp_path, capsys):
    assert main(["retrieve", "q", source, str(tmp_path), "--partitions"]) == 2
    _one_line_error(capsys, f"--partitions applies to --db or --ddl, not to {source}")


def test_partitions_of_a_ddl_file(tmp_path, capsys):
    ddl = tmp_path / "shop.sql"
    ddl.write_text("CREATE TABLE customer (customer_id int PRIMARY KEY, name text);\n"
                   "CREATE TABLE payment (payment_id int, customer_id int REFERENCES customer, amount numeric);\n"
                   + "".join(f"CREATE TABLE payment_p2007_0{m} (CHECK (payment_id > {m})) INHERITS (payment);\n"
                             for m in range(1, 7)))
    args = ("total amount paid by each customer", "--ddl", str(ddl), "--dialect", "postgres", "-k", "4", "--no-cache")
    assert [t["name"] for t in _json_run(capsys, *args)["tables"]] == ["payment", "customer"]
    kept = [t["name"] for t in _json_run(capsys, *args, "--partitions")["tables"]]
    assert len(kept) == 4 and sum(n.startswith("payment_p2007") for n in kept) >= 2, kept


def test_explain_has_a_legend_and_the_candidates_line_says_why(capsys):
    assert main(["retrieve", "-k", "3", "-q", "--explain", "--strategy", "greedy"]) == 0
    out = capsys.readouterr().out
    assert "Strategy: greedy over 13 candidates (every table: fewer than --candidates 20)" in out
    start = out.splitlines().index("Columns:")
    legend = out.splitlines()[start:start + 8]
    assert legend == [  # one entry per line, wrapped at 100 columns
        "Columns:",
        "  coarse    similarity of the table to the question",
        "  coverage  how much it adds to covering the sub-queries",
        "  join      its join confidence with the tables chosen before it",
        "  score     2*coverage + 1*join + 4*coarse; utility in the trace",
        "  why       relevance, coverage or join (its largest weighted gain when chosen), bridge (added only",
        "            to join the others), reference (k=auto: a chosen table refers to it for a sub-query it",
        "            answers better) or pinned",
    ]
    assert main(["retrieve", "-k", "3", "-q", "--explain", "--candidates", "5", "--weights", "1,0.5,3",
                 "--strategy", "greedy"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Strategy: greedy over (5 candidates \(the tables most similar to the question\)|"
                     r"\d+ candidates \(the 5 tables most similar to the question, and tables joinable to them\))", out)
    assert "  score     1*coverage + 0.5*join + 3*coarse; utility in the trace" in out
    assert main(["retrieve", "-k", "3", "-q", "--explain"]) == 0  # the default strategy has its legend too
    assert capsys.readouterr().out.splitlines().count("Columns:") == 1
    assert main(["retrieve", "-k", "3", "-q"]) == 0
    assert "Columns:" not in capsys.readouterr().out


def test_json_has_the_join_path_and_explain_adds_the_trace(capsys):
    assert main(["retrieve", "-k", "3", "-q"]) == 0
    text = capsys.readouterr().out
    out = _json_run(capsys, "-k", "3")
    assert out["join_path"].startswith("FROM ") and " JOIN " in out["join_path"]
    assert "  " + out["join_path"] in text
    assert _json_run(capsys, "-k", "3", "--format", "json") == out
    explained = _json_run(capsys, "-k", "3", "--explain")
    assert len(explained["trace"]) == 3 and explained["trace"][0][0]["chosen"] is True
    assert explained["legend"].startswith("Columns:\n  coarse    similarity")


def test_format_mermaid_and_dot(capsys):
    assert main(["retrieve", "-k", "3", "-q", "--format", "mermaid", "--strategy", "greedy"]) == 0
    out = capsys.readouterr().out
    order = [t["id"] for t in _json_run(capsys, "-k", "3", "--strategy", "greedy")["tables"]]
    assert out.startswith("flowchart LR\n")
    assert f't1["1. {order[0]}<br/>' in out and f't3["3. {order[2]}<br/>' in out
    assert 'demo.books<br/>book_id (PK)' in out
    assert re.search(r't\d ---\|"(books.book_id = book_categories.book_id|book_categories.book_id = books.book_id)"\| t\d', out)
    assert out.count(" ---|") == 2 and " -.-|" not in out  # two declared keys, no inferred join
    assert main(["retrieve", "-k", "3", "-q", "--format", "dot", "--strategy", "greedy"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("graph joins {") and out.rstrip().endswith("}")
    assert re.search(r't\d -- t\d \[label="(books.book_id = book_categories.book_id|book_categories.book_id = books.book_id)"\];', out)


@pytest.mark.parametrize(
    "args,message",
    [
        (["--json", "--format", "dot"], "--json and --format dot disagree"),
        (["--explain", "--format", "mermaid"], "--explain applies to --format text and json"),
        (["--schema", "music"], "--schema applies to --db"),
    ],
)
def test_conflicting_output_options(args, message, capsys):
    assert main(["retrieve", "q", *args]) == 2
    _one_line_error(capsys, message)


def test_help_explains_candidates():
    help_text = build_parser()._subparsers._group_actions[0].choices["retrieve"].format_help()
    assert "every table when the source has fewer" in " ".join(help_text.split())


def test_retrieve_within_one_database(tmp_path, capsys):
    assert main(["index", "--out", str(tmp_path / "idx"), "-q"]) == 0
    capsys.readouterr()
    assert main(["retrieve", DEMO_QUESTION, "--index", str(tmp_path / "idx"), "--database", "demo", "--json"]) == 0
    assert {t["database"] for t in json.loads(capsys.readouterr().out)["tables"]} == {"demo"}
    assert main(["retrieve", DEMO_QUESTION, "--index", str(tmp_path / "idx"), "--database", "nope"]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "jar-retrieval: error: unknown database 'nope' (known: demo)"


def test_the_default_search_parts_are_switchable_from_the_command(capsys):
    default = _json_run(capsys, "-k", "4")
    assert default["value_matches"]  # the demo question names a category by its value
    plain = _json_run(capsys, "-k", "4", "--no-values", "--expand", "0", "--lexical", "0",
                      "--lexical-relevance", "0", "--hubness", "0")
    assert plain["value_matches"] == [] and len(plain["tables"]) == 4


@pytest.mark.parametrize("flag,value,message", [
    ("--hubness", "3", "hubness must be a weight in [0, 2]"),
    ("--lexical", "-0.5", "lexical must be a weight in [0, 1]"),
    ("--lexical-relevance", "2", "lexical_relevance must be a weight in [0, 1]"),
    ("--expand", "-1", "expand must be an integer >= 0"),
])
def test_bad_search_part_options_are_an_error(flag, value, message, capsys):
    assert main(["retrieve", "q", f"{flag}={value}"]) == 2
    _one_line_error(capsys, message)
