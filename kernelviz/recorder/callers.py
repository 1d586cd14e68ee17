"""The user's line that ran a compiled graph: the innermost frame of the calling stack outside torch and
kernelviz (for an ``nn.Sequential``, whose FX stack traces are all inside torch, it is the line that called
the model)."""

from __future__ import annotations

import os
import sys

from ..model import SourceLocation

_KERNELVIZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def caller_line() -> SourceLocation | None:
    """The innermost frame of the current stack whose file is neither in torch nor in kernelviz."""
    import linecache

    import torch

    skip = (_KERNELVIZ, os.path.dirname(torch.__file__) + os.sep)
    frame = sys._getframe(1)
    while frame is not None:
        file = frame.f_code.co_filename
        if not file.startswith(skip) and not file.startswith("<frozen"):
            line = frame.f_lineno
            return SourceLocation(file=file, line=line, function=frame.f_code.co_name,
                                  code=linecache.getline(file, line, frame.f_globals).strip())
        frame = frame.f_back
    return None
