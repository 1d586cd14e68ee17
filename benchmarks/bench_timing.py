"""Timing figures on the GPU: kernelviz against Inductor's ``python output_code.py -k`` on the same graphs.

    python benchmarks/bench_timing.py          # on a CUDA machine with torchvision

Captures, with ``benchmark_kernel=True`` so that the saved code carries the ``-k`` harness:
a resnet50 training step (channels-last, bf16 autocast, batch 64) and resnet18 inference (channels-last,
batch 32). For each it prints the time kernelviz takes to time every launch in the graph and alone
(``capture(bench=True)``: on the user's tensors, in this process), the time of the same timing on
recreated inputs in a separate process (a loaded copy of the capture), the wall time of ``-k`` on the same
graphs, launches + gap against the GPU busy time (and an independent CUDA-event time of the compiled
call), and the agreement of isolated kernel times with ``-k`` (median |delta|).
"""

from __future__ import annotations

import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

import kernelviz
from kernelviz.bench.peaks import device_peaks
from kernelviz.model import Capture

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from zoo import resnet50_training_step  # noqa: E402 - the tests' workloads


def resnet18_inference():
    torchvision = kernelviz.needs("torchvision", "vision", "benchmarks/bench_timing.py")

    model = torchvision.models.resnet18().eval().cuda().to(memory_format=torch.channels_last)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    compiled = torch.compile(model)

    def step():
        with torch.no_grad():
            compiled(x)

    return step


def capture(step, compile_again: bool = True) -> tuple[Capture, float]:
    """Compile (unless ``compile_again`` is False: dynamo's cache serves) and run ``step`` under a capture
    that times at exit; returns the capture and the seconds the timing took (the graphs' ``bench_s``)."""
    if compile_again:
        torch._dynamo.reset()
    with torch._inductor.config.patch(benchmark_kernel=True), kernelviz.capture(bench=True) as cap:
        step()
        torch.cuda.synchronize()
    return cap, sum(g.bench_s or 0 for g in cap.graphs)


def event_ms(step, reps: int = 20) -> float:
    """CUDA-event time of the compiled call, CPU launch overhead hidden by a sleep on the stream."""
    step()
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        torch.cuda._sleep(int(2e6 * 50))
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        step()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def run_k_harness(code: str) -> tuple[float, dict[str, float]]:
    """Wall time of ``python output_code.py -k`` and its ms per kernel key (first 10 chars)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "output_code.py"
        path.write_text(code)
        start = time.perf_counter()
        out = subprocess.run([sys.executable, str(path), "-k"], capture_output=True, text=True, timeout=400)
        wall = time.perf_counter() - start
    times = {}
    for line in out.stdout.splitlines():
        m = re.match(r"^\S+\s+\w{3} (\w{10})\s+([\d.]+)ms", line.strip())
        if m:
            times[m.group(1)] = float(m.group(2))
    if not times:
        print(out.stdout[-2000:], out.stderr[-2000:])
    return wall, times


def report(name: str, cap: Capture, bench_s: float, step) -> list[float]:
    launches = cap.launches
    print(f"\n{name}: {len(cap.graphs)} graph(s), {len(launches)} launches, {len(cap.kernels)} generated kernels")
    print(f"  kernelviz timing at capture exit (user tensors, in process): {bench_s:.3f} s")
    _, warm_s = capture(step, compile_again=False)
    print(f"  the same, captured again (graphs from dynamo's cache, the profiler already used): {warm_s:.3f} s")
    for g in cap.graphs:
        launched = sum(x.timing.in_graph_ms or 0 for x in g.launches if x.timing)
        ratio = (launched + (g.gap_ms or 0)) / g.gpu_busy_ms if g.gpu_busy_ms else float("nan")
        print(f"  {g.id}: {len(g.launches)} launches timed in {g.bench_s:.3f} s; launches {launched:.3f} ms + gap "
              f"{g.gap_ms or 0:.3f} ms = {launched + (g.gap_ms or 0):.3f} ms vs GPU busy {g.gpu_busy_ms or 0:.3f} ms "
              f"({100 * (ratio - 1):+.2f}%)")
        for w in g.warnings:
            print(f"    warning: {w}")
    busy = sum(g.gpu_busy_ms or 0 for g in cap.graphs)
    print(f"  GPU busy (all graphs) {busy:.3f} ms vs CUDA-event time of the compiled step {event_ms(step):.3f} ms")
    loaded = Capture.from_json(cap.to_json())
    start = time.perf_counter()
    loaded.bench(progress=False)
    print(f"  the same timing on recreated inputs in a separate process (a loaded copy): "
          f"{time.perf_counter() - start:.1f} s; warnings: {[w for g in loaded.graphs for w in g.warnings]}")
    k_wall, k_times = 0.0, {}
    for g in cap.graphs:
        wall, times = run_k_harness(g.code)
        k_wall += wall
        k_times.update(times)
    print(f"  `python output_code.py -k` on the same graphs: {k_wall:.1f} s wall for {len(k_times)} kernels "
          f"({k_wall / bench_s:.0f}x kernelviz)")
    deltas = []
    for kernel in cap.kernels:
        ref = k_times.get(Path(kernel.path or "").stem[:10])
        ms = kernel.timing.isolated_ms if kernel.timing else None
        if ms and ref:
            deltas.append(abs(ms - ref) / ref)
    if deltas:
        print(f"  isolated vs -k per kernel: median |delta| {100 * statistics.median(deltas):.1f}% "
              f"(p90 {100 * statistics.quantiles(deltas, n=10)[-1]:.1f}%, {len(deltas)} kernels; target <= 5%)")
    bounds = {}
    for launch in launches:
        if launch.timing and launch.timing.bound:
            bounds[launch.timing.bound] = bounds.get(launch.timing.bound, 0) + 1
    timings = [x.timing for x in launches if x.timing]
    over = [t for t in timings if (t.pct_peak_bw or 0) > 100 or (t.pct_peak_flops or 0) > 100]
    print(f"  bound: {bounds}; cache-resident in the graph: "
          f"{sum(1 for t in timings if t.cache_resident)}; % of peak above 100: {len(over)}")
    return deltas


def main() -> None:
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}")
    print(f"peaks: {device_peaks().source}")
    deltas = []
    for name, make in (("resnet50 training step (bf16 autocast, batch 64)", resnet50_training_step),
                       ("resnet18 inference (batch 32)", resnet18_inference)):
        step = make()
        cap, bench_s = capture(step)
        deltas += report(name, cap, bench_s, step)
    if deltas:
        print(f"\nall kernels: isolated vs -k median |delta| {100 * statistics.median(deltas):.1f}% ({len(deltas)})")


if __name__ == "__main__":
    main()
