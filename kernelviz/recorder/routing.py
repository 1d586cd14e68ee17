"""Which captures an event belongs to: a capture sees what its own thread compiles and runs.

Hooks run in the thread that compiles or calls a graph. An event there goes to the captures
entered in that thread (nested ones included), never to a capture of another thread. Threads
that torch itself starts (autograd's device threads compile and run the backward graphs of CUDA
training steps) belong to no capture: their events go to the captures that already know the graph
or the dynamo compile it belongs to (a lazily compiled backward runs in its forward's compile
context), else to the captures of the one thread that is capturing, else nowhere, with a warning.
"""

from __future__ import annotations

import contextvars
import threading
from typing import Any, Protocol


class Recorder(Protocol):
    def on_code(self, code: str, key: str, cache: str) -> None: ...

    def on_call(self, compiled: Any, inputs: Any, key: str) -> None: ...

    def on_called(self, key: str, ms: float) -> None: ...

    def on_dynamo(self, event: Any) -> None: ...

    def on_regenerated(self, key: str) -> None: ...

    def on_tuning(self, tuning: Any, key: str | None) -> None: ...

    def on_cudagraph(self, event: Any, key: str | None) -> None: ...

    def on_package(self, archive: Any, records: list[Any], seconds: float | None) -> None: ...

    def knows(self, key: str | None, compile_id: str | None) -> bool: ...

    def warn(self, message: str) -> None: ...


lock = threading.RLock()
running: contextvars.ContextVar[str | None] = contextvars.ContextVar("kernelviz_running", default=None)
"""The code key of the compiled graph whose ``call()`` runs in this context (what its Triton kernels tune for)."""
call: contextvars.ContextVar[object | None] = contextvars.ContextVar("kernelviz_call", default=None)
"""One object per run of a compiled graph's ``call()`` in this context (what tells its partitions apart)."""
_by_thread: dict[int, list[Recorder]] = {}  # thread ident -> captures entered there, outermost first
_UNATTRIBUTED = ("a graph was compiled or ran in a thread that torch started while captures were open in several "
                 "threads: it was left out of all of them")


def add(recorder: Recorder) -> int:
    """Register ``recorder`` for the calling thread; returns that thread's ident."""
    ident = threading.get_ident()
    with lock:
        _by_thread.setdefault(ident, []).append(recorder)
    return ident


def remove(recorder: Recorder, ident: int) -> bool:
    """Unregister ``recorder``; True when no capture is left in any thread."""
    with lock:
        own = _by_thread.get(ident, [])
        if recorder in own:
            own.remove(recorder)
        if not own:
            _by_thread.pop(ident, None)
        return not _by_thread


def _started_by_torch(thread: threading.Thread) -> bool:
    """Threads not started through Python's threading module (autograd's engine threads)."""
    dummy = getattr(threading, "_DummyThread", None)
    return dummy is not None and isinstance(thread, dummy)


def compile_id() -> str | None:
    """Dynamo's id of the frame compile in progress in this thread ("3/0"), if any."""
    try:
        from torch._guards import CompileContext

        found = CompileContext.current_compile_id()
    except (ImportError, AttributeError):
        return None
    return None if found is None else str(found)


def targets(key: str | None = None) -> list[Recorder]:
    """The captures that an event in the calling thread (about the graph ``key``, if given) belongs to."""
    with lock:
        own = _by_thread.get(threading.get_ident())
        if own:
            return list(own)
        if not _by_thread or not _started_by_torch(threading.current_thread()):
            return []
        everyone = [r for rs in _by_thread.values() for r in rs]
        current = compile_id()
        knowing = [r for r in everyone if r.knows(key, current)]
        if knowing:
            return knowing
        if len(_by_thread) == 1:
            return everyone
    for recorder in everyone:
        recorder.warn(_UNATTRIBUTED)
    return []


def safely(fn, *args) -> Any:
    """Run a hook's step and give what it returns (None where it failed); a failure there must never break the
    user's compile or call."""
    try:
        return fn(*args)
    except Exception as exc:  # noqa: BLE001 - reported, never raised into the user's program
        for recorder in targets():
            recorder.warn(f"capture hook failed: {type(exc).__name__}: {exc}")
