"""Notebook cells named as the user sees them: a location in a cell's file becomes ``cell [3], line 6``.

IPython compiles each cell under a file name of its own (``/tmp/ipykernel_3987/…py``) and keeps the
cell's execution count for it; a ``%%kernelviz`` cell runs its body under such a name too, one line
below the magic's line (:func:`register`)."""

from __future__ import annotations

import sys
from typing import Any

from ..model import DynamoEvent, Graph

_offsets: dict[str, int] = {}  # a %%kernelviz cell's file -> lines above its body in the cell


def register(filename: str, offset: int) -> None:
    """The body of a ``%%kernelviz`` cell runs under ``filename``, ``offset`` lines below the cell's top."""
    _offsets[filename] = offset


def _numbers() -> dict[str, int]:
    """IPython's cell file -> execution count, in a running IPython (empty elsewhere)."""
    ipython = sys.modules.get("IPython")
    shell = getattr(ipython, "get_ipython", lambda: None)() if ipython is not None else None
    numbers = getattr(getattr(shell, "compile", None), "_filename_map", None)
    return numbers if isinstance(numbers, dict) else {}


def name_cells(graphs: list[Graph], events: list[DynamoEvent]) -> None:
    """Give the places (kernels' lines, graphs' callers, dynamo's events) that lie in this kernel's notebook
    cells their cell and line there."""
    numbers = _numbers()
    if not numbers:
        return
    for graph in graphs:
        for place in [loc for k in graph.kernels for loc in k.locations] + ([graph.caller] if graph.caller else []):
            _name(place, numbers)
    for event in events:
        _name(event, numbers)


def _name(place: Any, numbers: dict[str, int]) -> None:
    number = numbers.get(place.file)
    if isinstance(number, int) and place.cell is None:
        place.cell = number
        if place.line is not None:
            place.line += _offsets.get(place.file, 0)
