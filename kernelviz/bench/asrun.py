"""A graph's ``call()`` as it runs without kernelviz's instruments (``Graph.as_run``).

The in-graph timing hides launch overhead on purpose (a sleep pre-fills the stream); here ``call()`` runs
as the user's program runs it, so that a graph whose GPU waits for the CPU shows it:

- ``plain_ms``: CUDA events around the un-instrumented ``call()``, started on an idle device after an L2
  flush (as the in-graph runs), median of ``RUNS``; on the CPU, its wall clock (the fastest quarter's median);
- ``launch_cpu_ms``: on a GPU, the CPU time until ``call()`` returned, i.e. enqueueing every launch;
- ``replay_ms``: on a GPU, for a graph not already in CUDA-graph mode, ``call()`` captured once into a CUDA
  graph (as ``mode="reduce-overhead"`` does) and replayed, timed the same way as ``plain_ms`` (``REPLAYS`` times).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from ..model import AsRun, Graph
from .timers import graphed, release_workspaces, summarize

RUNS = 10  # runs of the plain call() per timing: as steady between captures for the gate as 20, in half the time
CPU_MAX_S = 3.0  # a fresh process's first seconds can run call() hundreds of times slower (thread pools starting, the
# machine's other work): the runs go on until their halves agree, the fastest quarter standing for the graph
REPLAYS = 5  # a replay leaves the CPU out: its median moves less than the plain call()'s; each costs the step's time


def measure(graph: Graph, call: Callable[[list], Any] | None, make_args: Callable[[], list], timer: Any,
            kernels_ms: float | None = None, no_replay: str | None = None) -> None:
    """Fill ``graph.as_run`` from runs of the un-instrumented ``call`` (``kernels_ms``: the launches'
    in-graph times added up; ``call`` is None for a graph in CUDA-graph mode, whose replay is
    ``Graph.cudagraph_ms``); a figure that cannot be measured leaves one line in ``note`` (``no_replay``: why
    the call is not replayed as a CUDA graph, where it must not be)."""
    if call is None:
        return
    if timer.unit == "cpu":
        ready: list[list] = []  # the next run's arguments, made untimed before it
        samples = timer.stable(lambda: call(ready.pop()), lambda: ready.append(make_args()), max_s=CPU_MAX_S)
        graph.as_run = AsRun("cpu", samples.median, samples.n, samples.spread, kernels_ms=kernels_ms)
        return
    plain, cpu = _events(timer, call, make_args, RUNS)
    samples = summarize(plain)
    run = AsRun("gpu", samples.median, samples.n, samples.spread, launch_cpu_ms=statistics.median(cpu),
                kernels_ms=kernels_ms)
    graph.as_run = run
    if no_replay is not None:
        run.note = no_replay
        return
    static = make_args()  # the inputs the replays read: held until they are done
    if (cpu := _cpu_input(graph, static)) is not None:
        # a captured kernel would read a host pointer (an attention backward's philox seed faults so on replay)
        run.note = f"not replayed as a CUDA graph: input {cpu} is a CPU tensor (reduce-overhead skips such a graph)"
        return
    try:
        cuda_graph, _ = graphed(call, static)
    except Exception as exc:  # noqa: BLE001 - e.g. a CPU sync inside call(): no replay, the rest stands
        import torch

        torch.cuda.synchronize()
        release_workspaces()
        run.note = f"call() could not be captured into a CUDA graph: {type(exc).__name__}: {str(exc).splitlines()[0]}"
        return
    try:
        replays, _ = _events(timer, lambda args: cuda_graph.replay(), lambda: static, REPLAYS)
        run.replay_ms, run.replays = statistics.median(replays), len(replays)
    finally:
        cuda_graph = None  # the graph and its pool go before its workspace does
        release_workspaces()


def _events(timer: Any, run: Callable[[list], Any], make_args: Callable[[], list],
            runs: int) -> tuple[list[float], list[float]]:
    """CUDA-event ms and CPU ms of ``runs`` runs of ``run``, each on an idle device after an L2 flush."""
    import torch

    run(make_args())  # warm-up
    gpu, cpu = [], []
    for _ in range(runs):
        args = make_args()
        timer.flush()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        began = time.perf_counter()
        run(args)
        cpu.append((time.perf_counter() - began) * 1e3)
        end.record()
        end.synchronize()
        gpu.append(start.elapsed_time(end))
    return gpu, cpu


def _cpu_input(graph: Graph, args: list) -> str | None:
    """The name of the first input that is a CPU tensor, as Inductor's CUDA graphs refuse them."""
    import torch

    for i, arg in enumerate(args):
        if isinstance(arg, torch.Tensor) and arg.device.type == "cpu":
            return graph.inputs[i].name if i < len(graph.inputs) else f"#{i}"
    return None
