"""Timing figures on the GPU: kernelviz vs Inductor's ``python output_code.py -k`` harness.

    python benchmarks/bench_timing.py          # on a CUDA machine with torchvision

Compiles resnet18 (channels-last, batch 32, eval), an MLP and a training step under kernelviz
(with ``benchmark_kernel=True`` so that the saved code carries the ``-k`` harness), times them
with kernelviz, then runs the ``-k`` harness on resnet18's saved code in a subprocess, and prints:
kernelviz wall time, per-kernel agreement of isolated times with ``-k`` (median |delta|), and the
sum of in-graph times against the CUDA-event time of the graph.
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
from kernelviz.views.text import summary

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def capture_resnet():
    import torchvision

    model = torchvision.models.resnet18().eval().cuda().to(memory_format=torch.channels_last)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    with torch.no_grad(), torch._inductor.config.patch(benchmark_kernel=True), kernelviz.capture() as cap:
        torch.compile(model)(x)
    return cap, (model, x)


def timed_bench(cap) -> float:
    torch.cuda.synchronize()
    start = time.perf_counter()
    cap.bench(progress=False)
    torch.cuda.synchronize()
    return time.perf_counter() - start


def run_k_harness(code: str) -> tuple[float, dict[str, float]]:
    """Wall time of ``python output_code.py -k`` and its ms per kernel key (first 10 chars)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "output_code.py"
        path.write_text(code)
        start = time.perf_counter()
        out = subprocess.run([sys.executable, str(path), "-k"], capture_output=True, text=True, timeout=300)
        wall = time.perf_counter() - start
    times = {}
    for line in out.stdout.splitlines():
        m = re.match(r"^\S+\s+\w{3} (\w{10})\s+([\d.]+)ms", line.strip())
        if m:
            times[m.group(1)] = float(m.group(2))
    if not times:
        print(out.stdout[-2000:], out.stderr[-2000:])
    return wall, times


def report(name: str, cap, wall: float) -> None:
    launches = cap.launches
    in_graph = sum(launch.timing.in_graph_ms or 0 for launch in launches)
    busy = sum(g.gpu_busy_ms or 0 for g in cap.graphs)
    print(f"{name}: {len(cap.graphs)} graph(s), {len(launches)} launches ({len(cap.kernels)} generated kernels); "
          f"kernelviz timed all in-graph + isolated in {wall:.3f} s; sum of in-graph {in_graph:.4f} ms vs "
          f"GPU busy (CUDA events) {busy:.4f} ms: {100 * (in_graph - busy) / busy:+.1f}%")
    for g in cap.graphs:
        for w in g.warnings:
            print(f"  warning {g.id}: {w}")


def main() -> None:
    print(f"device {torch.cuda.get_device_name()}, torch {torch.__version__}")
    cap, keep = capture_resnet()
    wall = timed_bench(cap)
    report("resnet18", cap, wall)
    graph = cap.graphs[0]
    k_wall, k_times = run_k_harness(graph.code)
    print(f"resnet18: `python output_code.py -k` took {k_wall:.1f} s wall for {len(k_times)} kernels "
          f"({k_wall / wall:.0f}x kernelviz)")
    deltas = []
    print(f"  {'kernel':<72} {'in-graph':>9} {'isolated':>9} {'-k':>9} {'delta':>7}")
    for kernel in graph.kernels:
        key = Path(kernel.path or "").stem[:10]
        ms = kernel.timing.isolated_ms if kernel.timing else None
        in_graph = [launch.timing.in_graph_ms for launch in graph.launches if launch.kernel_name == kernel.name]
        ref = k_times.get(key)
        delta = (ms - ref) / ref if ms and ref else None
        if delta is not None:
            deltas.append(abs(delta))
        print(f"  {kernel.name[:72]:<72} {in_graph[0]:9.4f} {ms or float('nan'):9.4f} {ref or float('nan'):9.4f} "
              f"{'' if delta is None else f'{100 * delta:+6.1f}%'}")
    if deltas:
        print(f"resnet18: isolated vs -k per kernel: median |delta| {100 * statistics.median(deltas):.1f}% "
              f"(max {100 * max(deltas):.1f}%, {len(deltas)} kernels; target median <= 5%)")
    externs = [launch for launch in graph.launches if launch.op]
    print(f"resnet18: extern calls {sum(launch.timing.in_graph_ms for launch in externs):.4f} ms of "
          f"{sum(launch.timing.in_graph_ms for launch in graph.launches):.4f} ms in-graph; e.g. {externs[0].op}: "
          f"{externs[0].timing.device_kernels}")
    del keep

    import zoo

    torch._dynamo.reset()
    model = zoo.make_mlp("cuda")
    x = torch.randn(8192, 32, device="cuda")
    with torch.no_grad(), kernelviz.capture() as mlp:
        torch.compile(model)(x)
    report("mlp", mlp, timed_bench(mlp))
    t = torch.randint(0, 32, (8192,), device="cuda")
    with kernelviz.capture() as step:
        torch.compile(zoo.training_step)(model, x, t)
    report("training step", step, timed_bench(step))
    print(summary(step))


if __name__ == "__main__":
    main()
