"""An LCEL text-to-SQL chain with join-aware table retrieval, offline.

Runs on the bundled demo database (a small bookshop). Two ``FakeListChatModel`` objects stand
in for real LLMs: one answers the decomposition prompt with the question's concepts, the other
"writes" the SQL (it returns a fixed, correct query). Everything else is real: the retrieval,
the documents, the prompt the SQL model receives, and the execution of the SQL. With a real
model, replace both fakes with e.g. ``ChatOpenAI(model="gpt-4o-mini")``.

    python examples/langchain_text_to_sql.py
"""
from __future__ import annotations

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import RunnableLambda, RunnablePassthrough
from sqlalchemy import create_engine, text

from jar_core.demo import DEMO_GOLD_SQL, DEMO_QUESTION, demo_url
from langchain_jar import JoinAwareRetriever, format_tables

QUESTION = DEMO_QUESTION  # "What are the titles of books in the Science Fiction category?"


def show_prompt(prompt: PromptValue) -> PromptValue:
    """Print the prompt on its way to the model (a pass-through step of the chain)."""
    print("=== prompt sent to the SQL model ===")
    print(prompt.to_string())
    print()
    return prompt


def extract_sql(answer: str) -> str:
    """The SQL of a model answer, with or without a ```sql fence."""
    answer = answer.strip()
    if answer.startswith("```"):
        answer = answer.split("\n", 1)[1].rsplit("```", 1)[0]
    return answer.strip()


def main() -> None:
    # 1. The retriever. A stand-in chat model decomposes the question into concepts; a real
    #    one would be asked the same few-shot prompt (see jar_core.decompose.llm).
    decomposition_llm = FakeListChatModel(responses=['["books:title", "categories:name", "book_categories"]'])
    retriever = JoinAwareRetriever.from_database(demo_url(), k=3, llm=decomposition_llm)

    docs = retriever.invoke(QUESTION)
    print(f"=== {len(docs)} tables retrieved for: {QUESTION} ===")
    for d in docs:
        m = d.metadata
        keys = ", ".join(f"{j['left']} = {j['right']}" for j in m["join_keys"]) or "-"
        print(f"{m['rank']}. {m['table']:<16} score {m['score']:.3f}  joins: {keys}")
    print(f"decomposer: {docs[0].metadata['decomposer']}, sub-queries: {docs[0].metadata['subqueries']}")
    print(f"join hint: {docs[0].metadata['join_path']}")
    print()

    # 2. The text-to-SQL chain: retrieved DDL + join hint -> prompt -> model -> SQL.
    prompt = ChatPromptTemplate.from_messages(
        [
            ("system", "You write one SQLite query that answers the user's question. "
                       "Use only these tables:\n\n{schema}"),
            ("human", "{question}"),
        ]
    )
    sql_llm = FakeListChatModel(responses=[f"```sql\n{DEMO_GOLD_SQL}\n```"])  # a real LLM writes this
    chain = (
        {"schema": retriever | format_tables, "question": RunnablePassthrough()}
        | prompt
        | RunnableLambda(show_prompt)
        | sql_llm
        | StrOutputParser()
        | RunnableLambda(extract_sql)
    )
    sql = chain.invoke(QUESTION)
    print("=== SQL from the model ===")
    print(sql)
    print()

    # 3. Run it on the demo database.
    engine = create_engine(demo_url())
    try:
        with engine.connect() as conn:
            rows = conn.execute(text(sql)).fetchall()
    finally:
        engine.dispose()
    print(f"=== {len(rows)} rows ===")
    for row in rows:
        print(tuple(row))


if __name__ == "__main__":
    main()
