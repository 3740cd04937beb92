"""Hide the secrets a user typed in a database URL, libpq DSN or ODBC connection string.

:func:`secrets_in` collects the secret substrings of what was typed (a URL's password, the
values of ``password=`` / ``pwd=`` / ``token=``... in a query string, a DSN or an ODBC string,
URL-encoded ones included, and for a URL that does not parse, what stands where its password
would be); :func:`scrub` replaces them in any text derived from it: an error message, a driver's
message, a ``repr``. Not part of METHOD.md: plumbing for the loaders and adapters.

Example:
    >>> scrub("cannot connect: bad password 'S3cr3t'", secrets_in("host=h user=al password=S3cr3t"))
    "cannot connect: bad password '***'"
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Iterable

__all__ = ["SECRET_KEY", "secrets_in", "scrub", "MASK"]

#: What a hidden secret is shown as.
MASK = "***"

#: Names of parameters whose values are secrets (URL query, DSN, ODBC), case-insensitive.
SECRET_KEY = re.compile(r"pass|pwd|secret|token|credential|api_?key", re.IGNORECASE)

#: ``key=value`` of a query string, a libpq DSN or an ODBC string: an ODBC ``{braced}`` value,
#: a quoted DSN value, else up to the next ``;``, ``&`` or white space.
_PAIR = re.compile(
    r"""(?P<key>[A-Za-z_][\w.-]*)\s*=\s*
        (?P<value>\{(?:[^}]|\}\})*\}?|'(?:[^'\\]|\\.)*'?|"[^"]*"?|[^;&\s]*)""",
    re.VERBOSE,
)

#: The password of ``scheme://user:password@`` (also ``scheme:/user:...``): up to the next ``/``
#: or ``@`` (a URL that does not parse), and up to the last ``@`` of the authority.
_USERINFO_SHORT = re.compile(r"[A-Za-z][\w+.-]*:/{1,2}[^:/?#@\s]+:(?P<secret>[^/@\s]+)")
_USERINFO_LONG = re.compile(r"[A-Za-z][\w+.-]*:/{1,2}[^:/?#@\s]+:(?P<secret>[^?#\s]+)@[^@/?#\s]*(?:[/?#]|\Z)")

#: Shortest piece of a secret hidden on its own (shorter ones would blank out ordinary words).
_MIN_PIECE = 3


def secrets_in(typed: str, extra: Iterable[str] = (), *, userinfo: bool = True) -> list[str]:
    """The secret substrings of ``typed`` (and of its URL-decoded forms), plus ``extra``, longest first.

    ``userinfo``: also what stands where a URL's password would be (for a URL SQLAlchemy could not
    parse; a parsed one gives its password in ``extra``). Each secret is given with its pieces between ``@``, ``:``, ``/`` and ``;`` (a driver may split
    it there), pieces shorter than 3 characters left out.
    """
    found: list[str] = [s for s in extra if s]
    forms = [typed]
    for _ in range(3):  # an odbc_connect= value is URL-encoded, sometimes twice
        decoded = urllib.parse.unquote_plus(forms[-1])
        if decoded == forms[-1]:
            break
        forms.append(decoded)
    for form in forms:
        for m in _PAIR.finditer(form):
            if SECRET_KEY.search(m["key"]) and m["value"]:
                value = m["value"]
                found.append(value)
                if value[0] in "{'\"":  # and the value inside, ODBC's }} unescaped
                    inner = value[1:-1] if len(value) > 1 and value[-1] in "}'\"" else value[1:]
                    found += [inner, inner.replace("}}", "}")]
        for pattern in (_USERINFO_SHORT, _USERINFO_LONG) if userinfo else ():
            found += [m["secret"] for m in pattern.finditer(form)]
    return _with_pieces(found)


def _with_pieces(secrets: Iterable[str]) -> list[str]:
    out = {s for s in secrets if s}
    out |= {piece for s in list(out) for piece in re.split(r"[@:/;]", s)}
    return sorted((s for s in out if len(s) >= _MIN_PIECE), key=len, reverse=True)


def scrub(message: str, secrets: Iterable[str]) -> str:
    """``message`` with each of ``secrets`` (as typed and URL-encoded) replaced by ``***``."""
    variants: set[str] = set()
    for secret in secrets:
        if secret:
            variants |= {secret, urllib.parse.quote(secret, safe=""), urllib.parse.quote_plus(secret)}
    for variant in sorted(variants, key=len, reverse=True):
        message = message.replace(variant, MASK)
    return message
