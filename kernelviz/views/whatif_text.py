"""The candidate changes measured (``cap.whatif()``) in text, for ``str(cap)`` and the command line: each row of
``whatif.py`` as a saving and its change, then its patch, figures and numerics under it."""

from __future__ import annotations

from ..model import Capture
from .whatif import NOTE, rows
from .wrap import terminal_width, wrapped

INDENT = 6  # under a row's first line: its patch, figures and numerics


def text_lines(capture: Capture, width: int | None = None) -> list[str]:
    """The what-ifs best first in ``width`` characters (the terminal's): a title, then per row its saving and
    change, the flag where its outputs differ, the patch (each line whole: it is code), the graphs', the step's
    and the compile's figures, and the numerics; [] where none was measured."""
    width = terminal_width(width)
    shown = rows(capture)
    if not shown:
        return []
    lines = [f"what if ({NOTE}):"]
    under = " " * INDENT
    for row in shown:
        lines += wrapped(f"{row.saving} — {row.change}" + (f"  [{row.flag}]" if row.flag else ""), width, "  ", under)
        lines += [f"{under}{line}" for line in row.patch.splitlines()]
        figures = " · ".join(part for part in (row.graphs, row.step, row.compile) if part)
        for text in (figures, row.numerics):
            lines += wrapped(text, width, under, under + "  ") if text else []
    return lines
