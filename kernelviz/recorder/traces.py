"""This run's stack traces of a compiled graph's kernels, also where the graph came from a cache.

A kernel's stack traces are recorded when Inductor generates its code (``define_kernel``), in the
program that compiles it; a cache hit loads the same code in another program (or another notebook
cell), whose lines differ. So each recorded trace also keeps the name of a node that carried it in
the graphs of that compile: the graph Inductor was given (its node names are part of the FX graph
cache key) and dynamo's graph (part of the AOTAutograd cache key). A hit has graphs with the same
node names, so this run's traces are those of the same nodes in this run's graphs.

The graphs are read where they enter Inductor: ``compile_fx`` (dynamo's graph, kept by dynamo's
compile id, since a backward graph is compiled later in its forward's compile context) and
``_compile_fx_inner`` (the graph of one module, on a miss and on an FX-graph-cache hit).
"""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..patches import Patches
from . import routing
from .overlay import FRAME

_MAX_COMPILES = 64  # dynamo graphs kept for backward graphs compiled later


@dataclass
class Sources:
    """The graphs of one compile of a module in this process: node name -> stack trace."""

    inductor: dict[str, str] | None = None  # the graph Inductor was given (None on an AOTAutograd cache hit)
    dynamo: dict[str, str] | None = None
    _index: tuple[dict[str, str], ...] | None = field(default=None, repr=False)  # trace -> first node, per graph

    def names(self, trace: str) -> list[str | None]:
        """A node of each graph that carried ``trace`` (None where none did): what a record keeps."""
        if self._index is None:
            self._index = tuple({t: n for n, t in reversed(table.items())} if table else {}
                                for table in (self.inductor, self.dynamo))
        return [index.get(trace) for index in self._index]

    def trace(self, names: list[str | None]) -> str | None:
        """This compile's trace of the nodes a record named, from the graph Inductor was given, else dynamo's."""
        for table, name in zip((self.inductor, self.dynamo), names):
            if table is not None and name is not None and name in table:
                return table[name]
        return None


_local = threading.local()  # .inner: the graphs of _compile_fx_inner calls in progress; .depth of compile_fx
_dynamo: OrderedDict[str, dict[str, str]] = OrderedDict()  # compile id -> dynamo's graph
_by_module: dict[int, tuple[Any, list[Sources]]] = {}  # id(CompiledFxGraph) -> (weakref, its compiles' Sources)


def _table(gm: Any) -> dict[str, str]:
    return {n.name: n.meta["stack_trace"] for n in gm.graph.nodes if n.meta.get("stack_trace")}


def current() -> Sources:
    """The graphs of the module being compiled or loaded in this thread."""
    inner = getattr(_local, "inner", None)
    compile_id = routing.compile_id()
    with routing.lock:
        dynamo = _dynamo.get(compile_id) if compile_id is not None else None
    inductor = inner[-1] if inner else None
    last = getattr(_local, "last", None)  # the same graphs give the same object (its index is built once)
    if last is None or last.inductor is not inductor or last.dynamo is not dynamo:
        last = _local.last = Sources(inductor, dynamo)
    return last


def remember(compiled: Any, sources: list[Sources]) -> None:
    """Keep the graphs a compiled module came from while it lives, for a later capture that only runs it."""
    with routing.lock:
        _by_module[id(compiled)] = (weakref.ref(compiled), sources)
    weakref.finalize(compiled, _by_module.pop, id(compiled), None)


def of_module(compiled: Any) -> list[Sources]:
    """The graphs a compiled module came from, if a capture saw it compiled or loaded; else []."""
    with routing.lock:
        entry = _by_module.get(id(compiled))
    return entry[1] if entry is not None and entry[0]() is compiled else []


def install(patches: Patches) -> None:
    def compile_fx(original):
        def wrapper(gm, *args, **kwargs):
            depth = getattr(_local, "depth", 0)
            if depth == 0:
                routing.safely(_keep_dynamo_graph, gm)
            _local.depth = depth + 1
            try:
                return original(gm, *args, **kwargs)
            finally:
                _local.depth = depth

        return wrapper

    def compile_fx_inner(original):
        def wrapper(gm, *args, **kwargs):
            inner = _local.__dict__.setdefault("inner", [])
            try:
                inner.append(_table(gm))
            except Exception:  # noqa: BLE001 - no graph to read: this run's traces stay unknown
                inner.append({})
            try:
                return original(gm, *args, **kwargs)
            finally:
                inner.pop()

        return wrapper

    patches.wrap("torch._inductor.compile_fx", "", "compile_fx", compile_fx)
    patches.wrap("torch._inductor.compile_fx", "", "_compile_fx_inner", compile_fx_inner)
    patches.on_undo(_dynamo.clear)


def _keep_dynamo_graph(gm: Any) -> None:
    compile_id = routing.compile_id()
    if compile_id is None or not hasattr(gm, "graph"):
        return
    with routing.lock:
        _dynamo[compile_id] = _table(gm)
        _dynamo.move_to_end(compile_id)
        while len(_dynamo) > _MAX_COMPILES:
            _dynamo.popitem(last=False)


def this_run(records: list[Any], sources: list[Sources]) -> list[list[str] | None]:
    """Per record, this run's stack traces of its kernel: those of the nodes it named, in the graphs of
    this run's compiles of the module; None where none is known (no graph of this run, or a record
    that names no node)."""
    found: list[list[str] | None] = []
    for record in records:
        traces = list(dict.fromkeys(t for names in record.trace_nodes for s in sources
                                    if (t := s.trace(names)) is not None))
        found.append(traces if traces or not record.stack_traces else None)
    return found


def running(records: list[Any], frames: set[tuple[str, str]]) -> list[list[str] | None]:
    """Per record, its stack traces that are provably of the code that ran a module compiled before the
    capture (so no graph of its compile was seen): a trace whose outermost frame, the function dynamo
    compiled, is one running the module now (``frames``: file and function) and whose innermost line
    still reads as recorded. The others may be of a program that filled the cache: None where none is left."""
    import linecache

    found: list[list[str] | None] = []
    for record in records:
        kept = []
        for trace in record.stack_traces:
            parts = FRAME.findall(trace)
            if parts and (parts[0][0], parts[0][2]) in frames and \
                    linecache.getline(parts[-1][0], int(parts[-1][1])).strip() == parts[-1][3].strip():
                kept.append(trace)
        found.append(kept if kept or not record.stack_traces else None)
    return found
