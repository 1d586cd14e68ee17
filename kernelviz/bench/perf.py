"""Bytes, FLOPs and the device's peaks, for GB/s and % of peak."""

from __future__ import annotations

from typing import Any

from ..model import Kernel


def tensor_bytes(value: Any) -> int:
    import torch

    return value.numel() * value.element_size() if isinstance(value, torch.Tensor) else 0


def kernel_bytes(kernel: Kernel, args: tuple) -> int | None:
    """Bytes a generated kernel moves: Inductor's own estimate if it has one, else its tensor arguments
    (in/out buffers counted twice)."""
    if kernel.num_gb:
        return int(kernel.num_gb * 1e9)
    params = kernel.params()
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
    import torch

    for value in list(args) + list(kwargs.values()):
        if isinstance(value, torch.Tensor) and value.is_floating_point():
            return value.dtype
    return None


def peak_gb_per_s() -> float | None:
    """Peak DRAM bandwidth of the current GPU: Inductor's datasheet table, else Triton's driver query."""
    import torch

    try:
        from torch._inductor.analysis.device_info import lookup_device_info

        info = lookup_device_info(torch.cuda.get_device_name())
        if info is not None and getattr(info, "dram_bw_gbs", None):
            return float(info.dram_bw_gbs)
    except ImportError:
        pass
    try:
        from torch._inductor.utils import get_gpu_dram_gbps

        return float(get_gpu_dram_gbps())
    except Exception:  # noqa: BLE001 - no peak known: the % column stays empty
        return None


def peak_tflops(dtype: Any) -> float | None:
    """Dense datasheet TFLOP/s of the current GPU for ``dtype`` (Inductor's table)."""
    if dtype is None:
        return None
    try:
        from torch._inductor.analysis.device_info import datasheet_tops

        return datasheet_tops(dtype, is_tf32=False)
    except Exception:  # noqa: BLE001 - unknown device or torch without the table
        return None
