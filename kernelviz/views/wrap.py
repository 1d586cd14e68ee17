"""Plain text wrapped between words to a terminal's width: a kernel name longer than a line stands whole on a line
of its own, never split."""

from __future__ import annotations

import shutil
import textwrap


def terminal_width(width: int | None = None) -> int:
    """``width``, else the terminal's (120 columns where there is none), at least 60."""
    return max(60, width or shutil.get_terminal_size((120, 24)).columns)


def wrapped(text: str, width: int, indent: str, more: str) -> list[str]:
    """``text`` wrapped to ``width`` between words (a name longer than a line stands whole on its own): its first
    line after ``indent``, the rest (and its own lines) after ``more``."""
    out = []
    for i, line in enumerate(text.splitlines() or [""]):
        out += textwrap.wrap(line.strip(), width, initial_indent=indent if i == 0 else more, subsequent_indent=more,
                             break_on_hyphens=False, break_long_words=False) or ([indent.rstrip()] if i == 0 else [""])
    return out


def wrapped_lines(lines: list[str], width: int | None = None) -> str:
    """``lines`` (each may hold line breaks) wrapped to ``width`` (:func:`terminal_width`), each line's rest four
    columns under its own indent."""
    width = terminal_width(width)
    out = []
    for line in "\n".join(lines).splitlines():
        body = line.lstrip()
        indent = line[: len(line) - len(body)]
        out += wrapped(body, width, indent, indent + "    ") if body else [""]
    return "\n".join(out)
