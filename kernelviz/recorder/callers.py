"""The user's line that ran a compiled graph: the innermost frame of the calling stack outside torch and
kernelviz, past the frames that run dynamo's code for a compiled function (whose line is the function's
``def``), so it is the line that called the compiled function or model (for an ``nn.Sequential``, whose FX
stack traces are all inside torch, the only line of the user's). The demo's workload (``kernelviz/demo.py``)
counts as the user's code: it is what ``kernelviz demo`` runs in the user's place."""

from __future__ import annotations

import os
import sys
from typing import Any

from ..model import SourceLocation

_KERNELVIZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_DEMO = os.path.join(_KERNELVIZ, "demo.py")


def _outside(file: str) -> bool:
    import torch

    return file == _DEMO or not file.startswith((_KERNELVIZ, os.path.dirname(torch.__file__) + os.sep, "<frozen"))


def running_frames() -> set[tuple[str, str]]:
    """(file, function) of every frame of the current stack outside torch and kernelviz: the user's
    functions running now, among them the one dynamo compiled (its frame runs dynamo's code)."""
    frame, found = sys._getframe(1), set()
    while frame is not None:
        if _outside(frame.f_code.co_filename):
            found.add((frame.f_code.co_filename, frame.f_code.co_name))
        frame = frame.f_back
    return found


def _dynamo_codes() -> Any:
    """Dynamo's map of the code objects it made to the user's (empty where this torch lacks it)."""
    try:
        from torch._dynamo.utils import orig_code_map
    except ImportError:
        return {}
    return orig_code_map


def caller_line() -> SourceLocation | None:
    """The innermost frame of the current stack outside torch and kernelviz that runs the user's own code."""
    import linecache

    made_by_dynamo = _dynamo_codes()
    frame = sys._getframe(1)
    while frame is not None:
        file = frame.f_code.co_filename
        if _outside(file) and frame.f_code not in made_by_dynamo:
            line = frame.f_lineno
            return SourceLocation(file=file, line=line, function=frame.f_code.co_name,
                                  code=linecache.getline(file, line, frame.f_globals).strip())
        frame = frame.f_back
    return None
