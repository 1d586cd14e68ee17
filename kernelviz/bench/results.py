"""The model filled from a graph's measures: launch and kernel timings, busy time and gap, roofline."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..calls import Instrumented
from ..model import DevicePeaks, Graph, KernelTiming, LaunchTiming
from . import roofline

DRY_MS, DRY_SHARE = 0.005, 0.01  # idle waits for the CPU worth a warning: above both


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


def fill(graph: Graph, inst: Instrumented, facts: dict[int, LaunchFacts], in_graph, alone: dict[int, Any],
         unit: str, peaks: DevicePeaks | None, skip: set[int]) -> None:
    import torch

    sm_count = torch.cuda.get_device_properties().multi_processor_count if unit == "gpu" else None
    launched = sum(ms for i, ms in in_graph.ms.items() if i not in skip)
    busy = in_graph.busy_ms
    graph.gpu_busy_ms = busy
    graph.gap_ms = max(0.0, busy - launched) if busy is not None else None
    if busy is not None and in_graph.dry_ms > max(DRY_MS, DRY_SHARE * busy):
        graph.warnings.append(
            f"timing: the GPU stood idle {in_graph.dry_ms:.3f} ms per run of call() waiting for the CPU to enqueue "
            "its next launch (the stream ran dry while timing: an allocator sync, a slow Python step or other "
            "work in this process); that time is left out of the busy time and the gap, which are the graph's own")
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
            roofline.fill(timing, peaks if peaks and peaks.device_type == graph.device else None, sm_count=sm_count,
                          kernel=kernel)
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
