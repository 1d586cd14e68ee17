"""Live captures under cpp_wrapper on the CPU give the model the Python wrapper gives: a transformer block's
inference and a training step captured with and without ``torch._inductor.config.cpp_wrapper``; then both
wrappers of one graph timed in one capture, and the finding that measures what cpp_wrapper saves."""

import os

import pytest
import torch

import kernelviz
from kernelviz.advice.graphs import graph_findings, wrapper_twins
from kernelviz.names import aten_op

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


class Block(torch.nn.Module):
    """Layer norm, attention and an MLP: C++ kernels and extern calls (addmm, CPU flash attention)."""

    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.ln, self.qkv, self.o = torch.nn.LayerNorm(d), torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d)
        self.fc1, self.fc2 = torch.nn.Linear(d, 4 * d), torch.nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (part.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for part in self.qkv(self.ln(x)).split(d, -1))
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(x)))


def _step(model, x):
    loss = model(x).square().mean()
    loss.backward()
    return loss.detach()


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    """(inference, training step) captures and results, without and with cpp_wrapper, each compiled afresh."""
    old = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("inductor-cache"))
    found = {}
    try:
        for cpp in (False, True):
            torch.manual_seed(0)
            model, x = Block(), torch.randn(2, 8, 32)
            torch._dynamo.reset()
            with torch._inductor.config.patch(cpp_wrapper=cpp):
                with torch.no_grad(), kernelviz.capture() as inference:
                    out = torch.compile(model)(x)
                torch._dynamo.reset()
                with kernelviz.capture() as train:
                    loss = _step(torch.compile(model), x)
            found[cpp] = (inference, train, out, loss, [p.grad.clone() for p in model.parameters()])
        torch._dynamo.reset()  # the same graph again: from Inductor's cache, its metadata from kernelviz's store
        with torch._inductor.config.patch(cpp_wrapper=True), torch.no_grad(), kernelviz.capture() as again:
            torch.compile(model)(x)
        found["cache hit"] = again
    finally:
        torch._dynamo.reset()
        if old is None:
            os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
        else:
            os.environ["TORCHINDUCTOR_CACHE_DIR"] = old
    return found


def _launches(graph):
    """The launch sequence, externs by their op (``extern_kernels.addmm`` and ``aoti_torch_cpu_addmm_out``: addmm)."""
    return [launch.kernel_name or aten_op(launch.op) for launch in graph.launches]


def _aten(graph):
    return {op for kernel in graph.kernels for op in kernel.original_aten} | {
        op for launch in graph.launches for op in launch.original_aten}


@pytest.mark.parametrize("which", [0, 1], ids=["inference", "training step"])
def test_same_model_with_and_without_cpp_wrapper(captures, which):
    python, cpp = captures[False][which], captures[True][which]
    assert [(g.kind, g.wrapper) for g in cpp.graphs] == [(g.kind, "cpp") for g in python.graphs]
    assert len(cpp.graphs) == (1 if which == 0 else 2)
    assert not [w for g in cpp.graphs for w in g.warnings] and not cpp.warnings
    for p, c in zip(python.graphs, cpp.graphs):
        assert c.device == "cpu" and c.cache == "compiled"
        assert {k.name for k in c.kernels} == {k.name for k in p.kernels} and c.kernels
        assert _launches(c) == _launches(p)
        assert _aten(c) == _aten(p) and "aten.addmm" in _aten(c) | _aten(p) or "aten.mm" in _aten(c)
        assert [launch.original_aten for launch in c.launches] == [launch.original_aten for launch in p.launches]
        assert [launch.source_nodes for launch in c.launches] == [launch.source_nodes for launch in p.launches]
        for kernel in c.kernels:
            twin = p.kernel(kernel.name)
            assert kernel.metadata_from == "inductor" and kernel.source_nodes == twin.source_nodes
            assert kernel.original_aten == twin.original_aten and kernel.fragment == twin.fragment
            assert [(a.file, a.line) for a in kernel.locations] == [(b.file, b.line) for b in twin.locations]
            assert any(loc.file == __file__ for loc in kernel.locations)
        assert [(e.kind, e.buffer) for e in c.memory if e.kind == "reuse"] == \
            [(e.kind, e.buffer) for e in p.memory if e.kind == "reuse"]
        assert {e.buffer for e in c.memory if e.kind == "alloc"} >= {e.buffer for e in p.memory if e.kind == "alloc"}
        assert [(s.name, s.shape, s.dtype, s.recorded) for s in c.inputs] == \
            [(s.name, s.shape, s.dtype, s.recorded) for s in p.inputs]
    out = 2 if which == 0 else 3
    for a, b in zip(captures[False][out:], captures[True][out:]):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


def test_a_cache_hit_reads_as_the_compile(captures):
    (compiled,), (hit,) = captures[True][0].graphs, captures["cache hit"].graphs
    assert (compiled.cache, hit.cache) == ("compiled", "fx_cache_hit")
    assert (hit.id, hit.kind, hit.wrapper, hit.code) == (compiled.id, compiled.kind, "cpp", compiled.code)
    assert [(k.name, k.source_nodes, k.fragment, k.metadata_from) for k in hit.kernels] == \
        [(k.name, k.source_nodes, k.fragment, k.metadata_from) for k in compiled.kernels]


def test_timing_and_the_cpp_wrapper_saving(tmp_path, monkeypatch):
    """Both wrappers of one graph in one capture, timed: each launch in the graph and as run; the finding's line
    says what cpp_wrapper saves, measured as the difference of the two graphs' plain times."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path))
    torch._dynamo.reset()
    torch.manual_seed(0)
    x, w = torch.randn(64, 128), torch.randn(128, 128)

    def f(x, w):
        return torch.nn.functional.gelu(x @ w).sum(-1) + x.softmax(-1).mean()

    try:
        with kernelviz.capture(bench=True) as cap:
            plain = torch.compile(f)(x, w)
            torch._dynamo.reset()
            cpp = torch.compile(f, options={"cpp_wrapper": True})(x, w)
    finally:
        torch._dynamo.reset()
    torch.testing.assert_close(plain, cpp)
    python, native = sorted(cap.graphs, key=lambda g: g.wrapper == "cpp")
    assert (python.wrapper, native.wrapper) == ("python", "cpp")
    assert native.timed_on == "user tensors" and native.as_run is not None and native.as_run.plain_ms > 0
    for launch in native.launches:
        assert launch.timing is not None and launch.timing.unit == "cpu" and launch.timing.in_graph_ms > 0
    assert sum(launch.timing.in_graph_ms for launch in native.launches) <= native.gpu_busy_ms
    assert any("no launch timed alone" in w for w in native.warnings)
    assert wrapper_twins(cap.graphs) == {python.id: native, native.id: python}
    for graph, twin in ((python, native), (native, python)):
        graph.as_run.kernels_ms = 0.0  # a graph all overhead: the finding fires, with its cpp_wrapper line
        (finding,) = graph_findings(graph, twin)
        saving = python.as_run.plain_ms - native.as_run.plain_ms
        assert "cpp_wrapper measured" in finding.how and "CUDA graphs do not apply on the CPU" in finding.how
        if saving > 0:
            assert finding.ms == pytest.approx(saving)
    (alone,) = graph_findings(python, None)
    assert "cpp_wrapper's saving not measured" in alone.how
