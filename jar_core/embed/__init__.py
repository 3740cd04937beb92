"""Embedding backends: the bundled model through ONNX Runtime, sentence-transformers, a cache."""
