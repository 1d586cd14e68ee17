"""cpp_wrapper on the GPU (run on the GPU machine): a small transformer captured with and without
``torch._inductor.config.cpp_wrapper`` gives the same model and its launches are timed; a chain of tiny launches
compiled both ways is launch-bound, and the finding measures what cpp_wrapper saves beside the CUDA-graph replay.

With ``KV_CPP_WRAPPER_FIXTURES=<folder>`` the modules' code is written there as ``<name>_<i>_cpp.py`` and
``<name>_<i>_python.py``: copied into tests/cpp_wrapper_fixtures/cuda-<gpu>-torch<version>/, the CPU parser tests
(tests/test_cpp_wrapper_parse.py) read them as they read the CPU pairs."""

import os
from pathlib import Path

import pytest
import torch
from test_cpp_wrapper_capture import Block, _aten, _launches, _step

import kernelviz
import zoo
from kernelviz.names import aten_op
from kernelviz.units import ms_text

pytestmark = [pytest.mark.gpu, pytest.mark.filterwarnings("ignore::UserWarning")]


def _keep(cap, name):
    folder = os.environ.get("KV_CPP_WRAPPER_FIXTURES")
    if folder:
        for wrapper, suffix in (("cpp", "cpp"), ("python", "python")):
            for i, graph in enumerate(g for g in cap.graphs if g.wrapper == wrapper):
                Path(folder, f"{name}_{i}_{suffix}.py").write_text(graph.code)


def _both(run, name):
    """Captures of ``run()`` without and with cpp_wrapper, each compiled afresh."""
    found = []
    for cpp in (False, True):
        torch._dynamo.reset()
        with torch._inductor.config.patch(cpp_wrapper=cpp), kernelviz.capture(bench=name == "block") as cap:
            result = run()
        _keep(cap, name)
        found.append((cap, result))
    torch._dynamo.reset()
    return found


def test_small_transformer_same_model_and_timed():
    _same_model("block")


def _same_model(name):
    torch.manual_seed(0)
    model, x = Block(64).cuda(), torch.randn(4, 32, 64, device="cuda")
    if name == "block":
        run = lambda: torch.compile(model)(x).detach()  # noqa: E731
    else:
        run = lambda: _step(torch.compile(model), x)  # noqa: E731
    (python, a), (cpp, b) = _both(run, name)
    torch.testing.assert_close(a, b, rtol=1e-3, atol=1e-3)
    assert [(g.kind, g.device, g.wrapper) for g in cpp.graphs] == [(g.kind, "cuda", "cpp") for g in python.graphs]
    for p, c in zip(python.graphs, cpp.graphs):
        print(name, c.id, [launch.name for launch in c.launches], c.warnings)
        assert {k.name for k in c.kernels} == {k.name for k in p.kernels}
        assert _launches(c) == _launches(p) and _aten(c) == _aten(p)
        for kernel in c.kernels:
            if kernel.kind.startswith("triton"):
                assert "@triton.jit" in kernel.source and kernel.triton_meta, kernel.name
            assert kernel.source_nodes == p.kernel(kernel.name).source_nodes
        if name == "block":
            assert c.as_run is not None and c.as_run.plain_ms > 0, c.warnings
            for launch in c.launches:
                assert launch.timing is not None and launch.timing.in_graph_ms > 0, launch.name
                if launch.kernel_name:
                    assert launch.kernel_name in " ".join(launch.timing.device_kernels)
            print(f"{name}: as run, Python call() {p.as_run.plain_ms:.4f} ms, C++ wrapper {c.as_run.plain_ms:.4f} ms;"
                  f" busy {p.gpu_busy_ms:.4f} / {c.gpu_busy_ms:.4f} ms")


def test_tiny_launches_cpp_wrapper_saving_beside_cuda_graph():
    x, w = torch.randn(16, 16, device="cuda"), torch.randn(16, 16, device="cuda") / 4
    torch._dynamo.reset()
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(zoo.tiny_chain)(x, w)
        torch._dynamo.reset()
        torch.compile(zoo.tiny_chain, options={"cpp_wrapper": True})(x, w)
    torch._dynamo.reset()
    _keep(cap, "tiny_chain")
    python, cpp = sorted(cap.graphs, key=lambda g: g.wrapper == "cpp")
    assert (python.wrapper, cpp.wrapper) == ("python", "cpp")
    assert [aten_op(launch.name) for launch in cpp.launches] == [aten_op(launch.name) for launch in python.launches]
    finding = next(f for f in cap.findings if f.rule == "launch-bound" and f.graph == python.id)
    print("python:", python.as_run, "\ncpp:", cpp.as_run, "\nfinding:", finding.ms, finding.how)
    assert "CUDA graph" in finding.how and "cpp_wrapper measured" in finding.how
    saving = python.as_run.plain_ms - cpp.as_run.plain_ms
    assert f"= {ms_text(saving)}" in finding.how


def test_small_transformer_training_step_same_model():
    _same_model("train")
