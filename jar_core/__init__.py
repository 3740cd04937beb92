"""jar-retrieval core: join-aware multi-table retrieval.

Given a question and a corpus of tables, return the few tables that together answer it and
can be joined, with the join keys between them (the greedy iterative search of
"Iterative Join-Aware Multi-Table Retrieval"; see ``docs/``).

This package imports neither LangChain nor LlamaIndex; their adapters live in
``langchain_jar`` and ``llamaindex_jar``.
"""
from jar_core.decompose.heuristic import Decomposer, Decomposition, HeuristicDecomposer, PrecomputedDecomposer
from jar_core.errors import (
    BenchmarkFormatError,
    DatabaseConnectionError,
    DDLParseError,
    DecompositionError,
    EmbeddingError,
    IndexLoadError,
    IndexSaveError,
    InvalidArgumentError,
    JarError,
    SchemaError,
    SolverError,
    SourceError,
    StaleIndexError,
    StaleStoreError,
    UnknownDatabaseError,
)
from jar_core.index.schema_index import SchemaIndex
from jar_core.output.result import JoinEdge, RetrievalResult, RetrievedTable
from jar_core.retriever import TableRetriever
from jar_core.schema import Column, ForeignKey, Schema, Table, TypeFamily, normalize_type
from jar_core.strategies import DenseStrategy, GreedyStrategy, SearchStrategy

__version__ = "0.1.0"

__all__ = [
    "TableRetriever", "RetrievalResult", "RetrievedTable", "JoinEdge", "SchemaIndex",
    "Schema", "Table", "Column", "ForeignKey", "TypeFamily", "normalize_type",
    "Decomposer", "Decomposition", "HeuristicDecomposer", "PrecomputedDecomposer",
    "SearchStrategy", "GreedyStrategy", "DenseStrategy",
    "JarError", "InvalidArgumentError", "SchemaError", "SourceError", "DatabaseConnectionError", "DDLParseError",
    "BenchmarkFormatError", "UnknownDatabaseError", "IndexLoadError", "IndexSaveError", "StaleIndexError", "StaleStoreError",
    "EmbeddingError",
    "DecompositionError", "SolverError",
    "load_database", "load_ddl", "load_benchmark",
]


def __getattr__(name: str):  # lazy loaders: keep `import jar_core` light
    if name in ("load_database", "load_ddl", "load_benchmark"):
        from jar_core import loaders

        return getattr(loaders, name)
    raise AttributeError(f"module 'jar_core' has no attribute {name!r}")
