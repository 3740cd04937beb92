"""The command's usage across commands: one spelling of k and of JSON output, exit statuses,
warning lines, the MCP server's argument errors, output schemas and version, the schema hint."""
from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest

from jar_core.cli.main import EXIT_STATUSES, build_parser, main
from jar_core.cli.logs import _LevelFormatter


def _err_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# -- k and JSON ------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [["retrieve", "q"], ["serve"]])
def test_k_is_spelled_k_and_double_dash_k(command):
    parse = build_parser().parse_args
    assert parse([*command, "-k", "3"]).k == 3
    assert parse([*command, "--k", "3"]).k == 3
    assert parse([*command, "--k", "auto"]).k == "auto"


def test_eval_takes_k_with_one_or_two_dashes():
    parse = build_parser().parse_args
    assert parse(["eval", "DIR", "-k", "2,3"]).k == "2,3"
    assert parse(["eval", "DIR", "--k", "2,3"]).k == "2,3"


def test_eval_json_alone_prints_json_and_json_file_writes_it(tmp_path, capsys):
    from test_eval_harness import write_benchmark

    folder = write_benchmark(tmp_path / "bench")
    out = tmp_path / "figures.json"
    assert main(["eval", str(folder), "--methods", "dense", "-k", "2", "--json", "--json-file", str(out), "-q"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert [r["method"] for r in printed["results"]] == ["dense"]
    assert json.loads(out.read_text())["results"][0]["method"] == "dense"


def test_eval_json_with_a_file_still_writes_it_with_a_deprecation_warning(tmp_path, capsys):
    from test_eval_harness import write_benchmark

    folder = write_benchmark(tmp_path / "bench")
    out = tmp_path / "old.json"
    assert main(["eval", str(folder), "--methods", "dense", "--k", "2", "--json", str(out), "-q"]) == 0
    captured = capsys.readouterr()
    assert json.loads(out.read_text())["results"][0]["method"] == "dense"
    assert "jar-retrieval: warning: --json FILE is deprecated: use --json-file" in captured.err
    assert "R@2" in captured.out or "dense" in captured.out  # the table, not JSON


def test_eval_json_and_json_file_both_naming_a_file_is_a_usage_error(tmp_path, capsys):
    assert main(["eval", str(tmp_path), "--json", "a.json", "--json-file", "b.json"]) == 2
    assert "pass --json-file only" in _err_line(capsys)


# -- exit statuses ---------------------------------------------------------------------------
@pytest.mark.parametrize("args", [["retrieve", "q", "-k", "0"], ["retrieve", "q", "--k", "0"],
                                  ["retrieve", "q", "--candidates", "0"], ["serve", "-k", "0"]])
def test_a_bad_value_exits_2_like_a_bad_flag(args, capsys):
    assert main(args) == 2
    assert _err_line(capsys).startswith("jar-retrieval: error: ")
    with pytest.raises(SystemExit) as e:
        main(["retrieve", "q", "-k", "abc"])
    assert e.value.code == 2


def test_a_source_error_exits_1(tmp_path, capsys):
    assert main(["retrieve", "q", "--ddl", str(tmp_path / "none.sql")]) == 1
    assert _err_line(capsys).startswith("jar-retrieval: error: ")


def test_every_command_help_names_the_exit_statuses(capsys):
    for command in ("retrieve", "index", "serve", "bench", "eval"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        out = " ".join(capsys.readouterr().out.split())
        assert "exit status: 0 done; 1 the source or the run failed" in out and "2 usage error" in out
    assert EXIT_STATUSES.startswith("exit status:")


# -- warnings --------------------------------------------------------------------------------
@pytest.mark.parametrize("level,prefix", [(logging.INFO, "jar-retrieval: "), (logging.WARNING, "jar-retrieval: warning: "),
                                          (logging.ERROR, "jar-retrieval: error: ")])
def test_log_lines_say_warning_and_error(level, prefix):
    record = logging.LogRecord("x", level, __file__, 1, "a line", None, None)
    line = _LevelFormatter().format(record)
    assert line == prefix + "a line"


# -- the MCP server --------------------------------------------------------------------------
mcp_server = pytest.importorskip("jar_core.cli.mcp")


@pytest.fixture(scope="module")
def server(embedder):
    pytest.importorskip("mcp")
    from jar_core.demo import demo_url
    from jar_core.loaders import load_database
    from jar_core.retriever import TableRetriever

    return mcp_server.build_server(TableRetriever(load_database(demo_url()), embedder=embedder))


def _call(server: Any, tool: str, arguments: Any) -> Any:
    return asyncio.run(server.call_tool(tool, arguments))


@pytest.mark.parametrize("arguments,message", [
    ({"question": "books", "k": 0}, 'k must be from 1 to 100 or "auto", got 0'),
    ({"question": "books", "k": 10000}, 'k must be from 1 to 100 or "auto", got 10000'),
    ({"question": "books", "k": "abc"}, "k must be a whole number from 1 to 100 or \"auto\", got a string 'abc'"),
    ({"question": "books", "k": True}, "k must be a whole number"),
    ({"question": 3}, "question must be a string, got a number"),
    ({"question": "books", "top_k": 3}, "find_tables has no argument 'top_k' (it takes question, k)"),
    ({}, "find_tables needs the argument 'question'"),
    ({"question": "x" * 10_001}, "more than the 10,000 allowed"),
])
def test_mcp_argument_errors_are_one_readable_line(server, arguments, message):
    result = _call(server, "find_tables", arguments)
    text = result.content[0].text
    assert result.is_error and text.startswith("error: ") and message in text, text
    assert "\n" not in text and "pydantic" not in text and "http" not in text


def test_mcp_unknown_argument_of_the_other_tools(server):
    result = _call(server, "describe_table", {"name": "books", "verbose": True})
    assert result.is_error and "describe_table has no argument 'verbose'" in result.content[0].text
    result = _call(server, "list_databases", {"db": "demo"})
    assert result.is_error and "it takes no arguments" in result.content[0].text


def test_mcp_tools_declare_their_output_schema_and_match_it(server):
    tools = {t.name: t for t in asyncio.run(server.list_tools())}
    for name, keys in (("find_tables", {"tables", "joins", "join_path"}), ("describe_table", {"ddl", "joins"}),
                       ("list_databases", {"databases"})):
        schema = tools[name].output_schema
        assert schema and schema["type"] == "object" and keys <= set(schema["properties"]), (name, schema)
    found = _call(server, "find_tables", {"question": "Which books were written by Irish authors?", "k": "auto"})
    assert not found.is_error and {"tables", "joins", "join_path"} <= set(found.structured_content)


def test_mcp_server_version_is_the_package_version(server):
    from jar_core import __version__

    assert server._lowlevel_server.version == __version__


# -- PostgreSQL without --schema: which schemas hold the tables -------------------------------
class _StubInspector:
    """An inspector over ``{schema: [tables]}`` whose default schema is ``public``."""

    default_schema_name = "public"

    def __init__(self, tables: dict[str, list[str]]) -> None:
        self.tables = tables

    def get_schema_names(self) -> list[str]:
        return [*self.tables, "information_schema", "pg_catalog"]

    def get_table_names(self, schema: str | None = None) -> list[str]:
        return list(self.tables.get(schema or "public", []))


class _StubConnection:
    class dialect:  # noqa: N801 - SQLAlchemy's attribute
        name = "postgresql"


def _read(tables: dict[str, list[str]], dialect: str = "postgresql") -> Any:
    from jar_core.loaders.database.tables import _tables_to_read

    conn = _StubConnection()
    conn.dialect.name = dialect
    try:
        return _tables_to_read(conn, _StubInspector(tables), [None], label="postgresql://h/db", where_all="db",
                               secrets=(), include_tables=None, partitions=True)
    finally:
        _StubConnection.dialect.name = "postgresql"


def test_a_nearly_empty_default_schema_names_the_schemas_that_hold_tables():
    with pytest.warns(UserWarning) as caught:
        listed = _read({"public": ["playlist"], "music": ["album", "track", "artist"], "empty": []})
    assert listed == [(None, ["playlist"])]
    message = str(caught[0].message)
    assert "the default schema of postgresql://h/db holds 1 table (playlist)" in message
    assert "other schemas hold tables: music (3 tables); read one with --schema NAME" in message
    assert "empty" not in message and "pg_catalog" not in message


def test_an_empty_default_schema_error_names_the_schemas_that_hold_tables():
    from jar_core.errors import SchemaError

    with pytest.raises(SchemaError, match=r"has no tables; other schemas hold tables: music \(1 table\).*--schema music"):
        _read({"public": [], "music": ["album"]})


def test_no_schema_hint_with_tables_in_the_default_schema_or_on_other_databases(recwarn):
    _read({"public": ["a", "b"], "music": ["album"]})
    _read({"public": ["a"], "music": ["album"]}, dialect="mysql")
    _read({"public": ["a"]})
    assert not [w for w in recwarn if "other schemas" in str(w.message)]
