"""Timing backends: device time from torch.profiler on a GPU, wall-clock time on the CPU.

Both time the same things: each launch inside ``call()`` (in-graph), ``call()`` end to end
(GPU busy), and each generated kernel alone (isolated)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

MakeArgs = Callable[[], list]


@dataclass
class InGraph:
    """Per launch index: mean time in ms and the device kernels it ran."""

    ms: dict[int, float] = field(default_factory=dict)
    device_kernels: dict[int, list[str]] = field(default_factory=dict)


class CpuTimer:
    """Wall-clock times with ``time.perf_counter`` (C++ kernels and extern calls on the CPU)."""

    unit = "cpu"

    def __init__(self, reps: int = 5, warmup: int = 1):
        self.reps, self.warmup = reps, warmup

    def in_graph(self, call: Callable[[list], Any], set_range, make_args: MakeArgs) -> InGraph:
        for _ in range(self.warmup):
            call(make_args())
        totals: dict[int, float] = {}
        set_range(lambda index: _WallRange(totals, index))
        try:
            for _ in range(self.reps):
                call(make_args())
        finally:
            set_range(None)
        return InGraph(ms={i: t * 1e3 / self.reps for i, t in totals.items()})

    def busy(self, call: Callable[[list], Any], make_args: MakeArgs) -> float:
        spent = 0.0
        for _ in range(self.reps):
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


class GpuProfilerTimer:
    """Device time from torch.profiler, as Inductor's ``do_bench_using_profiling`` does it: warm-up,
    an L2 flush before each repetition, and the device events linked to a named range."""

    unit = "gpu"
    _IN_GRAPH, _ISOLATED = "kernelviz#launch#", "kernelviz#kernel#"

    def __init__(self, reps: int = 10, warmup: int = 3, device: str = "cuda"):
        import torch

        self.reps, self.warmup, self.device = reps, warmup, device
        self.cache = torch.empty(int(256e6 // 4), dtype=torch.int, device=device)  # larger than L2

    def _sync(self) -> None:
        import torch

        torch.cuda.synchronize(self.device)

    def in_graph(self, call, set_range, make_args: MakeArgs) -> InGraph:
        import torch

        for _ in range(self.warmup):
            call(make_args())
        self._sync()
        set_range(lambda index: torch.profiler.record_function(f"{self._IN_GRAPH}{index}"))
        try:
            with self._profile() as prof:
                for _ in range(self.reps):
                    args = make_args()
                    self.cache.zero_()
                    call(args)
                self._sync()
        finally:
            set_range(None)
        totals, names = self._device_time(prof, self._IN_GRAPH)
        return InGraph(ms={int(k): v / self.reps for k, v in totals.items()},
                       device_kernels={int(k): sorted(v) for k, v in names.items()})

    def busy(self, call, make_args: MakeArgs) -> float:
        import torch

        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        spent = 0.0
        for _ in range(self.reps):
            args = make_args()
            self.cache.zero_()
            start.record()
            call(args)
            end.record()
            end.synchronize()
            spent += start.elapsed_time(end)
        return spent / self.reps

    def isolated(self, runs: dict[str, Callable[[], Any]]) -> dict[str, float | BaseException]:
        import torch

        out: dict[str, float | BaseException] = {}
        ready = {}
        for name, run in runs.items():
            try:
                for _ in range(self.warmup):
                    run()
                self._sync()
                ready[name] = run
            except Exception as exc:  # noqa: BLE001 - a failing kernel is reported, the rest are timed
                out[name] = exc
        with self._profile() as prof:
            for name, run in ready.items():
                for _ in range(self.reps):
                    self.cache.zero_()
                    with torch.profiler.record_function(f"{self._ISOLATED}{name}"):
                        run()
            self._sync()
        totals, _ = self._device_time(prof, self._ISOLATED)
        for name in ready:
            out[name] = totals[name] / self.reps if name in totals else RuntimeError("no device time recorded")
        return out

    @staticmethod
    def _profile():
        import torch

        return torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                                  torch.profiler.ProfilerActivity.CUDA])

    @staticmethod
    def _device_time(prof, prefix: str) -> tuple[dict[str, float], dict[str, set[str]]]:
        """Device ms per range label: every device event whose launch happened inside that range."""
        from torch.autograd import DeviceType

        owner: dict[int, str] = {}

        def claim(event, label: str) -> None:
            if event.device_type == DeviceType.CPU:
                owner[event.id] = label
                for child in event.cpu_children:
                    claim(child, label)

        for event in prof.events():
            if event.name.startswith(prefix) and event.device_type == DeviceType.CPU:
                claim(event, event.name[len(prefix):])
        totals: dict[str, float] = {}
        names: dict[str, set[str]] = {}
        for event in prof.profiler.kineto_results.events():
            if event.device_type() != DeviceType.CUDA or _is_annotation(event):
                continue
            linked = event.linked_correlation_id()
            label = owner.get(linked if linked else event.correlation_id())
            if label is None or event.name() == "Context Sync":
                continue
            totals[label] = totals.get(label, 0.0) + (event.end_ns() - event.start_ns()) / 1e6
            names.setdefault(label, set()).add(event.name())
        return totals, names


def _is_annotation(event) -> bool:
    """A GPU-side mirror of a record_function range (torch < 2.12 has no activity_type())."""
    activity = getattr(event, "activity_type", None)
    if activity is not None:
        return activity() == "gpu_user_annotation"
    return event.name().startswith("kernelviz#")
