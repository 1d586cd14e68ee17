"""Timing on the GPU (run on the GPU machine): profiler device time per launch, extern kernels attributed
to their call, isolated kernel times, the gap, CUDA-graph modes, the roofline, and a training step whose
backward is timed on recreated inputs in a separate process."""

import pytest
import torch

import kernelviz
import zoo
from conftest import FIXTURES

pytestmark = pytest.mark.gpu


def _timed_or_marked(cap):
    for launch in cap.launches:
        assert launch.timing is not None and (launch.timing.in_graph_ms or launch.timing.error), (
            launch.name, [g.warnings for g in cap.graphs])


def test_mlp_launches_and_kernels_are_timed_on_cuda():
    torch._dynamo.reset()
    model = zoo.make_mlp("cuda")
    x = torch.randn(4096, 32, device="cuda")
    params = [p.detach().clone() for p in model.parameters()]
    rng = torch.cuda.get_rng_state()
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        out = torch.compile(model)(x)
    assert torch.equal(rng, torch.cuda.get_rng_state())
    assert all(torch.equal(a, b) for a, b in zip(params, model.parameters()))
    (graph,) = cap.graphs
    assert graph.timed_on == "user tensors" and graph.warnings == []
    assert cap.peaks.source.startswith("datasheet: " + " ".join(torch.cuda.get_device_name().split()[:2]))  # H100, H200
    for launch in graph.launches:
        t = launch.timing
        assert t.unit == "gpu" and t.in_graph_ms > 0 and t.device_kernels, launch.name
        assert t.bytes and t.bytes_args and t.gb_per_s > 0 and t.flushed_ms > 0
        assert t.bound in ("memory", "compute", "latency")
        assert t.pct_peak_bw is None or 0 < t.pct_peak_bw <= 100
    mm = next(launch for launch in graph.launches if launch.op and "mm" in launch.op)
    assert mm.timing.flops > 0 and mm.timing.tflop_per_s > 0 and mm.timing.dtype == "float32"
    assert not any(name.startswith("triton_") for name in mm.timing.device_kernels)  # cuBLAS, by correlation
    for launch in graph.launches:
        if launch.kernel_name:
            assert launch.timing.device_kernels == [launch.kernel_name]
            assert launch.timing.grid > 0
    for kernel in graph.kernels:
        t = kernel.timing
        assert t.isolated_ms > 0 and t.error is None and t.samples >= 3
        assert t.config["num_warps"] >= 1 and t.num_regs > 0 and t.num_spills is not None
    launched = sum(launch.timing.in_graph_ms for launch in graph.launches)
    assert graph.gap_ms >= 0 and abs(launched + graph.gap_ms - graph.gpu_busy_ms) <= 0.02 * graph.gpu_busy_ms
    torch.testing.assert_close(torch.compile(model)(x), out)


def test_training_step_backward_timed_on_kept_tensors():
    torch._dynamo.reset()
    model = zoo.make_mlp("cuda")
    x, target = torch.randn(256, 32, device="cuda"), torch.randint(0, 32, (256,), device="cuda")
    with kernelviz.capture(bench=True) as cap:
        torch.compile(zoo.training_step)(model, x, target)
    assert [g.timed_on for g in cap.graphs] == ["user tensors", "user tensors"]
    assert all(launch.timing.in_graph_ms > 0 for launch in cap.launches)


def test_transformer_training_step_with_dropout_and_sdpa_is_timed_after_the_block():
    """The backward's philox seed and offset are CPU scalars in the run (the code says cuda:0): recorded
    from the run, they are recreated on the CPU with their values, and nothing crashes."""
    torch._dynamo.reset()
    pytest.importorskip("transformers")
    step = zoo.gpt2_training_step()
    with kernelviz.capture() as cap:
        step()
    cap.bench(progress=False)  # after the block: the backward's saved tensors are gone
    _timed_or_marked(cap)
    backward = [g for g in cap.graphs if g.kind == "backward" and any("attention" in (x.op or "") for x in g.launches)]
    assert backward, [g.id for g in cap.graphs]
    for graph in backward:
        assert graph.timed_on == "recreated inputs" and graph.warnings == [], graph.warnings
        seeds = [s for s in graph.inputs if s.shape == [] and s.dtype == "int64"]
        assert seeds and all(s.device == "cpu" and s.values for s in seeds)
        assert all(launch.timing.in_graph_ms > 0 and launch.timing.error is None for launch in graph.launches)
    assert any(g.timed_on == "user tensors" for g in cap.graphs)  # the forward, on the live parameters


def test_reduce_overhead_graph_timed_in_graph_alone_and_as_cuda_graph_replay():
    torch._dynamo.reset()
    model = zoo.make_mlp("cuda")
    x = torch.randn(4096, 32, device="cuda")
    compiled = torch.compile(model, mode="reduce-overhead")
    with torch.no_grad(), kernelviz.capture() as cap:
        for _ in range(3):
            out = compiled(x)
    kept = out.clone()
    with torch.no_grad():
        cap.bench(progress=False)
    (graph,) = cap.graphs
    assert "def partition_0(args):" in graph.code and graph.warnings == []
    assert graph.timed_on == "user tensors" and graph.cudagraph_ms > 0 and graph.gpu_busy_ms > 0
    assert all(launch.timing.in_graph_ms > 0 and launch.timing.flushed_ms > 0 for launch in graph.launches)
    assert all(kernel.timing.isolated_ms > 0 for kernel in graph.kernels)
    assert torch.equal(out, kept)  # the user's CUDA-graph output was not overwritten by a replay


def test_loaded_reduce_overhead_code_is_timed_in_a_separate_process():
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "reduce_overhead_0.py")
    cap.bench(progress=False)
    (graph,) = cap.graphs
    assert graph.timed_on == "recreated inputs" and graph.warnings == [] and graph.cudagraph_ms > 0
    assert all(launch.timing.in_graph_ms > 0 for launch in graph.launches)


def test_bf16_matmul_is_compute_bound_between_50_and_100_percent_of_peak():
    torch._dynamo.reset()
    a, b = (torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16) for _ in range(2))
    with kernelviz.capture(bench=True) as cap:
        torch.compile(torch.mm)(a, b)
    (mm,) = cap.launches
    t = mm.timing
    assert t is not None, cap.graphs[0].warnings
    assert t.dtype == "bfloat16" and t.flops == 2 * 8192**3 and t.bound == "compute"
    assert 50 < t.pct_peak_flops <= 100, t
    peaks = kernelviz.calibrate()
    assert peaks.source.startswith("measured by kernelviz.calibrate() on NVIDIA")
    sheet = cap.peaks
    assert 0.3 * sheet.dram_gb_per_s < peaks.dram_gb_per_s <= 1.05 * sheet.dram_gb_per_s
    assert 0.3 * sheet.tflops["bfloat16"] < peaks.tflops["bfloat16"] <= 1.05 * sheet.tflops["bfloat16"]
    cap.bench(peaks=peaks, progress=False)
    assert cap.peaks is peaks and t.pct_peak_flops <= cap.launches[0].timing.pct_peak_flops <= 100


@pytest.mark.parametrize("numel, bound", [(1024, "latency"), (2**27, "memory")])
def test_pointwise_is_memory_or_latency_bound_by_size(numel, bound):
    torch._dynamo.reset()
    x = torch.randn(numel, device="cuda")
    with kernelviz.capture(bench=True) as cap:
        torch.compile(zoo.pointwise)(x)
    (launch,) = cap.launches
    assert launch.timing.bound == bound
    if bound == "memory":
        assert 30 < launch.timing.pct_peak_bw <= 100 and not launch.timing.cache_resident


def test_out_of_memory_while_timing_is_reported_and_freed():
    torch._dynamo.reset()
    x = torch.randn(64 * 2**20, device="cuda")  # 256 MiB; call() needs as much again
    with kernelviz.capture() as cap:
        torch.compile(zoo.pointwise)(x)
    torch.cuda.empty_cache()
    hog = torch.empty(int(torch.cuda.mem_get_info()[0] - 64 * 2**20), dtype=torch.uint8, device="cuda")
    try:
        cap.bench(progress=False)
    finally:
        del hog
    (warning,) = cap.graphs[0].warnings
    assert warning == "not timed: out of memory while timing; what the timing took has been freed"
    torch.cuda.empty_cache()
    cap.bench(progress=False)  # with the memory back, the same capture times
    assert cap.launches[0].timing.in_graph_ms > 0 and cap.graphs[0].warnings == []
