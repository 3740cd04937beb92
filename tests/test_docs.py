"""The Python examples in docs/ run as written (offline, on the demo database), and the values
the docs show are the ones the code gives."""
import ast
import re
from pathlib import Path

import pytest

from helpers import assert_same_text

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = ("getting-started.md", "langchain.md", "llamaindex.md", "databases.md", "lakes.md")
BLOCKS = [
    (page, i, code)
    for page in PAGES
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.S))
]


@pytest.mark.parametrize("page,i,code", BLOCKS, ids=[f"{p}-{i}" for p, i, _ in BLOCKS])
def test_docs_example_runs(page, i, code, embedder, monkeypatch):
    if "import duckdb" in code:
        pytest.importorskip("duckdb")
        pytest.importorskip("duckdb_engine")
    if "langchain.agents" in code:
        pytest.importorskip("langchain.agents")
    if "PGVector(" in code:
        pytest.skip("needs a PostgreSQL server with pgvector: tests/test_pgvector_integration.py runs it (make test-integration)")
    import jar_core.embed.embedders as emb

    monkeypatch.setattr(emb, "_DEFAULT", embedder)  # reuse the session's model
    exec(compile(code, f"docs/{page} block {i}", "exec"), {"__name__": "docs_example"})


def _metadata_examples(page: str) -> dict[str, str]:
    """The `key` -> example cells of a page's metadata table."""
    rows = re.findall(r"^\| `(\w+)`[^|]* \| (.+?) \| .+ \|$", (DOCS / page).read_text(), re.M)
    return {key: example for key, example in rows}


@pytest.mark.parametrize("page", ["langchain.md", "llamaindex.md"])
def test_documented_metadata_is_what_the_code_gives(page, demo_retriever):
    """The metadata examples are the `book_authors` document of the quick start (k=4)."""
    from jar_core.output.documents import result_documents

    result = demo_retriever.retrieve("Which books were written by authors born in Ireland?", k=4)
    md = next(d.metadata for d in result_documents(result) if d.metadata["table"] == "book_authors")
    ex = _metadata_examples(page)
    print(f"the code gives (paste into docs/{page} if the defaults changed): subqueries {md['subqueries']}, "
          f"score {md['score']}, coarse/coverage/join {md['coarse']}, {md['coverage']}, {md['join']}, "
          f"join_keys[0] {md['join_keys'][0]}")
    assert ast.literal_eval(ex["subqueries"].strip("`")) == md["subqueries"]
    assert float(ex["score"].strip("`")) == pytest.approx(md["score"], abs=1e-4)
    coarse, coverage, join = (float(x.strip("` ")) for x in ex["coarse"].split(","))
    assert (coarse, coverage, join) == pytest.approx((md["coarse"], md["coverage"], md["join"]), abs=1e-4)
    first_key = ast.literal_eval(ex["join_keys"].strip("`").replace(", ...]", "]"))[0]
    assert first_key == md["join_keys"][0]
    assert md["rank"] == int(ex["rank"].strip("`")) and md["table_id"] == ex["table_id"].strip('`"')
    assert md["reason"] == ex["reason"].strip('`"')


def test_the_docs_picture_is_the_commands_output(capsys, embedder, monkeypatch):
    """docs/getting-started.md shows the Mermaid text of a retrieval on examples/shop.sql."""
    import jar_core.embed.embedders as emb
    from jar_core.cli.main import main

    monkeypatch.setattr(emb, "_DEFAULT", embedder)
    assert main(["retrieve", "Which products did customers in Lyon buy?", "--ddl", str(ROOT / "examples" / "shop.sql"),
                 "-k", "4", "-q", "--no-cache", "--format", "mermaid"]) == 0
    mermaid = capsys.readouterr().out.strip()
    shown = re.search(r"```mermaid\n(.*?)```", (DOCS / "getting-started.md").read_text(), re.S).group(1).strip()
    assert_same_text(shown, mermaid)
    assert (DOCS / "img" / "joins-shop.svg").read_text().count("<g id=\"node") == 4


def test_the_docs_explain_example_is_the_commands_output(capsys, embedder, monkeypatch):
    """docs/getting-started.md shows `retrieve --explain` on examples/shop.sql, up to the step trace."""
    import jar_core.embed.embedders as emb
    from jar_core.cli.main import main

    monkeypatch.setattr(emb, "_DEFAULT", embedder)
    question = "Which products did customers in Lyon buy?"
    assert main(["retrieve", question, "--ddl", str(ROOT / "examples" / "shop.sql"), "-k", "4", "--explain",
                 "--no-cache"]) == 0
    out = capsys.readouterr().out
    shown = re.search(r"--explain\n(Question: .*?)\n\.\.\.\n```", (DOCS / "getting-started.md").read_text(), re.S).group(1)
    lines = shown.count("\n") + 1
    assert_same_text("\n".join(out.split("\n")[:lines]), shown)  # scores up to their last printed digit

