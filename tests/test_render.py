"""Pictures of the joins (Mermaid, DOT), the command's text and JSON, and describe_table."""
from __future__ import annotations

import dataclasses

import pytest

from jar_core.errors import UnknownDatabaseError
from jar_core.loaders import load_ddl
from jar_core.output.render import describe_table, explain_legend, result_json, result_text, to_dot, to_mermaid
from jar_core.output.result import RetrievedTable
from jar_core.retriever import TableRetriever

from helpers import BagOfWordsEmbedder

DDL = '''
CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (id INT PRIMARY KEY, customer_id INT, total DECIMAL(10, 2));
CREATE TABLE products (product_id INT PRIMARY KEY, title TEXT);
CREATE TABLE order_lines (order_id INT REFERENCES orders(id), product_id INT REFERENCES products(product_id),
                          qty INT, PRIMARY KEY (order_id, product_id));
CREATE TABLE "odd ""name""" (id INT PRIMARY KEY, note TEXT);
'''


@dataclasses.dataclass(frozen=True)
class BridgeTable(RetrievedTable):
    """A selected table with the ``reason`` attribute the bridge search will add."""

    reason: str = "bridge"


@pytest.fixture(scope="module")
def retriever() -> TableRetriever:
    return TableRetriever(load_ddl(DDL), embedder=BagOfWordsEmbedder())


@pytest.fixture(scope="module")
def result(retriever):
    return retriever.retrieve("products ordered by customers in each city", k=4,
                              include=["customers", "orders", "order_lines", "products"])


def test_mermaid_draws_tables_join_columns_and_edge_kinds(result) -> None:
    text = result.to_mermaid()
    assert text == to_mermaid(result)
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    assert '  t1["1. main.customers (pinned)<br/>id (PK)"]' in lines
    assert '  t2["2. main.orders (pinned)<br/>customer_id<br/>id (PK)"]' in lines
    assert any(line.startswith('  t3["3. main.order_lines (pinned)<br/>order_id (PK, FK → orders)') for line in lines)
    # declared key: solid; inferred join: dotted and labelled with its evidence and confidence
    assert '  t2 ---|"orders.id = order_lines.order_id"| t3' in lines
    inferred = [line for line in lines if " -.-|" in line]
    assert inferred and inferred[0].startswith('  t1 -.-|"customers.id = orders.customer_id (inferred: ')
    assert not any("classDef" in line for line in lines)


def test_bridges_and_unjoined_tables_are_marked(result, retriever) -> None:
    tables = list(result.tables)
    if "reason" in {f.name for f in dataclasses.fields(RetrievedTable)}:  # the core records why a table is there
        bridge = dataclasses.replace(tables[2], reason="bridge")
    else:
        bridge = BridgeTable(**{f.name: getattr(tables[2], f.name) for f in dataclasses.fields(RetrievedTable)})
    tables[2] = bridge
    lonely = retriever.retrieve("odd name notes", k=2, include=['odd "name"', "customers"])
    res = dataclasses.replace(result, tables=tables)
    mermaid = res.to_mermaid()
    assert "3. main.order_lines (pinned, bridge)" in mermaid
    assert "classDef bridge stroke-dasharray: 5 5" in mermaid and "class t3 bridge" in mermaid
    dot = res.to_dot()
    assert 't3 [label="3. main.order_lines (pinned, bridge)' in dot and 'style="rounded,dashed"' in dot
    assert result_json(res)["tables"][2]["reason"] == "bridge"
    row = next(line for line in result_text(res).splitlines() if "main.order_lines" in line)
    assert row.split()[-1] == "bridge"  # the "why" column
    # a table with no join, and a name that needs escaping
    m = lonely.to_mermaid()
    assert "#quot;name#quot;" in m and "(pinned, no join)" in m and "classDef unjoined" in m
    assert 'odd \\"name\\"' in lonely.to_dot() and "color=red" in lonely.to_dot()


def test_dot_marks_inferred_joins_dotted(result) -> None:
    dot = to_dot(result)
    assert dot.startswith("graph joins {") and dot.endswith("}")
    assert 't2 -- t3 [label="orders.id = order_lines.order_id"];' in dot
    assert any("style=dotted" in line and "customers.id = orders.customer_id" in line for line in dot.splitlines())


def test_json_and_text(result) -> None:
    payload = result_json(result)
    assert payload["join_path"] == result.join_clause()
    assert "-- inferred joins" in payload["join_path"]
    text = result_text(result, explain=True, candidates=20)
    assert f"Strategy: {result.strategy} over 5 candidates (every table: fewer than --candidates 20)" in text
    legend = explain_legend("dense").splitlines()
    assert legend[0] == "Columns:" and "  score     coarse; utility in the trace" in legend
    assert legend[-3].startswith("  why       relevance, ") and all(len(line) <= 100 for line in legend)


def test_describe_table(retriever) -> None:
    info = describe_table(retriever, "orders")
    assert info["id"] == "main.orders" and info["primary_key"] == ["id"]
    assert info["referenced_by"] == [{"table": "main.order_lines", "columns": ["order_id"], "ref_columns": ["id"]}]
    kinds = {(j["left"], j["right"], j["kind"]) for j in info["joins"]}
    assert ("orders.id", "order_lines.order_id", "declared") in kinds
    assert ("orders.customer_id", "customers.id", "inferred") in kinds
    assert info["joins"][0]["kind"] == "declared"  # declared keys first
    assert info["text"].startswith('CREATE TABLE "orders"') and "-- Referenced by: main.order_lines (order_id)" in info["text"]
    with pytest.raises(UnknownDatabaseError, match="did you mean main.orders"):
        describe_table(retriever, "order")


def test_uncertain_joins_say_so(result) -> None:
    # customers.id = orders.customer_id is a sure name rule; the same join at a sibling's
    # (calibrated) confidence is shown as uncertain everywhere it is shown; a declared key never is
    from jar_core.output.result import UNCERTAIN_BELOW

    inferred = next(j for j in result.joins if not j.declared)
    assert inferred.confidence >= UNCERTAIN_BELOW and not inferred.uncertain
    weak = dataclasses.replace(inferred, score=0.55, calibrated=0.55, evidence="sibling")
    assert weak.uncertain and weak.to_dict()["uncertain"] is True
    assert weak.describe().endswith("(inferred: sibling, 0.55, uncertain)")
    weak_result = dataclasses.replace(result, joins=[weak])
    assert "(inferred: sibling, 0.55, uncertain)" in result_text(weak_result)
    assert "uncertain" in to_mermaid(weak_result)
    assert "(sibling, 0.55, uncertain)" in weak_result.join_clause()
    declared = next(j for j in result.joins if j.declared)
    assert not dataclasses.replace(declared, score=0.1, calibrated=0.1).uncertain
