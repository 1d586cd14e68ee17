"""Core figures: parse time per 100 KB of output code, and capture overhead versus plain torch.compile.

    python benchmarks/bench_core.py [--repeats 5]

Overhead: the CPU zoo is compiled and run (compile + first call), each run in a new process, once
plainly and once inside kernelviz.capture(), pairs alternating in order, timed in wall-clock time and
in CPU time of the compiling process (kernelviz's hooks run there; C++ compilers run in Inductor's
worker processes, the same for both, and wall time on a shared machine varies with its load):
- cold cache: every run gets an empty Inductor cache directory;
- warm cache: every run uses one cache directory that an earlier capture filled (as after a kernel
  restart), so Inductor's FX graph and AOTAutograd caches hit; the captured runs also report how
  many graphs were cache hits and the share of C++ kernels that carry their original ATen ops.
For each, the ratio of the medians (captured / plain) and the median of the paired ratios are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"

ZOO = r"""
import json, sys, time
sys.path.insert(0, {tests!r})
import torch, zoo
from torch._dynamo.utils import counters
mode = sys.argv[1]
torch.manual_seed(0)
model = zoo.make_mlp()
x, t = torch.randn(16, 32), torch.randint(0, 32, (16,))
def work():
    torch.compile(zoo.pointwise)(x)
    torch.compile(zoo.reduction)(x)
    torch.compile(zoo.layer_norm_relu)(x, torch.randn(32), torch.randn(32))
    torch.compile(model)(x)
    torch.compile(zoo.training_step)(model, x, t)
    torch.compile(zoo.with_graph_break)(x)
start, cpu = time.perf_counter(), time.process_time()
row = {{}}
if mode == "capture":
    import kernelviz
    with kernelviz.capture() as cap:
        work()
    cpp = [k for k in cap.kernels if k.kind == "cpp"]
    row = {{"graphs": len(cap.graphs), "cache": [g.cache for g in cap.graphs], "cpp": len(cpp),
           "cpp_with_aten": sum(1 for k in cpp if k.original_aten), "warnings": cap.warnings}}
else:
    work()
row.update(seconds=time.perf_counter() - start, cpu=time.process_time() - cpu,
           fx_hits=counters["inductor"]["fxgraph_cache_hit"])
print(json.dumps(row))
"""


def parse_speed() -> None:
    import kernelviz

    files = sorted(FIXTURES.glob("*/*.py"))
    texts = [p.read_text() for p in files]
    total = sum(len(t.encode()) for t in texts)
    for text in texts:  # warm up imports and regex caches
        kernelviz.load(text)
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for text in texts:
            kernelviz.load(text)
        best = min(best, time.perf_counter() - start)
    resnet = (FIXTURES / "cuda-h100-torch2.11" / "resnet18_0.py").read_text()
    times = []
    for _ in range(20):
        start = time.perf_counter()
        kernelviz.load(resnet)
        times.append(time.perf_counter() - start)
    per_100kb = statistics.median(times) * 1e3 / (len(resnet.encode()) / 102400)
    print(f"parse: all {len(files)} fixtures ({total / 1024:.0f} KB) in {best * 1e3:.1f} ms = "
          f"{best * 1e3 / (total / 102400):.1f} ms per 100 KB (best of 5)")
    print(f"parse: resnet18 ({len(resnet.encode()) / 1024:.0f} KB) median {statistics.median(times) * 1e3:.1f} ms "
          f"= {per_100kb:.1f} ms per 100 KB (target <= 20)")


def _run(script: str, mode: str, cache: str) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", script, mode], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _pairs(label: str, repeats: int, script: str, cache_for) -> list[dict]:
    """``repeats`` pairs of plain and captured runs, order alternating; prints each and the ratios."""
    rows: dict[str, list[dict]] = {"plain": [], "capture": []}
    for i in range(repeats):
        for mode in ("plain", "capture") if i % 2 == 0 else ("capture", "plain"):
            with cache_for() as cache:
                row = _run(script, mode, cache)
            rows[mode].append(row)
            graphs = f"{row['graphs']} graphs, " if mode == "capture" else ""
            print(f"  {label} run {i} {mode:<8} {row['seconds']:6.2f} s wall, {row['cpu']:6.2f} s CPU "
                  f"({graphs}{row['fx_hits']} FX-cache hits)", flush=True)
    for measure, what in (("seconds", "wall time"), ("cpu", "CPU time of the compiling process")):
        plain = [r[measure] for r in rows["plain"]]
        capture = [r[measure] for r in rows["capture"]]
        paired = statistics.median(c / p for c, p in zip(capture, plain))
        ratio = statistics.median(capture) / statistics.median(plain)
        print(f"overhead, {label} cache, {what}: compile + first call of the CPU zoo: plain "
              f"{statistics.median(plain):.2f} s, captured {statistics.median(capture):.2f} s (medians); ratio of "
              f"medians {ratio:.3f}, median of paired ratios {paired:.3f} (target <= 1.05; {repeats} pairs, order "
              "alternating, each run a new process)", flush=True)
    return rows["capture"]


def overhead(repeats: int) -> None:
    script = ZOO.format(tests=str(ROOT / "tests"))
    _pairs("cold", repeats, script, tempfile.TemporaryDirectory)
    with tempfile.TemporaryDirectory() as warm:
        filled = _run(script, "capture", warm)
        print(f"  warm cache filled by a capture: {filled['seconds']:.2f} s wall, {filled['graphs']} graphs",
              flush=True)
        captured = _pairs("warm", repeats, script, lambda: contextlib.nullcontext(warm))
    caches = Counter(c for row in captured for c in row["cache"])
    cpp, with_aten = sum(r["cpp"] for r in captured), sum(r["cpp_with_aten"] for r in captured)
    print(f"warm captures: graphs by origin {dict(caches)}; C++ kernels with their original ATen ops: "
          f"{with_aten}/{cpp} = {100 * with_aten / max(cpp, 1):.0f}% (must be 100%)")
    warnings = {w for row in captured for w in row["warnings"]}
    if warnings:
        print("warm captures warned: " + "; ".join(sorted(warnings)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--parse-only", action="store_true")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    parse_speed()
    if not args.parse_only:
        overhead(args.repeats)


if __name__ == "__main__":
    main()
