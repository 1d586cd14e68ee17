"""Time captured graphs: each launch in the graph, the graph's busy time and the gap between launches,
each launch alone after an L2 flush, and (CUDA-graph modes) the graph's CUDA-graph replay.

``bench(capture)`` fills ``Launch.timing``, ``Kernel.timing`` and the graph's times in place.

Where a graph's inputs are the user's live tensors it is timed in this process: those are the tensors
the graph has just run on, through the same kernels, so the timing runs nothing the user's own call did
not (inputs the graph mutates are cloned first). Everything else (inputs recreated from the specs, a
loaded capture) is timed in a separate process (``isolation``), where a crash or a hang costs only the
launch that caused it.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..live import module_globals
from ..model import Capture, DevicePeaks, Graph, KernelTiming, LaunchTiming
from . import collectives, roofline
from .inputs import live_inputs
from .instrument import Instrumented, instrument, kept_rng
from .lockstep import Lockstep, LockstepError
from .peaks import calibrate, device_peaks, peak_key
from .timers import CpuTimer, GpuTimer, Samples

__all__ = ["bench", "calibrate", "BenchError", "instrument", "Instrumented"]
_TIMING_WARNINGS = ("not timed", "timing:")


class BenchError(RuntimeError):
    """A graph could not be timed (the message says why, in one line)."""


class LaunchFailed(RuntimeError):
    """A launch raised while its graph was being recorded."""

    def __init__(self, index: int, reason: str):
        super().__init__(reason)
        self.index, self.reason = index, reason


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip().rstrip(":")


def bench(capture: Capture, *, isolated: bool = True, progress: Any = True, peaks: DevicePeaks | None = None,
          limit_s: float = 60.0, repros: bool = False) -> Capture:
    """Time every graph of ``capture``; a graph that cannot be timed gets a warning saying why.

    ``progress``: True for a text progress bar, False for none, or ``report(done, total, label)``.
    ``peaks`` (e.g. ``kernelviz.calibrate()``) replaces the datasheet peaks the % figures are taken of.
    ``limit_s``: a step of the timing process that makes no progress for this long is stopped (a hang).
    ``repros``: also record what ``kernel.to_repro()`` / ``graph.to_repro()`` need (one more run of each graph
    timed on the user's tensors, then the expected outputs in a child process: seconds more, so not by default).
    A graph that holds collectives is timed in this process by every rank of the job at once (``lockstep``);
    there ``limit_s`` is how long a rank waits for the others before it leaves the graph untimed, saying why."""
    import torch

    from ..recorder import live_runs
    from .isolation import bench_elsewhere

    capture.wait_stages()  # the stages' reading thread is done before the GPU is timed
    runs = live_runs(capture)
    if peaks is not None:
        capture.peaks = peaks
    elif capture.peaks is None and torch.cuda.is_available() and any(g.device == "cuda" for g in capture.graphs):
        capture.peaks = device_peaks()
    elsewhere: list[Graph] = []
    recorded: list[Graph] = []
    lockstep = _lockstep(capture, limit_s)
    bar = Progress(progress, len(capture.graphs))
    try:
        for i, graph in enumerate(capture.graphs):
            graph.warnings = [w for w in graph.warnings if not w.startswith(_TIMING_WARNINGS)]
            graph.bench_s = None
            start = time.perf_counter()
            run = runs.get(i)
            args = live_inputs(run.inputs) if run is not None else None
            try:
                if _talks(graph):
                    bar.step(f"timing graph {graph.id} with the other ranks")
                    _bench_together(graph, run, args, capture.peaks, isolated, lockstep)
                    bar.done()
                    graph.bench_s = time.perf_counter() - start
                    continue
                check(graph)
                if args is None:
                    elsewhere.append(graph)
                    continue
                bar.step(f"timing graph {graph.id}")
                _bench_live(graph, run, args, capture.peaks, isolated, recorded if repros else None)
            except BenchError as exc:
                graph.warnings.append(f"not timed: {exc}")
            bar.done()
            graph.bench_s = time.perf_counter() - start
        if elsewhere:
            bar.step(f"timing {len(elsewhere)} graph(s) on recreated inputs, in a separate process")
            bench_elsewhere(elsewhere, capture.peaks, isolated=isolated, limit_s=limit_s, progress=bar)
    finally:
        bar.close()
    for graph in capture.graphs:
        collectives.fill(graph, capture.world_size)
    if recorded:
        from ..repro.record import expect  # the repro scripts' expected outputs, one child process for all

        expect(recorded, progress=progress)
    return capture


def _talks(graph: Graph) -> bool:
    return any(launch.collective is not None for launch in graph.launches)


def _lockstep(capture: Capture, limit_s: float) -> Lockstep | None:
    """The ranks' meeting point, where some graph holds collectives and this process is in a job."""
    from ..recorder.distributed import initialized

    if not any(_talks(g) for g in capture.graphs) or not initialized():
        return None
    return Lockstep(limit_s)


def _bench_together(graph: Graph, run: Any, args: list[Any] | None, peaks: DevicePeaks | None, isolated: bool,
                    lockstep: Lockstep | None) -> None:
    """Time a graph that holds collectives: on every rank at once, on the tensors it ran with (a timing
    process has no process group). A rank that cannot time it still comes to say so, so none waits for it."""
    if lockstep is None:
        raise BenchError("its collectives need the job's process group: time it in the job, where every rank "
                         "runs capture(bench=True)")
    if lockstep.failed:
        raise BenchError(f"its collectives need every rank: {lockstep.failed}")
    try:
        check(graph)
        if args is None:
            raise BenchError("its collectives can be timed only on the tensors it ran with, which are gone")
    except BenchError as exc:
        _agree(graph, lockstep, cannot=str(exc))
        raise
    _bench_live(graph, run, args, peaks, isolated, None, lockstep)  # no repros: they would run collectives alone


def _agree(graph: Graph, lockstep: Lockstep, cannot: str | None = None) -> None:
    """Every rank means to time the same collectives, in the same order (or one says why it cannot)."""
    plan = [(c.op, c.reduce_op, c.bytes, len(c.group_ranks or ())) for launch in graph.launches
            if (c := launch.collective) is not None]
    try:
        lockstep.agree(f"the timing of graph {graph.id}", f"{graph.id} {plan}", cannot=cannot)
    except LockstepError as exc:
        raise BenchError(f"its collectives need every rank: {exc}") from None


class Progress:
    """Progress of a timing over ``total`` graphs: to ``report(done, total, label)`` (the panel's progress
    bar), or a text bar on stderr (never a notebook widget, which a saved notebook would keep), or none."""

    def __init__(self, progress: Any, total: int):
        self.report, self.total, self.finished, self.bar = None, total, 0, None
        if callable(progress):
            self.report = progress
        elif progress and total:
            try:
                from tqdm.std import tqdm

                self.bar = tqdm(total=total, desc="kernelviz: timing graphs", unit="graph", leave=False)
            except ImportError:
                pass

    def step(self, label: str) -> None:
        if self.report is not None:
            self.report(self.finished, self.total, label)

    def done(self) -> None:
        self.finished += 1
        if self.bar is not None:
            self.bar.update()

    def close(self) -> None:
        if self.report is not None:
            self.report(self.total, self.total, "timed")
        if self.bar is not None:
            self.bar.close()


def check(graph: Graph) -> None:
    """Raise BenchError if ``graph`` cannot be timed here."""
    import torch

    if not graph.launches:
        raise BenchError("no launches in call()")
    if graph.device == "cuda" and not torch.cuda.is_available():
        raise BenchError("no CUDA device here; a CUDA graph needs one to be timed")


def _bench_live(graph: Graph, run: Any, args: list[Any], peaks: DevicePeaks | None, isolated: bool,
                recorded: list[Graph] | None, lockstep: Lockstep | None = None) -> None:
    """Time ``graph`` in this process on the user's tensors (``args``); with ``recorded`` (a list the graph
    joins), also record what its repro scripts need; with ``lockstep``, together with the job's other ranks
    once they agree on it."""
    compiled = run.compiled() if run.compiled is not None else None
    try:
        scope = namespace(graph, compiled)
        inst = load_instrumented(graph, scope)
    except BenchError as exc:
        if lockstep is not None:
            _agree(graph, lockstep, cannot=str(exc))
        raise
    if lockstep is not None:
        _agree(graph, lockstep)
    mutated = getattr(compiled, "mutated_input_idxs", None)
    try:
        measure(graph, inst, args, mutated, peaks=peaks, isolated=isolated, lockstep=lockstep)
    except LaunchFailed as exc:
        raise BenchError(f"launch {exc.index} ({graph.launches[exc.index].name}) failed: {exc.reason}") from None
    graph.timed_on = "user tensors"
    if recorded is not None:
        from ..repro.record import record

        record(graph, scope, _arg_maker(args, mutated))
        recorded.append(graph)


def load_instrumented(graph: Graph, scope: dict[str, Any]) -> Instrumented:
    try:
        return instrument(graph, scope)
    except (NotImplementedError, ValueError, SyntaxError) as exc:
        raise BenchError(str(exc)) from None


def measure(graph: Graph, inst: Instrumented, args: list[Any], mutated: Any, *, peaks: DevicePeaks | None,
            isolated: bool, observer: Callable[[str], None] | None = None, skip: set[int] = frozenset(),
            lockstep: Lockstep | None = None) -> None:
    """Record, time in the graph, time each launch alone, and fill the model. ``observer`` hears each step
    (the timing process reports them); ``skip`` launches are left out (they failed before); with
    ``lockstep`` every run of call() is made by all ranks at once."""
    import torch

    inst.set_skip(set(skip))
    make_args = _arg_maker(args, mutated)
    try:
        with kept_rng(graph.device), torch.no_grad():  # as AOTAutograd runs compiled graphs
            timer = GpuTimer() if graph.device == "cuda" else CpuTimer()
            timer.lockstep = lockstep
            timer.meet("the recording run")
            facts = _record(graph, inst, make_args, observer)
            _step(observer, "phase in-graph")
            in_graph = timer.in_graph(inst.call, inst.set_range, make_args)
            alone: dict[int, Samples | str] = {}
            if isolated:
                _step(observer, "phase isolated")
                timer.meet("the run that times launches alone")
                alone = _isolated_pass(inst, make_args, timer, _plans(graph, facts, in_graph.ms, skip))
            if inst.partitions and graph.device == "cuda" and not _talks(graph):
                _step(observer, "phase cudagraph")
                _cudagraph(graph, inst, timer, make_args)
    except LockstepError as exc:
        raise BenchError(f"its collectives need every rank: {exc}") from None
    except torch.cuda.OutOfMemoryError:
        inst = args = make_args = None  # drop what the timing holds before the cache is emptied
        torch.cuda.empty_cache()
        raise BenchError("out of memory while timing; what the timing took has been freed") from None
    except (BenchError, LaunchFailed):
        raise
    except Exception as exc:  # noqa: BLE001 - timing must never end the user's cell with a traceback
        raise BenchError(one_line(exc)) from None
    _fill(graph, inst, facts, in_graph, alone, timer.unit, peaks, skip)
    collectives.waits(graph, in_graph)


def _step(observer: Callable[[str], None] | None, message: str) -> None:
    if observer is not None:
        observer(message)


@dataclass
class LaunchFacts:
    """What the recording run learnt of one launch."""

    bytes_args: int | None = None
    bytes_estimate: int | None = None
    flops: float | None = None
    dtype: str | None = None
    grid: int | None = None
    key: tuple | None = None  # launches with equal keys (callee, argument sizes) are timed alone once
    restore: Callable[[Callable, tuple], list] | None = None  # tensors the launch mutates, to put back
    message: int | None = None  # a collective's message size, from its tensors


def _record(graph: Graph, inst: Instrumented, make_args: Callable[[], list],
            observer: Callable[[str], None] | None) -> dict[int, LaunchFacts]:
    """One run that records each launch's arguments and counts the FLOPs of extern calls (torch's
    FlopCounterMode around each one: generated kernels are not torch ops); in the timing process each launch
    is synchronised, so that a fault is pinned on the launch that caused it."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

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
            grids[facts.key] = _grid(inst.kernels.get(launch.kernel_name), args)
        facts.grid = grids[facts.key]
        facts.restore = _kernel_restore(kernel, params)
    else:
        facts.bytes_args = roofline.extern_bytes(args, kwargs, inst.recorded.results.get(launch.index))
        facts.restore = _extern_restore(launch.op or "")
        if launch.collective is not None:
            facts.message = collectives.message_size(launch.collective, args)
    facts.flops = float(flops) if flops else None
    facts.dtype = peak_key(roofline.first_dtype(args, kwargs), launch.op) if graph.device == "cuda" else None
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


def _grid(kernel: Any, args: tuple) -> int | None:
    """Thread blocks a Triton launch starts (Inductor's own grid computation; None where it is not there)."""
    launchers = getattr(kernel, "launchers", None)
    try:
        _, grid = kernel._interpret_args_grid(args, launchers[0].config)
        return math.prod(int(g) for g in grid)
    except Exception:  # noqa: BLE001 - torch without it, or not a Triton kernel
        return None


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


def _fill(graph: Graph, inst: Instrumented, facts: dict[int, LaunchFacts], in_graph, alone: dict[int, Any],
          unit: str, peaks: DevicePeaks | None, skip: set[int]) -> None:
    import torch

    sm_count = torch.cuda.get_device_properties().multi_processor_count if unit == "gpu" else None
    launched = sum(ms for i, ms in in_graph.ms.items() if i not in skip)
    busy = in_graph.busy_ms
    graph.gpu_busy_ms = busy
    graph.gap_ms = max(0.0, busy - launched) if busy is not None else None
    for launch in graph.launches:
        if launch.index in skip:
            continue
        fact = facts.get(launch.index, LaunchFacts())
        ms = in_graph.ms.get(launch.index)
        timing = LaunchTiming(in_graph_ms=ms, unit=unit, device_kernels=in_graph.device_kernels.get(launch.index, []),
                              spread=in_graph.spread.get(launch.index), bytes_args=fact.bytes_args,
                              bytes_estimate=fact.bytes_estimate, bytes=fact.bytes_estimate or fact.bytes_args,
                              flops=fact.flops, dtype=fact.dtype, grid=fact.grid)
        timing.share = ms / busy if ms is not None and busy else None
        if launch.collective is not None and fact.message is not None:
            launch.collective.bytes = fact.message
        result = alone.get(launch.index)
        if isinstance(result, str):
            timing.error = f"alone: {result}"
        elif result is not None and unit == "gpu":
            timing.flushed_ms = result.median
        kernel = graph.kernel(launch.kernel_name) if launch.kernel_name else None
        if launch.collective is not None:  # no roofline: its rate is the bus bandwidth (launch.collective)
            timing.bound = "communication"
        else:
            roofline.fill(timing, peaks if unit == "gpu" else None, sm_count=sm_count, kernel=kernel)
        launch.timing = timing
    for kernel in graph.kernels:
        first = next((launch for launch in graph.launches if launch.kernel_name == kernel.name
                      and launch.index in alone), None)
        if first is None:
            continue
        timing = KernelTiming(unit=unit, **_binary_facts(inst.kernels.get(kernel.name)))
        result = alone[first.index]
        if isinstance(result, str):
            timing.error = result
        else:
            timing.isolated_ms, timing.spread, timing.samples = result.median, result.spread, result.n
        kernel.timing = timing


def _binary_facts(kernel: Any) -> dict[str, Any]:
    """Config, registers, spills and shared memory of a Triton kernel's chosen launcher."""
    launchers = getattr(kernel, "launchers", None) or []
    if not launchers:
        return {}
    launcher = launchers[0]
    config = getattr(launcher, "config", None)
    facts: dict[str, Any] = {"num_regs": getattr(launcher, "n_regs", None),
                             "num_spills": getattr(launcher, "n_spills", None),
                             "shared_bytes": getattr(launcher, "shared", None)}
    if config is not None:
        facts["config"] = {**dict(getattr(config, "kwargs", {}) or {}),
                           "num_warps": getattr(config, "num_warps", None),
                           "num_stages": getattr(config, "num_stages", None)}
    return {k: (int(v) if isinstance(v, (int, float)) and k != "config" else v) for k, v in facts.items()}


def _arg_maker(args: list[Any], mutated: Any) -> Callable[[], list]:
    """Each run gets a new list (call() clears it); inputs the graph mutates are copied first, with their
    strides (call() asserts them; ``clone()`` would make a strided view dense)."""
    import torch

    if mutated is None:  # unknown: copy every tensor, the user's data must not change
        mutated = {i for i, a in enumerate(args) if isinstance(a, torch.Tensor)}
    mutated = set(mutated)
    return lambda: [_clone(a) if i in mutated and isinstance(a, torch.Tensor) else a for i, a in enumerate(args)]


def _clone(tensor: Any) -> Any:
    import torch

    out = torch.empty_strided(tensor.size(), tensor.stride(), dtype=tensor.dtype, device=tensor.device)
    try:
        return out.copy_(tensor)
    except RuntimeError:  # overlapping strides (an expanded input): copy the memory it covers
        span = 1 + sum((n - 1) * s for n, s in zip(tensor.size(), tensor.stride())) if tensor.numel() else 0
        flat = torch.as_strided(tensor, (span,), (1,), tensor.storage_offset()).clone()
        return torch.as_strided(flat, tensor.size(), tensor.stride())


def namespace(graph: Graph, compiled: Any) -> dict[str, Any]:
    """The globals of the graph's compiled module: the live one if it can be found, else the code run anew."""
    found = module_globals(graph, compiled)
    if found is not None:
        return found
    scope: dict[str, Any] = {"__name__": "kernelviz_bench"}
    try:
        exec(compile(graph.code, f"<kernelviz {graph.id}>", "exec"), scope)
    except Exception as exc:  # noqa: BLE001 - the code of a loaded capture may not run here
        raise BenchError(f"the graph's code does not load here: {one_line(exc)}") from None
    return scope
