"""The ceilings a roofline is drawn against: dense TFLOP/s per dtype and DRAM bandwidth of NVIDIA
data-centre GPUs from their datasheets, each with its source; ``calibrate()`` measures them instead.

Datasheets since Hopper print tensor-core rates with 2:4 structured sparsity; the table holds the dense
rates (half of those), which is what cuBLAS and cuDNN reach on ordinary tensors. Keys: ``float32`` (CUDA
cores, no TF32), ``tf32``, ``bfloat16``, ``float16``, ``float8`` (e4m3/e5m2) and ``int8``.
"""

from __future__ import annotations

import re
import statistics
from typing import Any

from ..model import DevicePeaks

_H100_SXM = {"float32": 67.0, "tf32": 494.5, "bfloat16": 989.5, "float16": 989.5, "float8": 1979.0, "int8": 1979.0}
_H100_PCIE = {"float32": 51.0, "tf32": 378.0, "bfloat16": 756.5, "float16": 756.5, "float8": 1513.0, "int8": 1513.0}
_NVL = {"float32": 60.0, "tf32": 417.5, "bfloat16": 835.5, "float16": 835.5, "float8": 1670.5, "int8": 1670.5}
_A100 = {"float32": 19.5, "tf32": 156.0, "bfloat16": 312.0, "float16": 312.0, "int8": 624.0}
_H100_SHEET = "NVIDIA H100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h100), sparse rates halved"
_H200_SHEET = "NVIDIA H200 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/h200), sparse rates halved"
_A100_SHEET = "NVIDIA A100 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/a100), dense rates"

# (pattern over torch.cuda.get_device_name(), datasheet name, DRAM GB/s, dense TFLOP/s, source); first match wins
DATASHEETS: list[tuple[str, str, float, dict[str, float], str]] = [
    (r"H100.*NVL", "H100 NVL", 3900.0, _NVL, _H100_SHEET),
    (r"H100.*PCIe", "H100 PCIe 80GB", 2000.0, _H100_PCIE, _H100_SHEET),
    (r"H100", "H100 SXM5 80GB", 3350.0, _H100_SXM, _H100_SHEET),
    (r"H200.*NVL", "H200 NVL", 4800.0, _NVL, _H200_SHEET),
    (r"H200", "H200 SXM 141GB", 4800.0, _H100_SXM, _H200_SHEET),
    (r"A100.*SXM.*80GB", "A100 SXM4 80GB", 2039.0, _A100, _A100_SHEET),
    (r"A100.*SXM", "A100 SXM4 40GB", 1555.0, _A100, _A100_SHEET),
    (r"A100.*80GB.*PCIe|A100.*PCIe.*80GB", "A100 PCIe 80GB", 1935.0, _A100, _A100_SHEET),
    (r"A100", "A100 PCIe 40GB", 1555.0, _A100, _A100_SHEET),
    (r"L40S", "L40S", 864.0, {"float32": 91.6, "tf32": 183.0, "bfloat16": 362.05, "float16": 362.05,
                              "float8": 733.0, "int8": 733.0},
     "NVIDIA L40S datasheet (nvidia.com/en-us/data-center/l40s), dense rates"),
    (r"L40\b", "L40", 864.0, {"float32": 90.5, "tf32": 90.5, "bfloat16": 181.05, "float16": 181.05,
                              "float8": 362.0, "int8": 362.0},
     "NVIDIA L40 datasheet (nvidia.com/en-us/data-center/l40), dense rates"),
    (r"\bL4\b", "L4", 300.0, {"float32": 30.3, "tf32": 60.0, "bfloat16": 121.0, "float16": 121.0,
                              "float8": 242.5, "int8": 242.5},
     "NVIDIA L4 Tensor Core GPU datasheet (nvidia.com/en-us/data-center/l4), sparse rates halved"),
    (r"\bA10\b", "A10", 600.0, {"float32": 31.2, "tf32": 62.5, "bfloat16": 125.0, "float16": 125.0, "int8": 250.0},
     "NVIDIA A10 datasheet (nvidia.com/en-us/data-center/products/a10-gpu), dense rates"),
    (r"B200", "B200 (HGX)", 8000.0, {"float32": 75.0, "tf32": 1125.0, "bfloat16": 2250.0, "float16": 2250.0,
                                     "float8": 4500.0, "int8": 4500.0},
     "NVIDIA HGX B200 datasheet (nvidia.com/en-us/data-center/hgx), per GPU, sparse rates halved"),
]


def datasheet(device_name: str | None) -> DevicePeaks | None:
    """Peaks of ``device_name`` (as ``torch.cuda.get_device_name()`` spells it) from the table, or None."""
    for pattern, name, dram, tflops, source in DATASHEETS if device_name else []:
        if re.search(pattern, device_name, re.I):
            return DevicePeaks(device=device_name, dram_gb_per_s=dram, tflops=dict(tflops),
                               source=f"datasheet: NVIDIA {name}; {source}")
    return None


def device_peaks(device_name: str | None = None) -> DevicePeaks | None:
    """The current GPU's peaks: the datasheet table, else the DRAM bandwidth the driver reports (memory
    clock x bus width, through Inductor) and no compute peaks; None without a GPU."""
    import torch

    if not torch.cuda.is_available():
        return None
    name = device_name or torch.cuda.get_device_name()
    found = datasheet(name)
    if found is not None:
        return found
    try:
        from torch._inductor.utils import get_gpu_dram_gbps

        return DevicePeaks(device=name, dram_gb_per_s=float(get_gpu_dram_gbps()),
                           source="driver query (memory clock x bus width); no compute peaks known for this GPU: "
                                  "measure them with kernelviz.calibrate()")
    except Exception:  # noqa: BLE001 - nothing known: the % columns stay empty
        return DevicePeaks(device=name, source="unknown GPU: measure its peaks with kernelviz.calibrate()")


def peak_key(dtype: Any, op: str | None = None, device: str = "cuda") -> str | None:
    """The table key whose compute peak applies to work in ``dtype`` on ``device`` ("cuda" or "cpu"): on a GPU,
    float32 matmuls and convolutions run on TF32 tensor cores where torch allows it (``op`` tells convolutions,
    which cuDNN governs)."""
    import torch

    if dtype is None:
        return None
    if dtype == torch.float32 and device == "cuda":
        conv = op is not None and "conv" in op
        tf32 = torch.backends.cudnn.allow_tf32 if conv else torch.backends.cuda.matmul.allow_tf32
        return "tf32" if tf32 else "float32"
    if dtype in (torch.float32, torch.bfloat16, torch.float16):
        return str(dtype).removeprefix("torch.")
    if "float8" in str(dtype):
        return "float8"
    if dtype in (torch.int8, torch.uint8):
        return "int8"
    return None


def calibrate(device: str = "cuda", reps: int = 10) -> DevicePeaks:
    """Measure this GPU's ceilings: device-to-device copy bandwidth (bytes read plus written) and the
    dense matmul rate per dtype (8192-sized products through cuBLAS; float8 and int8 where supported).
    Inputs come from a private generator: the user's RNG state and torch's TF32 settings are unchanged.
    Pass the result to ``cap.bench(peaks=...)``."""
    import torch

    if not torch.cuda.is_available():
        raise RuntimeError("kernelviz.calibrate() needs a CUDA GPU; none is visible here")
    gen = torch.Generator(device=device).manual_seed(0)
    n, rates = 8192, {}

    def rand(*shape: int, dtype=torch.bfloat16) -> torch.Tensor:
        return torch.randn(shape, device=device, generator=gen).to(dtype)

    dram = _copy_gb_per_s(device, gen, reps)
    flops = 2.0 * n**3
    for key, dtype in (("bfloat16", torch.bfloat16), ("float16", torch.float16)):
        x, y = rand(n, n, dtype=dtype), rand(n, n, dtype=dtype)
        rates[key] = flops / (_median_ms(lambda: x @ y, reps) / 1e3) / 1e12  # noqa: B023 - timed at once
    saved = torch.backends.cuda.matmul.allow_tf32
    try:
        x, y = rand(n, n, dtype=torch.float32), rand(n, n, dtype=torch.float32)
        for key, tf32 in (("tf32", True), ("float32", False)):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            rates[key] = flops / (_median_ms(lambda: x @ y, max(3, reps // 3)) / 1e3) / 1e12
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    rates.update(_low_precision_rates(rand, n, reps))
    name = torch.cuda.get_device_name(device)
    return DevicePeaks(device=name, dram_gb_per_s=dram, tflops={k: round(v, 1) for k, v in rates.items()},
                       source=f"measured by kernelviz.calibrate() on {name}")


def _copy_gb_per_s(device: str, gen, reps: int) -> float:
    """Device-to-device copy of 256 MiB, counting the bytes read and written."""
    import torch

    src = torch.empty(2**28, dtype=torch.uint8, device=device).random_(generator=gen)
    dst = torch.empty_like(src)
    return 2 * src.numel() / (_median_ms(lambda: dst.copy_(src), reps) / 1e3) / 1e9


def _low_precision_rates(rand, n: int, reps: int) -> dict[str, float]:
    """float8 (``torch._scaled_mm``) and int8 (``torch._int_mm``) rates, where this GPU and torch run them."""
    import torch

    rates, flops = {}, 2.0 * n**3
    try:
        x, y = rand(n, n).to(torch.float8_e4m3fn), rand(n, n).to(torch.float8_e4m3fn).t()
        one = torch.ones((), device=x.device)
        rates["float8"] = flops / (_median_ms(lambda: torch._scaled_mm(x, y, one, one, out_dtype=torch.bfloat16),
                                              reps) / 1e3) / 1e12
    except (RuntimeError, AttributeError, TypeError):
        pass  # no float8 matmul on this GPU
    try:
        x, y = (rand(n, n) * 40).to(torch.int8), (rand(n, n) * 40).to(torch.int8)
        rates["int8"] = flops / (_median_ms(lambda: torch._int_mm(x, y), reps) / 1e3) / 1e12
    except (RuntimeError, AttributeError):
        pass
    return rates


def _median_ms(fn, reps: int) -> float:
    import torch

    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)
