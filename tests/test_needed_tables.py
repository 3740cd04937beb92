"""Needed tables apart from optional ones: the join path of every entry point covers the tables the
question needs (the joined core ``k="auto"`` stops at), never an optional extra of a larger k."""
from __future__ import annotations

import json

import pytest

from jar_core.output.prompt import model_text
from jar_core.output.render import result_json

QUESTION = "How many invoices were sent to customers in Germany?"


@pytest.fixture(scope="module")
def wide(demo_retriever):
    return demo_retriever.retrieve(QUESTION, k=6)


def _path_tables(path: str) -> str:
    """The join path without its optional-tables comment."""
    return path.split("\n-- optional tables")[0]


def test_core_separates_needed_from_optional(demo_retriever, wide):
    auto = demo_retriever.retrieve(QUESTION, k="auto")
    assert wide.needed == [t for t in wide.table_ids if t in auto.table_ids]
    assert wide.optional and not set(wide.optional) & set(wide.needed)
    assert auto.optional == [] and auto.needed == auto.table_ids
    joined = {t for j in wide.joins for t in (j.left_table.id, j.right_table.id)}
    assert joined <= set(wide.needed)
    path = _path_tables(wide.join_clause())
    for tid in wide.optional:
        assert f'"{tid.split(".")[-1]}"' not in path
    assert "optional tables" in wide.join_clause()


def test_command_json_marks_optional(wide):
    payload = json.loads(json.dumps(result_json(wide)))
    assert payload["optional"] == wide.optional and payload["needed"] == wide.needed
    assert [t["needed"] for t in payload["tables"]] == [t.needed for t in wide.tables]
    for tid in payload["optional"]:
        assert f'"{tid.split(".")[-1]}"' not in _path_tables(payload["join_path"])
    assert {j["right_table"] for j in payload["joins"]} <= set(payload["needed"])


def test_model_text_holds_ddl_joins_values_and_optional_lines(wide):
    text = model_text(wide)
    assert text.count("CREATE TABLE") == len(wide.needed)
    assert "(declared)" in text and "is stored as" in text and "'Germany'" in text
    assert "Optional tables" in text and "score" not in text.split("Optional tables")[0].lower()
    assert "Scores" in model_text(wide, explain=True)


def test_langchain_retriever_and_tool(demo_retriever):
    from langchain_jar import JoinAwareRetriever
    from langchain_jar.sql import format_tables

    r = JoinAwareRetriever(retriever=demo_retriever, k=6)
    docs = r.invoke(QUESTION)
    optional = [d.metadata["table"] for d in docs if not d.metadata["needed"]]
    assert optional
    assert all(d.metadata["value_matches"] for d in docs)
    for name in optional:
        assert f'"{name}"' not in _path_tables(docs[0].metadata["join_path"])
    text = format_tables(docs)
    assert text.count("CREATE TABLE") == len(docs) - len(optional) and "Optional tables" in text
    tool_text = r.as_tool().invoke({"question": QUESTION})
    for name in optional:
        assert f'"{name}"' not in tool_text.split("-- Join path connecting these tables:")[1].split("\n\n")[0]
    assert "Optional tables" in tool_text
    assert r.as_tool().invoke({"question": QUESTION, "k": "auto"}).count("Optional tables") == 0


def test_llamaindex_retriever_and_tool_take_auto(demo_retriever):
    from llamaindex_jar import JoinAwareRetriever

    r = JoinAwareRetriever.from_table_retriever(demo_retriever, similarity_top_k=6)
    res = r.retrieve_result(QUESTION)
    assert res.optional and {j.right_table.id for j in res.joins} <= set(res.needed)
    out = r.as_tool().call(question=QUESTION).content
    for tid in res.optional:
        assert f'"{tid.split(".")[-1]}"' not in out.split("-- Join path connecting these tables:")[1].split("\n\n")[0]
    auto = r.as_tool().call(question=QUESTION, k="auto").content
    assert "Optional tables" not in auto and auto.count("CREATE TABLE") == len(res.needed)
