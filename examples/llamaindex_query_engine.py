"""Join-aware table retrieval inside LlamaIndex's SQLTableRetrieverQueryEngine, offline.

Runs on the bundled demo database (a small bookshop). MockLLM stands in for a real LLM: it
echoes its prompt, so the "SQL" it writes is nonsense, but the script shows what matters here:
the tables retrieved, the join hint, and the text-to-SQL prompt the engine built from them.
With a real model, pass e.g. ``llm=OpenAI(model="gpt-4o-mini")`` instead of ``RecordingLLM()``.

    python examples/llamaindex_query_engine.py
"""
from __future__ import annotations

from typing import Any

from llama_index.core import MockEmbedding, Settings, SQLDatabase
from llama_index.core.base.llms.types import CompletionResponse
from llama_index.core.llms import MockLLM
from llama_index.core.query_engine import SQLTableRetrieverQueryEngine
from pydantic import Field
from sqlalchemy import create_engine

from jar_core.demo import DEMO_QUESTION, demo_url
from llamaindex_jar import JoinAwareRetriever


class RecordingLLM(MockLLM):
    """A MockLLM that keeps the prompts it receives, so we can print them."""

    prompts: list[str] = Field(default_factory=list)

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return super().complete(prompt, formatted=formatted, **kwargs)


def main() -> None:
    # The engine resolves Settings.embed_model (OpenAI by default) although its default SQL
    # parser never embeds anything; offline, a mock keeps it from asking for an API key.
    Settings.embed_model = MockEmbedding(embed_dim=8)

    # 1. The database, as LlamaIndex sees it.
    sql_database = SQLDatabase(create_engine(demo_url()))

    # 2. Our retriever over the same database: 4 tables per question. It embeds the schema with
    #    the bundled all-MiniLM-L6-v2 model (offline); embed_model=... would use a LlamaIndex one.
    retriever = JoinAwareRetriever.from_sql_database(sql_database, k=4)

    nodes = retriever.retrieve(DEMO_QUESTION)
    print(f"Question: {DEMO_QUESTION}\n")
    print("Retrieved tables (selection order):")
    for n in nodes:
        md = n.node.metadata
        keys = ", ".join(f"{j['left']} = {j['right']}" for j in md["join_keys"]) or "-"
        print(f"  {md['rank']}. {md['table']:<14} score={n.score:.3f}  joins: {keys}")
    print(f"\nJoin hint:\n  {nodes[0].node.metadata['join_path']}\n")

    # 3. Drop it into the query engine as its table retriever.
    llm = RecordingLLM()
    query_engine = SQLTableRetrieverQueryEngine(
        sql_database,
        retriever.as_object_retriever(),  # ObjectRetriever(retriever, SQLTableNodeMapping(sql_database))
        llm=llm,
        sql_only=True,  # write the SQL, don't run it
        synthesize_response=False,
    )
    query_engine.query(DEMO_QUESTION)

    # The text-to-SQL prompt: each retrieved table's schema and, as its description, the join hint.
    print("Prompt built by SQLTableRetrieverQueryEngine:")
    print("-" * 80)
    print(llm.prompts[0])
    print("-" * 80)


if __name__ == "__main__":
    main()
