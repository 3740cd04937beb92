"""jar-retrieval in a LlamaIndex agent and in a LlamaIndex workflow, offline.

1. Agent: a ``FunctionAgent`` with two tools: ``find_tables`` (``JoinAwareRetriever.as_tool()``, a
   ``FunctionTool``: the tables for a question, their DDL and the join path) and ``run_sql`` (a
   ``FunctionTool`` that runs a query on the demo database). A ``RetrieverTool`` over the same
   retriever works too (see ``docs/llamaindex.md``).
2. Workflow: a ``Workflow`` whose first step retrieves the tables (``aretrieve_result``) and whose
   second step writes the SQL on the join path and runs it.

A scripted function-calling model (LlamaIndex's ``MockFunctionCallingLLM`` with a response
generator) stands in for a real one (``OpenAI(model=...)``...): it calls ``find_tables`` with the
question, writes its SQL on the join path the tool returned and calls ``run_sql``. The rows are
checked against the demo question's reference SQL.

    pip install "jar-retrieval[llamaindex]"
    python examples/llamaindex_agent.py
"""
from __future__ import annotations

import asyncio
import re
from typing import Any, Sequence

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Event, StartEvent, StopEvent, Workflow, step
from sqlalchemy import create_engine, text

from jar_core.demo import DEMO_GOLD_SQL, DEMO_QUESTION, demo_url
from llamaindex_jar import JoinAwareRetriever

ENGINE = create_engine(demo_url())


def run_sql(query: str) -> str:
    """Run one read-only SQL query on the database and return its rows."""
    with ENGINE.connect() as conn:
        return repr([tuple(r) for r in conn.execute(text(query))])


def sql_on_join_path(join_path: str) -> str:
    """What the stand-in model "writes": the titles of the Science Fiction books, on the given join path."""
    return f"SELECT DISTINCT \"books\".\"title\" {join_path} WHERE \"categories\".\"name\" = 'Science Fiction' ORDER BY 1"


def join_path_of(tool_text: str) -> str:
    return tool_text.split("-- Join path connecting these tables:\n", 1)[1].splitlines()[0]


def scripted_model(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
    """find_tables -> run_sql on the join path -> answer from the rows."""
    tool_results = [m for m in messages if m.role == MessageRole.TOOL]
    if not tool_results:
        question = next(m.content for m in messages if m.role == MessageRole.USER)
        return _call("find_tables", {"question": question, "k": 3})
    last = tool_results[-1]
    if last.additional_kwargs.get("tool_call_id", "").startswith("call-find"):
        return _call("run_sql", {"query": sql_on_join_path(join_path_of(last.content))})
    titles = re.findall(r"\('((?:[^'\\]|\\.)*)',\)|\(\"([^\"]*)\",\)", last.content)
    names = [a or b for a, b in titles]
    return ChatMessage(role=MessageRole.ASSISTANT, content="The Science Fiction books are: " + ", ".join(names) + ".")


def _call(name: str, args: dict[str, Any]) -> ChatMessage:
    block = ToolCallBlock(tool_call_id=f"call-{name.split('_')[0]}-{name}", tool_name=name, tool_kwargs=args)
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block])


async def run_agent(retriever: JoinAwareRetriever, question: str = DEMO_QUESTION) -> dict[str, Any]:
    agent = FunctionAgent(
        tools=[retriever.as_tool(), FunctionTool.from_defaults(fn=run_sql)],
        llm=MockFunctionCallingLLM(response_generator=scripted_model),
        system_prompt="Call find_tables with the question first; write SQL on its join path; run it with run_sql.",
    )
    output = await agent.run(user_msg=question)
    calls = {c.tool_name: c for c in output.tool_calls}
    return {"answer": str(output.response.content), "sql": calls["run_sql"].tool_kwargs["query"],
            "rows": calls["run_sql"].tool_output.content, "tables_text": calls["find_tables"].tool_output.content}


class TablesFound(Event):
    question: str
    join_path: str
    tables: list


class TextToSQL(Workflow):
    """Retrieve the tables (step 1), then write and run the SQL on their join path (step 2)."""

    def __init__(self, retriever: JoinAwareRetriever, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.retriever = retriever

    @step
    async def find_tables(self, ev: StartEvent) -> TablesFound:
        result = await self.retriever.aretrieve_result(ev.question)
        return TablesFound(question=ev.question, join_path=result.join_clause(), tables=result.table_names)

    @step
    async def write_and_run_sql(self, ev: TablesFound) -> StopEvent:
        sql = sql_on_join_path(ev.join_path.splitlines()[0])  # a real step asks its LLM here
        return StopEvent(result={"tables": ev.tables, "sql": sql, "rows": run_sql(sql)})


async def run_workflow(retriever: JoinAwareRetriever, question: str = DEMO_QUESTION) -> dict[str, Any]:
    return await TextToSQL(retriever, timeout=60).run(question=question)


def main() -> None:
    retriever = JoinAwareRetriever.from_database(demo_url(), similarity_top_k=3)
    gold = run_sql(DEMO_GOLD_SQL)

    out = asyncio.run(run_agent(retriever))
    print("=== agent ===")
    print(out["tables_text"])
    print(f"\nSQL: {out['sql']}\nrows: {out['rows']}\nanswer: {out['answer']}")
    assert out["rows"] == gold, (out["rows"], gold)

    result = asyncio.run(run_workflow(retriever))
    print("\n=== workflow ===")
    print(f"tables: {result['tables']}\nSQL: {result['sql']}\nrows: {result['rows']}")
    assert result["rows"] == gold
    print("\nboth give the reference SQL's rows")


if __name__ == "__main__":
    main()
