"""Hooks into Inductor: what it compiles (code and per-kernel metadata), what it loads from its FX
graph cache, and which graphs run.

The hooks are installed once while any capture is active and feed the captures that
:mod:`.routing` picks, so captures nest and threads stay apart. Per-kernel metadata exists only
where Inductor generates code, so it is kept by the hash of the module's code, in memory and in
:mod:`.store` on disk: a graph that later runs from dynamo's cache, or loads from the FX graph
cache in a new process, still finds it. An FX-graph-cache entry whose metadata is nowhere (the
cache was filled without kernelviz) is passed over at lookup, so Inductor generates that graph's
code again (and rewrites an equivalent entry); nothing else is recompiled and dynamo is never reset.
"""

from __future__ import annotations

import hashlib
import time
import weakref
from collections import OrderedDict
from typing import Any

from ..model import FusionDecision
from . import dynamo, fusion, routing, store, traces
from .patches import Patches
from .store import KernelRecord


def code_key(code: str) -> str:
    return hashlib.sha1(code.encode("utf-8", "surrogatepass")).hexdigest()


_MAX_REMEMBERED = 512
_patches: Patches | None = None
_pending: dict[int, list[KernelRecord]] = {}  # id(GraphLowering) -> records, until its code is known
_started: dict[int, float] = {}  # id(GraphLowering) -> when lowering began
_keys: dict[int, str] = {}  # id(GraphLowering) -> code_key, once its code is known
_call_keys: dict[int, tuple[Any, str]] = {}  # id(CompiledFxGraph) -> (weakref to it, code_key)
_metadata: OrderedDict[str, list[KernelRecord]] = OrderedDict()  # code_key -> records
_compile_s: OrderedDict[str, float] = OrderedDict()  # code_key -> seconds from lowering to loaded module
_fusions: OrderedDict[str, list[FusionDecision]] = OrderedDict()  # code_key -> Inductor's fusion decisions
_aot_names: OrderedDict[str, str] = OrderedDict()  # code_key -> AOTAutograd's graph name ("0_forward")


def _remembered(table: OrderedDict, key: str, load) -> Any:
    """``table[key]`` if a compile in this process put it there, else ``load(key)`` from the store (remembered)."""
    with routing.lock:
        found = table.get(key)
    if found is None:
        found = load(key)
        if found is not None:
            _remember(table, key, found)
    return found


def kernel_records(key: str) -> list[KernelRecord] | None:
    """Inductor's metadata for the kernels of the module with this code key: from a compile seen in
    this process, else from the store; None where it was never seen."""
    return _remembered(_metadata, key, store.load)


def fusion_decisions(key: str) -> list[FusionDecision]:
    """Inductor's fusion decisions for the module with this code key: from a compile seen in this process,
    else from the store; empty where none were kept."""
    return _remembered(_fusions, key, store.load_fusions) or []


def aot_name(key: str) -> str | None:
    """AOTAutograd's name of the graph whose module has this code key ("0_forward"), where it was compiled or
    compiled (in this process, or where the store kept it): a C++ wrapper's code does not carry the ``# AOT ID``
    line the Python wrapper's does, and a cache hit does not name its graph."""
    return _remembered(_aot_names, key, store.load_graph_name)


def _tracing_name() -> str | None:
    import torch._guards

    context = torch._guards.TracingContext.try_get()
    name = getattr(context, "aot_graph_name", None)
    name = name[0] if isinstance(name, (list, tuple)) and name else name
    return name if isinstance(name, str) else None


def compile_seconds(key: str) -> float | None:
    """Seconds from the start of lowering to the loaded module, if it was compiled in this process."""
    return _compile_s.get(key)


def attach(recorder: routing.Recorder) -> tuple[int, list[str]]:
    """Start feeding ``recorder`` (for the calling thread); install the hooks if it is the first.
    Returns the thread's ident and the hooks this torch lacks."""
    global _patches
    with routing.lock:
        if _patches is None:
            _patches = _install()
        return routing.add(recorder), list(_patches.skipped)


def detach(recorder: routing.Recorder, ident: int) -> None:
    """Stop feeding ``recorder``; remove every hook when no capture is left in any thread."""
    global _patches
    with routing.lock:
        if routing.remove(recorder, ident) and _patches is not None:
            _patches.undo()
            _patches = None
            _pending.clear()
            _started.clear()
            _keys.clear()
            _call_keys.clear()
            fusion.clear()


def _current_graph() -> Any:
    from torch._inductor.virtualized import V

    try:
        return V.graph
    except (AssertionError, AttributeError):
        return None


def _record_kernel(name: str, nodes: Any, src_code: Any = None) -> None:
    from torch._inductor.utils import aggregate_origins, get_kernel_metadata

    graph = _current_graph()
    if graph is None or not isinstance(nodes, (list, tuple)):
        return
    flat = [n for node in nodes if hasattr(node, "get_nodes") for n in node.get_nodes()]
    metadata, detail = get_kernel_metadata(flat, graph.wrapper_code)
    stacks = list(dict.fromkeys(o.meta["stack_trace"] for o in aggregate_origins(flat) if o.meta.get("stack_trace")))
    sources = traces.current()
    record = KernelRecord(name, metadata, detail, stacks, [sources.names(t) for t in stacks],
                          [n.get_name() for n in flat], _binary_only_source(graph, name, src_code))
    with routing.lock:
        _pending.setdefault(id(graph), []).append(record)


def _binary_only_source(graph: Any, name: str, src_code: Any) -> str:
    """A Triton kernel's source under cpp_wrapper, whose module may hold only the kernel's binary (else "")."""
    if not getattr(graph, "cpp_wrapper", False) or not isinstance(src_code, str) or "@triton" not in src_code:
        return ""
    try:
        from torch._inductor.utils import Placeholder
    except ImportError:  # a torch without it writes the names in: the source as given
        return src_code
    return src_code.replace(str(Placeholder.DESCRIPTIVE_NAME), name).replace(str(Placeholder.KERNEL_NAME), name)


def _remember(table: OrderedDict, key: str, value) -> None:
    with routing.lock:
        table[key] = value
        while len(table) > _MAX_REMEMBERED:
            table.popitem(last=False)


def _on_code(code: str) -> None:
    """The module's code, on a miss (lowered here: its kernels' records are complete) or a hit."""
    key = code_key(code)
    if (name := _tracing_name()) is not None:
        _remember(_aot_names, key, name)
    graph = _current_graph()
    compiled = graph is not None and id(graph) in _started
    for recorder in routing.targets(key):
        recorder.on_code(code, key, "compiled" if compiled else "fx_cache_hit")
    if not compiled:
        return
    with routing.lock:
        _keys[id(graph)] = key
        records = _pending.pop(id(graph), [])
    decisions = fusion.take(graph, {op: r.name for r in records for op in r.ops})
    _remember(_metadata, key, records)
    _remember(_fusions, key, decisions)
    try:
        store.save(key, records, decisions, _aot_names.get(key))
    except OSError as exc:
        for recorder in routing.targets(key):
            recorder.warn(f"kernel metadata could not be stored in {store.folder()} ({exc.strerror}): "
                          "a later cache hit of the same graph regenerates its code")


def _on_package(archive: Any) -> None:
    """An AOTInductor package written (``aoti_compile_and_package``): its file, the records of the kernels
    lowered for it (AOT lowering writes no Python module, so they wait under no code key), and the seconds from
    the start of lowering."""
    with routing.lock:
        records = [record for pending in _pending.values() for record in pending]
        _pending.clear()
        started = min(_started.values(), default=None)
        _started.clear()
    seconds = time.perf_counter() - started if started is not None else None
    for recorder in routing.targets():
        recorder.on_package(archive, records, seconds)


def _on_call(compiled: Any, inputs: Any) -> None:
    entry = _call_keys.get(id(compiled))
    if entry is None or entry[0]() is not compiled:
        code = getattr(compiled, "source_code", None)
        if not isinstance(code, str):
            return
        entry = (weakref.ref(compiled), code_key(code))
        _call_keys[id(compiled)] = entry
    for recorder in routing.targets(entry[1]):
        recorder.on_call(compiled, inputs, entry[1])


def _has_metadata(entry: Any) -> bool:
    code = getattr(entry, "source_code", None)
    return not isinstance(code, str) or kernel_records(code_key(code)) is not None


def _find_with_metadata(find: Any, cls: type, key: str, local: bool, remote_cache: Any,
                        evaluate_guards: Any, hints: Any, *rest: Any, **kwargs: Any) -> Any:
    """``FxGraphCache.find_guarded_entry`` over the entries whose metadata kernelviz has.

    Inductor's own lookup runs on a subclass whose candidates leave out the others; when one of
    those would have hit, the lookup misses, Inductor generates that graph's code again (its
    metadata is recorded then) and writes an equivalent entry beside the old one."""
    passed_over: list[Any] = []

    def candidates(_cls: type, *args: Any, **kw: Any):
        for found in cls.iterate_over_candidates(*args, **kw):
            if _has_metadata(found[0]):
                yield found
            else:
                passed_over.append(found[0])

    with_metadata = type("FxGraphCacheWithKernelvizMetadata", (cls,),
                         {"iterate_over_candidates": classmethod(candidates)})
    result = find.__func__(with_metadata, key, local, remote_cache, evaluate_guards, hints, *rest, **kwargs)
    if result[0] is None and passed_over:
        routing.safely(_tell_regenerated, passed_over, evaluate_guards, hints)
    return result


def _tell_regenerated(passed_over: list[Any], evaluate_guards: Any, hints: Any) -> None:
    """Tell the captures about an entry that would have hit but had no metadata (guards evaluated on
    hints, as Inductor's lookup does, so no new guard is added)."""
    for entry in passed_over:
        guards = getattr(entry, "guards_expr", None)
        if not guards or evaluate_guards(guards, hints):
            key = code_key(entry.source_code)
            for recorder in routing.targets(key):
                recorder.on_regenerated(key)
            return


def _install() -> Patches:
    patches = Patches()

    def save_output_code(previous):
        def hook(code: str) -> None:
            routing.safely(_on_code, code)
            if previous is not None:
                previous(code)

        return hook

    def define_kernel(original):
        def wrapper(self, src_code, nodes, *args, **kwargs):
            name = original(self, src_code, nodes, *args, **kwargs)
            routing.safely(_record_kernel, name, nodes, src_code)
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
            routing.safely(_on_call, self, inputs)
            return original(self, inputs)

        return wrapper

    def package_aoti(original):
        def wrapper(archive_file, *args, **kwargs):
            written = original(archive_file, *args, **kwargs)
            routing.safely(_on_package, archive_file)
            return written

        return wrapper

    def find_guarded_entry(original):
        def wrapper(cls, *args, **kwargs):
            if not routing.targets():  # a thread no capture looks at: Inductor's own lookup
                return original(*args, **kwargs)
            return _find_with_metadata(original, cls, *args, **kwargs)

        return classmethod(wrapper)

    patches.wrap("torch._inductor.graph", "GraphLowering", "save_output_code", save_output_code)
    patches.wrap("torch._inductor.graph", "GraphLowering", "__init__", init)
    patches.wrap("torch._inductor.graph", "GraphLowering", "compile_to_module", compile_to_module)
    patches.wrap("torch._inductor.codegen.cpp", "CppScheduling", "define_kernel", define_kernel)
    patches.wrap("torch._inductor.codegen.triton", "TritonScheduling", "define_kernel", define_kernel)
    patches.wrap("torch._inductor.output_code", "CompiledFxGraph", "__call__", call)
    patches.wrap("torch._inductor.codecache", "FxGraphCache", "find_guarded_entry", find_guarded_entry)
    patches.wrap("torch._inductor.package", "", "package_aoti", package_aoti)
    traces.install(patches)
    dynamo.install(patches)
    fusion.install(patches)
    return patches
