"""jar-retrieval as a Model Context Protocol server (``jar-retrieval serve``; ``pip install "jar-retrieval[mcp]"``).

Three tools over one :class:`~jar_core.retriever.TableRetriever`, whose model and index stay
loaded between calls:

* ``find_tables(question, k=None)``: the tables that answer the question and how they join
  (``k``: a number of tables, or ``"auto"``).
  The text content is what a model needs to write SQL (:func:`jar_core.output.prompt.model_text`:
  the needed tables' compact DDL, the join path with declared / inferred marks and confidence,
  the question's values as stored, the optional tables a line each); the structured content is
  the JSON of ``retrieve --format json`` (tables, joins with their kind and confidence, the other
  keys between joined tables, the unverified candidates where two tables have no known key, join path).
* ``describe_table(name)``: one table's ``CREATE TABLE`` DDL, keys and joins to other tables.
* ``list_databases()``: the databases (or schemas) served, with their tables.

Works with the ``mcp`` package 2.x (``MCPServer``) and 1.x (``FastMCP``). The server speaks
over stdio: stdout carries the protocol, everything else goes to stderr.
"""
# No ``from __future__ import annotations``: the SDK reads the tools' signatures (their argument
# schemas) from real annotation objects, some of them names local to build_server.
import contextlib
import os
import sys
from typing import TYPE_CHECKING, Any, Literal, Optional, Union

from typing_extensions import TypedDict

from jar_core.errors import JarError
from jar_core.options import DEFAULT_K, MAX_QUESTION_CHARS

if TYPE_CHECKING:  # pragma: no cover
    from jar_core.retriever import TableRetriever

__all__ = ["build_server", "serve_stdio", "check_mcp", "INSTRUCTIONS"]

#: Most tables listed per database by ``list_databases``.
MAX_LISTED_TABLES = 500
#: The largest ``k`` a client may ask ``find_tables`` for.
MAX_TOOL_K = 100

#: Each tool's arguments and whether it needs them.
TOOL_ARGUMENTS: dict[str, dict[str, bool]] = {
    "find_tables": {"question": True, "k": False},
    "describe_table": {"name": True},
    "list_databases": {},
}

INSTRUCTIONS = (
    "Finds the few tables of a large database that answer a question and how they join. Call "
    "find_tables with the user's question first; it returns the tables, the join keys between them "
    "and a ready FROM ... JOIN ... ON ... clause. Call describe_table for the columns and keys of any "
    "table (also one that find_tables did not return). Joins marked inferred are not declared in the "
    "schema: check them."
)

FIND_TABLES = (
    "The tables that together answer a question about the database, in selection order, with the join "
    "keys between them (declared foreign keys, or inferred joins with their evidence and confidence) and a "
    "join path (a FROM ... JOIN ... ON ... clause over all of them). Call it with the user's question before "
    "writing SQL; then describe_table gives each table's columns."
)
DESCRIBE_TABLE = (
    "One table's CREATE TABLE statement (columns, types, primary and foreign keys), the tables that "
    "reference it and its joins to other tables. Takes a table name, or schema.table when names repeat."
)
LIST_DATABASES = "The databases (or schemas) served, with the number and names of their tables."


def check_mcp() -> None:
    """Raise :class:`JarError` with the install command when ``mcp`` is missing (an error of the
    installation, not of the command's arguments: exit status 1)."""
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise JarError(
            "the MCP server needs the mcp package: pip install 'mcp>=1.30' (the extra 'jar-retrieval[mcp]'; "
            "in a checkout: pip install '.[mcp]')"
        ) from None


# -- the tools' structured content (their outputSchema; more keys may come) ---------------------
class FoundTables(TypedDict, total=False):
    """The tables that answer the question, their joins and join path (as jar-retrieval retrieve --format json)."""

    question: str
    tables: list[dict[str, Any]]
    joins: list[dict[str, Any]]
    alternative_joins: list[dict[str, Any]]
    unverified_joins: list[dict[str, Any]]
    join_path: str
    value_matches: list[dict[str, Any]]
    warnings: list[str]


class DescribedTable(TypedDict, total=False):
    """One table's CREATE TABLE statement, keys and joins."""

    id: str
    name: str
    database: str
    ddl: str
    primary_key: list[str]
    foreign_keys: list[dict[str, Any]]
    referenced_by: list[dict[str, Any]]
    joins: list[dict[str, Any]]


class ListedDatabases(TypedDict, total=False):
    """The source served and its databases with their tables."""

    source: str
    dialect: Optional[str]
    databases: list[dict[str, Any]]


def argument_error(tool: str, arguments: Any) -> Optional[str]:
    """A one-line message naming what is wrong with a client's ``arguments`` to ``tool``, or
    ``None`` when they are right (checked before the SDK's own validation, whose message is a
    validation library's dump)."""
    expected = TOOL_ARGUMENTS.get(tool)
    if expected is None:
        return None  # the SDK's "unknown tool"
    if not isinstance(arguments, dict):
        return f"{tool} takes an object of arguments, got {type(arguments).__name__}"
    takes = ", ".join(expected) or "no arguments"
    unknown = [a for a in arguments if a not in expected]
    if unknown:
        return f"{tool} has no argument {', '.join(map(repr, unknown))} (it takes {takes})"
    missing = [a for a, required in expected.items() if required and arguments.get(a) is None]
    if missing:
        return f"{tool} needs the argument {', '.join(map(repr, missing))} (it takes {takes})"
    for name in ("question", "name"):
        if name in arguments and not isinstance(arguments[name], str):
            return f"{name} must be a string, got {_json_type(arguments[name])}"
    if len(arguments.get("question") or "") > MAX_QUESTION_CHARS:
        return f"the question is {len(arguments['question']):,} characters long, more than the {MAX_QUESTION_CHARS:,} allowed"
    return _k_error(arguments.get("k"))


def _k_error(k: Any) -> Optional[str]:
    """What is wrong with ``find_tables``'s ``k`` (``None``, ``"auto"`` or 1..:data:`MAX_TOOL_K`)."""
    if k is None or (isinstance(k, str) and k.strip().lower() == "auto"):
        return None
    if isinstance(k, float) and k.is_integer():
        k = int(k)
    if isinstance(k, bool) or not isinstance(k, int):
        return f'k must be a whole number from 1 to {MAX_TOOL_K} or "auto", got {_json_type(k)} {k!r}'[:200]
    if not 1 <= k <= MAX_TOOL_K:
        return f'k must be from 1 to {MAX_TOOL_K} or "auto", got {k}'
    return None


def _json_type(value: Any) -> str:
    """``value``'s JSON type name (what the client sent)."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return {list: "an array", dict: "an object", type(None): "null"}.get(type(value), type(value).__name__)


def _server_class() -> Any:
    try:
        from mcp.server.mcpserver import MCPServer  # mcp >= 2

        return MCPServer
    except ImportError:
        from mcp.server.fastmcp import FastMCP  # mcp 1.x

        return FastMCP


def _tool_result(text: str, data: dict[str, Any] | None = None, *, error: bool = False) -> Any:
    """A ``CallToolResult`` with ``text`` as its content and ``data`` as its structured content."""
    from mcp.types import CallToolResult

    wire: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": error}
    if data is not None:
        wire["structuredContent"] = data
    return CallToolResult.model_validate(wire)


def build_server(
    retriever: "TableRetriever", *, k: int | str = DEFAULT_K, source: str = "", name: str = "jar-retrieval"
) -> Any:
    """An MCP server (``MCPServer`` / ``FastMCP``) with the tools ``find_tables``, ``describe_table``
    and ``list_databases`` over ``retriever``. ``k``: tables per question when the client gives none (or ``"auto"``);
    ``source``: how ``list_databases`` names what is served (a URL is shown with its password hidden).
    """
    import anyio
    from mcp.types import CallToolResult
    from pydantic import Field
    from typing_extensions import Annotated

    from jar_core.output import render
    from jar_core.output.prompt import model_text
    from jar_core.names import one_line
    from jar_core.options import K_HELP, QUESTION_HELP, check_k_or_auto

    default_k = check_k_or_auto(k)
    server = _checking_server(_server_class())(name, instructions=INSTRUCTIONS)
    _set_version(server)
    annotations = _read_only_annotations()

    def find(question: str, k: Optional[int | str]) -> Any:
        res = retriever.retrieve(question, k=default_k if k is None else k)
        return _tool_result(model_text(res), render.result_json(res))  # one call is enough to write SQL

    def describe(table: str) -> Any:
        info = render.describe_table(retriever, table)
        return _tool_result(info.pop("text"), info)

    def databases() -> Any:
        schema = retriever.schema
        items = []
        for db in schema.databases:
            names = [t.name for t in schema.tables if t.database == db]
            items.append({"name": db, "tables": len(names), "table_names": names[:MAX_LISTED_TABLES],
                          "truncated": len(names) > MAX_LISTED_TABLES})
        data = {"source": source, "dialect": schema.dialect, "databases": items}
        lines = [f"{source or 'source'} ({schema.dialect or 'SQL'}): {len(schema)} tables"]
        for item in items:
            shown = ", ".join(item["table_names"][:50]) + (" ..." if item["tables"] > 50 else "")
            lines.append(f"- {item['name']}: {item['tables']} tables: {shown}")
        return _tool_result("\n".join(map(one_line, lines)), data)  # a name cannot start a line

    async def call(fn: Any, *args: Any) -> Any:
        try:  # retrieval is CPU-bound: a worker thread keeps the server responsive
            return await anyio.to_thread.run_sync(lambda: fn(*args))
        except JarError as e:  # bad input: a tool error the model can read and act on
            return _tool_result(f"error: {e}", error=True)

    async def find_tables(
        question: Annotated[str, Field(description=QUESTION_HELP, max_length=MAX_QUESTION_CHARS)],
        k: Annotated[
            Optional[Union[Annotated[int, Field(ge=1, le=MAX_TOOL_K)], Literal["auto"]]],
            Field(description=f"{K_HELP} (default {default_k})."),
        ] = None,
    ) -> Annotated[CallToolResult, FoundTables]:
        return await call(find, question, k)

    async def describe_table(
        name: Annotated[str, Field(description="A table name, or schema.table.")],
    ) -> Annotated[CallToolResult, DescribedTable]:
        return await call(describe, name)

    async def list_databases() -> Annotated[CallToolResult, ListedDatabases]:
        return await call(databases)

    for fn, description in ((find_tables, FIND_TABLES), (describe_table, DESCRIBE_TABLE), (list_databases, LIST_DATABASES)):
        server.add_tool(fn, name=fn.__name__, description=description, annotations=annotations)
    return server


def _checking_server(server_cls: Any) -> Any:
    """``server_cls`` whose ``call_tool`` answers wrong arguments with :func:`argument_error`'s
    line as a tool error (the SDK's own would be a validation dump with a link)."""

    class CheckingServer(server_cls):  # type: ignore[misc, valid-type]
        async def call_tool(self, name: str, arguments: Any, *args: Any, **kwargs: Any) -> Any:
            problem = argument_error(name, arguments)
            if problem is not None:
                return _tool_result(f"error: {problem}", error=True)
            return await super().call_tool(name, arguments, *args, **kwargs)

    return CheckingServer


def _set_version(server: Any) -> None:
    """The server's ``serverInfo.version``: the package's (not the SDK's)."""
    from jar_core import __version__

    low = getattr(server, "_lowlevel_server", None) or getattr(server, "_mcp_server", None)
    if low is not None and hasattr(low, "version"):
        low.version = __version__


def _read_only_annotations() -> Any:
    from mcp.types import ToolAnnotations

    return ToolAnnotations.model_validate(
        {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
    )


def serve_stdio(retriever: "TableRetriever", *, k: int | str = DEFAULT_K, source: str = "", name: str = "jar-retrieval") -> None:
    """Serve :func:`build_server` over stdio until the client closes the connection (either end:
    a client that stops reading ends the server quietly too)."""
    check_mcp()
    server = build_server(retriever, k=k, source=source, name=name)
    try:
        server.run("stdio")
    except Exception as e:  # noqa: BLE001 - the SDK's task group wraps a closed pipe in an ExceptionGroup
        if not _client_gone(e):
            raise
        # nothing more can reach the client; nothing left unwritten should complain at exit
        with contextlib.suppress(OSError, ValueError, AttributeError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _client_gone(error: BaseException) -> bool:
    """Whether ``error`` (an exception group's leaves too) only says the client closed its end."""
    inner = getattr(error, "exceptions", None)
    if inner:
        return all(_client_gone(e) for e in inner)
    return isinstance(error, ConnectionError)  # BrokenPipeError, ConnectionResetError
