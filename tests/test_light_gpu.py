"""A long session: captures with timing give their GPU and host memory back once dropped (run on a GPU machine)."""

import gc

import pytest

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

CAPTURES = 50


def _rss_mb() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024


def _settled() -> tuple[float, float]:
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return torch.cuda.memory_allocated() / 2**20, _rss_mb()


def test_fifty_captures_with_timing_leave_memory_as_the_same_loop_without_kernelviz():
    import kernelviz

    layers = [m for _ in range(6) for m in (torch.nn.Linear(1024, 1024), torch.nn.GELU())]
    model = torch.compile(torch.nn.Sequential(*layers).cuda())
    x = torch.randn(512, 1024, device="cuda")
    with torch.no_grad():
        model(x)
        with kernelviz.capture(bench=True) as first:  # kernelviz's imports and the profiler's start, once
            model(x)
        first.wait_stages()
        del first
        start = _settled()
        for _ in range(CAPTURES):
            model(x)
        plain = _settled()
        for _ in range(CAPTURES):
            with kernelviz.capture(bench=True) as cap:
                model(x)
            cap.wait_stages()
            assert cap.launches and all(launch.timing for launch in cap.launches)
            del cap
        captured = _settled()
    gpu, host = captured[0] - plain[0], captured[1] - plain[1]
    print(f"after {CAPTURES} captures: GPU allocated {start[0]:.1f} -> {plain[0]:.1f} (plain loop) -> "
          f"{captured[0]:.1f} MB; host RSS {start[1]:.0f} -> {plain[1]:.0f} -> {captured[1]:.0f} MB")
    assert gpu <= 5 and host <= 50
