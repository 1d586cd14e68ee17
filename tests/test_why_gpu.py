"""Inductor's choices on the GPU (run on the GPU machine): max-autotune's mm with every candidate timed or failed
(configs that need more shared memory than the GPU has), Triton configs and coordinate descent as kernels first run,
a user's @triton.autotune kernel (tuned, then a cache hit), and reduce-overhead: a graph that mutates an input is
skipped (its reason, the user's line, a finding with the replay's saving measured), new sizes re-record."""

import inspect

import pytest
import torch

import kernelviz

pytestmark = pytest.mark.gpu


def _show(tunings):
    for t in tunings:
        print(f"{t.kind} {t.op} [{t.shapes}] tuned={t.tuned} winner={t.winner} margin={t.margin}")
        for c in t.candidates:
            print(f"    {c.name:<40} {c.backend:<7} {c.ms if c.ms is None else round(c.ms, 5)} {c.error or ''}")


def test_max_autotune_mm_with_failing_configs(fresh_dynamo, inductor_cache):
    torch.set_float32_matmul_precision("high")
    try:
        a, b = torch.randn(2048, 2048, device="cuda"), torch.randn(2048, 2048, device="cuda")
        with kernelviz.capture() as cap:
            torch.compile(lambda x, y: (x @ y).softmax(-1), mode="max-autotune-no-cudagraphs")(a, b)
    finally:
        torch.set_float32_matmul_precision("highest")
    tunings = [t for g in cap.graphs for t in g.tunings]
    _show(tunings)
    mm = next(t for t in tunings if t.kind == "template" and t.op == "mm")
    timed = [c for c in mm.candidates if c.ms is not None]
    failed = [c for c in mm.candidates if c.error]
    assert mm.tuned and len(timed) >= 4 and {"extern", "triton"} <= {c.backend for c in timed}
    assert failed and all(c.ms is None for c in failed), "no candidate failed"
    assert any("resource" in c.error or "shared" in c.error.lower() for c in failed), [c.error for c in failed]
    assert mm.winner == min(timed, key=lambda c: c.ms).name and mm.margin >= 0
    assert {"configs", "coordinate-descent"} & {t.kind for t in tunings}  # the softmax's kernel tuned as it ran
    assert "failed (1: triton_mm_" in cap.to_html()  # grouped by their reason (its shared memory figure)
    assert "autotuned: max-autotune · mm" in str(cap)


def test_user_triton_autotune(fresh_dynamo):
    triton = pytest.importorskip("triton")
    import triton.language as tl

    @triton.autotune(configs=[triton.Config({"BLOCK": n}, num_warps=w) for n, w in ((128, 4), (1024, 4), (4096, 8))],
                     key=["n"])
    @triton.jit
    def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)

    x, y = torch.randn(1 << 20, device="cuda"), torch.randn(1 << 20, device="cuda")

    def add():
        out = torch.empty_like(x)
        add_kernel[lambda meta: (triton.cdiv(x.numel(), meta["BLOCK"]),)](x, y, out, x.numel())
        return out

    with kernelviz.capture() as cap:
        assert torch.equal(add(), x + y)
    _show(cap.tunings)
    [tuning] = cap.tunings
    assert tuning.kind == "user" and tuning.op == "add_kernel" and tuning.tuned
    assert len([c for c in tuning.candidates if c.ms is not None]) == 3
    assert tuning.winner in {c.name for c in tuning.candidates}
    with kernelviz.capture() as again:
        add()
        add()
    [hit] = again.tunings  # said once
    assert not hit.tuned and "Triton's autotune cache" in hit.source and hit.winner == tuning.winner


def _mutating(x, y):
    y.add_(1)
    return (x * 2).sin() + y


def test_reduce_overhead_skip_and_re_record(fresh_dynamo):
    x, y = torch.randn(64, 64, device="cuda"), torch.zeros(64, 64, device="cuda")
    f = torch.compile(_mutating, mode="reduce-overhead")
    with kernelviz.capture(bench=True) as cap:
        for _ in range(3):
            f(x, y)
    print(str(cap))
    skips = [(g, e) for g in cap.graphs for e in g.cudagraphs if e.kind == "skip"]
    assert skips, [(g.id, g.cudagraphs) for g in cap.graphs]
    graph, skip = skips[0]
    assert skip.reason.startswith("mutated inputs"), skip.reason
    line = inspect.getsourcelines(_mutating)[1] + 1
    assert skip.location and skip.location.line == line and skip.location.code == "y.add_(1)", skip.location
    [finding] = [f for f in cap.findings if f.rule == "cudagraph-skip"]  # one, though Inductor said it twice
    print("finding:", finding.ms, finding.how, graph.as_run, graph.gpu_busy_ms, graph.cudagraph_ms)
    if finding.ms is not None:
        assert finding.how.startswith("measured") and finding.ms > 0
    else:
        assert finding.how.startswith("not measured")
    assert cap.cudagraph_pool_bytes is None  # nothing recorded: no pool to tell

    g = torch.compile(lambda a: (a * 2).cos(), mode="reduce-overhead", dynamic=True)
    with kernelviz.capture() as shapes:
        for n in (8, 8, 8, 16, 16, 16):
            torch.compiler.cudagraph_mark_step_begin()
            g(torch.randn(n, 32, device="cuda"))
    print(str(shapes))
    events = [e for gr in shapes.graphs for e in gr.cudagraphs]
    kinds = [(e.kind, e.shapes) for e in events]
    assert ("record", "8x32") in kinds and ("re-record", "16x32") in kinds, kinds
    rerecord = next(e for e in events if e.kind == "re-record")
    assert rerecord.reason == "new input sizes (8x32 recorded before)"
    assert sum(gr.cudagraph_replays for gr in shapes.graphs) >= 2
    assert shapes.cudagraph_pool_bytes and shapes.cudagraph_pool_bytes > 0
