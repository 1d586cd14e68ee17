"""Roofline arithmetic on known numbers: datasheet peaks, % of peak from flushed times (never above 100),
cache residency, and the memory / compute / latency bound."""

import pytest
import torch

import kernelviz
from conftest import FIXTURES
from kernelviz.bench import roofline
from kernelviz.bench.peaks import DATASHEETS, datasheet, peak_key
from kernelviz.model import AsRun, DevicePeaks, LaunchTiming
from kernelviz.views.text import summary

H100 = datasheet("NVIDIA H100 80GB HBM3")  # the name torch gives the H100 SXM (gpu-facts/facts.json)
N = 8192


@pytest.mark.parametrize("name, sheet, dram, bf16", [
    ("NVIDIA H100 80GB HBM3", "H100 SXM5 80GB", 3350, 989.5),
    ("NVIDIA H100 PCIe", "H100 PCIe 80GB", 2000, 756.5),
    ("NVIDIA H100 NVL", "H100 NVL", 3900, 835.5),
    ("NVIDIA H200", "H200 SXM 141GB", 4800, 989.5),
    ("NVIDIA H200 NVL", "H200 NVL", 4800, 835.5),
    ("NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB", 2039, 312),
    ("NVIDIA A100-SXM4-40GB", "A100 SXM4 40GB", 1555, 312),
    ("NVIDIA A100 80GB PCIe", "A100 PCIe 80GB", 1935, 312),
    ("NVIDIA A100-PCIE-40GB", "A100 PCIe 40GB", 1555, 312),
    ("NVIDIA L4", "L4", 300, 121),
    ("NVIDIA L40S", "L40S", 864, 362.05),
])
def test_datasheet_peaks_by_device_name(name, sheet, dram, bf16):
    peaks = datasheet(name)
    assert peaks.source.startswith(f"datasheet: NVIDIA {sheet}; NVIDIA ")
    assert peaks.dram_gb_per_s == dram and peaks.tflops["bfloat16"] == bf16
    assert peaks.tflops["float32"] < peaks.tflops["tf32"] < peaks.tflops["bfloat16"] <= peaks.tflops["int8"]


def test_every_datasheet_names_its_source_and_unknown_devices_have_none():
    assert all(source.startswith("NVIDIA ") and "datasheet" in source for *_, source in DATASHEETS)
    assert datasheet("NVIDIA GeForce RTX 4090") is None and datasheet(None) is None


def test_float32_work_takes_the_tf32_peak_only_where_torch_allows_tf32():
    saved = torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = False, True
        assert peak_key(torch.float32, "extern_kernels.mm") == "float32"
        assert peak_key(torch.float32, "extern_kernels.convolution") == "tf32"
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved
    assert peak_key(torch.bfloat16) == "bfloat16" and peak_key(torch.float8_e4m3fn) == "float8"
    assert peak_key(torch.int8) == "int8" and peak_key(torch.float64) is None


def test_bf16_matmul_is_compute_bound_at_its_measured_rate():
    flops, nbytes = 2.0 * N**3, 3 * N * N * 2  # read A and B, write C
    t = LaunchTiming(in_graph_ms=1.36, flushed_ms=1.375, flops=flops, bytes=nbytes, dtype="bfloat16")
    roofline.fill(t, H100, sm_count=132)
    assert t.tflop_per_s == pytest.approx(flops / 1.36e-3 / 1e12)
    assert t.pct_peak_flops == pytest.approx(100 * flops / 1.375e-3 / 1e12 / 989.5)  # ~80.8%
    assert 80 < t.pct_peak_flops < 81 and t.bound == "compute" and not t.cache_resident
    assert t.pct_peak_bw == pytest.approx(100 * nbytes / 1.375e-3 / 1e9 / 3350)  # 8.7%: the bytes are few


def test_in_graph_rate_above_dram_peak_is_cache_resident_and_percent_comes_from_the_flushed_time():
    t = LaunchTiming(in_graph_ms=0.1, flushed_ms=0.15, bytes=400_000_000, grid=10_000)
    roofline.fill(t, H100, sm_count=132)
    assert t.gb_per_s == pytest.approx(4000) and t.cache_resident
    assert t.pct_peak_bw == pytest.approx(100 * 400e6 / 0.15e-3 / 1e9 / 3350)  # 79.6%, not 119%
    assert t.bound is None  # no FLOPs and no generated kernel to tell by


def test_a_percent_above_100_is_capped_and_says_why():
    t = LaunchTiming(in_graph_ms=0.1, flushed_ms=0.1, bytes=500_000_000)  # 5000 GB/s measured after a flush
    roofline.fill(t, H100)
    assert t.pct_peak_bw == 100.0
    assert t.note.startswith("measured 149% of the DRAM bandwidth peak (the byte count is more than")


@pytest.mark.parametrize("grid, flushed_ms, bound", [(64, 0.050, "latency"), (10_000, 0.004, "latency"),
                                                     (10_000, 0.050, "memory"), (None, 0.050, "memory")])
def test_latency_bound_when_the_launch_cannot_fill_the_device(grid, flushed_ms, bound):
    kernel = next(k for k in kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "pointwise_0.py").graphs[0].kernels)
    t = LaunchTiming(in_graph_ms=flushed_ms, flushed_ms=flushed_ms, bytes=1_000_000, grid=grid)
    roofline.fill(t, H100, sm_count=132, kernel=kernel)
    assert t.bound == bound


def test_no_peaks_no_percent_and_no_bound_by_ridge():
    t = LaunchTiming(in_graph_ms=1.0, flushed_ms=1.0, bytes=10**9, flops=1e12, dtype="bfloat16")
    roofline.fill(t, DevicePeaks(device="x", source="unknown GPU"))
    assert t.gb_per_s == pytest.approx(1000) and t.pct_peak_bw is None and t.pct_peak_flops is None
    assert t.bound is None


def test_bytes_of_a_broadcast_view_count_its_memory_once():
    base = torch.zeros(4, 1, 128, 128)
    view = base.expand(4, 4, 128, 128)  # stride 0 on dim 1, as Inductor's reinterpret_tensor of a mask
    assert roofline.tensor_bytes(view) == base.numel() * 4
    assert roofline.tensor_bytes(torch.zeros(3, 5)[:, 1]) == 3 * 4
    assert roofline.tensor_bytes(torch.zeros(0, 5)) == 0


def test_summary_says_what_the_graph_was_timed_on_and_shows_the_gap_row():
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "pointwise_0.py")
    graph = cap.graphs[0]
    graph.timed_on, graph.gpu_busy_ms, graph.gap_ms = "recreated inputs", 0.010, 0.002
    graph.made_up_values = ["arg0_1"]
    graph.launches[0].timing = LaunchTiming(in_graph_ms=0.008, flushed_ms=0.009, bytes=16_000_000, grid=4096,
                                            share=0.8)
    roofline.fill(graph.launches[0].timing, H100, sm_count=132, kernel=graph.kernels[0])
    lines = summary(cap, 140).splitlines()
    assert "  timed on recreated inputs (made-up values for arg0_1)" in lines
    assert lines[-3].split() == ["#", "launch", "kind", "in-graph", "ms", "share", "bound", "name"]
    assert lines[-2] == ("    0  add · mul · relu · sigmoid · sub _0  triton       0.0080  80.0%  memory  "
                         "triton_poi_fused_add_mul_relu_sigmoid_sub_0")
    assert lines[-1].split() == ["gap", "(between", "launches)", "0.0020"]
    assert "timed on recreated inputs (made-up values for arg0_1) · GPU busy time 10 µs · gap 2 µs" in cap.to_html()


def test_each_line_of_figures_has_one_unit_and_words_of_its_device():
    """A CPU graph's busy time is call()'s wall time (no GPU in its words); a line's figures share one unit."""
    cap = kernelviz.load(FIXTURES / "cpu-torch2.13" / "mlp_0.py")
    graph = cap.graphs[0]
    graph.timed_on, graph.gpu_busy_ms, graph.gap_ms = "user tensors", 0.045, 0.0021
    graph.launches[0].timing = LaunchTiming(in_graph_ms=0.0429, unit="cpu")
    graph.as_run = AsRun(unit="cpu", plain_ms=0.0371, runs=50, kernels_ms=34.8)
    html = cap.to_html()
    assert "timed on user tensors · call() wall time 45 µs · gap 2.1 µs" in html
    assert "as it runs: plain call() 0.0371 ms (wall clock, 50 runs) · kernels 34.8 ms" in html
    assert "as it runs: plain call() 0.0371 ms (wall clock, 50 runs) · kernels 34.8 ms" in summary(cap, 140)
    assert "call() wall time not covered by launches: the wrapper&#x27;s own work between kernels" in html
    assert "GPU" not in summary(cap, 140) and "GPU busy time not covered" not in html and "· GPU busy" not in html


def test_calibrate_without_a_gpu_says_so_in_one_line():
    if torch.cuda.is_available():
        pytest.skip("there is a GPU here")
    with pytest.raises(RuntimeError, match="^kernelviz.calibrate\\(\\) needs a CUDA GPU; none is visible here$"):
        kernelviz.calibrate()
