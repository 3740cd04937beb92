"""Small deterministic stand-ins used by several tests."""
from __future__ import annotations

import json
import re
import zlib

import numpy as np


class BagOfWordsEmbedder:
    """A deterministic embedder: each word hashes to a dimension (no model needed)."""

    def __init__(self, dim: int = 64, name: str = "test-bow", *, fail_after: int | None = None) -> None:
        self.dim, self.name = dim, name
        self.calls = 0
        #: The texts of each call, in order.
        self.seen: list[list[str]] = []
        #: Raise on the call after this many (an interrupted build).
        self.fail_after = fail_after

    def _encode(self, texts):
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise KeyboardInterrupt("interrupted")
        self.calls += 1
        self.seen.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
            out[i, 0] += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    embed_documents = _encode
    embed_queries = _encode


class FakeTorchEmbedder:
    """Stands in for the PyTorch backend in backend-choice tests: records its ``threads``."""

    backend = "torch"

    def __init__(self, threads=None):
        from jar_core.embed.embedders import DEFAULT_MODEL_NAME

        self.name, self.threads = DEFAULT_MODEL_NAME, threads


# -- a small lake for the first-stage tests (test_vector_store_candidates, the vector-store adapters) ---
SHOP = """
CREATE TABLE customers (customer_id INT PRIMARY KEY, name TEXT, city TEXT);
CREATE TABLE orders (order_id INT PRIMARY KEY, customer_id INT REFERENCES customers(customer_id), ordered_at DATE);
CREATE TABLE products (product_id INT PRIMARY KEY, title TEXT, price REAL);
CREATE TABLE order_items (order_id INT REFERENCES orders(order_id), product_id INT REFERENCES products(product_id), qty INT);
CREATE TABLE shippers (shipper_id INT PRIMARY KEY, company TEXT);
CREATE TABLE reviews (review_id INT PRIMARY KEY, product_id INT REFERENCES products(product_id), stars INT);
"""


def lake(copies: int = 4):
    """``copies`` renamed copies of :data:`SHOP`: databases shop0, shop1..."""
    from jar_core.loaders import load_ddl
    from jar_core.schema import Schema

    base = load_ddl(SHOP)
    return Schema([t.copy_to(f"shop{i}") for i in range(copies) for t in base.tables])


def masks(schema: Schema, rng: np.random.Generator):
    """No filter; one database; two databases; one database with exclusions; exclusions only."""
    dbs = schema.databases
    in_db = lambda names: np.array([t.database in names for t in schema.tables])  # noqa: E731
    yield np.ones(len(schema), dtype=bool)
    yield in_db({dbs[1]})
    yield in_db({dbs[0], dbs[2]})
    m = in_db({dbs[3]})
    m[np.flatnonzero(m)[:2]] = False
    yield m
    m = np.ones(len(schema), dtype=bool)
    m[rng.choice(len(schema), 7, replace=False)] = False
    yield m


def assert_same_top_n(generator, index, queries: int = 20, seed: int = 7) -> None:
    """``generator.search`` gives BruteForceCandidates' positions (and scores) for random unit
    queries, every mask of :func:`masks` and several n."""
    from jar_core.candidates.first_stage import BruteForceCandidates

    rng = np.random.default_rng(seed)
    brute = BruteForceCandidates()
    for _ in range(queries):
        q = rng.normal(size=index.table_vectors.shape[1]).astype(np.float32)
        q /= np.linalg.norm(q)
        for allowed in masks(index.schema, rng):
            for n in (1, 3, 6, 10, 40):
                want_pos, want_scores = brute.search(index, q, n, allowed)
                pos, scores = generator.search(index, q, n, allowed)
                assert pos.tolist() == want_pos.tolist(), (n, allowed)
                np.testing.assert_allclose(scores, want_scores, atol=1e-6)


def load_script(name: str):
    """The module of ``scripts/<name>.py`` (scripts are not a package)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(name, Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


# -- comparing answers printed by two processes ----------------------------------------------------
# Two processes (or thread counts, or backends) may round a score differently in its last printed
# digit (4.059556 against 4.059555): the encoder's sums run in another order. Answers are compared
# for what they mean: the same text and structure, and numbers equal up to that last digit.
_NUMBER = re.compile(r"-?\d+\.\d+")


def _last_digit(token: str) -> float:
    return 10.0 ** -len(token.split(".")[1])


def assert_same_text(a: str, b: str, *, digits: int = 2) -> None:
    """``a`` and ``b`` are the same text but for decimal numbers, which may differ by up to
    ``digits`` units of their last printed digit (a rounding flip, a column width kept)."""
    parts_a, parts_b = _NUMBER.split(a), _NUMBER.split(b)
    nums_a, nums_b = _NUMBER.findall(a), _NUMBER.findall(b)
    assert len(nums_a) == len(nums_b) and [p.strip() for p in parts_a] == [p.strip() for p in parts_b], (a, b)
    for x, y in zip(nums_a, nums_b):
        assert abs(float(x) - float(y)) <= digits * max(_last_digit(x), _last_digit(y)) + 1e-12, (x, y)


def assert_same_json(a, b, *, rel: float = 1e-4, abs_: float = 1e-4, path: str = "$") -> None:
    """Equal JSON values, floats within a tolerance (the keys, the order of lists and every string
    exactly)."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        assert a == b, (path, a, b)
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
        assert abs(a - b) <= max(abs_, rel * max(abs(a), abs(b))), (path, a, b)
    elif isinstance(a, dict) and isinstance(b, dict):
        assert list(a) == list(b), (path, list(a), list(b))
        for key in a:
            assert_same_json(a[key], b[key], rel=rel, abs_=abs_, path=f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_json(x, y, rel=rel, abs_=abs_, path=f"{path}[{i}]")
    elif isinstance(a, str) and isinstance(b, str):
        assert_same_text(a, b)
    else:
        assert a == b, (path, a, b)


def saved_schema(index_dir) -> dict:
    """The schema saved in the index at ``index_dir`` as :meth:`Schema.to_dict` gives it (read from
    its ``schema.sqlite``, table rows in order)."""
    import sqlite3
    from pathlib import Path

    con = sqlite3.connect(f"file:{Path(index_dir) / 'schema.sqlite'}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT data FROM tables ORDER BY pos").fetchall()
        dialect = json.loads(con.execute("SELECT value FROM info WHERE key = 'dialect'").fetchone()[0])
    finally:
        con.close()
    return {"dialect": dialect, "tables": [json.loads(bytes(d)) for (d,) in rows]}


def saved_schema_text(index_dir) -> str:
    """:func:`saved_schema` as JSON text (to look for a value in it)."""
    return json.dumps(saved_schema(index_dir), ensure_ascii=False)
