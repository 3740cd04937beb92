"""Small deterministic stand-ins used by several tests."""
from __future__ import annotations

import re
import zlib

import numpy as np


class BagOfWordsEmbedder:
    """A deterministic embedder: each word hashes to a dimension (no model needed)."""

    def __init__(self, dim: int = 64, name: str = "test-bow") -> None:
        self.dim, self.name = dim, name
        self.calls = 0

    def _encode(self, texts):
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"[a-z0-9]+", t.lower()):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1.0
            out[i, 0] += 1e-3
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    embed_documents = _encode
    embed_queries = _encode
