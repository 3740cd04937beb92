"""The MCP server (``jar-retrieval serve``) through a real MCP client session over stdio."""
from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters  # noqa: E402
from mcp.client.stdio import stdio_client  # noqa: E402

from jar_core.cli.main import main  # noqa: E402

from helpers import assert_same_json, assert_same_text  # noqa: E402

QUESTION = "Which books were written by authors born in Ireland?"
ROOT = Path(__file__).resolve().parents[1]


def _get(obj: Any, *names: str) -> Any:
    """An attribute under its mcp 2.x (snake_case) or 1.x (camelCase) name."""
    for name in names:
        if hasattr(obj, name):
            return getattr(obj, name)
    raise AttributeError(names[0])


def _structured(result: Any) -> Any:
    return _get(result, "structured_content", "structuredContent")


def _is_error(result: Any) -> bool:
    return bool(_get(result, "is_error", "isError"))


async def _session(args: list[str], tmp_path: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    env = {
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        "JAR_RETRIEVAL_CACHE": str(tmp_path / "cache"),
        "HF_HUB_OFFLINE": "1",
    }
    params = StdioServerParameters(command=sys.executable, args=["-m", "jar_core.cli", "serve", *args], env=env)
    with open(tmp_path / "server.err", "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                tools = await session.list_tools()
                results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return tools, results


def test_a_client_session_over_stdio(tmp_path, capsys, embedder, monkeypatch):
    calls = [
        ("find_tables", {"question": QUESTION, "k": 4}),
        ("find_tables", {"question": "How many orders did each customer place?"}),
        ("describe_table", {"name": "book_authors"}),
        ("describe_table", {"name": "book_author"}),
        ("list_databases", {}),
        ("find_tables", {"question": "   "}),
        ("find_tables", {"question": QUESTION, "k": 0}),
        ("find_tables", {"question": QUESTION, "k": "auto"}),
    ]
    tools, results = asyncio.run(asyncio.wait_for(_session([], tmp_path, calls), 240))
    by_name = {t.name: t for t in tools.tools}
    assert set(by_name) == {"find_tables", "describe_table", "list_databases"}
    schema = _get(by_name["find_tables"], "input_schema", "inputSchema")
    assert schema["required"] == ["question"] and set(schema["properties"]) == {"question", "k"}
    assert _get(by_name["describe_table"], "input_schema", "inputSchema")["required"] == ["name"]
    assert _get(by_name["find_tables"].annotations, "read_only_hint", "readOnlyHint") is True

    found, second, described, unknown, listed, empty, bad_k, auto = results
    # find_tables: the text a model reads (model_text), the command's JSON as structured content
    import jar_core.embed.embedders as emb
    from jar_core.demo import demo_url
    from jar_core.output.prompt import model_text
    from jar_core.retriever import TableRetriever

    monkeypatch.setattr(emb, "_DEFAULT", embedder)
    monkeypatch.setenv("JAR_RETRIEVAL_CACHE", str(tmp_path / "cache"))
    here = TableRetriever.from_database(demo_url(), embedder=embedder).retrieve(QUESTION, k=4)
    # another process: confidences may differ in their last printed digit (another encoder thread count)
    assert_same_text(found.content[0].text, model_text(here))
    assert "CREATE TABLE" in found.content[0].text and "JOIN" in found.content[0].text
    assert main(["retrieve", QUESTION, "-k", "4", "-q", "--format", "json"]) == 0
    assert_same_json(_structured(found), json.loads(capsys.readouterr().out))
    assert _structured(found)["join_path"].startswith('FROM "authors"')
    assert len(_structured(second)["tables"]) == 5  # the server's default k
    padded = _structured(second)  # the extra tables of k=5 are optional, never in the join path
    assert padded["optional"] and not set(padded["optional"]) & set(padded["needed"])
    for tid in padded["optional"]:
        assert f'"{tid.split(".")[-1]}"' not in padded["join_path"].split("\n-- optional tables")[0]

    assert not _is_error(described)
    text = described.content[0].text
    assert text.startswith('CREATE TABLE "book_authors"') and "book_authors.book_id = books.book_id (declared)" in text
    info = _structured(described)
    assert info["id"] == "demo.book_authors" and info["primary_key"] == ["book_id", "author_id"]
    assert {fk["ref_table"] for fk in info["foreign_keys"]} == {"demo.books", "demo.authors"}

    assert _is_error(unknown) and "did you mean demo.book_authors" in unknown.content[0].text
    assert _structured(listed)["databases"] == [{
        "name": "demo", "tables": 13, "table_names": _structured(listed)["databases"][0]["table_names"],
        "truncated": False}]
    assert "demo: 13 tables" in listed.content[0].text
    assert _is_error(empty) and "the question is empty" in empty.content[0].text
    assert _is_error(bad_k)
    assert not _is_error(auto) and 2 <= len(_structured(auto)["tables"]) <= 10

    # the model was loaded and the index built once, before the first call, for all of them
    log = (tmp_path / "server.err").read_text()
    assert log.count("loaded and index ready") == 1, log
    assert "Traceback" not in log


def test_serve_a_ddl_file(tmp_path):
    ddl = tmp_path / "shop.sql"
    ddl.write_text(
        "CREATE TABLE sales.customers (id INT PRIMARY KEY, name VARCHAR(80), city VARCHAR(40));\n"
        "CREATE TABLE sales.orders (id INT PRIMARY KEY, customer_id INT REFERENCES sales.customers(id), total DECIMAL(10,2));\n"
        "CREATE TABLE hr.employees (id INT PRIMARY KEY, name VARCHAR(80));\n"
    )
    calls = [("list_databases", {}), ("find_tables", {"question": "total of orders per customer city", "k": 2}),
             ("describe_table", {"name": "sales.orders"}),
             ("find_tables", {"question": "total of orders per customer city"})]  # the server's -k auto
    _, (listed, found, described, auto) = asyncio.run(asyncio.wait_for(
        _session(["--ddl", str(ddl), "--dialect", "postgres", "--no-cache", "-k", "auto"], tmp_path, calls), 240))
    assert [d["name"] for d in _structured(listed)["databases"]] == ["sales", "hr"]
    assert {t["id"] for t in _structured(found)["tables"]} == {"sales.customers", "sales.orders"}
    assert not _is_error(auto) and {t["id"] for t in _structured(auto)["tables"]} == {"sales.customers", "sales.orders"}
    assert 'REFERENCES "sales"."customers"' in described.content[0].text


def test_serve_without_the_mcp_package_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp raises ImportError
    assert main(["serve"]) == 1
    err = capsys.readouterr().err
    assert "pip install 'mcp>=1.30'" in err and "pip install '.[mcp]'" in err and err.count("\n") == 1
