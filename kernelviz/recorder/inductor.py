"""Hooks into Inductor: what it compiles (code and per-kernel metadata), what it loads from its FX
graph cache, and which graphs run.

The hooks are installed once while any capture is active and feed the captures that
:mod:`.routing` picks, so captures nest and threads stay apart. Per-kernel metadata exists only
where Inductor generates code, so it is kept by the hash of the module's code, in memory and in
:mod:`.store` on disk: a graph that later runs from dynamo's cache, or loads from the FX graph
cache in a new process, still finds it. An FX-graph-cache entry whose metadata is nowhere (the
cache was filled without kernelviz) is passed over at lookup, so Inductor generates that graph's
code again (and rewrites an equivalent entry); nothing else is recompiled and dynamo is never reset.

The hooks that read a compile (its kernels' metadata, fusion decisions and autotuning) and that see a graph run
stay for the rest of the process once kernelviz is imported beside torch or a first capture starts
(:func:`keep_why`), so a graph compiled before a capture and only run inside it keeps its why, as a fresh compile
does; they are undone when the interpreter exits. The hooks only a capture needs come and go with captures.
"""

from __future__ import annotations

import atexit
import hashlib
import time
import weakref
from collections import OrderedDict
from typing import Any

from ..model import FusionDecision, Tuning
from ..patches import Patches
from . import autotune, cudagraphs, dynamo, fusion, fxgraph, routing, store, traces
from .store import KernelRecord


def code_key(code: str) -> str:
    return hashlib.sha1(code.encode("utf-8", "surrogatepass")).hexdigest()


_MAX_REMEMBERED = 512
_kept: Patches | None = None  # the hooks that read compiles and runs: for the rest of the process
_patches: Patches | None = None  # the hooks only captures need: while any is open
# per GraphLowering (weak keys: a lowering's state goes with it)
_pending: weakref.WeakKeyDictionary[Any, list[KernelRecord]] = weakref.WeakKeyDictionary()  # records, until code
_started: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()  # when lowering began
_keys: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()  # code_key, once its code is known
_call_keys: dict[int, tuple[Any, str]] = {}  # id(CompiledFxGraph) -> (weakref to it, code_key), gone with it
_metadata: OrderedDict[str, list[KernelRecord]] = OrderedDict()  # code_key -> records
_compile_s: OrderedDict[str, float] = OrderedDict()  # code_key -> seconds from lowering to loaded module
_fusions: OrderedDict[str, list[FusionDecision]] = OrderedDict()  # code_key -> Inductor's fusion decisions
_tunings: OrderedDict[str, list[Tuning]] = OrderedDict()  # code_key -> what was autotuned while lowering it
_aot_names: OrderedDict[str, str] = OrderedDict()  # code_key -> AOTAutograd's graph name ("0_forward")
_fx_graphs: OrderedDict[str, store.FxGraph] = OrderedDict()  # code_key -> the FX graph Inductor was given
_aot_lowered: list[tuple[float, list[KernelRecord]]] = []  # AOT lowerings' start and records, until packaged


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


def tunings(key: str) -> list[Tuning]:
    """What was autotuned for the module with this code key: while lowering it (from a compile seen in this process,
    else from the store), then as it ran in this process."""
    return [*(_remembered(_tunings, key, store.load_tunings) or []), *autotune.at_run(key)]


def aot_name(key: str) -> str | None:
    """AOTAutograd's name of the graph whose module has this code key ("0_forward"), where it was compiled or
    compiled (in this process, or where the store kept it): a C++ wrapper's code does not carry the ``# AOT ID``
    line the Python wrapper's does, and a cache hit does not name its graph."""
    return _remembered(_aot_names, key, store.load_graph_name)


def fx_graph(key: str) -> store.FxGraph | None:
    """The FX graph Inductor was given for the module with this code key, as code (:mod:`.fxgraph`; "" where it could
    not be written): from a compile or an FX-graph-cache lookup in this process, else from the store; None where it
    was never seen."""
    return _remembered(_fx_graphs, key, store.load_fx)


def _on_fx(compiled: Any, text: str | None, static: Any) -> None:
    """Keep the FX graph a compile (or an FX-graph-cache lookup) was given, by the code key of what it gave."""
    key = _key_of(compiled)
    if key is None:
        return
    graph = store.FxGraph(text or "", sorted(int(i) for i in static or ()))  # "": it could not be written
    _remember(_fx_graphs, key, graph)
    try:
        store.save_fx(key, graph)
    except OSError:  # kept in this process: a later process loading it from Inductor's cache recompiles for a what-if
        pass


def _tracing_name() -> str | None:
    import torch._guards

    context = torch._guards.TracingContext.try_get()
    name = getattr(context, "aot_graph_name", None)
    name = name[0] if isinstance(name, (list, tuple)) and name else name
    return name if isinstance(name, str) else None


def compile_seconds(key: str) -> float | None:
    """Seconds from the start of lowering to the loaded module, if it was compiled in this process."""
    return _compile_s.get(key)


def keep_why() -> list[str]:
    """Install, once for the process, the hooks that read what Inductor compiles (kernel metadata, fusion decisions,
    autotuning) and which graph runs; returns the hooks this torch lacks. Undone at the interpreter's exit."""
    global _kept
    with routing.lock:
        if _kept is None:
            _kept = _install_kept()
            atexit.register(_forget_why)
        return list(_kept.skipped)


def _forget_why() -> None:
    global _kept
    with routing.lock:
        if _kept is not None:
            _kept.undo()
            _kept = None


def attach(recorder: routing.Recorder) -> tuple[int, list[str]]:
    """Start feeding ``recorder`` (for the calling thread); install the capture's hooks if it is the first.
    Returns the thread's ident and the hooks this torch lacks."""
    global _patches
    kept_skipped = keep_why()
    with routing.lock:
        if _patches is None:
            _patches = _install()
        return routing.add(recorder), kept_skipped + list(_patches.skipped)


def detach(recorder: routing.Recorder, ident: int) -> None:
    """Stop feeding ``recorder``; remove the capture's hooks when no capture is left in any thread."""
    global _patches
    with routing.lock:
        if routing.remove(recorder, ident) and _patches is not None:
            _patches.undo()
            _patches = None


def _record_kernel(name: str, nodes: Any, src_code: Any = None) -> None:
    from torch._inductor.utils import aggregate_origins, get_kernel_metadata

    graph = fusion.current_graph()
    if graph is None or not isinstance(nodes, (list, tuple)):
        return
    flat = [n for node in nodes if hasattr(node, "get_nodes") for n in node.get_nodes()]
    metadata, detail = get_kernel_metadata(flat, graph.wrapper_code)
    stacks = list(dict.fromkeys(o.meta["stack_trace"] for o in aggregate_origins(flat) if o.meta.get("stack_trace")))
    record = KernelRecord(name, metadata, detail, stacks, *traces.current().named(stacks),
                          [n.get_name() for n in flat], _binary_only_source(graph, name, src_code))
    with routing.lock:
        _pending.setdefault(graph, []).append(record)


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
    graph = fusion.current_graph()
    compiled = graph is not None and graph in _started
    targets = routing.targets(key)
    for recorder in targets:
        recorder.on_code(code, key, "compiled" if compiled else "fx_cache_hit")
    if not compiled:
        if targets:
            _learn_nodes(key)
        return
    with routing.lock:
        _keys[graph] = key
        records = _pending.pop(graph, [])
    decisions = fusion.take(graph, {op: r.name for r in records for op in r.ops})
    tuned = autotune.take(graph)
    _remember(_metadata, key, records)
    _remember(_fusions, key, decisions)
    _remember(_tunings, key, tuned)
    for recorder in targets:
        for found in tuned:
            recorder.on_tuning(found, key)
    try:
        store.save(key, records, decisions, tuned, _aot_names.get(key))
    except OSError as exc:
        for recorder in routing.targets(key):
            recorder.warn(f"kernel metadata could not be stored in {store.folder()} ({exc.strerror}): "
                          "a later cache hit of the same graph regenerates its code")


def _learn_nodes(key: str) -> None:
    """On an FX-graph-cache hit: keep (and store) the nodes of this run's dynamo graph of the module's records, for a
    later AOTAutograd cache hit from the same dynamo graph (see :mod:`.traces`)."""
    records = kernel_records(key)
    if records is None:
        return
    with routing.lock:
        learnt = traces.learn(records, traces.current())
    if learnt:
        store.save_dynamo_nodes(key, records)


def _on_package(archive: Any) -> None:
    """An AOTInductor package written (``aoti_compile_and_package``): its file, the records of the kernels
    lowered for it (AOT lowering writes no Python module, so they wait under no code key), and the seconds from
    the start of lowering."""
    with routing.lock:
        records = [record for _, pending in _aot_lowered for record in pending]
        started = min((start for start, _ in _aot_lowered), default=None)
        _aot_lowered.clear()
    seconds = time.perf_counter() - started if started is not None else None
    for recorder in routing.targets():
        recorder.on_package(archive, records, seconds)


def _key_of(compiled: Any) -> str | None:
    """The code key of a compiled module (kept while it lives)."""
    ident = id(compiled)
    entry = _call_keys.get(ident)
    if entry is None or entry[0]() is not compiled:
        code = getattr(compiled, "source_code", None)
        if not isinstance(code, str):
            return None
        entry = (weakref.ref(compiled, lambda _: _call_keys.pop(ident, None)), code_key(code))
        _call_keys[ident] = entry
    return entry[1]


def _on_call(compiled: Any, inputs: Any, key: str) -> list[routing.Recorder]:
    """Tell the captures that look at this call; returns them (none outside a capture)."""
    recorders = routing.targets(key)
    for recorder in recorders:
        recorder.on_call(compiled, inputs, key)
    return recorders


def _on_called(recorders: list[routing.Recorder], key: str, ms: float) -> None:
    for recorder in recorders:
        recorder.on_called(key, ms)


def _has_metadata(entry: Any) -> bool:
    """Whether kernelviz kept what it reads of the entry's compile: its kernels' records and its FX graph."""
    code = getattr(entry, "source_code", None)
    if not isinstance(code, str):
        return True
    key = code_key(code)
    return kernel_records(key) is not None and fx_graph(key) is not None


def _has_lines(entry: Any) -> bool:
    """Whether this run's lines of the entry's kernels can be read where it is loaded (see :mod:`.traces`); always
    where AOTAutograd is told to fail rather than miss (passing the entry over would raise in the user's code)."""
    code = getattr(entry, "source_code", None)
    records = kernel_records(code_key(code)) if isinstance(code, str) else None
    return records is None or traces.known(records, traces.current()) or _strict_autograd_cache()


def _strict_autograd_cache() -> bool:
    from torch._dynamo import config as dynamo_config
    from torch._functorch import config as functorch_config

    return bool(getattr(functorch_config, "strict_autograd_cache", False)
                or getattr(dynamo_config, "strict_precompile", False))


def _find_with_metadata(find: Any, cls: type, key: str, local: bool, remote_cache: Any,
                        evaluate_guards: Any, hints: Any, *rest: Any, **kwargs: Any) -> Any:
    """``FxGraphCache.find_guarded_entry`` over the entries whose metadata kernelviz has, and whose kernels' lines
    it can read in this run.

    Inductor's own lookup runs on a subclass whose candidates leave out the others. When one without
    metadata would have hit, the lookup misses, Inductor generates that graph's code again (its
    metadata is recorded then) and writes an equivalent entry beside the old one. One whose lines are
    not known on an AOTAutograd cache hit makes that hit a miss: AOTAutograd runs again, and its FX
    graph cache lookup hits the same entry with the graphs that tell its lines."""
    passed_over: list[Any] = []

    def candidates(_cls: type, *args: Any, **kw: Any):
        for found in cls.iterate_over_candidates(*args, **kw):
            if not _has_metadata(found[0]):
                passed_over.append(found[0])
            elif _has_lines(found[0]):
                yield found

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


def _install_kept() -> Patches:
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
            _started[self] = started = time.perf_counter()
            made = original(self, *args, **kwargs)
            if getattr(self, "aot_mode", False):  # its records must outlive it: the package is written after
                with routing.lock:
                    _aot_lowered.append((started, _pending.setdefault(self, [])))
                    del _aot_lowered[:-_MAX_REMEMBERED]
            return made

        return wrapper

    def compile_to_module(original):
        def wrapper(self, *args, **kwargs):
            module = original(self, *args, **kwargs)
            start, key = _started.pop(self, None), _keys.get(self)  # the key stays for CompiledFxGraph's init
            if start is not None and key is not None:
                _remember(_compile_s, key, time.perf_counter() - start)
            return module

        return wrapper

    def running(original, on_call=False):  # the graph's code key in routing.running while ``original`` runs
        def wrapper(self, *args, **kwargs):
            key = _key_of(self)
            if key is None:
                return original(self, *args, **kwargs)
            seen = routing.safely(_on_call, self, args[0], key) if on_call else None
            token, call = routing.running.set(key), routing.call.set(object()) if on_call else None
            began = time.perf_counter()
            try:
                return original(self, *args, **kwargs)
            finally:
                routing.running.reset(token)
                if call is not None:
                    routing.call.reset(call)
                if seen:  # inside a capture: how long the call took in the user's own run
                    routing.safely(_on_called, seen, key, (time.perf_counter() - began) * 1e3)

        return wrapper

    patches.wrap("torch._inductor.graph", "GraphLowering", "save_output_code", save_output_code)
    patches.wrap("torch._inductor.graph", "GraphLowering", "__init__", init)
    patches.wrap("torch._inductor.graph", "GraphLowering", "compile_to_module", compile_to_module)
    patches.wrap("torch._inductor.codegen.cpp", "CppScheduling", "define_kernel", define_kernel)
    patches.wrap("torch._inductor.codegen.triton", "TritonScheduling", "define_kernel", define_kernel)
    patches.wrap("torch._inductor.output_code", "CompiledFxGraph", "__call__", lambda f: running(f, on_call=True))
    patches.wrap("torch._inductor.output_code", "CompiledFxGraph", "post_compile", running)

    def init_compiled(original):  # it decides on CUDA graphs as it is made: the key of the lowering it is made of
        def wrapper(self, *args, **kwargs):
            lowering = kwargs.get("graph", args[1] if len(args) > 1 else None)
            key = _keys.get(lowering) if lowering is not None else None
            token = routing.running.set(key) if key is not None else None
            try:
                return original(self, *args, **kwargs)
            finally:
                if token is not None:
                    routing.running.reset(token)

        return wrapper

    patches.wrap("torch._inductor.output_code", "CompiledFxGraph", "__init__", init_compiled)

    def compile_fx_inner(original):  # the graph as given: Inductor's post-grad passes change it in place
        def wrapper(gm, example_inputs, *args, **kwargs):
            text = routing.safely(fxgraph.written, gm)
            compiled = original(gm, example_inputs, *args, **kwargs)
            routing.safely(_on_fx, compiled, text, kwargs.get("static_input_idxs"))
            return compiled

        return wrapper

    patches.wrap("torch._inductor.compile_fx", "", "_compile_fx_inner", compile_fx_inner)
    fusion.install(patches)
    autotune.install(patches)
    cudagraphs.install(patches)
    return patches


def _install() -> Patches:
    patches = Patches()

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

    patches.wrap("torch._inductor.codecache", "FxGraphCache", "find_guarded_entry", find_guarded_entry)
    patches.wrap("torch._inductor.package", "", "package_aoti", package_aoti)
    traces.install(patches)
    dynamo.install(patches)
    return patches
