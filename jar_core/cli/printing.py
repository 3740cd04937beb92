"""What the command prints: text with control characters escaped, JSON, one-line warnings.

Names and questions are printed with control characters (terminal escape sequences) and unpaired
surrogates escaped, so that a schema or a question cannot drive the terminal.
"""
from __future__ import annotations

import re
import sys
from typing import Any

__all__ = ["PROG", "safe", "json_safe", "print_line", "show_warning"]

PROG = "jar-retrieval"

_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_UNSAFE_ONE_LINE = re.compile(_UNSAFE.pattern[:-1] + r"\n\t]")


def safe(text: Any, *, one_line: bool = False) -> str:
    """``text`` with control characters, escape sequences and unpaired surrogates escaped (``\\x1b``)."""
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE
    return pattern.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), str(text))


def json_safe(text: str) -> str:
    """JSON text with the characters :func:`safe` escapes written as ``\\uXXXX`` (still valid JSON)."""
    return _UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def print_line(text: str, *, file: Any = None, one_line: bool = False) -> None:
    """Print ``text`` made :func:`safe` (on stdout unless ``file``)."""
    print(safe(text, one_line=one_line), file=file or sys.stdout)


def show_warning(message: Any, category: Any, filename: str, lineno: int, file: Any = None, line: Any = None) -> None:
    """A warning as one line ``jar-retrieval: warning: ...`` on stderr (``warnings.showwarning``)."""
    print_line(f"{PROG}: warning: {message}", file=sys.stderr, one_line=True)
