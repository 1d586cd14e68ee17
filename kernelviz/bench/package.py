"""Timing an AOTInductor package by running it (``torch._inductor.package.load_package``, which
``aoti_load_package`` calls, with the model's name) on inputs made from its recorded specs, in the timing process
(:mod:`.worker`), never in the user's: torch's loader can crash the process it runs in (torch 2.11 on a GPU, in
the process that captured the package and in a fresh one alike). Its C++ run marks no launch, so on a GPU the device
kernels of each run are joined to the launches by kernel name (a generated kernel runs as itself; the library kernels
between two of them belong to the extern calls there); on the CPU nothing inside the run is seen, so only the whole
run is timed."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from ..model import Graph, Launch, LaunchTiming
from . import asrun
from .errors import BenchError, one_line
from .inputs import recreate

WARMUP = 5
CPU_LAUNCHES = ("an AOTInductor package's C++ kernels and ATen calls record nothing torch.profiler sees on the CPU "
                "(the whole run is timed)")
NO_REPLAY = ("not replayed as a CUDA graph: capturing an AOTInductor package's run into one can crash the process "
             "(torch 2.11)")


def missing(graph: Graph) -> str | None:
    """Why the package ``graph`` was read from cannot be run from its file, in one line; None where it can."""
    path = graph.package.path
    if not path or not os.path.isfile(path):
        return f"the package file {path or '(read from memory)'} is not there to run: load it from its file"
    return None


def bench_package(graph: Graph, observer: Callable[[str], None]) -> None:
    """Fill the graph's busy time, gap, per launch in-graph times (GPU) and as-run figures. Run in the timing
    process only; ``observer`` hears each step before it runs (``phase package``: torch loads it, ``phase run``,
    ``phase in-graph``, ``phase as run``)."""
    import torch

    observer("phase package")
    runner = _load(graph)
    try:
        args, made_up = recreate(graph)
    except ValueError as exc:
        raise BenchError(str(exc)) from None
    graph.timed_on, graph.made_up_values = "recreated inputs", made_up

    def call(inputs: list) -> Any:
        return runner(*inputs)

    def make_args() -> list:
        return list(args)

    observer("phase run")
    try:
        with torch.no_grad():
            call(make_args())  # a first run: first-call costs, and any error, before timing
    except Exception as exc:  # noqa: BLE001 - the package's own error, in one line
        raise BenchError(f"the package failed to run: {one_line(exc)}") from None
    try:
        with torch.no_grad():
            (_time_gpu if graph.device == "cuda" else _time_cpu)(graph, call, make_args, observer)
    except torch.cuda.OutOfMemoryError:
        raise BenchError("out of memory while timing the package") from None
    except BenchError:
        raise
    except Exception as exc:  # noqa: BLE001 - the timing's own failure, in one line
        raise BenchError(one_line(exc)) from None


def _time_gpu(graph: Graph, call: Callable[[list], Any], make_args: Callable[[], list],
              observer: Callable[[str], None]) -> None:
    import torch

    from .timers import GpuTimer

    observer("phase in-graph")
    timer = GpuTimer(warmup=1)
    found = timer.in_graph(call, lambda make: None, make_args)
    graph.gpu_busy_ms = found.busy_ms
    launched = join(graph.launches, found.kernels)
    for launch in graph.launches:
        ms, names = launched.get(launch.index, (None, []))
        launch.timing = LaunchTiming(in_graph_ms=ms, unit="gpu", device_kernels=names,
                                     share=ms / found.busy_ms if ms is not None and found.busy_ms else None)
    total = sum(ms for ms, _ in launched.values())
    graph.gap_ms = max(0.0, found.busy_ms - total) if found.busy_ms is not None else None
    observer("phase as run")
    asrun.measure(graph, call, make_args, timer, total, no_replay=NO_REPLAY)
    torch.cuda.synchronize()


def _time_cpu(graph: Graph, call: Callable[[list], Any], make_args: Callable[[], list],
              observer: Callable[[str], None]) -> None:
    from .timers import CpuTimer

    # the package's own OpenMP threads start cold beside torch's: its first runs can take 100x longer (seen:
    # 220 ms, then 1 ms), so a few runs first and room for the fastest quarter to be its own
    timer = CpuTimer(isolated_max_s=2.0)
    for _ in range(WARMUP):
        call(make_args())
    observer("phase as run")
    asrun.measure(graph, call, make_args, timer, None)
    graph.gpu_busy_ms, graph.gap_ms = graph.as_run.plain_ms, None  # the whole run: its one measure here
    graph.warnings.append(f"timing: the time of each launch is unknown: {CPU_LAUNCHES}")
    for launch in graph.launches:
        launch.timing = LaunchTiming(unit="cpu", error=CPU_LAUNCHES)


def join(launches: list[Launch], runs: list[list[tuple[str, int, int]]]) -> dict[int, tuple[float, list[str]]]:
    """Per launch index: mean in-graph ms over the runs and the device kernels it ran. A device kernel named as a
    generated kernel goes to the next launch of it; the others to the extern calls before that launch (one each
    where there are as many, else all to the first of them)."""
    totals: dict[int, float] = {}
    names: dict[int, set[str]] = {}
    for kernels in runs:
        at, waiting = 0, []  # the next launch to look at; library kernels since the last generated one
        for name, start, end in kernels:
            match = next((launch.index for launch in launches[at:] if launch.kernel_name == name), None)
            if match is None:
                waiting.append((name, start, end))
                continue
            _to_externs(launches[at:match], waiting, totals, names)
            waiting = []
            totals[match] = totals.get(match, 0.0) + (end - start) / 1e6
            names.setdefault(match, set()).add(name)
            at = match + 1
        _to_externs(launches[at:], waiting, totals, names)
    reps = max(1, len(runs))
    return {i: (ms / reps, sorted(names[i])) for i, ms in totals.items()}


def _to_externs(launches: list[Launch], kernels: list[tuple[str, int, int]], totals: dict[int, float],
                names: dict[int, set[str]]) -> None:
    externs = [launch.index for launch in launches if launch.kernel_name is None]
    if not externs or not kernels:
        return
    owners = externs if len(externs) == len(kernels) else [externs[0]] * len(kernels)
    for owner, (name, start, end) in zip(owners, kernels):
        totals[owner] = totals.get(owner, 0.0) + (end - start) / 1e6
        names.setdefault(owner, set()).add(name)


def _load(graph: Graph) -> Any:
    """The package's model loaded for running; :class:`BenchError` with one line where it cannot be."""
    import torch

    if (why := missing(graph)) is not None:
        raise BenchError(why)
    try:
        from torch._inductor.package import load_package
    except ImportError:
        raise BenchError(f"this torch ({torch.__version__}) cannot load AOTInductor packages "
                         "(no torch._inductor.package.load_package)") from None
    try:
        return load_package(graph.package.path, graph.package.model)
    except Exception as exc:  # noqa: BLE001 - a package built by another torch or for another machine
        raise BenchError(f"the package could not be loaded: {one_line(exc)}") from None
