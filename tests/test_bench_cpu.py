"""Timing on the CPU: every launch and kernel gets a wall-clock time, and timing changes nothing."""

import gc

import pytest
import torch

import kernelviz
import zoo
from conftest import FIXTURES
from kernelviz.bench.timers import CpuTimer

pytestmark = pytest.mark.usefixtures("fresh_dynamo")




def _state(model):
    return [p.detach().clone() for p in model.parameters()] + [p.grad.clone() for p in model.parameters()]


def test_capture_with_bench_times_every_launch_on_the_user_tensors():
    model = zoo.make_mlp()
    x, target = torch.randn(16, 32), torch.randint(0, 32, (16,))
    step = torch.compile(zoo.training_step)
    with kernelviz.capture(bench=True) as cap:
        step(model, x, target)
    assert [g.timed_on for g in cap.graphs] == ["user tensors", "user tensors"]
    for graph in cap.graphs:
        assert graph.warnings == [] and graph.gpu_busy_ms > 0
        for launch in graph.launches:
            assert launch.timing.unit == "cpu" and launch.timing.in_graph_ms > 0, launch.name
        assert abs(sum(launch.timing.share for launch in graph.launches) - 1) < 1e-6
        for kernel in graph.kernels:
            assert kernel.timing.isolated_ms > 0 and kernel.timing.error is None
    mm = next(launch for launch in cap.graphs[0].launches if launch.op == "extern_kernels.addmm")
    assert mm.timing.flops == 2 * 16 * 32 * 64  # x @ W1.T, counted by torch's FlopCounterMode
    assert mm.timing.bytes > 0 and mm.timing.gb_per_s > 0
    assert kernelviz.Capture.from_json(cap.to_json()) == cap


def test_timing_changes_no_tensor_no_rng_and_no_later_result():
    model = zoo.make_mlp()
    x, target = torch.randn(16, 32), torch.randint(0, 32, (16,))
    step = torch.compile(zoo.training_step)
    with kernelviz.capture() as cap:
        loss = step(model, x, target)
    before, rng = _state(model), torch.get_rng_state()
    cap.bench(progress=False)
    assert all(torch.equal(a, b) for a, b in zip(before, _state(model)))
    assert torch.equal(rng, torch.get_rng_state())
    model.zero_grad()
    again = step(model, x, target)
    assert torch.equal(again, loss)
    assert cap.graphs[0].timed_on == "user tensors"
    assert cap.graphs[1].timed_on == "recreated inputs"  # the backward's saved tensors are gone by now
    assert all(launch.timing.in_graph_ms > 0 for launch in cap.launches)


def test_later_bench_recreates_inputs_that_are_gone():
    x = torch.randn(64, 32)
    with kernelviz.capture() as cap:
        torch.compile(zoo.pointwise)(x)
    del x
    gc.collect()
    cap.bench(progress=False)
    assert cap.graphs[0].timed_on == "recreated inputs"
    assert cap.launches[0].timing.in_graph_ms > 0


@pytest.mark.skipif(not torch.__version__.startswith("2.13"), reason="the CPU fixture's C++ is torch 2.13's")
def test_loaded_cpu_code_is_timed_by_running_it_anew():
    cap = kernelviz.load(FIXTURES / "cpu-torch2.13" / "pointwise_0.py")
    cap.bench(progress=False)
    (graph,) = cap.graphs
    assert graph.timed_on == "recreated inputs" and graph.warnings == []
    assert graph.launches[0].timing.in_graph_ms > 0 and graph.kernels[0].timing.isolated_ms > 0


@pytest.mark.skipif(torch.cuda.is_available(), reason="there is a GPU here")
def test_cuda_graph_without_a_gpu_says_so():
    cap = kernelviz.load(FIXTURES / "cuda-h100-torch2.11" / "pointwise_0.py")
    cap.bench(progress=False)
    assert cap.graphs[0].warnings == ["not timed: no CUDA device here; a CUDA graph needs one to be timed"]
    assert cap.launches[0].timing is None


def test_a_failing_kernel_is_marked_and_the_rest_are_timed():
    def broken():
        raise RuntimeError("launch failed")

    results = CpuTimer(reps=3).isolated({"ok": lambda: sum(range(100)), "bad": broken, "ok2": lambda: None})
    assert results["ok"] > 0 and results["ok2"] >= 0
    assert isinstance(results["bad"], RuntimeError)


def test_magic_bench_flag(tmp_path):
    InteractiveShell = pytest.importorskip("IPython.core.interactiveshell").InteractiveShell

    shell = InteractiveShell.instance()
    try:
        shell.run_cell("%load_ext kernelviz")
        shell.run_cell(f"import sys, torch; sys.path.insert(0, {str(FIXTURES.parent)!r}); import zoo")
        result = shell.run_cell("%%kernelviz --bench -o cap\n"
                                "zoo_out = torch.compile(zoo.reduction)(torch.randn(8, 16))")
        assert result.success
        cap = shell.user_ns["cap"]
        assert cap.launches[0].timing.in_graph_ms > 0 and cap.graphs[0].timed_on == "user tensors"
    finally:
        InteractiveShell.clear_instance()


def test_time_kernels_button_times_and_refreshes_the_panel():
    pytest.importorskip("anywidget")
    from kernelviz.views.widget import CaptureWidget

    with kernelviz.capture() as cap:
        torch.compile(zoo.pointwise)(torch.randn(256))
    widget = CaptureWidget(cap)
    assert widget.payload["graphs"][0]["launches"][0]["timing"] is None
    widget._on_message(widget, {"type": "bench"}, [])  # what the panel's "Time kernels" button sends
    timing = widget.payload["graphs"][0]["launches"][0]["timing"]
    assert timing["unit"] == "cpu" and timing["in_graph_ms"] > 0
    assert widget.payload["graphs"][0]["timed_on"] in ("user tensors", "recreated inputs")
