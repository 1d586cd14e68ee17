"""Whether a measured figure makes sense, and how one that does not is shown: a time, rate, size or share
read from a capture may be negative, beyond any device, or an integer beyond a float ("invalid: -3 GB/s").
The views show such a figure as what it is and leave it out of charts and sums; they never raise on it."""

from __future__ import annotations

import math
from typing import Any

LIMIT = 1e30  # no time in ms, rate, FLOP count or byte count of one launch comes near this


def valid(value: Any) -> bool:
    """A finite number from 0 up to ``LIMIT``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value) and 0 <= value < LIMIT
    except OverflowError:  # an integer beyond a float
        return False


def positive(value: Any) -> bool:
    """:func:`valid` and above zero (what a log scale can place)."""
    return valid(value) and value > 0


def number(value: Any) -> str:
    """A number as ``%g`` writes it, also an integer beyond a float."""
    try:
        return f"{float(value):g}"
    except (OverflowError, TypeError, ValueError):
        text = str(value)
        return text if len(text) <= 12 else f"{text[:6]}…({len(text)} digits)"


def shown(value: Any, unit: str = "", spec: str = ".3g") -> str:
    """``value`` formatted by ``spec`` with its unit; ``invalid: -3 GB/s`` where it makes no sense; "" for None."""
    if value is None:
        return ""
    suffix = f" {unit}" if unit else ""
    return f"{value:{spec}}{suffix}" if valid(value) else f"invalid: {number(value)}{suffix}"
