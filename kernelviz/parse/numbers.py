"""Integers read from output code's text, in one place: Inductor writes them as Python literals of ASCII digits
(a size, a stride, a group size), so anything else written as a number (digits of another script, ``'²'``, a sign,
``_``, a value beyond 64 bits) is refused with a one-line :class:`ParseError` naming what was read, where Python's
``int()`` would raise ``ValueError`` or read it."""

from __future__ import annotations

import re

from .errors import ParseError

_INTEGER = re.compile(r"[0-9]{1,19}")  # a 64-bit size has at most 19 digits
_LARGEST = 2**63 - 1


def written_as_number(text: str) -> bool:
    """Whether ``text`` is written as a number (a sign, then digits of any script: ``8``, ``-7``, ``²``), not as a
    name or an expression (``s0``, ``2*s0``, ``'0'``)."""
    body = text.strip().lstrip("+-")
    return body.replace("_", "").isnumeric()


def integer(text: str, what: str) -> int:
    """The non-negative integer ``text`` is, as Inductor writes one; a one-line :class:`ParseError` naming ``what``
    and the text otherwise."""
    stripped = text.strip()
    if _INTEGER.fullmatch(stripped) and int(stripped) <= _LARGEST:
        return int(stripped)
    raise ParseError(f"{what}: expected an integer of ASCII digits up to 2**63-1, read {stripped[:40]!r}")


def size(text: str, what: str) -> int | None:
    """A size or stride: the integer :func:`integer` reads, or None where ``text`` is symbolic (``s0``, ``2*s0``)."""
    return integer(text, what) if written_as_number(text) else None
