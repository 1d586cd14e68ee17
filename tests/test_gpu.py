"""Live captures on CUDA (run on the GPU machine): Triton kernels carry Inductor's own metadata,
and it equals the comments Inductor writes above each kernel."""

import pytest
import torch

import kernelviz
import zoo

pytestmark = [pytest.mark.gpu, pytest.mark.usefixtures("fresh_dynamo")]




def _assert_live_equals_comments(capture):
    assert capture.graphs and all(g.device == "cuda" for g in capture.graphs)
    for graph in capture.graphs:
        from_comments = {k.name: k for k in kernelviz.load(graph.code).graphs[0].kernels}
        for kernel in graph.kernels:
            assert kernel.kind in ("triton", "triton_template")
            assert kernel.metadata_from == "inductor", kernel.name
            written = from_comments[kernel.name]
            assert written.metadata_from == "comment"
            assert kernel.source_nodes == written.source_nodes
            assert kernel.original_aten == written.original_aten
            assert kernel.node_mapping == written.node_mapping
            assert kernel.fragment == written.fragment
            assert kernel.triton_meta["signature"] and kernel.kernel_type


def test_mlp_on_cuda():
    model = zoo.make_mlp("cuda")
    x = torch.randn(64, 32, device="cuda")
    with torch.no_grad(), kernelviz.capture() as cap:
        out = torch.compile(model)(x)
    torch.testing.assert_close(out, model(x), rtol=1e-4, atol=1e-4)
    _assert_live_equals_comments(cap)
    assert cap.graphs[0].compile_s > 0
    ops = [launch.op for launch in cap.graphs[0].launches if launch.op]
    assert any(op.startswith("extern_kernels.") for op in ops)
    assert any("aten.gelu" in k.original_aten for k in cap.kernels)
    assert any(loc.file == zoo.__file__ for k in cap.kernels for loc in k.locations) or all(
        not k.locations for k in cap.kernels)


def test_training_step_on_cuda():
    model = zoo.make_mlp("cuda")
    x, target = torch.randn(64, 32, device="cuda"), torch.randint(0, 32, (64,), device="cuda")
    with kernelviz.capture() as cap:
        torch.compile(zoo.training_step)(model, x, target)
    assert [g.kind for g in cap.graphs] == ["forward", "backward"]
    _assert_live_equals_comments(cap)
    assert model[0].weight.grad is not None


def test_layer_norm_relu_on_cuda_has_user_lines():
    x = torch.randn(128, 256, device="cuda")
    w, b = torch.randn(256, device="cuda"), torch.randn(256, device="cuda")
    with kernelviz.capture() as cap:
        torch.compile(zoo.layer_norm_relu)(x, w, b)
    _assert_live_equals_comments(cap)
    (kernel,) = cap.kernels
    assert "aten.native_layer_norm" in kernel.original_aten
    assert any(loc.file == zoo.__file__ and "layer_norm" in loc.code for loc in kernel.locations)
