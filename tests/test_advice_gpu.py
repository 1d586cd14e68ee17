"""Findings on the GPU (run on the GPU machine): a graph of many tiny launches is launch-bound with the measured
saving of its CUDA-graph replay; a GPT-2 step's backward is launch-bound; a kernel that spills is found."""

import pytest
import torch

import kernelviz
import kernelviz.views.findings
import zoo

pytestmark = pytest.mark.gpu


def _one(cap, rule, graph=None):
    found = [f for f in cap.findings if f.rule == rule and (graph is None or f.graph == graph.id)]
    assert found, [(f.rule, f.graph, f.evidence) for f in cap.findings]
    return found[0]


def test_many_tiny_launches_are_launch_bound_with_a_measured_saving():
    torch._dynamo.reset()
    x, w = torch.randn(16, 16, device="cuda"), torch.randn(16, 16, device="cuda") / 4
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(zoo.tiny_chain)(x, w)
    (graph,) = cap.graphs
    run = graph.as_run
    assert len(graph.launches) >= 64 and graph.warnings == [], graph.warnings
    assert run.unit == "gpu" and run.note is None and run.kernels_ms > 0
    assert run.replay_ms < run.plain_ms and run.launch_cpu_ms > 0
    assert run.plain_ms - run.kernels_ms > 0.25 * run.plain_ms  # the GPU waits for the CPU
    finding = _one(cap, "launch-bound", graph)
    assert finding.ms == pytest.approx(run.plain_ms - run.replay_ms) and finding.how.startswith("measured")
    print(f"tiny chain: {kernelviz.views.findings.as_run_line(run)}")


def test_gpt2_step_backward_is_launch_bound():
    pytest.importorskip("transformers")
    torch._dynamo.reset()
    step = zoo.gpt2_training_step()
    with kernelviz.capture(bench=True) as cap:
        step()
    backward = [g for g in cap.graphs if g.kind == "backward"]
    assert backward and all(g.as_run is not None for g in backward), [g.warnings for g in cap.graphs]
    biggest = max(backward, key=lambda g: len(g.launches))
    finding = _one(cap, "launch-bound", biggest)
    run = biggest.as_run
    assert run.plain_ms - run.kernels_ms > 0.25 * run.plain_ms
    # the SDPA backward's philox seed and offset are CPU tensors: no CUDA graph (reduce-overhead skips it too),
    # so no saving is claimed: the idle time is what is at stake
    assert run.replay_ms is None and "is a CPU tensor" in run.note
    assert finding.ms == pytest.approx(run.plain_ms - run.kernels_ms) and f"not a measured saving ({run.note})" \
        in finding.how
    forward = next(g for g in cap.graphs if g.kind == "forward" and len(g.launches) > 10)
    assert forward.as_run.replay_ms < forward.as_run.plain_ms  # its forward replays: a measured saving
    for line in kernelviz.views.findings.text_lines(cap, top=8):
        print(line)


def test_a_kernel_that_spills_is_found():
    triton = pytest.importorskip("triton")
    import triton.language as tl

    @triton.jit
    def keep_all(x_ptr, y_ptr, BLOCK: tl.constexpr):
        # 16384 values live across a reduction in one warp: 512 per thread, more than the 255 registers it has
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + offs)
        y = tl.exp(x - tl.max(x, 0)) * tl.cumsum(x, 0)
        tl.store(y_ptr + offs, y / tl.sum(y, 0))

    def spilling(x):
        y = torch.empty_like(x)
        keep_all[(1,)](x, y, BLOCK=x.numel(), num_warps=1)
        return y

    torch._dynamo.reset()
    x = torch.randn(16384, device="cuda")
    with kernelviz.capture(bench=True) as cap:
        torch.compile(spilling)(x)
    finding = _one(cap, "spills")
    (graph,) = cap.graphs
    kernel = graph.kernel(graph.launches[finding.launches[0]].kernel_name)
    spills = (kernel.ir and kernel.ir.num_spills) or kernel.timing.num_spills
    assert spills > 0 and f"spills {spills} registers" in finding.evidence
    assert finding.ms == pytest.approx(graph.launches[finding.launches[0]].timing.in_graph_ms)
