"""Framework-neutral documents: ``result_documents`` and ``fetch_sample_rows``."""
from __future__ import annotations

import sqlalchemy as sa
import pytest

from jar_core.demo import DEMO_QUESTION
from jar_core.output.documents import fetch_sample_rows, result_documents
from jar_core.errors import InvalidArgumentError, SourceError
from jar_core.schema import Column, Table

METADATA_KEYS = {
    "table", "database", "table_id", "rank", "score", "coarse", "coverage", "join", "pinned", "joined",
    "reason", "join_keys", "join_path", "subqueries", "decomposer", "warnings",
    "needed", "value_matches", "optional_tables", "join_lines", "alternative_joins", "unverified_joins",
}


@pytest.fixture
def engine(tmp_path):
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'shop.db'}")
    with engine.begin() as conn:
        conn.exec_driver_sql('CREATE TABLE "order items" ("item id" INTEGER PRIMARY KEY, note TEXT, blob BLOB)')
        for i in range(5):
            conn.exec_driver_sql(
                'INSERT INTO "order items" VALUES (?, ?, ?)', (i, "x" * 200 if i == 0 else f"note {i}", b"\x00" * 3)
            )
    yield engine
    engine.dispose()


def _table(name: str) -> Table:
    return Table(database="shop", name=name, columns=[Column("item id", "INTEGER"), Column("note", "TEXT"),
                                                      Column("blob", "BLOB")])


def test_fetch_sample_rows(engine) -> None:
    out = fetch_sample_rows(engine, [_table("order items")], 3)
    cols, rows = out["shop.order items"]
    assert list(out) == ["shop.order items"]
    assert cols == ["item id", "note", "blob"]
    assert len(rows) == 3 and [r[0] for r in rows] == [0, 1, 2]
    assert rows[0][1] == "x" * 79 + "…" and len(rows[0][1]) == 80
    assert rows[1][1:] == ("note 1", "<3 bytes>")
    assert fetch_sample_rows(engine, [_table("order items")], 2, max_chars=10)["shop.order items"][1][0][1] == (
        "x" * 9 + "…")
    assert fetch_sample_rows(engine, [_table("order items")], 0) == {}
    with pytest.raises(InvalidArgumentError):
        fetch_sample_rows(engine, [_table("order items")], -1)


def test_fetch_sample_rows_missing_table(engine) -> None:
    with pytest.raises(SourceError, match=r"cannot read sample rows of shop\.gone: .*no such table") as info:
        fetch_sample_rows(engine, [_table("order items"), _table("gone")], 2)
    assert "\n" not in str(info.value)


def test_result_documents_metadata_and_ddl(demo_retriever) -> None:
    result = demo_retriever.retrieve(DEMO_QUESTION, k=3)
    docs = result_documents(result)
    assert [d.metadata["table"] for d in docs] == result.table_names
    for rank, (doc, t) in enumerate(zip(docs, result.tables), start=1):
        assert set(doc.metadata) == METADATA_KEYS
        assert doc.metadata["rank"] == rank and doc.metadata["table_id"] == t.id
        assert doc.text.startswith(f'CREATE TABLE "{t.name}"') and "/*" not in doc.text
        assert doc.score == t.score
    assert docs[0].metadata["join_path"] == result.join_clause()
    rows = {docs[0].metadata["table_id"]: (["a", "b"], [(1, None)])}
    with_rows = result_documents(result, sample_rows=rows)
    assert with_rows[0].text == docs[0].text + "\n/*\n1 example rows:\na\tb\n1\t\n*/"
    assert with_rows[1].text == docs[1].text
