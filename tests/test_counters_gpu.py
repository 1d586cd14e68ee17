"""Hardware counters from Nsight Compute on the GPU (run on the GPU machine, with ncu): measured DRAM bytes
of a copy, the hottest line of a kernel, a matmul's compute throughput, cuBLAS launches measured.
``KV_COUNTERS_FIXTURES=DIR`` also saves the captures there (the panel's browser tests read one)."""

import os
from pathlib import Path

import pytest
import torch

import kernelviz

triton = pytest.importorskip("triton", reason="needs Triton (a CUDA build of torch): run on the GPU machine")
tl = triton.language

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_dynamo")]


@triton.jit
def expensive(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask)
    for _ in range(64):
        v = tl.sin(tl.exp(tl.sin(tl.exp(v * 0.001))))  # the expensive line
    tl.store(y_ptr + offs, v, mask=mask)


def _measured(fn, *args, **options):
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        fn(*args)
    cap.counters(progress=False, **options)
    return cap


def _save(cap, name):
    if os.environ.get("KV_COUNTERS_FIXTURES"):
        cap.save(Path(os.environ["KV_COUNTERS_FIXTURES"]) / name)


def _counted(cap, name_part):
    found = [launch for launch in cap.launches if name_part in launch.name and launch.counters is not None]
    assert found, [(launch.name, launch.counters) for launch in cap.launches]
    assert found[0].counters.error is None, found[0].counters.error
    return found[0]


def test_copy_moves_the_bytes_it_copies():
    x = torch.randn(2**25, device="cuda")  # 128 MB in, 128 MB out: far beyond L2
    cap = _measured(torch.compile(lambda t: t * 2.0), x)
    launch = _counted(cap, "triton")
    c = launch.counters
    moved = 2 * x.numel() * x.element_size()
    assert abs(c.dram_bytes - moved) <= 0.1 * moved, (c.dram_read_bytes, c.dram_write_bytes, moved)
    assert launch.timing.bytes == c.dram_bytes and launch.timing.bytes_args == moved  # the count stays beside it
    assert 0 < c.duration_ms and 0 < c.dram_pct <= 100 and c.stalls and c.kernels == [launch.name]
    print(f"copy: measured {c.dram_bytes} B of {moved} B moved, estimate {launch.timing.bytes_estimate} B")


def _run_expensive(x):
    y = torch.empty_like(x)
    expensive[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
    return y


def test_the_expensive_line_is_the_hottest():
    x = torch.randn(2**22, device="cuda")
    cap = _measured(torch.compile(_run_expensive), x)
    _save(cap, "counters_hot_line.json")
    launch = _counted(cap, "expensive")
    kernel = cap.graphs[0].kernel(launch.kernel_name)
    lines = kernel.source.splitlines()
    hottest = max(launch.counters.lines, key=lambda line: line.stall_samples)
    assert "tl.sin(tl.exp(" in lines[hottest.line - 1], (hottest, lines[hottest.line - 1])
    assert hottest.instructions > 0 and launch.counters.sass and max(s.stall_samples for s in launch.counters.sass) > 0
    print(f"hottest line {hottest.line}: {lines[hottest.line - 1].strip()} ({hottest.stall_samples} samples, "
          f"{hottest.top_stall})")


def test_bf16_matmul_runs_near_the_compute_ceiling():
    a, b = (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    cap = _measured(torch.compile(lambda p, q: p @ q), a, b)
    launch = _counted(cap, "mm")
    assert launch.counters.sm_pct > 50, launch.counters
    c = launch.counters
    print(f"bf16 matmul: SM throughput {c.sm_pct:.1f}% of speed of light, kernels {c.kernels}")


def test_cublas_extern_call_gets_counters_with_progress_per_launch():
    a, b = torch.randn(2048, 2048, device="cuda"), torch.randn(2048, 2048, device="cuda")
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(lambda p, q: torch.relu(p @ q) + 1.0)(a, b)
    seen = []
    cap.counters(progress=lambda done, total, label: seen.append((done, total, label)))
    _save(cap, "counters_mm_relu.json")
    extern = _counted(cap, "mm")
    assert extern.kernel_name is None and extern.counters.kernels
    assert all("triton" not in k for k in extern.counters.kernels)
    assert extern.counters.dram_bytes and extern.counters.findings
    triton_launch = _counted(cap, "triton")
    assert triton_launch.counters.lines
    entered = [label for _, _, label in seen if label.startswith("measuring")]
    assert len(entered) == len(cap.launches) == 2, seen
    again = kernelviz.Capture.from_json(cap.to_json())
    assert again.launches[0].counters == cap.launches[0].counters
