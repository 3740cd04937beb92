"""A LangChain v1 agent (``create_agent``) that finds its tables with jar-retrieval, offline.

The agent gets the tools of ``JoinAwareSQLToolkit`` over the bundled demo database:
``find_tables`` (the tables for a question, with their join path), ``get_table_schema`` (any
table by name) and ``sql_db_query``. Its prompt never holds the whole schema.

A scripted chat model stands in for a real one (``ChatOpenAI(...)``, ``init_chat_model(...)``):
it calls ``find_tables`` with the question, writes its SQL on the join path that tool returned,
runs it with ``sql_db_query`` and answers from the rows. Everything else is real: the agent
loop, the tools, the retrieval, the SQL run on the database. The rows are checked against the
demo question's reference SQL.

    pip install "jar-retrieval[langchain-sql]"
    python examples/langchain_agent.py
"""
from __future__ import annotations

import ast
import re
from typing import Any

from langchain.agents import create_agent
from langchain_community.utilities import SQLDatabase
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from sqlalchemy import create_engine, text

from jar_core.demo import DEMO_GOLD_SQL, DEMO_QUESTION, demo_url
from langchain_jar import JoinAwareSQLToolkit

SYSTEM_PROMPT = (
    "You answer questions about a {dialect} database. First call find_tables with the question: it "
    "returns the tables you need and how to join them. Use get_table_schema for any other table. Then "
    "write one query, run it with sql_db_query and answer from its rows."
)


class ScriptedSQLModel(BaseChatModel):
    """A stand-in tool-calling chat model: find tables, query along their join path, answer."""

    @property
    def _llm_type(self) -> str:
        return "scripted-sql-model"

    def bind_tools(self, tools: Any, **kwargs: Any) -> "ScriptedSQLModel":
        return self  # a real model is told the tools' schemas here

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._next(messages))])

    def _next(self, messages: list[BaseMessage]) -> AIMessage:
        question = next(m.content for m in messages if isinstance(m, HumanMessage))
        last = messages[-1]
        if not isinstance(last, ToolMessage):
            return _call("find_tables", {"question": question, "k": 3})
        if last.name == "find_tables":
            join_path = last.content.split("-- Join path connecting these tables:\n", 1)[1].splitlines()[0]
            sql = f"SELECT DISTINCT \"books\".\"title\" {join_path} WHERE \"categories\".\"name\" = 'Science Fiction' ORDER BY 1"
            return _call("sql_db_query", {"query": sql})
        titles = [row[0] for row in ast.literal_eval(last.content)] if last.content.startswith("[") else []
        return AIMessage(content="The Science Fiction books are: " + ", ".join(titles) + ".")


def _call(name: str, args: dict[str, Any]) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"call_{name}", "type": "tool_call"}])


def run_agent(question: str = DEMO_QUESTION) -> dict[str, Any]:
    """Run the agent on ``question``; return its messages, the SQL it ran and the rows."""
    db = SQLDatabase.from_uri(demo_url())
    toolkit = JoinAwareSQLToolkit(db=db, k=3)
    agent = create_agent(
        ScriptedSQLModel(), toolkit.get_tools(), system_prompt=SYSTEM_PROMPT.format(dialect=toolkit.dialect)
    )
    state = agent.invoke({"messages": [{"role": "user", "content": question}]})
    messages = state["messages"]
    sql = next(c["args"]["query"] for m in messages if isinstance(m, AIMessage) for c in m.tool_calls
               if c["name"] == "sql_db_query")
    found = next(m for m in messages if isinstance(m, ToolMessage) and m.name == "find_tables")
    engine = create_engine(demo_url())
    try:
        with engine.connect() as conn:
            rows = [tuple(r) for r in conn.execute(text(sql))]
            gold = [tuple(r) for r in conn.execute(text(DEMO_GOLD_SQL))]
    finally:
        engine.dispose()
    return {"messages": messages, "sql": sql, "rows": rows, "gold": gold, "find_tables": found}


def main() -> None:
    out = run_agent()
    for m in out["messages"]:
        m.pretty_print()
    plan = out["find_tables"].artifact["join_plan"]
    print(f"\nfind_tables artifact: {len(out['find_tables'].artifact['documents'])} documents, tables {plan['tables']}")
    print(f"SQL the agent ran: {out['sql']}")
    assert sorted(out["rows"]) == sorted(out["gold"]), (out["rows"], out["gold"])
    print(f"{len(out['rows'])} rows, the same as the reference SQL's")
    assert re.search(r"Science Fiction books are: .+\.", out["messages"][-1].content)


if __name__ == "__main__":
    main()
