"""One graph's timing on given inputs: a recording run (each launch's arguments, FLOPs, grid), the runs
timed in the graph, each launch alone, and (CUDA-graph modes) the graph's CUDA-graph replay."""

from __future__ import annotations

import ast
import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..calls import Instrumented, instrument, kept_rng, launch_grid
from ..calls.cpp_wrapper import NOT_ALONE
from ..live import module_globals
from ..model import DevicePeaks, Graph
from . import asrun, collectives, roofline
from .errors import BenchError, LaunchFailed, one_line
from .lockstep import Lockstep, LockstepError
from .peaks import peak_key
from .results import LaunchFacts, fill
from .timers import CpuTimer, GpuTimer, Samples


def talks(graph: Graph) -> bool:
    return any(launch.collective is not None for launch in graph.launches)


def check(graph: Graph) -> None:
    """Raise BenchError if ``graph`` cannot be timed here."""
    import torch

    if not graph.launches:
        raise BenchError("no launches in call()")
    if graph.device == "cuda" and not torch.cuda.is_available():
        raise BenchError("no CUDA device here; a CUDA graph needs one to be timed")


def load_instrumented(graph: Graph, scope: dict[str, Any]) -> Instrumented:
    try:
        return instrument(graph, scope)
    except (NotImplementedError, ValueError, SyntaxError) as exc:
        raise BenchError(str(exc)) from None


def measure(graph: Graph, inst: Instrumented, args: list[Any], mutated: Any, *, peaks: DevicePeaks | None,
            isolated: bool, observer: Callable[[str], None] | None = None, skip: set[int] = frozenset(),
            lockstep: Lockstep | None = None) -> None:
    """Record, time as it runs, time in the graph, time each launch alone, and fill the model. ``observer`` hears
    each step (the timing process reports them); ``skip`` launches are left out (they failed before); with
    ``lockstep`` every run of call() is made by all ranks at once."""
    finish(prepare(graph, inst, args, mutated, observer=observer, skip=skip, lockstep=lockstep), peaks=peaks,
           isolated=isolated)


@dataclass
class Prepared:
    """A graph recorded and timed as it runs, ready for the profiled runs (:func:`finish`)."""

    graph: Graph
    inst: Instrumented
    make_args: Callable[[], list]
    timer: Any
    facts: dict[int, LaunchFacts]
    skip: set[int]
    observer: Callable[[str], None] | None
    lockstep: Lockstep | None
    scope: dict[str, Any] | None = None  # the globals of the graph's code, where the repros are recorded from


def prepare(graph: Graph, inst: Instrumented, args: list[Any], mutated: Any, *,
            observer: Callable[[str], None] | None = None, skip: set[int] = frozenset(),
            lockstep: Lockstep | None = None) -> Prepared:
    """The recording run (each launch's arguments, FLOPs, grid), then the graph as it runs (``Graph.as_run``):
    before anything in this process starts the profiler, which leaves every later launch of the process slower."""
    import torch

    inst.set_skip(set(skip))
    make_args = arg_maker(args, mutated)
    with _timing_errors(), kept_rng(graph.device), torch.no_grad():  # as AOTAutograd runs compiled graphs
        timer = GpuTimer() if graph.device == "cuda" else CpuTimer()
        timer.lockstep = lockstep
        timer.meet("the recording run")
        facts = _record(graph, inst, make_args, observer)
        if lockstep is None and not talks(graph) and not skip:  # the plain call() would run failed launches
            _step(observer, "phase as run")
            _as_run(graph, inst, timer, make_args)
    return Prepared(graph, inst, make_args, timer, facts, set(skip), observer, lockstep)


def finish(prepared: Prepared, *, peaks: DevicePeaks | None, isolated: bool) -> None:
    """The profiled runs of a :func:`prepare`-d graph (in the graph, each launch alone, the CUDA-graph replay), then
    the model filled."""
    import torch

    graph, inst, make_args, timer, skip, observer = (prepared.graph, prepared.inst, prepared.make_args,
                                                     prepared.timer, prepared.skip, prepared.observer)
    with _timing_errors(), kept_rng(graph.device), torch.no_grad():
        _step(observer, "phase in-graph")
        in_graph = timer.in_graph(inst.call, inst.set_range, make_args, ranged=inst.ranged)
        alone: dict[int, Samples | str] = {}
        if isolated and not inst.ranged:
            _step(observer, "phase isolated")
            timer.meet("the run that times launches alone")
            alone = _isolated_pass(inst, make_args, timer, _plans(graph, prepared.facts, in_graph.ms, skip))
        if inst.partitions and graph.device == "cuda" and not talks(graph):
            _step(observer, "phase cudagraph")
            _cudagraph(graph, inst, timer, make_args)
    if graph.as_run is not None:
        graph.as_run.kernels_ms = sum(ms for i, ms in in_graph.ms.items() if i not in skip)
    fill(graph, inst, prepared.facts, in_graph, alone, timer.unit, peaks, skip)
    collectives.waits(graph, in_graph)
    if inst.ranged and isolated:
        graph.warnings.append(f"timing: no launch timed alone: {NOT_ALONE}")


@contextlib.contextmanager
def _timing_errors():
    """A failure while timing as one ``BenchError`` line (a launch's own failure as ``LaunchFailed``)."""
    import torch

    try:
        yield
    except LockstepError as exc:
        raise BenchError(f"its collectives need every rank: {exc}") from None
    except torch.cuda.OutOfMemoryError:
        torch.cuda.empty_cache()
        raise BenchError("out of memory while timing; what the timing took has been freed") from None
    except (BenchError, LaunchFailed):
        raise
    except Exception as exc:  # noqa: BLE001 - timing must never end the user's cell with a traceback
        raise BenchError(one_line(exc)) from None


def _step(observer: Callable[[str], None] | None, message: str) -> None:
    if observer is not None:
        observer(message)


def _record(graph: Graph, inst: Instrumented, make_args: Callable[[], list],
            observer: Callable[[str], None] | None) -> dict[int, LaunchFacts]:
    """One run that records each launch's arguments and counts the FLOPs of extern calls (torch's
    FlopCounterMode around each one: generated kernels are not torch ops); in the timing process each launch
    is synchronised, so that a fault is pinned on the launch that caused it."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    if inst.ranged:  # a C++ wrapper: no launch's arguments reach Python, what Inductor wrote of its kernels stands
        return {launch.index: _written_facts(graph, launch) for launch in graph.launches}
    counter = FlopCounterMode(display=False)
    flops: dict[int, int] = {}
    recorded = inst.recorded
    strict = observer is not None and graph.device == "cuda"
    externs = {launch.index for launch in graph.launches if not launch.kernel_name}

    def count(index: int, fn: Callable, *args, **kwargs):
        if index not in externs:
            return fn(*args, **kwargs)
        with counter:
            result = fn(*args, **kwargs)
        flops[index] = counter.get_total_flops()
        return result

    @contextlib.contextmanager
    def recording(index: int):
        _step(observer, f"enter {index}")
        try:
            yield
            if strict:
                torch.cuda.synchronize()
        except Exception as exc:  # noqa: BLE001 - pinned on this launch, reported by the caller
            raise LaunchFailed(index, one_line(exc)) from None

    inst.set_range(recording)
    inst.set_hook(count)
    recorded.active = True
    try:
        inst.call(make_args())
    finally:
        recorded.active = False
        inst.set_range(None)
        inst.set_hook(None)
    grids: dict[tuple, int | None] = {}
    kernels = {k.name: (k, k.params()) for k in graph.kernels}
    facts = {launch.index: _facts(graph, inst, launch, flops.get(launch.index), grids, kernels)
             for launch in graph.launches if launch.index in recorded.args}
    recorded.args.clear()  # the recorded arguments hold every intermediate buffer alive
    recorded.results.clear()
    return facts


def _facts(graph: Graph, inst: Instrumented, launch, flops: int | None, grids: dict[tuple, int | None],
           kernels: dict[str, tuple]) -> LaunchFacts:
    args, kwargs = inst.recorded.args[launch.index]
    facts = LaunchFacts(key=(launch.kernel_name or launch.op, _signature(args), _signature(kwargs)))
    if launch.kernel_name:
        kernel, params = kernels[launch.kernel_name]
        facts.bytes_args = roofline.kernel_arg_bytes(params, args)
        facts.bytes_estimate = int(kernel.num_gb * 1e9) if kernel.num_gb else None
        flops = flops or (kernel.inductor_meta or {}).get("kernel_flop")
        if facts.key not in grids:  # the grid depends on the sizes, which the key holds
            grid = launch_grid(inst.kernels.get(launch.kernel_name), args)
            grids[facts.key] = math.prod(grid) if grid else None
        facts.grid = grids[facts.key]
        facts.restore = _kernel_restore(kernel, params)
    else:
        facts.bytes_args = roofline.extern_bytes(args, kwargs, inst.recorded.results.get(launch.index))
        facts.restore = _extern_restore(launch.op or "")
        if launch.collective is not None:
            facts.message = collectives.message_size(launch.collective, args)
    facts.flops = float(flops) if flops else None
    facts.dtype = peak_key(roofline.first_dtype(args, kwargs), launch.op, graph.device)
    return facts


def _written_facts(graph: Graph, launch) -> LaunchFacts:
    """A launch's bytes and FLOPs as Inductor estimated them for its kernel (none for an extern call)."""
    facts = LaunchFacts()
    if launch.kernel_name:
        kernel = graph.kernel(launch.kernel_name)
        flops = (kernel.inductor_meta or {}).get("kernel_flop")
        facts.bytes_estimate = int(kernel.num_gb * 1e9) if kernel.num_gb else None
        facts.flops = float(flops) if flops else None
    return facts


def _signature(value: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return ("tensor", tuple(value.shape), value.stride(), str(value.dtype), str(value.device))
    if isinstance(value, (list, tuple)):
        return tuple(_signature(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _signature(v)) for k, v in sorted(value.items()))
    return repr(value)


def _kernel_restore(kernel, params: list[str]) -> Callable[[Callable, tuple], list] | None:
    """A generated kernel mutates its in/out buffers, and with atomics accumulates into its outputs."""
    atomics = bool((kernel.inductor_meta or {}).get("atomic_add_found"))
    positions = [i for i, p in enumerate(params) if p.startswith("in_out_") or (atomics and p.startswith("out_"))]
    if not positions:
        return None
    return lambda fn, args: [args[i] for i in positions if i < len(args)]


def _extern_restore(op: str) -> Callable[[Callable, tuple], list] | None:
    """An in-place extern (``aten.index_put_``, ``buf.copy_``) mutates its receiver or first argument."""
    import torch

    if not any(part.endswith("_") for part in op.split(".")):
        return None

    def mutated(fn: Callable, args: tuple) -> list:
        receiver = getattr(fn, "__self__", None)
        if isinstance(receiver, torch.Tensor):
            return [receiver]
        return [a for a in args[:1] if isinstance(a, torch.Tensor)]

    return mutated


@dataclass
class _Plan:
    key: tuple
    reps: int
    restore: Callable[[Callable, tuple], list] | None
    collective: bool = False  # timed alone to its end (its wait), the same number of times on every rank


def _plans(graph: Graph, facts: dict[int, LaunchFacts], in_graph_ms: dict[int, float],
           skip: set[int]) -> dict[int, _Plan]:
    """Each launch alone, repeated so that short ones get more runs: about 0.3 ms of kernel and flush,
    from 3 to 7 runs (a kernel's flushed time varies by a few % between runs: the median of 3 holds)."""
    plans = {}
    talks = {launch.index for launch in graph.launches if launch.collective is not None}
    for index, fact in facts.items():
        if index in skip:
            continue
        ms = in_graph_ms.get(index) or 0.0
        reps = COLLECTIVE_REPS if index in talks else max(3, min(7, round(0.3 / (ms + 0.02))))
        plans[index] = _Plan(fact.key, reps, fact.restore, collective=index in talks)
    return plans


COLLECTIVE_REPS = 5  # a collective alone: a fixed count, the same on every rank (each run needs them all)


def _isolated_pass(inst: Instrumented, make_args: Callable[[], list], timer,
                   plans: dict[int, _Plan]) -> dict[int, Samples | str]:
    """One run of call() in which each launch first runs alone, repeated (each repetition on the inputs it
    had: what it mutates is put back), then once for real; launches with equal keys are timed once."""
    pending: dict[tuple, Callable[[], Samples]] = {}
    errors: dict[tuple, str] = {}

    def hook(index: int, fn: Callable, *args, **kwargs):
        plan = plans.get(index)
        if plan is None or plan.key in pending or plan.key in errors:
            return fn(*args, **kwargs)
        tensors = plan.restore(fn, args) if plan.restore else []
        saved = [t.clone() for t in tensors]

        def restore() -> None:
            for tensor, copy in zip(tensors, saved):
                tensor.copy_(copy)

        run = (lambda: collectives.waited(fn(*args, **kwargs))) if plan.collective else (lambda: fn(*args, **kwargs))
        try:
            pending[plan.key] = timer.repeat(run, restore if tensors else None, plan.reps)
        except Exception as exc:  # noqa: BLE001 - this launch alone failed: reported, the rest are timed
            errors[plan.key] = one_line(exc)
        restore()
        return fn(*args, **kwargs)

    inst.set_hook(hook)
    try:
        inst.call(make_args())
        timer.sync()
    finally:
        inst.set_hook(None)
    results = {key: done() for key, done in pending.items()}
    return {index: errors.get(plan.key) or results[plan.key] for index, plan in plans.items()
            if plan.key in results or plan.key in errors}


def _cudagraph(graph: Graph, inst: Instrumented, timer: GpuTimer, make_args: Callable[[], list]) -> None:
    try:
        graph.cudagraph_ms = timer.cudagraph_ms(inst.call, inst.partitions, make_args)
    except RuntimeError as exc:
        graph.warnings.append(f"timing: the CUDA-graph replay could not be timed: {one_line(exc)}")


def _as_run(graph: Graph, inst: Instrumented, timer: Any, make_args: Callable[[], list]) -> None:
    """``Graph.as_run``; a graph run as CUDA graphs has none (its replay is ``cudagraph_ms``), but one whose CUDA
    graph reduce-overhead skipped runs its partitions eagerly, and is timed so."""
    if inst.partitions and not any(event.kind == "skip" for event in graph.cudagraphs):
        return
    try:
        asrun.measure(graph, inst.plain, make_args, timer)
    except RuntimeError as exc:
        graph.warnings.append(f"timing: the graph as it runs could not be timed: {one_line(exc)}")


def arg_maker(args: list[Any], mutated: Any) -> Callable[[], list]:
    """Each run gets a new list (call() clears it); inputs the graph mutates are copied first, with their
    strides (call() asserts them; ``clone()`` would make a strided view dense)."""
    import torch

    if mutated is None:  # unknown: copy every tensor, the user's data must not change
        mutated = range(len(args))
    copied = sorted(i for i in set(mutated) if i < len(args) and isinstance(args[i], torch.Tensor))
    alone = {i for i in copied if any(n > 1 and step == 0 for n, step in zip(args[i].size(), args[i].stride()))}
    together = [i for i in copied if i not in alone]  # one foreach copy a run; an expanded input is cloned alone

    def make() -> list:
        made = list(args)
        for i, copy in zip(together, _copies([args[i] for i in together])):
            made[i] = copy
        for i in alone:
            made[i] = _clone(args[i])
        return made

    return make


def _copies(tensors: list[Any]) -> list[Any]:
    """Copies with the same strides of tensors that are not expanded (:func:`_clone` copies those), all in one foreach
    copy: an optimizer's step mutates every parameter, and a ``copy_`` each took 5,891 calls over a resnet50 step's
    timing. One at a time where the foreach copy refuses them."""
    import torch

    if not tensors:
        return []
    outs = [torch.empty_strided(t.size(), t.stride(), dtype=t.dtype, device=t.device) for t in tensors]
    try:
        with torch.no_grad():  # data for a run, as the graph runs (a foreach copy under grad marks every copy)
            torch._foreach_copy_(outs, tensors)
    except (RuntimeError, TypeError):  # tensors it does not take: one at a time
        return [_clone(t) for t in tensors]
    return outs


def _clone(tensor: Any) -> Any:
    import torch

    with torch.no_grad():
        out = torch.empty_strided(tensor.size(), tensor.stride(), dtype=tensor.dtype, device=tensor.device)
        try:
            return out.copy_(tensor)
        except RuntimeError:  # overlapping strides (an expanded input): copy the memory it covers
            span = 1 + sum((n - 1) * s for n, s in zip(tensor.size(), tensor.stride())) if tensor.numel() else 0
            flat = torch.as_strided(tensor, (span,), (1,), tensor.storage_offset()).clone()
            return torch.as_strided(flat, tensor.size(), tensor.stride())


def namespace(graph: Graph, compiled: Any, step: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The globals of the graph's compiled module: the live one if it can be found, else the code run anew, one
    top-level statement at a time, each reported to ``step`` before it runs (``phase compile`` for one that compiles
    kernels, ``phase load`` for any other), so that a statement that spins is known from one that compiles."""
    found = module_globals(graph, compiled)
    if found is not None:
        return found
    scope: dict[str, Any] = {"__name__": "kernelviz_bench"}
    filename = f"<kernelviz {graph.id}>"
    try:
        for statement in ast.parse(graph.code, filename).body:
            if step is not None:
                names = (node.id for node in ast.walk(statement) if isinstance(node, ast.Name))
                compiles = "async_compile" in names
                step("phase compile" if compiles else "phase load")
            exec(compile(ast.Module([statement], type_ignores=[]), filename, "exec"), scope)
    except Exception as exc:  # noqa: BLE001 - the code of a loaded capture may not run here
        raise BenchError(f"the graph's code does not load here: {one_line(exc)}") from None
    return scope
