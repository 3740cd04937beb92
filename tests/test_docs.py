"""The Python examples in docs/getting-started.md run as written."""
import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "getting-started.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_getting_started_example_runs(code, embedder, monkeypatch):
    import jar_core.embedding as emb

    monkeypatch.setattr(emb, "_DEFAULT", embedder)  # reuse the session's model
    exec(compile(code, str(DOC), "exec"), {})
