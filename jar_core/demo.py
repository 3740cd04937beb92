"""The bundled demo database and its demo question.

``jar_core/data/demo.sqlite`` models *Inkwell Books*, a small online bookstore (13
tables, declared foreign keys, three junction tables, about 700 rows).  It is built
deterministically by ``scripts/build_demo_db.py`` and shipped as package data so that
examples, documentation and smoke tests work without any external database.

The demo question needs a join through the ``book_authors`` junction table::

    authors.birthplace -> countries.country_id
    book_authors.author_id -> authors.author_id
    book_authors.book_id -> books.book_id
"""

from __future__ import annotations

from pathlib import Path

from jar_core.errors import SourceError

__all__ = [
    "DEMO_DB_PATH",
    "DEMO_GOLD_SQL",
    "DEMO_GOLD_TABLES",
    "DEMO_QUESTION",
    "demo_url",
    "ensure_demo_db",
]

#: Location of the packaged demo SQLite file.
DEMO_DB_PATH: Path = Path(__file__).resolve().parent / "data" / "demo.sqlite"

#: A natural-language question over the demo database.
DEMO_QUESTION: str = "What are the titles of books in the Science Fiction category?"

#: SQL answering :data:`DEMO_QUESTION` (SQLite dialect).
DEMO_GOLD_SQL: str = """\
SELECT b.title
FROM books AS b
JOIN book_categories AS bc ON bc.book_id = b.book_id
JOIN categories AS c ON c.category_id = bc.category_id
WHERE c.name = 'Science Fiction'
ORDER BY b.title"""

#: The tables :data:`DEMO_GOLD_SQL` uses, i.e. the ideal retrieval result.
DEMO_GOLD_TABLES: tuple[str, ...] = ("books", "book_categories", "categories")


def ensure_demo_db() -> Path:
    """Return the path of the demo database, raising :class:`SourceError` if it is missing."""
    if not DEMO_DB_PATH.is_file():
        raise SourceError(
            f"the bundled demo database is missing: {DEMO_DB_PATH} "
            "(rebuild it with 'python scripts/build_demo_db.py' or reinstall jar-retrieval)"
        )
    return DEMO_DB_PATH


def demo_url() -> str:
    """Return a SQLAlchemy URL opening the demo database read-only.

    The URL uses SQLite's URI form (``sqlite:///file:...?mode=ro&uri=true``), which the
    default pysqlite driver understands; raises :class:`SourceError` if the file is missing.
    """
    path = ensure_demo_db()
    return f"sqlite:///{path.as_uri()}?mode=ro&uri=true"
