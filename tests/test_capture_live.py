"""Live captures on the CPU: every graph is seen, C++ kernels carry Inductor's own metadata,
and the capture changes nothing the user sees."""

import gc
import uuid
import weakref

import pytest
import torch
from torch._dynamo.utils import counters

import kernelviz
import zoo

pytestmark = [pytest.mark.filterwarnings("ignore::UserWarning"),
              pytest.mark.usefixtures("fresh_dynamo", "inductor_cache")]


def _originals():
    from torch._dynamo.symbolic_convert import graph_break_log
    from torch._dynamo.utils import CompilationMetrics
    from torch._inductor.codecache import FxGraphCache
    from torch._inductor.codegen.cpp import CppScheduling
    from torch._inductor.codegen.triton import TritonScheduling
    from torch._inductor.graph import GraphLowering
    from torch._inductor.output_code import CompiledFxGraph

    return (GraphLowering.__dict__["save_output_code"], GraphLowering.__dict__["__init__"],
            GraphLowering.__dict__["compile_to_module"], CppScheduling.__dict__["define_kernel"],
            TritonScheduling.__dict__["define_kernel"], CompiledFxGraph.__dict__["__call__"],
            "find_guarded_entry" in FxGraphCache.__dict__, CompilationMetrics.__dict__["create"],
            list(graph_break_log.handlers), graph_break_log.level, graph_break_log.propagate)


def _inputs():
    torch.manual_seed(0)
    return torch.randn(16, 32), torch.randn(32), torch.randn(32)


def test_layer_norm_relu_metadata_from_inductor():
    x, w, b = _inputs()
    with kernelviz.capture() as cap:
        out = torch.compile(zoo.layer_norm_relu)(x, w, b)
    torch.testing.assert_close(out, zoo.layer_norm_relu(x, w, b))
    (graph,) = cap.graphs
    assert (graph.kind, graph.device, graph.calls) == ("inference", "cpu", 1)
    assert (graph.cache, graph.thread) == ("compiled", "MainThread") and 0 < graph.compile_s < 600
    (kernel,) = graph.kernels
    assert kernel.kind == "cpp" and "extern \"C\"" in kernel.source
    assert "aten.native_layer_norm" in kernel.original_aten and "aten.relu" in kernel.original_aten
    assert kernel.source_nodes and kernel.metadata_from == "inductor"
    assert set(kernel.node_mapping) == set(kernel.source_nodes)
    names = {n.name for n in kernel.fragment_nodes()}
    assert {"var_mean", "relu"} <= names
    placeholder = next(n for n in kernel.fragment_nodes() if n.op == "placeholder" and n.shape == ["16", "32"])
    assert placeholder.dtype == "f32" and placeholder.stride == ["32", "1"]
    assert any(loc.file == zoo.__file__ and "layer_norm" in loc.code for loc in kernel.locations)
    (launch,) = graph.launches
    assert launch.kernel_name == kernel.name and launch.original_aten == kernel.original_aten


def test_training_step_forward_and_backward():
    model = zoo.make_mlp()
    x, target = torch.randn(8, 32), torch.randint(0, 32, (8,))
    with kernelviz.capture() as cap:
        loss = torch.compile(zoo.training_step)(model, x, target)
    assert loss.requires_grad is False or loss.grad_fn is not None
    assert [g.kind for g in cap.graphs] == ["forward", "backward"]
    assert all(g.calls == 1 for g in cap.graphs)
    backward = cap.graphs[1]
    assert any(op.startswith("aten.") and "backward" in op for k in backward.kernels for op in k.original_aten)
    assert any(launch.op == "extern_kernels.mm" for launch in backward.launches)
    assert all(k.source_nodes for k in cap.kernels)
    assert model[0].weight.grad is not None


def test_graph_break_gives_one_graph_per_part():
    x = torch.randn(64)
    with kernelviz.capture() as cap:
        out = torch.compile(zoo.with_graph_break)(x)
    torch.testing.assert_close(out, zoo.with_graph_break(x))
    assert len(cap.graphs) == 2
    assert any("aten.sin" in k.original_aten for k in cap.graphs[0].kernels)
    assert any("aten.cos" in k.original_aten for k in cap.graphs[1].kernels)


def test_recompile_for_a_new_shape_is_a_new_graph():
    fn = torch.compile(zoo.reduction, dynamic=False)
    with kernelviz.capture() as cap:
        fn(torch.randn(4, 8))
        fn(torch.randn(4, 16))
    assert len(cap.graphs) == 2
    assert cap.graphs[0].code != cap.graphs[1].code


def test_same_code_run_twice_shows_the_same_kernels():
    x, w, b = _inputs()
    runs = []
    for _ in range(2):  # the second time dynamo's cache hits: nothing is compiled
        with kernelviz.capture() as cap:
            torch.compile(zoo.layer_norm_relu)(x, w, b)
        runs.append(cap)
    first, second = runs
    assert [(k.name, k.original_aten, k.node_mapping) for k in second.kernels] == \
        [(k.name, k.original_aten, k.node_mapping) for k in first.kernels]
    assert second.kernels[0].metadata_from == "inductor"
    assert (second.graphs[0].cache, second.graphs[0].compile_s, second.graphs[0].calls) == ("reused", None, 1)


def _unique_fn():
    scale = float(uuid.uuid4().int % 10**6)  # a constant never compiled before: its first compile misses

    def fn(x):
        return zoo.pointwise(x) * scale

    return fn


def test_fx_graph_cache_hit_still_shows_the_kernels():
    x, _, _ = _inputs()
    fn = _unique_fn()
    with kernelviz.capture() as first:  # populates Inductor's cache, and kernelviz's metadata beside it
        torch.compile(fn)(x)
    torch._dynamo.reset()
    hits = counters["inductor"]["fxgraph_cache_hit"]
    with kernelviz.capture() as second:  # served from that cache
        torch.compile(fn)(x)
    assert counters["inductor"]["fxgraph_cache_hit"] == hits + 1
    assert [(g.cache, g.compile_s is None) for g in first.graphs + second.graphs] == \
        [("compiled", False), ("fx_cache_hit", True)]
    assert [k.name for k in second.kernels] == [k.name for k in first.kernels]
    assert second.kernels[0].original_aten == first.kernels[0].original_aten != []
    assert second.kernels[0].fragment == first.kernels[0].fragment != []


def test_fresh_compile_turns_the_fx_graph_cache_off():
    x, _, _ = _inputs()
    fn = _unique_fn()
    with kernelviz.capture():
        torch.compile(fn)(x)
    torch._dynamo.reset()
    hits = counters["inductor"]["fxgraph_cache_hit"]
    with kernelviz.capture(fresh_compile=True) as cap:
        torch.compile(fn)(x)
    assert counters["inductor"]["fxgraph_cache_hit"] == hits
    (graph,) = cap.graphs
    assert graph.cache == "compiled" and graph.compile_s > 0 and graph.kernels[0].original_aten
    assert torch._inductor.config.fx_graph_cache is True  # back on after the block


def test_graph_compiled_before_the_capture_without_kernelviz_says_so():
    from kernelviz.recorder import inductor

    x, _, _ = _inputs()
    fn = torch.compile(_unique_fn())
    inductor._forget_why()  # as before kernelviz was imported: nothing is recorded or stored
    try:
        fn(x)
    finally:
        inductor.keep_why()
    with kernelviz.capture() as cap:
        fn(x)
    (graph,) = cap.graphs
    assert (graph.cache, graph.compile_s, graph.calls) == ("reused", None, 1)
    assert graph.kernels[0].metadata_from == "none"
    (warning,) = graph.warnings
    assert warning.startswith("compiled before the capture started, outside a capture: ")


def test_graph_compiled_before_the_capture_with_kernelviz_imported_keeps_its_metadata():
    x, _, _ = _inputs()
    fn = torch.compile(_unique_fn())
    fn(x)  # compiled outside any capture, kernelviz imported: its hooks read the compile
    with kernelviz.capture() as cap:
        fn(x)
    (graph,) = cap.graphs
    assert (graph.cache, graph.compile_s, graph.calls) == ("reused", None, 1)
    assert graph.kernels[0].metadata_from == "inductor" and graph.kernels[0].original_aten
    assert graph.warnings == []


def test_exception_propagates_and_partial_capture_is_kept():
    before = _originals()
    x, w, b = _inputs()
    with pytest.raises(ZeroDivisionError):
        with kernelviz.capture() as cap:
            torch.compile(zoo.layer_norm_relu)(x, w, b)
            raise ZeroDivisionError("in the user's code")
    assert _originals() == before
    assert len(cap.graphs) == 1 and cap.kernels[0].original_aten


def test_patches_are_undone_and_captures_nest():
    before = _originals()
    x = torch.randn(32)
    with kernelviz.capture() as outer:
        torch.compile(zoo.pointwise)(x)
        with kernelviz.capture() as inner:
            torch.compile(zoo.reduction)(x.view(4, 8))
        assert _originals() != before
    assert _originals() == before
    assert len(outer.graphs) == 2 and len(inner.graphs) == 1
    assert inner.graphs[0].code == outer.graphs[1].code


def test_capture_keeps_no_tensor_alive():
    x = torch.randn(32)
    ref = weakref.ref(x)
    with kernelviz.capture() as cap:
        torch.compile(zoo.pointwise)(x)
    del x
    gc.collect()
    assert ref() is None and cap.graphs


def test_nothing_compiled_says_so():
    with kernelviz.capture() as cap:
        _ = torch.ones(3) + 1
    assert cap.graphs == []
    assert cap.warnings == ["nothing was compiled or run by torch.compile (Inductor) in this capture"]


def test_the_step_time_in_the_block_is_of_three_warm_calls_or_none():
    compiled = torch.compile(lambda x: (x.sin() + 1).relu())
    x = torch.randn(64)
    compiled(x)  # compiled before the captures: each call in them is warm
    with kernelviz.capture() as once:
        compiled(x)
    with kernelviz.capture() as thrice:
        for _ in range(3):
            compiled(x)
    assert once.graphs[0].calls == 1 and once.graphs[0].in_step_ms is None
    assert thrice.graphs[0].calls == 3 and 0 < thrice.graphs[0].in_step_ms < 1000
