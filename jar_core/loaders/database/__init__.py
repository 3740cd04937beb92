"""Load a :class:`~jar_core.schema.Schema` from a live database through SQLAlchemy (:func:`load_database`).

Read-only (SQLite ``mode=ro``, PostgreSQL ``default_transaction_read_only``, MySQL read-only
transactions, DuckDB ``read_only``) and bounded: SQLAlchemy's inspector for tables, columns, keys and
comments (DuckDB's own catalog instead), one ``SELECT ... LIMIT n`` per table for the statistics, cut
off at a byte budget (SQLite's huge values through blob handles). URLs are shown with their password
and secret query values hidden. In steps, one module each: :mod:`.connect`, :mod:`.tables`,
:mod:`.reflect`, :mod:`.duckdb_catalog`, :mod:`.rows`, :mod:`.samples`, :mod:`.load`.
"""

from jar_core.loaders.database.connect import parse_url, read_only_connection, redact_url
from jar_core.loaders.database.load import load_database, sql_database_source
from jar_core.loaders.database.rows import bounded_columns, bounded_rows
from jar_core.loaders.database.samples import (
    DEFAULT_SAMPLE_BYTES,
    DEFAULT_SAMPLE_VALUES,
    MAX_SAMPLE_CHARS,
    enum_sample,
)
from jar_core.loaders.database.tables import MAX_NAME_CHARS

__all__ = [
    "load_database", "sql_database_source", "redact_url", "read_only_connection", "bounded_columns", "bounded_rows",
    "DEFAULT_SAMPLE_BYTES", "DEFAULT_SAMPLE_VALUES", "MAX_NAME_CHARS",
    "parse_url", "enum_sample", "MAX_SAMPLE_CHARS",
]
