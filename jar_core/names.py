"""Names as words, and names shown on one line: what every layer reads or shows of a name."""
from __future__ import annotations

import re
from functools import lru_cache


__all__ = ["humanize", "readable", "one_line", "split_camel"]


_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def split_camel(name: str, sep: str = " ") -> str:
    """``name`` with ``sep`` where a lower-case letter or digit meets an upper-case one
    (``"SongReleaseYear"`` -> ``"Song Release Year"``): the camel-case word boundary that the
    embedded texts, the decomposer and value matching read names by. (The join rules' profile
    also splits an acronym from the word after it, ``SKUCode``: its own boundary.)"""
    return _CAMEL.sub(sep, name)


@lru_cache(maxsize=1 << 18)
def humanize(name: str) -> str:
    """``"song_release_year"`` / ``"songReleaseYear"`` -> ``"song release year"``."""
    return " ".join(split_camel(name).replace("_", " ").split()).lower()


@lru_cache(maxsize=1 << 18)
def readable(name: str) -> str:
    """:func:`humanize` with run-together words split (:func:`jar_core.glued.unglue`): the name as
    the embedded and BM25 texts read it (``"ELEMENTOFFINANCIALSTATEMENT"`` -> ``"element of
    financial statement"``, ``"CustomerID"`` -> ``"customer id"``). The paper's join-name text
    keeps :func:`humanize`."""
    from jar_core.glued import unglue

    return unglue(humanize(name))


#: The characters that can break a line of text: C0 and C1 controls (newline, CR, tab, DEL...),
#: the line and paragraph separators.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """``text`` with its control characters written as visible escapes, the way ``repr`` writes
    them (a newline as the two characters ``\\n``), so that a name or a comment cannot start a new
    line of the text it is shown in.

    Example:
        >>> one_line("audit\\n; DELETE FROM users; --")
        'audit\\\\n; DELETE FROM users; --'
    """
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)
