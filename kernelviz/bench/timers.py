"""Timing backends: device time on a GPU, wall-clock time on the CPU.

Both measure the same three things over an instrumented ``call()``:

- ``in_graph``: each launch inside ``call()``, and the graph's busy time in the same runs (so that
  launches plus the gap between them add up to it);
- ``repeat``: one launch alone, repeated in place (the isolated pass drives it through a hook);
- on a GPU, ``cudagraph_ms``: ``call()`` with its partitions replayed as CUDA graphs.
"""

from __future__ import annotations

import bisect
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..calls.cpp_wrapper import EMPTY_RANGE, LAUNCH_RANGE
from ..recorder.step import is_annotation

MakeArgs = Callable[[], list]


@dataclass
class Samples:
    """A median and how widely the runs it comes from spread: (p75 - p25) / median."""

    median: float
    spread: float | None
    n: int


def summarize(values: list[float]) -> Samples:
    if len(values) < 4:
        return Samples(statistics.median(values), None, len(values))
    q1, _, q3 = statistics.quantiles(values, n=4)
    median = statistics.median(values)
    return Samples(median, (q3 - q1) / median if median > 0 else None, len(values))


@dataclass
class InGraph:
    """Per launch index: mean ms over the runs, the device kernels it ran and the spread; the graph's
    busy time in the same runs."""

    ms: dict[int, float] = field(default_factory=dict)
    device_kernels: dict[int, list[str]] = field(default_factory=dict)
    spread: dict[int, float | None] = field(default_factory=dict)
    busy_ms: float | None = None  # the span of the runs' device work, less ``dry_ms``
    dry_ms: float = 0.0  # per run: time the device stood idle because the CPU had not yet enqueued its work
    reps: int = 0
    runs: list[dict[int, list[tuple[int, int]]]] = field(default_factory=list)  # per run: launch -> device ns
    # per run: every device kernel it ran, in order, as (name, start ns, end ns) (GPU: what a run that marks no
    # launches, an AOTInductor package's, is joined to its launches by)
    kernels: list[list[tuple[str, int, int]]] = field(default_factory=list)


def undisturbed(values: list[float]) -> float:
    """The median of the fastest quarter of the runs.

    On a shared CPU, other processes preempt a kernel's OpenMP threads for whole scheduler slices (about
    10 ms), so that most runs of a short parallel kernel can be disturbed and the plain median lands on
    the disturbance, far above the kernel's own time. Interference only ever adds time; the fastest runs are the
    kernel's own.
    """
    fastest = sorted(values)[: max(1, len(values) // 4)]
    return statistics.median(fastest)


class _Lockstepped:
    """A timer whose runs of call() can be held in lockstep with the job's other ranks (``lockstep``, see
    ``bench.lockstep``): every rank then makes the same runs, and meets the others before each."""

    lockstep: Any = None

    def meet(self, what: str) -> None:
        if self.lockstep is not None:
            self.lockstep.meet(what)
            self._align()

    def _align(self) -> None:
        pass


class CpuTimer(_Lockstepped):
    """Wall-clock times with ``time.perf_counter`` (C++ kernels and extern calls on the CPU). Each
    measure repeats until it has run ``min_s`` and ``min_reps`` times and its estimate from the first half
    of the runs agrees with the one from the second half within ``tolerance``, or until ``max_s``.
    A kernel alone is given by ``undisturbed``; in-graph times are means (they add up to the busy time).
    In lockstep every measure makes exactly ``min_reps`` runs, the same on every rank."""

    unit = "cpu"

    def __init__(self, min_s: float = 0.05, max_s: float = 1.0, min_reps: int = 20, tolerance: float = 0.05,
                 isolated_min_s: float = 0.1, isolated_max_s: float = 0.5):
        self.min_s, self.max_s, self.min_reps, self.tolerance = min_s, max_s, min_reps, tolerance
        self.isolated_min_s, self.isolated_max_s = isolated_min_s, isolated_max_s

    def _done(self, values: list[float], started: float, min_s: float, max_s: float,
              estimate: Callable[[list[float]], float] = statistics.median) -> bool:
        if self.lockstep is not None:
            return len(values) >= self.min_reps
        spent = time.perf_counter() - started  # wall clock, overheads included: the limits bound the wait
        if spent >= max_s:
            return True
        if spent < min_s or len(values) < self.min_reps:
            return False
        half = len(values) // 2
        first, second = estimate(values[:half]), estimate(values[half:])
        return abs(first - second) <= self.tolerance * max(first, second)

    def stable(self, run: Callable[[], Any], before: Callable[[], Any] | None = None,
               max_s: float | None = None) -> Samples:
        """``run()`` alone, repeated until stable (``before()`` runs untimed ahead of each run), for at most
        ``max_s`` (the isolated limit by default)."""
        if before:
            before()
        run()  # warm-up: first-call costs and sleeping worker threads stay out of the samples
        values: list[float] = []
        started = time.perf_counter()
        limit = self.isolated_max_s if max_s is None else max_s
        while not self._done(values, started, self.isolated_min_s, limit, undisturbed):
            if before:
                before()
            start = time.perf_counter()
            run()
            values.append((time.perf_counter() - start) * 1e3)
        spread = summarize(values).spread
        return Samples(undisturbed(values), spread, len(values))

    def in_graph(self, call: Callable[[list], Any], set_range, make_args: MakeArgs, ranged: bool = False) -> InGraph:
        """``ranged``: the launches' ranges are in ``call``'s own code (a C++ wrapper): see :meth:`_in_graph_ranged`."""
        self.meet("the warm-up run")
        call(make_args())
        if ranged:
            return self._in_graph_ranged(call, make_args)
        per_launch: dict[int, list[float]] = {}
        set_range(lambda index: _WallRange(per_launch, index))
        try:
            totals = self._runs(call, make_args)
        finally:
            set_range(None)
        return _undisturbed_runs(totals, per_launch)

    def _in_graph_ranged(self, call: Callable[[list], Any], make_args: MakeArgs) -> InGraph:
        """Each launch's range in ``call``'s own code, read from torch.profiler: its wall time less that of the empty
        range in the same runs (what the profiler's own bookkeeping adds to a range). The busy time is of the same
        runs, so that the launches add up to it: its gap holds the profiler's bookkeeping between the ranges
        (``Graph.as_run`` times the module's own call() without any)."""
        import torch

        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as profile:
            totals = self._runs(call, make_args)
        reps = len(totals)
        per_launch: dict[int, list[float]] = {}
        empty = []
        for event in profile.profiler.kineto_results.events():
            name, ms = event.name(), (event.end_ns() - event.start_ns()) / 1e6
            if name.startswith(LAUNCH_RANGE):
                per_launch.setdefault(int(name[len(LAUNCH_RANGE):]), []).append(ms)
            elif name == EMPTY_RANGE:
                empty.append(ms)
        cost = statistics.median(empty) if empty else 0.0
        per_launch = {i: [max(0.0, v - cost) for v in values] for i, values in per_launch.items()}
        if any(len(values) != reps for values in per_launch.values()):  # runs not told apart: every run counts
            return InGraph(ms={i: sum(v) / reps for i, v in per_launch.items()},
                           spread={i: summarize(v).spread for i, v in per_launch.items()},
                           busy_ms=sum(totals) / reps, reps=reps)
        return _undisturbed_runs(totals, per_launch)

    def _runs(self, call: Callable[[list], Any], make_args: MakeArgs) -> list[float]:
        """Wall ms of runs of ``call``, until stable (see the class)."""
        totals: list[float] = []
        started = time.perf_counter()
        while not self._done(totals, started, self.min_s, self.max_s, undisturbed):
            self.meet(f"in-graph run {len(totals)}")
            args = make_args()
            start = time.perf_counter()
            call(args)
            totals.append((time.perf_counter() - start) * 1e3)
        return totals

    def repeat(self, run: Callable[[], Any], restore: Callable[[], Any] | None, reps: int) -> Callable[[], Samples]:
        samples = self.stable(run, restore)
        return lambda: samples

    def sync(self) -> None:
        pass


def _undisturbed_runs(totals: list[float], per_launch: dict[int, list[float]]) -> InGraph:
    """In-graph times over the undisturbed runs of call(): the fastest quarter by their totals (at least three), each
    launch's mean over those same runs, so that the launches and the gap still add up to the busy time. As for a
    launch alone (:func:`undisturbed`), interference (other processes, a first run's page faults and thread starts)
    only ever adds time: a mean over every run lands on it."""
    keep = sorted(range(len(totals)), key=totals.__getitem__)[:max(3, len(totals) // 4)]
    kept = {i: [values[r] for r in keep if r < len(values)] for i, values in per_launch.items()}
    return InGraph(ms={i: sum(v) / len(v) for i, v in kept.items() if v},
                   spread={i: summarize(v).spread for i, v in kept.items() if v},
                   busy_ms=sum(totals[r] for r in keep) / len(keep), reps=len(keep))


class _WallRange:
    def __init__(self, per_launch: dict[int, list[float]], index: int):
        self.per_launch, self.index = per_launch, index

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: Any) -> None:
        self.per_launch.setdefault(self.index, []).append((time.perf_counter() - self.start) * 1e3)


def _cycles(ms: float) -> int:
    """GPU clock cycles for ``torch.cuda._sleep`` to last about ``ms`` (data-centre GPUs run near 2 GHz;
    a slower clock only makes the sleep longer)."""
    return int(2e6 * ms)


class GpuTimer(_Lockstepped):
    """GPU times. In-graph: device time from torch.profiler (CUPTI), as Inductor's
    ``do_bench_using_profiling`` measures it: an L2 flush before each run of ``call()``, the stream
    pre-filled with a sleep that outlasts the CPU's enqueueing so launch overhead is hidden, each launch in
    a named range. Isolated: CUDA events around each launch repeated in place after an L2 flush (as
    Inductor's benchmarker and ``output_code.py -k`` do), all enqueued at once and synchronised once."""

    unit = "gpu"
    _PREFIX = LAUNCH_RANGE
    _REP = "kernelviz#rep#"

    def __init__(self, budget_ms: float = 60.0, min_reps: int = 2, max_reps: int = 10, warmup: int = 0,
                 device: str = "cuda"):
        import torch

        self.budget_ms, self.min_reps, self.max_reps, self.warmup = budget_ms, min_reps, max_reps, warmup
        self.device = device
        size = torch.cuda.get_device_properties(device).L2_cache_size or 2**26
        self.cache = torch.empty(size // 4, dtype=torch.int, device=device)  # Inductor's flush: L2-sized
        self._last = None  # the first event of the latest isolated launch, to tell whether the GPU caught up

    def sync(self, event: Any = None) -> None:
        """Wait for the device (or ``event``); in lockstep at most the lockstep's limit (a rank that stopped
        in the middle of a collective leaves it unfinished forever)."""
        import torch

        if self.lockstep is not None:
            self.lockstep.wait_device(event)
        elif event is not None:
            event.synchronize()
        else:
            torch.cuda.synchronize(self.device)

    def _align(self) -> None:
        self.lockstep.align_devices()

    def flush(self) -> None:
        self.cache.zero_()

    def _reps(self, call, make_args: MakeArgs) -> tuple[int, float]:
        """Repetitions that fit the budget, and the CPU ms one call() takes to enqueue (the recording run
        has already warmed every launch up)."""
        import torch

        for _ in range(self.warmup):
            self.meet("a warm-up run")
            call(make_args())
        args = make_args()
        self.sync()
        self.meet("the sizing run")
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        cpu = time.perf_counter()
        start.record()
        call(args)
        end.record()
        cpu_ms = (time.perf_counter() - cpu) * 1e3
        self.sync(end)
        per_rep = max(start.elapsed_time(end), cpu_ms) + 3 * cpu_ms  # the profiler slows the CPU side
        reps = max(self.min_reps, min(self.max_reps, math.ceil(self.budget_ms / per_rep)))
        if self.lockstep is not None:  # as many runs, and as long a sleep before each, on every rank
            return int(self.lockstep.most("the number of runs", reps)), self.lockstep.most("the enqueue time", cpu_ms)
        return reps, cpu_ms

    def in_graph(self, call, set_range, make_args: MakeArgs, ranged: bool = False) -> InGraph:
        """``ranged``: the launches' ranges are in ``call``'s own code (a C++ wrapper): read the same way."""
        import torch

        reps, cpu_ms = self._reps(call, make_args)
        sleep_ms = 4 * cpu_ms + 0.2
        set_range(lambda index: torch.profiler.record_function(f"{self._PREFIX}{index}"))
        try:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                    torch.profiler.ProfilerActivity.CUDA]) as prof:
                for rep in range(reps):
                    self.meet(f"in-graph run {rep}")
                    args = make_args()
                    self.flush()
                    torch.cuda._sleep(_cycles(sleep_ms))
                    start = time.perf_counter()
                    with torch.profiler.record_function(f"{self._REP}{rep}"):
                        call(args)
                    if self.lockstep is None:  # in lockstep every rank keeps the same sleep
                        sleep_ms = 1.2 * (time.perf_counter() - start) * 1e3 + 0.1  # as long as enqueueing took
                self.sync()
        finally:
            set_range(None)
        found = attribute(prof.profiler.kineto_results.events(), (self._PREFIX, self._REP))
        per_launch = found[self._PREFIX]
        spans: dict[str, list[int]] = {}
        for label, start, end, _, _ in found[self._REP]:
            span = spans.setdefault(label, [start, end])
            span[0], span[1] = min(span[0], start), max(span[1], end)
        result = InGraph(reps=reps, runs=[{} for _ in spans])
        bounds = sorted(spans.values())
        for label, start, end, name, _ in per_launch:
            index = int(label)
            result.ms[index] = result.ms.get(index, 0.0) + (end - start) / 1e6 / reps
            result.device_kernels.setdefault(index, []).append(name)
            run = next((k for k, (a, b) in enumerate(bounds) if a <= start <= b), None)
            if run is not None:
                result.runs[run].setdefault(index, []).append((start, end))
        result.device_kernels = {i: sorted(set(v)) for i, v in result.device_kernels.items()}
        result.kernels = [sorted(((name, start, end) for _, start, end, name, _ in found[self._REP]
                                  if a <= start <= b), key=lambda kernel: kernel[1]) for a, b in bounds]
        if spans:
            result.dry_ms = dry_ns(found[self._REP], bounds) / 1e6 / len(spans)
            result.busy_ms = sum(b - a for a, b in spans.values()) / 1e6 / len(spans) - result.dry_ms
        return result

    def repeat(self, run: Callable[[], Any], restore: Callable[[], Any] | None, reps: int) -> Callable[[], Samples]:
        """Enqueue ``reps`` flushed, event-timed runs of ``run``; the result is read after ``sync()``.
        Where the GPU has caught up with the queue, a sleep first keeps it behind the CPU, so that the
        events time the kernel and not the CPU's launch."""
        import torch

        if self._last is None or self._last.query():
            torch.cuda._sleep(_cycles(0.06 * reps + 0.1))
        pairs = []
        for _ in range(reps):
            if restore:
                restore()
            self.flush()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            run()
            end.record()
            pairs.append((start, end))
        self._last = pairs[0][0]
        return lambda: summarize([a.elapsed_time(b) for a, b in pairs])

    def cudagraph_ms(self, call, partitions: list, make_args: MakeArgs, reps: int = 10) -> float:
        """Mean ms of ``call()`` with each partition captured once into a CUDA graph and replayed, as
        reduce-overhead runs it (the CUDA-event time, launch overhead hidden by a sleep)."""
        import torch

        originals = list(partitions)
        graphs: dict[int, tuple[Any, list, Any]] = {}

        def replaying(i: int, fn: Callable[[list], Any]) -> Callable[[list], Any]:
            def run(args: list) -> Any:
                if i not in graphs:
                    static = list(args)
                    graphs[i] = (*graphed(fn, static), static)
                graph, out, _ = graphs[i]
                graph.replay()
                return out

            return run

        partitions[:] = [replaying(i, fn) if fn is not None else None for i, fn in enumerate(originals)]
        try:
            call(make_args())
            self.sync()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            spent = 0.0
            for _ in range(reps):
                args = make_args()
                self.flush()
                torch.cuda._sleep(_cycles(1.0))
                start.record()
                call(args)
                end.record()
                end.synchronize()
                spent += start.elapsed_time(end)
            return spent / reps
        finally:
            partitions[:] = originals
            graphs.clear()
            release_workspaces()


def graphed(fn: Callable[[list], Any], args: list) -> tuple[Any, Any]:
    """``fn(args)`` captured into a CUDA graph, after a warm-up on a side stream (library handles, workspaces);
    returns the graph and the outputs its replays write."""
    import torch

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        fn(list(args))
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn(list(args))
    return graph, out


def release_workspaces() -> None:
    """Give back the cuBLAS workspaces of the side streams :func:`graphed` warmed up on, once their graphs are
    gone: torch keeps one per stream for the life of the process (32 MB each on a Hopper GPU), so each timing left
    its own behind. Torch clears them itself at each CUDA-graph capture, and makes one again where a stream next
    needs it."""
    import torch

    clear = getattr(torch._C, "_cuda_clearCublasWorkspaces", None)
    if clear is not None:
        clear()


_LAUNCH_CALLS = ("cudaLaunch", "cuLaunch", "cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset", "cudaGraphLaunch")


def dry_ns(events: list[tuple[str, int, int, str, int]], bounds: list[list[int]]) -> int:
    """Device time within the runs' spans during which the stream had run dry: the next kernel's launch call
    began only after the previous kernel had ended, so the GPU waited for the CPU (the sleep before each run
    is meant to keep the stream ahead; an allocator's sync or a slow Python step can still drain it)."""
    total = 0
    for first, last in bounds:
        inside = sorted((start, end, when) for _, start, end, _, when in events if first <= start <= last)
        ended = None
        for start, end, when in inside:
            if ended is not None and when >= ended and start > ended:
                total += start - ended
            ended = end if ended is None else max(ended, end)
    return total


def attribute(events, prefixes: tuple[str, ...]) -> dict[str, list[tuple[str, int, int, str, int]]]:
    """For each prefix: (label, start ns, end ns, name, launch ns) of each GPU event launched inside a CPU range
    named prefix + label: the runtime call that launched it (matched by CUPTI correlation id, begun at launch
    ns) lies in the range, so extern calls own their library kernels without any guess by name. One pass
    over the events."""
    from torch.autograd import DeviceType

    cpu = DeviceType.CPU
    ranges: dict[str, list[tuple[int, int, str]]] = {p: [] for p in prefixes}
    launches, device = {}, []
    for event in events:
        name = event.name()
        if event.device_type() == cpu:
            if name.startswith("kernelviz#"):
                for prefix in prefixes:
                    if name.startswith(prefix):
                        ranges[prefix].append((event.start_ns(), event.end_ns(), name[len(prefix):]))
            elif name.startswith(_LAUNCH_CALLS):
                launches[event.correlation_id()] = event.start_ns()
        elif name != "Context Sync" and not is_annotation(event):
            device.append(event)
    out: dict[str, list[tuple[str, int, int, str, int]]] = {p: [] for p in prefixes}
    for prefix, spans in ranges.items():
        spans.sort()
        starts = [r[0] for r in spans]
        for event in device:
            when = launches.get(event.correlation_id())
            if when is None:
                when = launches.get(event.linked_correlation_id())
            if when is None:
                continue
            i = bisect.bisect_right(starts, when) - 1
            if i >= 0 and when <= spans[i][1]:
                out[prefix].append((spans[i][2], event.start_ns(), event.end_ns(), event.name(), when))
    return out
