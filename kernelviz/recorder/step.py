"""Compute vs communication vs idle of a captured block, from torch.profiler run over the block itself.

On a GPU the device's work is split: communication kernels (NCCL's) against everything else (kernels,
copies), between the first and the last device activity of the block; on the CPU the ops of every thread
(c10d, gloo and functional-collective ops against the rest) over the block's wall time. Where both run at
once the time is "overlap"; where neither runs, "idle". Profiling changes no result, only how long the
host takes to launch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..model import StepCollective, StepSplit

Span = tuple[int, int]
_NCCL_KERNEL = re.compile(r"^nccl(?:Dev)?Kernel_([A-Za-z]+)")
_CPU_COMM = ("c10d::", "_c10d_functional::", "c10d_functional::", "gloo:", "nccl:", "record_param_comms")
_ALIASES = {"allreduce": "all_reduce", "allgather": "all_gather", "all_gather_into_tensor": "all_gather",
            "reduce_scatter_tensor": "reduce_scatter", "alltoall": "all_to_all", "all_to_all_single": "all_to_all",
            "allgather_into_tensor_coalesced": "all_gather", "reduce_scatter_tensor_coalesced": "reduce_scatter"}
_BLOCK = "kernelviz#block"


def merged(spans: Iterable[Span]) -> list[Span]:
    """The union of intervals, as sorted disjoint intervals."""
    out: list[list[int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        elif end > start:
            out.append([start, end])
    return [(a, b) for a, b in out]


def length(spans: list[Span]) -> int:
    return sum(b - a for a, b in spans)


def intersection(a: list[Span], b: list[Span]) -> list[Span]:
    """Where two unions of intervals (each merged) overlap."""
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        start, end = max(a[i][0], b[j][0]), min(a[i][1], b[j][1])
        if start < end:
            out.append((start, end))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def minus(a: list[Span], b: list[Span]) -> list[Span]:
    """``a`` without ``b`` (both merged)."""
    out = []
    for start, end in a:
        for cut_start, cut_end in b:
            if cut_end <= start or cut_start >= end:
                continue
            if cut_start > start:
                out.append((start, cut_start))
            start = max(start, cut_end)
        if start < end:
            out.append((start, end))
    return out


def split(window: Span, compute: list[Span], comm: list[Span], unit: str,
          collectives: list[StepCollective]) -> StepSplit:
    """The four disjoint parts of ``window`` (ns) from the merged compute and communication intervals."""
    clip = [window]
    compute, comm = intersection(merged(compute), clip), intersection(merged(comm), clip)
    both = length(intersection(compute, comm))
    busy = length(merged(compute + comm))
    ms = 1e-6
    return StepSplit(unit=unit, window_ms=(window[1] - window[0]) * ms, compute_ms=(length(compute) - both) * ms,
                     comm_ms=(length(comm) - both) * ms, overlap_ms=both * ms,
                     idle_ms=(window[1] - window[0] - busy) * ms, collectives=collectives)


def op_name(name: str) -> str:
    """``all_reduce`` for ``ncclDevKernel_AllReduce_Sum_f32_RING_LL``, ``c10d::allreduce_``, ``gloo:all_reduce``."""
    m = _NCCL_KERNEL.match(name)
    if m:
        base = re.sub(r"(?<!^)(?=[A-Z])", "_", m.group(1)).lower()
    else:
        base = re.split(r"::|:", name, maxsplit=1)[-1].strip("_")
        base = base.removesuffix("_base").strip("_")
    return _ALIASES.get(base, base)


def _by_op(found: list[tuple[str, str, int]]) -> list[StepCollective]:
    """(op, name, ns) per communication event -> one StepCollective per op, in order of first appearance."""
    out: dict[str, StepCollective] = {}
    for op, name, ns in found:
        entry = out.setdefault(op, StepCollective(op=op, calls=0, ms=0.0))
        entry.calls += 1
        entry.ms += ns * 1e-6
        if name not in entry.kernels:
            entry.kernels.append(name)
    return list(out.values())


def device_split(events: Iterable, device_index: int) -> StepSplit | None:
    """The split of one GPU's activity (profiler events of the block); None if the device did nothing."""
    from torch.autograd import DeviceType

    compute, comm, found = [], [], []
    for event in events:
        if event.device_type() != DeviceType.CUDA or event.device_index() != device_index or is_annotation(event):
            continue
        span = (event.start_ns(), event.end_ns())
        name = event.name()
        if _NCCL_KERNEL.match(name):
            comm.append(span)
            found.append((op_name(name), re.sub(r"\(.*", "", name), span[1] - span[0]))
        elif name != "Context Sync":
            compute.append(span)
    spans = compute + comm
    if not spans:
        return None
    window = (min(a for a, _ in spans), max(b for _, b in spans))
    return split(window, compute, comm, "gpu", _by_op(found))


def host_split(events: Iterable) -> StepSplit | None:
    """The split of the block's wall time from the CPU ops of every thread (a thread blocked in a collective
    is communicating, not computing); None if the block's range is missing."""
    from torch.autograd import DeviceType

    window = None
    threads: dict[int, tuple[list[Span], list[Span]]] = {}
    comm_events = []
    for event in events:
        if event.device_type() != DeviceType.CPU:
            continue
        name = event.name()
        span = (event.start_ns(), event.end_ns())
        if name == _BLOCK:
            window = span
            continue
        if name.startswith("kernelviz#"):
            continue
        work, talk = threads.setdefault(event.start_thread_id(), ([], []))
        if name.startswith(_CPU_COMM):
            talk.append(span)
            comm_events.append((event.start_thread_id(), span, name))
        else:
            work.append(span)
    if window is None:
        return None
    compute, comm = [], []
    for work, talk in threads.values():
        talk = merged(talk)
        compute += minus(merged(work), talk)
        comm += talk
    return split(window, compute, comm, "cpu", _by_op(_outermost(comm_events)))


def _outermost(comm_events: list[tuple[int, Span, str]]) -> list[tuple[str, str, int]]:
    """Communication ops not inside another on their thread (``c10d::allreduce_`` inside
    ``_c10d_functional::all_reduce_`` is one collective); the worker threads' ops (``gloo:all_reduce``) are
    what the calls did, not more calls, and are left out where a calling op covers them in time."""
    calls = [(tid, span, name) for tid, span, name in comm_events if not name.startswith(("gloo:", "nccl:"))]
    chosen = calls or comm_events
    chosen.sort(key=lambda e: (e[0], e[1][0], -e[1][1]))
    out, last_end = [], {}
    for tid, (start, end), name in chosen:
        if start < last_end.get(tid, -1):
            continue
        last_end[tid] = end
        out.append((op_name(name), name, end - start))
    return out


class StepProfiler:
    """torch.profiler over a ``with`` block: :meth:`start` at its top, :meth:`stop` at its end."""

    def __init__(self) -> None:
        self.profiler = None
        self.marker = None
        self.device_index: int | None = None
        self.skipped: str | None = None

    def start(self) -> None:
        import torch

        if torch.autograd.profiler._is_profiler_enabled:
            self.skipped = "the block was not profiled: another torch.profiler was running"
            return
        activities = [torch.profiler.ProfilerActivity.CPU]
        if torch.cuda.is_available():
            # device activity only: host ops would record every op of a compile inside the block
            activities = [torch.profiler.ProfilerActivity.CUDA]
            self.device_index = torch.cuda.current_device()
        self.profiler = torch.profiler.profile(activities=activities)
        self.profiler.__enter__()
        self.marker = torch.autograd.profiler.record_function(_BLOCK)
        self.marker.__enter__()

    def stop(self) -> StepSplit | None:
        """End the profile; the block's split (None, with ``skipped`` saying why, where it has none)."""
        if self.profiler is None:
            return None
        try:
            self.marker.__exit__(None, None, None)
            if self.device_index is not None:
                import torch

                torch.cuda.synchronize(self.device_index)
        finally:
            self.profiler.__exit__(None, None, None)
        events = self.profiler.profiler.kineto_results.events()
        self.profiler = None
        found = device_split(events, self.device_index) if self.device_index is not None else host_split(events)
        if found is None:
            self.skipped = "the block was profiled but ran nothing on the " + (
                "GPU" if self.device_index is not None else "CPU")
        return found


def is_annotation(event) -> bool:
    """A GPU-side mirror of a record_function range (torch < 2.12 has no activity_type())."""
    activity = getattr(event, "activity_type", None)
    if activity is not None:
        return activity() == "gpu_user_annotation"
    user = getattr(event, "is_user_annotation", None)
    return event.name().startswith("kernelviz#") or (user is not None and bool(user()))
