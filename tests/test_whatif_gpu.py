"""The what-if engine on a GPU: a launch-bound fp32 step (many small kernels) captured here, its CUDA-graph,
TF32 and channels-last candidates compiled again and timed in the timing process (run on a GPU machine)."""

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]


def test_cuda_graphs_save_launch_overhead_and_tf32_is_flagged():
    import kernelviz

    layers = [m for _ in range(12) for m in (torch.nn.Linear(64, 64), torch.nn.LayerNorm(64), torch.nn.GELU())]
    model = torch.nn.Sequential(*layers).cuda().eval()
    x = torch.randn(8, 64, device="cuda")
    compiled = torch.compile(model)
    with torch.no_grad(), kernelviz.capture(fresh_compile=True) as cap:
        compiled(x)
        compiled(x)
    rng = torch.cuda.get_rng_state()
    found = {w.kind: w for w in cap.whatif(budget_s=300, progress=False,
                                           candidates=["cudagraphs", "tf32", "channels_last"])}
    assert torch.equal(torch.cuda.get_rng_state(), rng)
    graphs = found["cudagraphs"]
    assert graphs.reason is None and graphs.verdict == "same"
    assert graphs.after_ms < graphs.before_ms - graphs.before_noise_ms - graphs.after_noise_ms
    tf32 = found["tf32"]
    assert tf32.reason is None and "float32" in tf32.tolerance
    assert tf32.verdict == "differs" or tf32.max_rel_diff < 1e-4  # TF32's ~1e-3 is beyond fp32's tolerance
    assert found["channels_last"].reason == "0_inference: no convolution"
    assert cap.whatifs[0].kind == "cudagraphs"  # the largest saving that keeps the outputs, first
