"""Core figures: parse time per 100 KB of output code, and capture overhead versus plain torch.compile.

    python benchmarks/bench_core.py [--repeats 3]

Overhead: the CPU zoo is compiled and run in a fresh subprocess with an empty Inductor cache
directory (cold cache), once plainly and once inside kernelviz.capture(), alternating; the
ratio of the median wall times of compile + first call is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"

ZOO = r"""
import json, sys, time
sys.path.insert(0, {tests!r})
import torch, zoo
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
start = time.perf_counter()
if mode == "capture":
    import kernelviz
    with kernelviz.capture() as cap:
        work()
    graphs = len(cap.graphs)
else:
    work()
    graphs = None
print(json.dumps({{"seconds": time.perf_counter() - start, "graphs": graphs}}))
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


def overhead(repeats: int) -> None:
    script = ZOO.format(tests=str(ROOT / "tests"))
    results: dict[str, list[float]] = {"plain": [], "capture": []}
    for i in range(repeats):
        for mode in ("plain", "capture") if i % 2 == 0 else ("capture", "plain"):
            with tempfile.TemporaryDirectory() as cache:
                env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
                out = subprocess.run([sys.executable, "-c", script, mode], env=env, capture_output=True,
                                     text=True, check=True)
                row = json.loads(out.stdout.strip().splitlines()[-1])
            results[mode].append(row["seconds"])
            graphs = f" ({row['graphs']} graphs)" if row["graphs"] else ""
            print(f"  run {i} {mode:<8} {row['seconds']:.2f} s{graphs}", flush=True)
    plain, captured = statistics.median(results["plain"]), statistics.median(results["capture"])
    pairs = [c / p for c, p in zip(results["capture"], results["plain"])]
    print(f"overhead: cold-cache compile + first call of the CPU zoo: plain {plain:.2f} s, captured "
          f"{captured:.2f} s (medians); ratio of medians {captured / plain:.3f}, median of paired ratios "
          f"{statistics.median(pairs):.3f} (target <= 1.05; {repeats} pairs, order alternating)")


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
