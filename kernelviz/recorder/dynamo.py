"""Dynamo's own reasons for what it did not compile: graph breaks, recompiles and skipped frames.

Two of dynamo's own channels, both emitted in the compiling thread (so :mod:`.routing` gives each
event to that thread's captures), both free of cost while nothing breaks:

- graph breaks: the records of dynamo's ``graph_breaks`` log (``Graph break in user code at
  FILE:LINE`` / ``Graph Break Reason: ...`` / ``User code traceback``). The logger is set to DEBUG
  for the capture with a handler of ours and, unless the user turned that log on, without passing
  records on, so nothing is printed;
- recompiles and skipped frames: each frame's ``CompilationMetrics`` (its ``recompile_reason`` and compile time,
  and ``fail_type``/``fail_reason``/``fail_user_frame_*`` where dynamo gave up and ran it eagerly); what changed
  for a recompile is read where dynamo works out the guard that failed, with the frame's new values at hand.
"""

from __future__ import annotations

import importlib
import linecache
import logging
import os
import re
import threading
from typing import Any

from ..model import DynamoEvent, SourceLocation
from ..patches import Patches
from . import routing
from .guards import change
from .overlay import FRAME, torch_dir

_BREAK = re.compile(
    r"in user code at (?P<file>[^\n]+):(?P<line>\d+)\n(?:Graph Break )?Reason: (?P<reason>.*?)"
    r"(?:\n\s*\nStack variable source attribution:|\n\s*\nUser code traceback:|\nUser code traceback:|\Z)",
    re.S)


def graph_break(message: str) -> DynamoEvent | None:
    """The event of one ``graph_breaks`` log message (full or duplicate form), or None for others."""
    match = _BREAK.search(message)
    if match is None or not message.startswith("Graph break"):
        return None
    file, line = match["file"], int(match["line"])
    function, code = "", ""
    frames = FRAME.findall(message[match.end():])
    for frame_file, frame_line, frame_function, frame_code in frames:
        if (frame_file, int(frame_line)) == (file, line):
            function, code = frame_function, frame_code.strip()
    users = [f for f in frames if not _in_library(f[0])] if _in_library(file) else []
    caller = SourceLocation(users[-1][0], int(users[-1][1]), users[-1][2], users[-1][3].strip()) if users else None
    return DynamoEvent("graph_break", match["reason"].strip(), file, line, function,
                       code or linecache.getline(file, line).strip(), caller=caller)


def _in_library(file: str) -> bool:
    """Whether ``file`` is an installed package's (torch's, transformers') rather than the user's own code."""
    return file.startswith(torch_dir()) or f"{os.sep}site-packages{os.sep}" in file or (
        f"{os.sep}dist-packages{os.sep}" in file)


_changes = threading.local()  # the guard failure reasons worked out in this thread -> (guard, change)


def _seen(reason: str) -> tuple[str, str]:
    """(guard, change) of a recompile's reason, as worked out when dynamo found it, else from its text alone."""
    known = getattr(_changes, "by_reason", {})
    return known.pop(reason, None) or change(reason, {})


def from_metrics(metrics: Any) -> DynamoEvent | None:
    """A recompile or a skipped frame, from one frame's ``CompilationMetrics``."""
    if getattr(metrics, "is_forward", None) is False:
        return None
    file, first, function = (getattr(metrics, k, None) for k in ("co_filename", "co_firstlineno", "co_name"))
    if getattr(metrics, "fail_type", None) and not getattr(metrics, "has_guarded_code", None):
        line = getattr(metrics, "fail_user_frame_lineno", None) or first
        where = getattr(metrics, "fail_user_frame_filename", None) or file
        reason = getattr(metrics, "fail_reason", None) or metrics.fail_type
        return DynamoEvent("skip", str(reason).strip(), where, line, function or "", _line(where, line))
    if getattr(metrics, "recompile_reason", None):
        guard, changed = _seen(str(metrics.recompile_reason))
        return DynamoEvent("recompile", str(metrics.recompile_reason).strip(), file, first, function or "",
                           _line(file, first), compile_s=getattr(metrics, "entire_frame_compile_time_s", None),
                           guard=guard, change=changed)
    return None


def _line(file: str | None, line: int | None) -> str:
    return linecache.getline(file, line).strip() if file and line else ""


def _emit(event: DynamoEvent | None) -> None:
    if event is not None:
        for recorder in routing.targets():
            recorder.on_dynamo(event)


class _GraphBreaks(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        routing.safely(lambda: _emit(graph_break(record.getMessage())))


def _listen(patches: Patches, module: str, attr: str) -> None:
    try:
        logger = getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        patches.skipped.append(f"{module}.{attr} ({type(exc).__name__})")
        return
    handler, level, propagate = _GraphBreaks(logging.DEBUG), logger.level, logger.propagate
    if not logger.isEnabledFor(logging.DEBUG):  # the user has not turned this log on: print nothing
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
    logger.addHandler(handler)

    def restore() -> None:
        logger.removeHandler(handler)
        logger.setLevel(level)
        logger.propagate = propagate

    patches.on_undo(restore)


def install(patches: Patches) -> None:
    """Listen to dynamo's graph-break log and read each frame's compilation metrics, undone with ``patches``."""
    _listen(patches, "torch._dynamo.symbolic_convert", "graph_break_log")

    def create(original):
        def wrapper(cls, *args, **kwargs):
            metrics = original(*args, **kwargs)
            routing.safely(lambda: _emit(from_metrics(metrics)))
            return metrics

        return classmethod(wrapper)

    patches.wrap("torch._dynamo.utils", "CompilationMetrics", "create", create)

    def fail_reason(original):
        def wrapper(guard_manager, code, f_locals, *args, **kwargs):
            reason = original(guard_manager, code, f_locals, *args, **kwargs)
            if reason and routing.targets():
                routing.safely(lambda: _remember(reason, f_locals))
            return reason

        return wrapper

    patches.wrap("torch._dynamo.guards", "", "get_guard_fail_reason", fail_reason)


def _remember(reason: str, f_locals: dict[str, Any]) -> None:
    by_reason = _changes.__dict__.setdefault("by_reason", {})
    if len(by_reason) > 64:  # reasons dynamo worked out but compiled nothing for (never read): keep few
        by_reason.clear()
    by_reason[reason] = change(reason, f_locals)
