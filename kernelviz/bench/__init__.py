"""Time captured graphs: each launch in the graph on the cell's tensors, and each kernel alone.

``bench(capture)`` fills ``Launch.timing``, ``Kernel.timing`` and ``Graph.gpu_busy_ms`` in place.
A CUDA graph is timed with the GPU profiler timer, a CPU graph with the wall-clock timer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ..model import Capture, Graph, KernelTiming, LaunchTiming
from . import collectives, perf
from .inputs import live_inputs, recreate
from .instrument import Instrumented, instrument
from .lockstep import Lockstep, LockstepError
from .timers import CpuTimer, GpuTimer


class BenchError(RuntimeError):
    """A graph could not be timed (the message says why, in one line)."""


def bench(capture: Capture, *, isolated: bool = True, reps: int = 10, progress: Any = True,
          limit_s: float = 60.0) -> Capture:
    """Time every graph of ``capture``; a graph that cannot be timed gets a warning saying why.

    ``progress``: True for a text progress bar, False for none, or ``report(done, total, label)``.
    A graph that holds collectives is timed by every rank of the job at once (see ``lockstep``): ``limit_s``
    is how long a rank waits for the others before it leaves that graph untimed, saying why."""
    from ..recorder import live_runs

    runs = live_runs(capture)
    lockstep = _lockstep(capture, limit_s)
    for i, graph in enumerate(_progress(capture.graphs, progress)):
        try:
            bench_graph(graph, runs.get(i), isolated=isolated, reps=reps,
                        lockstep=lockstep if _talks(graph) else None)
        except BenchError as exc:
            graph.warnings.append(f"not timed: {exc}")
        collectives.fill(graph, capture.world_size)
    return capture


def _talks(graph: Graph) -> bool:
    return any(launch.collective is not None for launch in graph.launches)


def _lockstep(capture: Capture, limit_s: float) -> Lockstep | None:
    """The ranks' meeting point, where some graph holds collectives and this process is in a job."""
    from ..recorder.distributed import initialized

    if not any(_talks(g) for g in capture.graphs) or not initialized():
        return None
    return Lockstep(limit_s)


def _plan(graph: Graph, reps: int) -> str:
    """What the ranks must agree on before timing a graph together: its collectives, in order, and the runs."""
    talks = [(c.op, c.reduce_op, c.bytes, len(c.group_ranks or ())) for launch in graph.launches
             if (c := launch.collective) is not None]
    return f"{graph.id} {reps} {talks}"


def _progress(items: list, progress: Any):
    """The graphs, reporting progress as they are timed: to ``progress(done, total, label)`` (the panel's
    progress bar), or with a text bar on stderr (never a notebook widget, which a saved notebook would keep)."""
    if not progress or not items:
        return items
    if callable(progress):
        return _reporting(items, progress)
    try:
        from tqdm.std import tqdm
    except ImportError:
        return items
    return tqdm(items, desc="kernelviz: timing graphs", unit="graph", leave=False)


def _reporting(items: list, report: Callable[[int, int, str], None]):
    for i, item in enumerate(items):
        report(i, len(items), f"timing graph {i + 1} of {len(items)} ({item.id})")
        yield item
    report(len(items), len(items), "timed")


def bench_graph(graph: Graph, run: Any = None, *, isolated: bool = True, reps: int = 10,
                lockstep: Lockstep | None = None) -> None:
    """Time one graph (``run`` is its live side from the capture, or None for a loaded graph); with
    ``lockstep`` every rank times it at once, and gives it up together where one cannot."""
    import torch

    try:
        compiled, inst = _prepare(graph, run, lockstep)
    except BenchError as exc:
        if lockstep is not None and not lockstep.failed:
            _agree(graph, reps, lockstep, cannot=str(exc))
        raise
    if lockstep is not None:
        _agree(graph, reps, lockstep)
    args = live_inputs(run.inputs if run is not None else None)
    timed_on = "user tensors" if args is not None else "recreated inputs"
    try:
        with _keep_rng(graph.device), torch.no_grad():  # as AOTAutograd runs compiled graphs
            if args is None:
                args = recreate(graph, run.inputs if run is not None else None)
            timer = GpuTimer(reps=reps) if graph.device == "cuda" else CpuTimer(reps=max(3, reps // 2))
            timer.lockstep = lockstep
            _measure(graph, inst, timer, _arg_maker(args, compiled), isolated)
        graph.timed_on = timed_on
    except LockstepError as exc:
        raise BenchError(f"its collectives need every rank: {exc}") from None
    except torch.cuda.OutOfMemoryError:
        inst = args = None  # drop what the timing holds before the cache is emptied
        torch.cuda.empty_cache()
        raise BenchError("out of memory while timing; what the timing took has been freed") from None
    except (ValueError, RuntimeError) as exc:
        raise BenchError(f"{type(exc).__name__}: {exc}") from None


def _prepare(graph: Graph, run: Any, lockstep: Lockstep | None) -> tuple[Any, Instrumented]:
    """The compiled graph (or None) and its instrumented call(); BenchError where it cannot be timed here."""
    import torch

    if not graph.launches:
        raise BenchError("no launches in call()")
    if graph.device == "cuda" and not torch.cuda.is_available():
        raise BenchError("no CUDA device here; a CUDA graph needs one to be timed")
    if lockstep is not None and lockstep.failed:
        raise BenchError(f"its collectives need every rank: {lockstep.failed}")
    if lockstep is None and _talks(graph):
        from ..recorder.distributed import initialized

        if not initialized():
            raise BenchError("its collectives need the job's process group: time it in the job, where every rank "
                             "runs capture(bench=True)")
    compiled = run.compiled() if run is not None and run.compiled is not None else None
    namespace = _namespace(graph, compiled)
    try:
        return compiled, instrument(graph, namespace)
    except (NotImplementedError, ValueError, SyntaxError) as exc:
        raise BenchError(str(exc)) from None


def _agree(graph: Graph, reps: int, lockstep: Lockstep, cannot: str | None = None) -> None:
    try:
        lockstep.agree(f"the timing of graph {graph.id}", _plan(graph, reps), cannot=cannot)
    except LockstepError as exc:
        raise BenchError(f"its collectives need every rank: {exc}") from None


def _measure(graph: Graph, inst: Instrumented, timer, make_args: Callable[[], list], isolated: bool) -> None:
    from torch.utils.flop_counter import FlopCounterMode

    flops = _record(inst, make_args, FlopCounterMode)
    in_graph = timer.in_graph(inst.call, inst.set_range, make_args)
    if timer.unit == "cpu":  # a thread blocked in wait_tensor is waiting for its collective
        for launch in graph.launches:
            if launch.collective is not None and launch.collective.op == "wait_tensor":
                launch.collective.wait_ms = in_graph.ms.get(launch.index)
    else:
        collectives.wait_times(graph, in_graph.runs)
    graph.gpu_busy_ms = timer.busy(inst.call, make_args)
    total = sum(in_graph.ms.values()) or None
    peak_bw = perf.peak_gb_per_s() if timer.unit == "gpu" else None
    for launch in graph.launches:
        ms = in_graph.ms.get(launch.index)
        args, kwargs = inst.recorded.args.get(launch.index, ((), {}))
        if launch.kernel_name:
            nbytes = perf.kernel_bytes(graph.kernel(launch.kernel_name), args)
        else:
            nbytes = perf.extern_bytes(args, kwargs, inst.recorded.results.get(launch.index))
        timing = LaunchTiming(in_graph_ms=ms, unit=timer.unit, bytes=nbytes,
                              device_kernels=in_graph.device_kernels.get(launch.index, []))
        if ms:
            timing.share = ms / total if total else None
            if nbytes:
                timing.gb_per_s = nbytes / (ms / 1e3) / 1e9
                timing.pct_peak_bw = 100 * timing.gb_per_s / peak_bw if peak_bw else None
            if flops.get(launch.index):
                timing.flops = float(flops[launch.index])
                timing.tflop_per_s = timing.flops / (ms / 1e3) / 1e12
                peak = perf.peak_tflops(perf.first_dtype(args, kwargs)) if timer.unit == "gpu" else None
                timing.pct_peak_flops = 100 * timing.tflop_per_s / peak if peak else None
        launch.timing = timing
    if isolated:
        _isolated(graph, inst, timer)


def _record(inst: Instrumented, make_args: Callable[[], list], flop_counter) -> dict[int, int]:
    """One run that records every launch's arguments and counts each launch's FLOPs."""
    counter = flop_counter(display=False)
    flops: dict[int, int] = {}
    recorded = inst.recorded

    @contextlib.contextmanager
    def recording(index: int):
        before = counter.get_total_flops()
        recorded.current = index
        yield
        flops[index] = counter.get_total_flops() - before

    inst.set_range(recording)
    recorded.active = True
    try:
        with counter:
            inst.call(make_args())
    finally:
        recorded.active = False
        inst.set_range(None)
    return flops


def _isolated(graph: Graph, inst: Instrumented, timer) -> None:
    runs: dict[str, Callable[[], Any]] = {}
    for launch in graph.launches:
        name = launch.kernel_name
        if name and name not in runs and launch.index in inst.recorded.args and name in inst.kernels:
            args, kwargs = inst.recorded.args[launch.index]
            kernel = inst.kernels[name]
            runs[name] = _launcher(kernel, args, kwargs)
    results = timer.isolated(runs)
    for kernel in graph.kernels:
        if kernel.name not in results:
            continue
        result = results[kernel.name]
        timing = KernelTiming(unit=timer.unit, **_binary_facts(inst.kernels.get(kernel.name)))
        if isinstance(result, BaseException):
            timing.error = f"{type(result).__name__}: {result}"
        else:
            timing.isolated_ms = result
        kernel.timing = timing


def _launcher(kernel: Any, args: tuple, kwargs: dict) -> Callable[[], Any]:
    if hasattr(kernel, "run"):
        return lambda: kernel.run(*args, **kwargs)
    return lambda: kernel(*args, **kwargs)


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


def _arg_maker(args: list[Any], compiled: Any) -> Callable[[], list]:
    """Each run gets a new list (call() clears it); inputs the graph mutates are copied first."""
    import torch

    mutated = getattr(compiled, "mutated_input_idxs", None)
    if mutated is None:  # unknown: copy every tensor, the user's data must not change
        mutated = {i for i, a in enumerate(args) if isinstance(a, torch.Tensor)}
    mutated = set(mutated)
    return lambda: [a.clone() if i in mutated and isinstance(a, torch.Tensor) else a for i, a in enumerate(args)]


@contextlib.contextmanager
def _keep_rng(device: str):
    import torch

    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if device == "cuda" else None
    try:
        yield
    finally:
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


def _namespace(graph: Graph, compiled: Any) -> dict[str, Any]:
    """The globals of the graph's compiled module: the live one if it can be found, else the code run anew."""
    names = [k.name for k in graph.kernels]
    fn = getattr(compiled, "current_callable", None)
    found = getattr(getattr(fn, "__func__", fn), "__globals__", None)
    if isinstance(found, dict) and all(n in found for n in names):
        return found
    try:
        from torch._inductor.codecache import PyCodeCache

        for module in list(PyCodeCache.modules):
            if all(hasattr(module, n) for n in names) and getattr(module, "__file__", None):
                with open(module.__file__) as f:
                    if f.read() == graph.code:
                        return vars(module)
    except (ImportError, AttributeError, OSError):
        pass
    namespace: dict[str, Any] = {"__name__": "kernelviz_bench"}
    try:
        exec(compile(graph.code, f"<kernelviz {graph.id}>", "exec"), namespace)
    except Exception as exc:  # noqa: BLE001 - the code of a loaded capture may not run here
        raise BenchError(f"the graph's code does not load here: {type(exc).__name__}: {exc}") from None
    return namespace
