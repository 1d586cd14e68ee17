"""Where a launch sits on the device's roofline: bytes and FLOPs, achieved rates, % of peak and what bounds it.

Rates shown as "achieved in the graph" use the in-graph time (inputs may still be in L2); on a GPU the % of peak
figures use the L2-flushed time of the launch alone, so that they compare DRAM traffic with the DRAM peak. A CPU's
caches are not flushed: there the % figures use the in-graph time, and a launch faster than the DRAM peak allows is
cache-resident (its % shown as 100, saying so).
"""

from __future__ import annotations

from typing import Any

from ..model import DevicePeaks, Kernel, LaunchTiming

LATENCY_MS = 0.005


def tensor_bytes(value: Any) -> int:
    """Bytes of memory a tensor covers: its elements, or less where strides overlap (a broadcast input
    of stride 0 is read from memory once)."""
    import torch

    if not isinstance(value, torch.Tensor) or value.numel() == 0:
        return 0
    span = 1 + sum((n - 1) * abs(s) for n, s in zip(value.shape, value.stride()))
    return min(value.numel(), span) * value.element_size()


def kernel_arg_bytes(params: list[str], args: tuple) -> int | None:
    """Bytes of a generated kernel's tensor arguments (in/out buffers counted twice: read and written);
    ``params`` are the kernel's parameter names (``Kernel.params()``)."""
    total = 0
    for i, arg in enumerate(args):
        name = params[i] if i < len(params) else ""
        total += tensor_bytes(arg) * (2 if name.startswith("in_out_") else 1)
    return total or None


def extern_bytes(args: tuple, kwargs: dict, result: Any) -> int | None:
    """Bytes an extern call reads and writes: its tensor arguments and its result."""
    values = list(args) + list(kwargs.values()) + (list(result) if isinstance(result, (tuple, list)) else [result])
    total = sum(tensor_bytes(v) for v in values)
    return total or None


def first_dtype(args: tuple, kwargs: dict) -> Any:
    """The dtype of the first floating-point (or int8) tensor argument: the one a matmul's rate depends on."""
    import torch

    for value in list(args) + list(kwargs.values()):
        if isinstance(value, torch.Tensor) and (value.is_floating_point() or value.dtype == torch.int8):
            return value.dtype
    return None


def is_latency_bound(grid: int | None, sm_count: int | None, flushed_ms: float | None) -> bool:
    """A launch is latency-bound when it is too small to fill the device: it launches fewer thread blocks
    than the device has SMs (known for generated Triton kernels), or its L2-flushed time is under
    ``LATENCY_MS`` (5 microseconds), the order of a launch's own fixed cost (block scheduling, ramp-up and
    tail), so that neither bandwidth nor arithmetic limits it."""
    if grid is not None and sm_count and grid < sm_count:
        return True
    return flushed_ms is not None and flushed_ms < LATENCY_MS


def fill(timing: LaunchTiming, peaks: DevicePeaks | None, *, sm_count: int | None = None,
         kernel: Kernel | None = None) -> None:
    """Fill rates, % of peak, ``cache_resident`` and ``bound`` of ``timing`` from its bytes, FLOPs and times.

    ``bound`` by the ridge point (peak FLOP/s over peak bytes/s): "compute" when the launch's FLOPs per
    byte reach it, else "memory"; "latency" when the launch cannot fill the device (``is_latency_bound``);
    a generated pointwise or reduction kernel (no ``tl.dot``) moves data and does little arithmetic per
    byte: "memory". None where that cannot be told.
    """
    ms, cpu = timing.in_graph_ms, timing.unit == "cpu"
    flushed = ms if cpu else timing.flushed_ms
    dram = peaks.dram_gb_per_s if peaks else None
    peak_tflops = (peaks.tflops.get(timing.dtype) if peaks and timing.dtype else None)
    notes = []
    if ms and timing.bytes:
        timing.gb_per_s = timing.bytes / (ms / 1e3) / 1e9
        timing.cache_resident = bool(dram and timing.gb_per_s > dram)
    if ms and timing.flops:
        timing.tflop_per_s = timing.flops / (ms / 1e3) / 1e12
    if flushed and timing.bytes and dram:
        timing.pct_peak_bw, note = _percent(timing.bytes / (flushed / 1e3) / 1e9, dram, "DRAM bandwidth",
                                            "cache-resident: its bytes were in the CPU's caches" if cpu else
                                            "the byte count is more than the launch moves to or from DRAM")
        notes += [note] if note else []
    if flushed and timing.flops and peak_tflops:
        timing.pct_peak_flops, note = _percent(timing.flops / (flushed / 1e3) / 1e12, peak_tflops,
                                               f"{timing.dtype} compute", "the FLOP count is above what ran")
        notes += [note] if note else []
    timing.note = "; ".join(notes) or timing.note
    timing.bound = _bound(timing, dram, peak_tflops, sm_count, kernel)


def _percent(rate: float, peak: float, what: str, why: str) -> tuple[float, str | None]:
    pct = 100 * rate / peak
    if pct <= 100:
        return pct, None
    return 100.0, f"measured {pct:.0f}% of the {what} peak ({why}, or the peak is low): shown as 100%"


def _bound(timing: LaunchTiming, dram: float | None, peak_tflops: float | None, sm_count: int | None,
           kernel: Kernel | None) -> str | None:
    alone = timing.in_graph_ms if timing.unit == "cpu" else timing.flushed_ms
    if is_latency_bound(timing.grid, sm_count, alone or None):
        return "latency"
    if timing.flops and timing.bytes and dram and peak_tflops:
        ridge = peak_tflops * 1e12 / (dram * 1e9)
        return "compute" if timing.flops / timing.bytes >= ridge else "memory"
    if kernel is not None and _moves_data(kernel):
        return "memory"
    return None


def _moves_data(kernel: Kernel) -> bool:
    """A generated pointwise or reduction kernel: a Triton one without ``tl.dot``, a C++ one without a GEMM
    micro-kernel (Inductor's C++ GEMM template)."""
    if kernel.kind == "triton":
        return kernel.kernel_type != "template" and "tl.dot" not in kernel.source
    return kernel.kind == "cpp" and "micro_gemm" not in kernel.source
