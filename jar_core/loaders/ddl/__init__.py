"""Load a :class:`~jar_core.schema.Schema` from DDL text (``CREATE TABLE`` statements) with sqlglot.

Part of the input of METHOD.md, "The task": the corpus of tables, read from DDL. :func:`load_ddl`
(:mod:`.load`) reads the source; :mod:`.statements` cuts it into statements as the clients of each
database do; :mod:`.repair` parses one and retries what sqlglot cannot read; :mod:`.builder` builds
the tables (:mod:`.tables`), reading sqlglot's trees with :mod:`.expressions` and the file's domains,
alias types and enumerations with :mod:`.user_types`.

The text is tokenized once with the dialect's tokenizer and split into statements at ``;``
(and at the ``GO`` lines of SQL Server's tools, read as ``;``: SSMS and SSDT scripts end each
statement with both; T-SQL needs neither, and a ``CREATE`` or ``ALTER TABLE`` that starts a line
after a complete statement starts one; a T-SQL routine's body runs to the ``GO``, and is skipped).
The MySQL client's ``DELIMITER`` blocks (triggers, procedures and functions in ``mysqldump``
output) are read at their own delimiter, and only the table definitions among them are kept: a
``CREATE TEMPORARY TABLE`` in a procedure's body is no table of the schema. ``pg_dump``'s ``COPY
... FROM stdin`` data rows and psql's meta-command lines (``\\connect``, ``\\copy``) are blanked
before tokenizing: they are no SQL; so are, for Oracle, SQL*Plus command lines (``REM``,
``PROMPT``, ``SET``, ``@script``; a lone ``/`` ends a statement), and Oracle's constraint states
(``ENABLE NOVALIDATE``) and key index attributes (``USING INDEX ... TABLESPACE``) are dropped
before parsing. A ``CREATE TABLE`` swallowed by a
skipped statement that lacks its ``;`` is warned of (or named by the error when no table is read). Only table
definitions are parsed: ``CREATE ... TABLE`` (also as an element of ``CREATE SCHEMA s CREATE
TABLE ...``, in schema ``s``), ``ALTER TABLE`` (added columns, primary and foreign keys, as in
``pg_dump`` output; dropped and renamed columns, renamed tables; ``ATTACH PARTITION``; a column's
new type: ``ALTER [COLUMN] c [SET DATA] TYPE t``, T-SQL's ``ALTER COLUMN c t``, MySQL's ``MODIFY``
and ``CHANGE``, which renames too), ``COMMENT ON TABLE/COLUMN``, ``CREATE UNIQUE INDEX`` on one
column (no ``WHERE``: a key declared as an index, :attr:`Column.unique`, like a ``UNIQUE``
constraint), ``CREATE DOMAIN`` and T-SQL's alias types (``CREATE TYPE dbo.Phone FROM
varchar(20)``), and PostgreSQL's enumerations (``CREATE TYPE ... AS ENUM``, ``ALTER TYPE ... ADD
VALUE``, ``RENAME TO``; MySQL's and DuckDB's are inline, ``ENUM('a', 'b')``, and MySQL's ``SET('a',
'b')`` too); an ``ALTER`` form sqlglot cannot read is skipped like any other statement; every other
statement (``INSERT``, other indexes, other types, ``SET``...) is skipped unread. A table
definition that sqlglot cannot parse raises :class:`DDLParseError` naming the statement, after a
retry without what keys do not need (table options; the ``ASC`` of a key's columns; T-SQL's
``MASKED WITH (...)``, ``ROWGUIDCOL``, a key's ``[NON]CLUSTERED`` and storage, ``ON [PRIMARY]``, ``ON
[PS_Date] ([Date Key])``, ``WITH (FILLFACTOR = 90)``; a T-SQL ``ALTER TABLE`` is retried so too); an
index it cannot parse is skipped, and so is an index in a column list (T-SQL ``INDEX ix NONCLUSTERED
(a)``, ``INDEX ix CLUSTERED COLUMNSTORE``) but for a ``UNIQUE`` one, a key like ``CREATE UNIQUE
INDEX``. A key with a column list after a column's definition, without a comma (T-SQL reads it so),
is the table's key on the listed columns. No statistics are computed: uniqueness ratios stay
empty, and so do samples but for the labels of an enumeration's columns.
"""

from jar_core.loaders.ddl.load import load_ddl

__all__ = ["load_ddl"]
