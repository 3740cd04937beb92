"""SQL comments (``--``, ``/* */``) of a DDL file read as descriptions, when no ``COMMENT`` clause
gives one: SQLite schemas and many hand-written files document their tables and columns so.

A column's is the comment on its own line (``quantity INT, -- units on hand``), which sqlglot
attaches to the column's definition. A table's is, in this order: the comment on the line of
``CREATE TABLE t (`` after the parenthesis, the comment lines just above ``CREATE TABLE`` (no
blank line between; not the file's opening comment, which describes the file), the comment after
the closing ``);`` on its line. Each is one line, its spaces collapsed; a comment without a
letter (``-- ------``), MySQL's executable ``/*!40101 ... */``, commented-out SQL and ``pg_dump``'s
``Name: t; Type: TABLE; ...`` headers describe nothing and are skipped.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from sqlglot import exp
from sqlglot.tokens import Token, TokenType

__all__ = ["column_remark", "table_remark"]

#: Comments that describe nothing: commented-out statements, ``pg_dump`` and ``mysqldump`` headers.
_NOT_A_DESCRIPTION = re.compile(
    r"\A(?:!|(?:DROP|CREATE|ALTER|INSERT|UPDATE|DELETE|SELECT|SET|USE|GRANT|REVOKE|TRUNCATE|BEGIN|COMMIT)\b"
    r"|Name:.*;\s*Type:|Table structure for|Dumping data for)",
    re.IGNORECASE,
)
_LETTER = re.compile(r"[^\W\d_]")


def _remark(comments: Iterable[str]) -> str | None:
    """The comments as one line (a block comment's leading ``*`` dropped), ``None`` when none
    describes anything."""
    kept = []
    for comment in comments:
        line = " ".join(part.strip().lstrip("*").strip() for part in comment.strip().splitlines())
        line = " ".join(line.split())
        if line and _LETTER.search(line) and not _NOT_A_DESCRIPTION.match(line):
            kept.append(line)
    return " ".join(kept) or None


def column_remark(node: exp.ColumnDef) -> str | None:
    """The comment written on the line of column definition ``node``; the comment lines above its
    name (often a commented-out column, or a heading for the columns below) are not its."""
    name = node.this
    comments: list[str] = []
    for sub in node.walk():
        if sub is not name and sub.comments:
            comments.extend(sub.comments)
    return _remark(comments)


def table_remark(chunk: Sequence[Token], text: str) -> str | None:
    """The comment that describes the table ``CREATE TABLE`` statement ``chunk`` (tokens with offsets
    into ``text``) defines, ``None`` when there is none."""
    if not chunk:
        return None
    paren = next((t for t in chunk if t.token_type == TokenType.L_PAREN), None)
    # sqlglot attaches a comment to the token before it on its line: here, the opening parenthesis
    return (
        (_remark(paren.comments) if paren is not None else None)
        or _remark(_comments_above(text, chunk[0].start))
        or _remark(_comment_after(text, chunk[-1].end + 1))
    )


def _comments_above(text: str, start: int) -> list[str]:
    """The comment lines just above offset ``start`` (which must begin its line), no blank line
    between; none when nothing but comments and blank lines comes before (the file's header)."""
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip():
        return []
    found: list[str] = []
    end = line_start - 1  # the line break ending the line above
    while end > 0:
        above = text.rfind("\n", 0, end) + 1
        line = text[above:end].strip()
        if line.startswith("--"):
            found.insert(0, line[2:])
            end = above - 1
        elif line.startswith("/*") and line.endswith("*/") and "*/" not in line[2:-2]:
            found.insert(0, line[2:-2])
            end = above - 1
        elif line.endswith("*/") and "/*" not in line:  # the last line of a block comment
            opening = text.rfind("/*", 0, above)
            head = text.rfind("\n", 0, opening) + 1
            if opening < 0 or text[head:opening].strip():
                break
            found.insert(0, text[opening + 2 : text.rfind("*/", 0, end)])
            end = head - 1
        else:
            break
    if _only_comments_before(text, end):
        return []  # the file's opening comment
    return found


def _only_comments_before(text: str, end: int) -> bool:
    """Whether only blank and comment lines come before offset ``end`` (read up from it)."""
    while end > 0:
        above = text.rfind("\n", 0, end) + 1
        line = text[above:end].strip()
        if line and not line.startswith(("--", "/*", "*")) and not line.endswith("*/"):
            return False
        end = above - 1
    return True


def _comment_after(text: str, end: int) -> list[str]:
    """The comment after the statement's end (offset ``end``), on its line: ``); -- stays``."""
    eol = text.find("\n", end)
    rest = text[end : eol if eol >= 0 else len(text)].strip().lstrip(";").strip()
    if rest.startswith("--"):
        return [rest[2:]]
    if rest.startswith("/*") and rest.endswith("*/"):
        return [rest[2:-2]]
    return []
