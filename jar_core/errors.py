"""The exception hierarchy of jar-retrieval.

Every error the library raises on bad input derives from :class:`JarError`, so a caller
can catch one type; the command line turns any of them into a one-line message and a
non-zero exit status.
"""

from __future__ import annotations


class JarError(Exception):
    """Base class of every error raised by jar-retrieval on bad input or bad state."""


class InvalidArgumentError(JarError, ValueError):
    """A parameter is out of range or malformed (empty question, K <= 0, bad weights...)."""


class SchemaError(JarError):
    """A schema is unusable: no tables, a table without columns, duplicate names..."""


class SourceError(JarError):
    """A source (database URL, DDL text, benchmark folder) cannot be read."""


class DatabaseConnectionError(SourceError):
    """A database URL is malformed, unreachable or names a database that does not exist."""


class DDLParseError(SourceError):
    """DDL text cannot be parsed; the message names the offending statement."""


class BenchmarkFormatError(SourceError):
    """A benchmark folder does not follow the documented layout."""


class UnknownDatabaseError(JarError, KeyError):
    """A database id (``--db-id``) or table name is not in the schema."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class IndexLoadError(JarError):
    """A saved index cannot be used: missing, truncated, corrupt or of another format."""


class IndexSaveError(JarError, OSError):
    """An index cannot be written (no space, no permission...); an :class:`OSError` too."""


class StaleIndexError(IndexLoadError):
    """A saved index was built for another schema or another embedding model."""


class StaleStoreError(JarError):
    """An external vector store serving the first stage holds other tables than the index: none,
    tables the index does not know, or tables loaded from another schema or embedding model."""


class EmbeddingError(JarError):
    """The embedding model cannot be loaded or returned unusable vectors."""


class DecompositionError(JarError):
    """A decomposer failed and no fallback was possible."""


class SolverError(JarError):
    """An optimization solver is unavailable or failed."""
