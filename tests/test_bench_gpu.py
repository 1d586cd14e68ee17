"""Timing on the GPU (run on the GPU machine): profiler device time per launch, extern kernels
attributed to their call, isolated kernel times and compiled-binary facts."""

import pytest
import torch

import kernelviz
import zoo

pytestmark = pytest.mark.gpu


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
    for launch in graph.launches:
        t = launch.timing
        assert t.unit == "gpu" and t.in_graph_ms > 0 and t.device_kernels, launch.name
        assert t.bytes and t.gb_per_s > 0
    mm = next(launch for launch in graph.launches if launch.op and "mm" in launch.op)
    assert mm.timing.flops > 0 and mm.timing.tflop_per_s > 0
    assert not any(name.startswith("triton_") for name in mm.timing.device_kernels)  # cuBLAS, by correlation
    for launch in graph.launches:
        if launch.kernel_name:
            assert launch.timing.device_kernels == [launch.kernel_name]
    for kernel in graph.kernels:
        t = kernel.timing
        assert t.isolated_ms > 0 and t.error is None
        assert t.config["num_warps"] >= 1 and t.num_regs > 0 and t.num_spills is not None
    busy = graph.gpu_busy_ms
    assert 0 < sum(launch.timing.in_graph_ms for launch in graph.launches) <= busy * 1.1
    torch.testing.assert_close(torch.compile(model)(x), out)


def test_training_step_backward_timed_on_kept_tensors():
    torch._dynamo.reset()
    model = zoo.make_mlp("cuda")
    x, target = torch.randn(256, 32, device="cuda"), torch.randint(0, 32, (256,), device="cuda")
    with kernelviz.capture(bench=True) as cap:
        torch.compile(zoo.training_step)(model, x, target)
    assert [g.timed_on for g in cap.graphs] == ["user tensors", "user tensors"]
    assert all(launch.timing.in_graph_ms > 0 for launch in cap.launches)


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
    cap.graphs[0].warnings.clear()
    cap.bench(progress=False)  # with the memory back, the same capture times
    assert cap.launches[0].timing.in_graph_ms > 0
