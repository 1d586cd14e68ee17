"""Timing backends: device time from torch.profiler on a GPU, wall-clock time on the CPU.

Both time the same things: each launch inside ``call()`` (in-graph), ``call()`` end to end
(GPU busy), and each generated kernel alone (isolated)."""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MakeArgs = Callable[[], list]
Spans = dict[str, dict[int, list[tuple[int, int]]]]  # range label -> its k-th range -> device intervals (ns)


@dataclass
class InGraph:
    """Per launch index: mean time in ms and the device kernels it ran."""

    ms: dict[int, float] = field(default_factory=dict)
    device_kernels: dict[int, list[str]] = field(default_factory=dict)
    runs: list[dict[int, list[tuple[int, int]]]] = field(default_factory=list)  # per run: launch -> intervals


class _Lockstepped:
    """A timer whose runs of call() can be held in lockstep with the other ranks (``lockstep``: see
    ``bench.lockstep``): every rank makes the same runs, and meets the others before each."""

    lockstep: Any = None

    def _meet(self, what: str) -> None:
        if self.lockstep is not None:
            self.lockstep.meet(what)
            self._align()

    def _align(self) -> None:
        pass


class CpuTimer(_Lockstepped):
    """Wall-clock times with ``time.perf_counter`` (C++ kernels and extern calls on the CPU)."""

    unit = "cpu"

    def __init__(self, reps: int = 5, warmup: int = 1):
        self.reps, self.warmup = reps, warmup

    def in_graph(self, call: Callable[[list], Any], set_range, make_args: MakeArgs) -> InGraph:
        for _ in range(self.warmup):
            self._meet("warm-up")
            call(make_args())
        totals: dict[int, float] = {}
        set_range(lambda index: _WallRange(totals, index))
        try:
            for rep in range(self.reps):
                self._meet(f"in-graph run {rep}")
                call(make_args())
        finally:
            set_range(None)
        return InGraph(ms={i: t * 1e3 / self.reps for i, t in totals.items()})

    def busy(self, call: Callable[[list], Any], make_args: MakeArgs) -> float:
        spent = 0.0
        for rep in range(self.reps):
            self._meet(f"busy run {rep}")
            args = make_args()
            start = time.perf_counter()
            call(args)
            spent += time.perf_counter() - start
        return spent * 1e3 / self.reps

    def isolated(self, runs: dict[str, Callable[[], Any]]) -> dict[str, float | BaseException]:
        out: dict[str, float | BaseException] = {}
        for name, run in runs.items():
            try:
                for _ in range(self.warmup):
                    run()
                start = time.perf_counter()
                for _ in range(self.reps):
                    run()
                out[name] = (time.perf_counter() - start) * 1e3 / self.reps
            except Exception as exc:  # noqa: BLE001 - a failing kernel is reported, the rest are timed
                out[name] = exc
        return out


class _WallRange:
    def __init__(self, totals: dict[int, float], index: int):
        self.totals, self.index = totals, index

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: Any) -> None:
        self.totals[self.index] = self.totals.get(self.index, 0.0) + time.perf_counter() - self.start


class GpuTimer(_Lockstepped):
    """GPU times. In-graph: device time from torch.profiler, as Inductor's ``do_bench_using_profiling``
    does it (warm-up, an L2 flush before each repetition, the device work launched inside a named
    range). Isolated: Inductor's own benchmarker (CUDA events, L2 flush), which ``output_code.py -k``
    uses too."""

    unit = "gpu"
    _PREFIX = "kernelviz#launch#"

    def __init__(self, reps: int = 10, warmup: int = 3, device: str = "cuda", isolated_rep_ms: float = 30.0):
        import torch

        self.reps, self.warmup, self.device, self.isolated_rep_ms = reps, warmup, device, isolated_rep_ms
        self.cache = torch.empty(int(256e6 // 4), dtype=torch.int, device=device)  # larger than L2

    def _sync(self) -> None:
        import torch

        if self.lockstep is not None:
            self.lockstep.wait_device()
        else:
            torch.cuda.synchronize(self.device)

    def _align(self) -> None:
        self.lockstep.align_devices()

    def in_graph(self, call, set_range, make_args: MakeArgs) -> InGraph:
        import torch

        for _ in range(self.warmup):
            self._meet("warm-up")
            call(make_args())
        self._sync()
        set_range(lambda index: torch.profiler.record_function(f"{self._PREFIX}{index}"))
        try:
            with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                    torch.profiler.ProfilerActivity.CUDA]) as prof:
                for rep in range(self.reps):
                    self._meet(f"in-graph run {rep}")
                    args = make_args()
                    self.cache.zero_()
                    call(args)
                self._sync()
        finally:
            set_range(None)
        totals, names, spans = device_time_by_range(prof.profiler.kineto_results.events(), self._PREFIX)
        runs = [{int(label): found[k] for label, found in spans.items() if k in found} for k in range(self.reps)]
        return InGraph(ms={int(k): v / self.reps for k, v in totals.items()},
                       device_kernels={int(k): sorted(v) for k, v in names.items()}, runs=runs)

    def busy(self, call, make_args: MakeArgs) -> float:
        """CUDA-event time of call() with the CPU's launch overhead hidden: the stream first sleeps
        for longer than the CPU takes to enqueue call(), so the events time the GPU work alone."""
        import torch

        args = make_args()
        self._sync()
        self._meet("busy warm-up")
        cpu = time.perf_counter()
        call(args)
        cpu_ms = (time.perf_counter() - cpu) * 1e3
        self._sync()
        if self.lockstep is not None:  # the same sleep on every rank keeps their devices in step
            cpu_ms = self.lockstep.most("enqueue time", cpu_ms)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        spent = 0.0
        for rep in range(self.reps):
            self._meet(f"busy run {rep}")
            args = make_args()
            self.cache.zero_()
            torch.cuda._sleep(int(2e6 * (1.5 * cpu_ms + 0.1)))  # about 2e6 cycles per ms
            start.record()
            call(args)
            end.record()
            if self.lockstep is not None:
                self.lockstep.wait_device(end)
            else:
                end.synchronize()
            spent += start.elapsed_time(end)
        return spent / self.reps

    def isolated(self, runs: dict[str, Callable[[], Any]]) -> dict[str, float | BaseException]:
        from torch._inductor.runtime.benchmarking import benchmarker

        out: dict[str, float | BaseException] = {}
        for name, run in runs.items():
            try:
                try:
                    out[name] = benchmarker.benchmark_gpu(run, warmup=self.isolated_rep_ms / 2,
                                                          rep=self.isolated_rep_ms)
                except TypeError:  # a benchmarker without Triton's warmup/rep arguments
                    out[name] = benchmarker.benchmark_gpu(run)
            except Exception as exc:  # noqa: BLE001 - a failing kernel is reported, the rest are timed
                out[name] = exc
        return out


_LAUNCH_CALLS = ("cudaLaunch", "cuLaunch", "cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset", "cudaGraphLaunch")


def device_time_by_range(events, prefix: str) -> tuple[dict[str, float], dict[str, set[str]], Spans]:
    """Device ms per range label: each GPU event counts for the range whose CPU interval contains the
    runtime call that launched it (matched by CUPTI correlation id), so extern calls own their library
    kernels without any guess by name. Also the device intervals (ns) of each label's k-th range."""

    from torch.autograd import DeviceType

    ranges, launches, device = [], {}, []
    for event in events:
        name = event.name()
        if event.device_type() == DeviceType.CPU:
            if name.startswith(prefix):
                ranges.append((event.start_ns(), event.end_ns(), name[len(prefix):]))
            elif name.startswith(_LAUNCH_CALLS):
                launches[event.correlation_id()] = event.start_ns()
        elif not _is_annotation(event) and name != "Context Sync":
            device.append(event)
    ranges.sort()
    starts = [r[0] for r in ranges]
    seen: dict[str, int] = {}
    occurrence = []  # the k-th range of its label
    for _, _, label in ranges:
        occurrence.append(seen.get(label, 0))
        seen[label] = occurrence[-1] + 1
    totals: dict[str, float] = {}
    names: dict[str, set[str]] = {}
    spans: Spans = {}
    for event in device:
        when = launches.get(event.correlation_id())
        if when is None:
            when = launches.get(event.linked_correlation_id())
        if when is None:
            continue
        i = bisect.bisect_right(starts, when) - 1
        if i < 0 or when > ranges[i][1]:
            continue
        label = ranges[i][2]
        totals[label] = totals.get(label, 0.0) + (event.end_ns() - event.start_ns()) / 1e6
        names.setdefault(label, set()).add(event.name())
        spans.setdefault(label, {}).setdefault(occurrence[i], []).append((event.start_ns(), event.end_ns()))
    return totals, names, spans


def _is_annotation(event) -> bool:
    """A GPU-side mirror of a record_function range (torch < 2.12 has no activity_type())."""
    activity = getattr(event, "activity_type", None)
    if activity is not None:
        return activity() == "gpu_user_annotation"
    return event.name().startswith("kernelviz#")
