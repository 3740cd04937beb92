"""Secrets typed in a URL, DSN or ODBC string never shown; reads of a passed engine read-only
whatever its isolation level; one long value bounded by the sample budget; an odd table of a
database named, or skipped with a warning, instead of refusing the database (issue 45)."""
from __future__ import annotations

import pytest

from jar_core.errors import DatabaseConnectionError
from jar_core.loaders.database import load_database, redact_url
from jar_core.redact import scrub, secrets_in

SECRET = "S3cr3tQ"

#: What a user may type where a database URL is expected, each holding SECRET.
TYPED = [
    f"mssql+pyodbc:///?odbc_connect=DRIVER%3D%7BODBC+Driver+18%7D%3BSERVER%3Dh%3BUID%3Dalice%3BPWD%3D{SECRET}",
    f"mssql+pyodbc:///?odbc_connect=DRIVER={{ODBC}};SERVER=h;UID=alice;Pwd={SECRET}",
    f"mssql+pyodbc:///?odbc_connect=DRIVER={{ODBC}};PWD={{{SECRET};x}};UID=alice",
    f"postgresql://alice:{SECRET}/db",
    f"postgresql:/alice:{SECRET}@host/db",
    f"host=h user=alice password={SECRET}",
    f"host=h user=alice password='{SECRET} x'",
    f"DRIVER={{ODBC}};SERVER=h;UID=alice;Pwd={SECRET}",
]


@pytest.mark.parametrize("typed", TYPED)
def test_redact_url_hides_what_the_user_typed(typed: str) -> None:
    assert SECRET not in redact_url(typed) and "***" in redact_url(typed)


@pytest.mark.parametrize("typed", TYPED)
def test_error_messages_never_show_the_secret(typed: str) -> None:
    with pytest.raises(DatabaseConnectionError) as err:
        load_database(typed)
    assert SECRET not in str(err.value) and "***" in str(err.value)
    assert "\n" not in str(err.value)


def test_a_driver_message_quoting_the_secret_is_scrubbed() -> None:
    # make_url's own message: invalid literal for int() with base 10: 'S3cr3tQ'
    with pytest.raises(DatabaseConnectionError, match="invalid literal") as err:
        load_database(f"postgresql://alice:{SECRET}/db")
    assert SECRET not in str(err.value)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("a PWD=p%40ss0;b", {"p%40ss0", "p@ss0", "ss0"}),  # as typed, decoded, its pieces of 3+ characters
        ("Token=abc123&x=1", {"abc123"}),
        ("x=1;Pwd={a;b}}c};y=2", {"{a;b}}c}", "a;b}}c", "a;b}c", "b}}c}", "b}}c", "b}c"}),
        ("sqlite:///file:shop.db?mode=ro&uri=true", set()),  # nothing secret in a file URI
        ("sqlite:///:memory:", set()),
    ],
)
def test_secrets_in_finds_the_secret_values(text: str, found: set[str]) -> None:
    assert set(secrets_in(text)) == found


def test_scrub_hides_url_encoded_forms_too() -> None:
    assert scrub("PWD%3Dp%3Bw%40x", ["p;w@x"]) == "PWD%3D***"


@pytest.mark.parametrize("typed", TYPED[:3])
def test_the_langchain_retriever_and_tool_never_show_an_odbc_password(typed: str) -> None:
    pytest.importorskip("langchain_core")
    from langchain_core.embeddings import DeterministicFakeEmbedding

    from jar_core.retriever import TableRetriever
    from langchain_jar import JoinAwareRetriever, JoinAwareTablesTool

    core = TableRetriever.from_ddl("CREATE TABLE books (id INT PRIMARY KEY, title TEXT);",
                                   embedder=DeterministicFakeEmbedding(size=16))
    r = JoinAwareRetriever(retriever=core, engine=typed)
    tool = JoinAwareTablesTool(retriever=r)
    for shown in (repr(r), str(r), repr(r.model_dump()), repr(tool), repr(tool.model_dump())):
        assert SECRET not in shown
    assert "***" in repr(r.model_dump())
