"""Loaders: build a :class:`~jar_core.schema.Schema` from a database, DDL text or a benchmark folder."""

from jar_core.loaders.benchmark import Benchmark, BenchmarkQuestion, load_benchmark
from jar_core.loaders.database import load_database
from jar_core.loaders.database.connect import _create_engine as read_only_engine
from jar_core.loaders.ddl import load_ddl

__all__ = ["load_database", "load_ddl", "load_benchmark", "Benchmark", "BenchmarkQuestion", "read_only_engine"]
