"""Small deterministic stand-ins used by several tests."""
from __future__ import annotations

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
