"""The Python examples in docs/ run as written (offline, on the demo database)."""
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"
BLOCKS = [
    (page, i, code)
    for page in ("getting-started.md", "langchain.md", "llamaindex.md")
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", (DOCS / page).read_text(), re.S))
]


@pytest.mark.parametrize("page,i,code", BLOCKS, ids=[f"{p}-{i}" for p, i, _ in BLOCKS])
def test_docs_example_runs(page, i, code, embedder, monkeypatch):
    import jar_core.embedding as emb

    monkeypatch.setattr(emb, "_DEFAULT", embedder)  # reuse the session's model
    exec(compile(code, f"docs/{page} block {i}", "exec"), {"__name__": "docs_example"})
