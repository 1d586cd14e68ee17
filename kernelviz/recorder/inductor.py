"""Hooks into Inductor: what it compiles (code and per-kernel metadata) and which graphs run.

The hooks are installed once while any capture is active and feed every active recorder, so
captures nest. Per-kernel metadata is kept by the hash of the module's code, so a graph that
later runs from dynamo's cache (no compile) still finds the metadata of its compile.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

from .patches import Patches


@dataclass
class KernelRecord:
    """Inductor's own metadata for one ``define_kernel`` call."""

    name: str
    metadata: str  # get_kernel_metadata's first string (the "Source Nodes" line)
    detail: str  # its second string (mapping and graph fragment)
    stack_traces: list[str] = field(default_factory=list)


class Recorder(Protocol):
    def on_code(self, code: str) -> None: ...

    def on_call(self, compiled: Any, inputs: Any) -> None: ...


def code_key(code: str) -> str:
    return hashlib.sha1(code.encode("utf-8", "surrogatepass")).hexdigest()


_MAX_REMEMBERED = 512
_lock = threading.RLock()
_recorders: list[Recorder] = []
_patches: Patches | None = None
_pending: dict[int, list[KernelRecord]] = {}  # id(GraphLowering) -> records, until its code is known
_started: dict[int, float] = {}  # id(GraphLowering) -> when lowering began
_keys: dict[int, str] = {}  # id(GraphLowering) -> code_key, once its code is known
_metadata: OrderedDict[str, list[KernelRecord]] = OrderedDict()  # code_key -> records
_compile_s: OrderedDict[str, float] = OrderedDict()  # code_key -> seconds from lowering to loaded module


def kernel_records(code: str) -> list[KernelRecord] | None:
    """The metadata Inductor gave for the kernels of this module, if it was compiled under a capture."""
    return _metadata.get(code_key(code))


def compile_seconds(code: str) -> float | None:
    """Seconds from the start of lowering to the loaded module, if it was compiled under a capture."""
    return _compile_s.get(code_key(code))


def attach(recorder: Recorder) -> list[str]:
    """Start feeding ``recorder``; install the hooks if it is the first. Returns hooks not installed."""
    global _patches
    with _lock:
        if _patches is None:
            _patches = _install()
        _recorders.append(recorder)
        return list(_patches.skipped)


def detach(recorder: Recorder) -> None:
    """Stop feeding ``recorder``; remove every hook when no recorder is left."""
    global _patches
    with _lock:
        if recorder in _recorders:
            _recorders.remove(recorder)
        if not _recorders and _patches is not None:
            _patches.undo()
            _patches = None
            _pending.clear()
            _started.clear()
            _keys.clear()


def _current_graph() -> Any:
    from torch._inductor.virtualized import V

    try:
        return V.graph
    except (AssertionError, AttributeError):
        return None


def _record_kernel(name: str, nodes: Any) -> None:
    from torch._inductor.utils import aggregate_origins, get_kernel_metadata

    graph = _current_graph()
    if graph is None or not isinstance(nodes, (list, tuple)):
        return
    flat = [n for node in nodes if hasattr(node, "get_nodes") for n in node.get_nodes()]
    metadata, detail = get_kernel_metadata(flat, graph.wrapper_code)
    traces = [o.meta["stack_trace"] for o in aggregate_origins(flat) if o.meta.get("stack_trace")]
    _pending.setdefault(id(graph), []).append(KernelRecord(name, metadata, detail, traces))


def _remember(table: OrderedDict, key: str, value) -> None:
    table[key] = value
    while len(table) > _MAX_REMEMBERED:
        table.popitem(last=False)


def _on_code(code: str) -> None:
    graph = _current_graph()
    records = _pending.pop(id(graph), None) if graph is not None else None
    if graph is not None:
        _keys[id(graph)] = code_key(code)
    if records is not None:
        _remember(_metadata, code_key(code), records)
    for recorder in list(_recorders):
        recorder.on_code(code)


def _safely(fn, *args) -> None:
    """Run a recorder step; a failure there must never break the user's compile or call."""
    try:
        fn(*args)
    except Exception as exc:  # noqa: BLE001 - reported, never raised into the user's program
        for recorder in list(_recorders):
            getattr(recorder, "warn", lambda _m: None)(f"capture hook failed: {type(exc).__name__}: {exc}")


def _install() -> Patches:
    patches = Patches()

    def save_output_code(previous):
        def hook(code: str) -> None:
            _safely(_on_code, code)
            if previous is not None:
                previous(code)

        return hook

    def define_kernel(original):
        def wrapper(self, src_code, nodes, *args, **kwargs):
            name = original(self, src_code, nodes, *args, **kwargs)
            _safely(_record_kernel, name, nodes)
            return name

        return wrapper

    def init(original):
        def wrapper(self, *args, **kwargs):
            _started[id(self)] = time.perf_counter()
            return original(self, *args, **kwargs)

        return wrapper

    def compile_to_module(original):
        def wrapper(self, *args, **kwargs):
            module = original(self, *args, **kwargs)
            start, key = _started.pop(id(self), None), _keys.pop(id(self), None)
            if start is not None and key is not None:
                _remember(_compile_s, key, time.perf_counter() - start)
            return module

        return wrapper

    def call(original):
        def wrapper(self, inputs):
            for recorder in list(_recorders):
                _safely(recorder.on_call, self, inputs)
            return original(self, inputs)

        return wrapper

    patches.wrap("torch._inductor.graph", "GraphLowering", "save_output_code", save_output_code)
    patches.wrap("torch._inductor.graph", "GraphLowering", "__init__", init)
    patches.wrap("torch._inductor.graph", "GraphLowering", "compile_to_module", compile_to_module)
    patches.wrap("torch._inductor.codegen.cpp", "CppScheduling", "define_kernel", define_kernel)
    patches.wrap("torch._inductor.codegen.triton", "TritonScheduling", "define_kernel", define_kernel)
    patches.wrap("torch._inductor.output_code", "CompiledFxGraph", "__call__", call)
    return patches
