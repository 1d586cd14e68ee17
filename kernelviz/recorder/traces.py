"""This run's stack traces of a compiled graph's kernels, also where the graph came from a cache.

A kernel's stack traces are recorded when Inductor generates its code (``define_kernel``), in the
program that compiles it; a cache hit loads the same code in another program (or another notebook
cell), whose lines differ. So each recorded trace also keeps a node that carried it in the graph
Inductor was given (its node names are part of the FX graph cache key: an FX-graph-cache hit has a
graph with the same names), and, per dynamo graph that a capture saw reach the module, a node of
that graph (keyed by :func:`graph_key`). This run's traces are those of the same nodes in this
run's graphs.

An AOTAutograd cache hit has only dynamo's graph, and the entry it points to may have been compiled
from another dynamo graph (another program, other variable names). Its nodes are known where a
capture saw the same dynamo graph reach the module through an FX-graph-cache hit (:func:`learn`,
kept beside the cache by :mod:`.store`); where they are not, the hit is passed over (:func:`known`),
so AOTAutograd runs again and the FX-graph-cache hit that follows has both graphs.

The graphs are read where they enter Inductor: ``compile_fx`` (dynamo's graph, kept by dynamo's
compile id, since a backward graph is compiled later in its forward's compile context) and
``_compile_fx_inner`` (the graph of one module, on a miss and on an FX-graph-cache hit).
"""

from __future__ import annotations

import hashlib
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
    dynamo_key: str | None = None  # :func:`graph_key` of dynamo's graph
    _index: tuple[dict[str, str], ...] | None = field(default=None, repr=False)  # trace -> first node, per graph

    def nodes(self, trace: str) -> tuple[str | None, str | None]:
        """The first node of the graph Inductor was given, and of dynamo's, that carried ``trace`` (None: none)."""
        if self._index is None:
            self._index = tuple({t: n for n, t in reversed(table.items())} if table else {}
                                for table in (self.inductor, self.dynamo))
        return self._index[0].get(trace), self._index[1].get(trace)

    def named(self, stacks: list[str]) -> tuple[list[str | None], dict[str, list[str | None]]]:
        """What a record keeps of ``stacks``: per trace, a node of the graph Inductor was given that carried it,
        and, keyed by dynamo's graph, a node of that graph (None where none did)."""
        found = [self.nodes(t) for t in stacks]
        return [n for n, _ in found], {self.dynamo_key: [n for _, n in found]} if self.dynamo_key else {}

    def trace(self, record: Any, i: int) -> str | None:
        """This compile's trace of the nodes a record named for its ``i``-th trace: from the graph Inductor was
        given, else from dynamo's where the record knows that graph's nodes."""
        name = record.trace_nodes[i] if i < len(record.trace_nodes) else None
        if self.inductor is not None and name in self.inductor:
            return self.inductor[name]
        names = record.dynamo_nodes.get(self.dynamo_key) if self.dynamo is not None else None
        name = names[i] if names is not None and i < len(names) else None
        return self.dynamo.get(name) if name is not None else None


_local = threading.local()  # .inner: the graphs of _compile_fx_inner calls in progress; .depth of compile_fx
_dynamo: OrderedDict[str, tuple[dict[str, str], str]] = OrderedDict()  # compile id -> dynamo's graph, its key
_by_module: dict[int, tuple[Any, list[Sources]]] = {}  # id(CompiledFxGraph) -> (weakref, its compiles' Sources)


def _table(gm: Any) -> dict[str, str]:
    return {n.name: n.meta["stack_trace"] for n in gm.graph.nodes if n.meta.get("stack_trace")}


def graph_key(gm: Any) -> str:
    """What identifies a dynamo graph's nodes by name: its nodes' names, kinds and targets, in order (an
    AOTAutograd cache hit has a graph of the same nodes as the one that filled the entry)."""
    text = "\n".join(f"{n.op} {n.name} {getattr(n.target, '__qualname__', n.target)}" for n in gm.graph.nodes)
    return hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()


def current() -> Sources:
    """The graphs of the module being compiled or loaded in this thread."""
    inner = getattr(_local, "inner", None)
    compile_id = routing.compile_id()
    with routing.lock:
        dynamo, dynamo_key = _dynamo.get(compile_id, (None, None)) if compile_id is not None else (None, None)
    inductor = inner[-1] if inner else None
    last = getattr(_local, "last", None)  # the same graphs give the same object (its index is built once)
    if last is None or last.inductor is not inductor or last.dynamo is not dynamo:
        last = _local.last = Sources(inductor, dynamo, dynamo_key)
    return last


def known(records: list[Any], sources: Sources) -> bool:
    """Whether this run's traces of a module's records can be read from ``sources`` as far as they ever can: with
    the graph Inductor was given, or without dynamo's graph (nothing to learn them from), or where each record
    that has traces knows the nodes of this dynamo graph."""
    return (sources.inductor is not None or sources.dynamo_key is None
            or all(sources.dynamo_key in r.dynamo_nodes for r in records if r.stack_traces))


def learn(records: list[Any], sources: Sources) -> bool:
    """On a load with both graphs (an FX-graph-cache hit): give each record the nodes of this run's dynamo graph
    that carried the traces of its nodes in the graph Inductor was given, for a later AOTAutograd cache hit from
    the same dynamo graph. True where that was new (to be stored)."""
    if sources.inductor is None or sources.dynamo_key is None or \
            all(sources.dynamo_key in r.dynamo_nodes for r in records):
        return False
    for record in records:
        traces = [sources.inductor.get(n) if n is not None else None for n in record.trace_nodes]
        record.dynamo_nodes[sources.dynamo_key] = [sources.nodes(t)[1] if t is not None else None for t in traces]
    return True


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
    table, key = _table(gm), graph_key(gm)
    with routing.lock:
        _dynamo[compile_id] = table, key
        _dynamo.move_to_end(compile_id)
        while len(_dynamo) > _MAX_COMPILES:
            _dynamo.popitem(last=False)


def this_run(records: list[Any], sources: list[Sources]) -> list[list[str] | None]:
    """Per record, this run's stack traces of its kernel: those of the nodes it named, in the graphs of
    this run's compiles of the module; None where none is known (no graph of this run, or a record
    that names no node)."""
    found: list[list[str] | None] = []
    for record in records:
        traces = list(dict.fromkeys(t for i in range(len(record.stack_traces)) for s in sources
                                    if (t := s.trace(record, i)) is not None))
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
