"""Capture overhead on a GPU, cold and warm cache: resnet50 (compile + first call).

    python benchmarks/bench_cache_gpu.py [--batch 32] [--train] [--warm-pairs 3]   # CUDA + torchvision

An inference step by default (a cold compile of tens of seconds on an H100); ``--train`` compiles a
training step (forward and backward: about twice as long). Four runs, each in a new process:
1. plain torch.compile, empty cache directory A                 (cold, plain)
2. inside kernelviz.capture(), empty cache directory B          (cold, captured; fills B)
3. plain torch.compile, cache directory B                       (warm, plain)
4. inside kernelviz.capture(), cache directory B                (warm, captured; the cache was filled by a capture)
Runs 3 and 4 are repeated ``--warm-pairs`` times, alternating (a warm run takes seconds, and one pair is
noisy). Each directory holds Inductor's caches and Triton's. Prints the cold ratio (2/1), the warm ratio
(4/3, the median of the pairs' ratios), the FX-graph and AOTAutograd cache hits of each run, and in the
warm capture the share of kernels with Inductor's own metadata (source nodes, original ATen ops and the
user's source lines).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

STEP = r"""
import json, sys, time
import torch, torchvision
mode, batch, train = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "train"
from torch._dynamo.utils import counters
torch.manual_seed(0)
model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
model.train(train)
x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
y = torch.randint(0, 1000, (batch,), device="cuda")
def step(model, x, y):
    loss = torch.nn.functional.cross_entropy(model(x), y)
    if train:
        loss.backward()
    return loss
def work():
    with torch.set_grad_enabled(train):
        loss = torch.compile(step)(model, x, y)
    torch.cuda.synchronize()
    return loss
row = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
start = time.perf_counter()
if mode == "capture":
    import kernelviz
    with kernelviz.capture() as cap:
        work()
    kernels = cap.kernels
    row.update(graphs=len(cap.graphs), cache=[g.cache for g in cap.graphs], kernels=len(kernels),
               live=sum(1 for k in kernels if k.metadata_from == "inductor" and k.source_nodes and k.original_aten),
               located=sum(1 for k in kernels if k.locations), warnings=cap.warnings)
else:
    work()
row.update(seconds=time.perf_counter() - start, fx_hits=counters["inductor"]["fxgraph_cache_hit"],
           aot_hits=counters["aot_autograd"]["autograd_cache_hit"])
print(json.dumps(row))
"""


def run(mode: str, cache: str, args: argparse.Namespace) -> dict:
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, TRITON_CACHE_DIR=os.path.join(cache, "triton"),
               PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", STEP, mode, str(args.batch), "train" if args.train else "eval"],
                         env=env, capture_output=True, text=True, timeout=args.timeout)
    if out.returncode != 0:
        sys.exit(f"{mode} run failed:\n{out.stderr[-4000:]}")
    row = json.loads(out.stdout.strip().splitlines()[-1])
    extra = (f", {row['graphs']} graphs {row['cache']}, {row['live']}/{row['kernels']} kernels with Inductor's "
             f"metadata, {row['located']} with user lines" if mode == "capture" else "")
    print(f"  {mode:<8} {row['seconds']:7.2f} s  (FX-cache hits {row['fx_hits']}, AOTAutograd hits "
          f"{row['aot_hits']}{extra})", flush=True)
    return row


def main() -> None:
    import kernelviz

    kernelviz.needs("torchvision", "vision", "benchmarks/bench_cache_gpu.py")  # the child's step imports it
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--train", action="store_true", help="a training step (forward and backward)")
    parser.add_argument("--warm-pairs", type=int, default=3, help="warm plain/captured pairs (median ratio)")
    parser.add_argument("--timeout", type=int, default=240, help="seconds allowed to each run")
    args = parser.parse_args()
    what = f"resnet50 {'training' if args.train else 'inference'} step, batch {args.batch}, channels-last"
    print(f"{what}: compile + first call, each run a new process", flush=True)
    with tempfile.TemporaryDirectory() as plain_dir, tempfile.TemporaryDirectory() as captured_dir:
        print("cold cache (empty directories):", flush=True)
        cold_plain = run("plain", plain_dir, args)
        cold_capture = run("capture", captured_dir, args)
        print("warm cache (the directory the cold capture filled):", flush=True)
        pairs = [(run("plain", captured_dir, args), run("capture", captured_dir, args))
                 for _ in range(args.warm_pairs)]
    print(f"device {cold_plain['device']}, torch {cold_plain['torch']}")
    print(f"cold: plain {cold_plain['seconds']:.2f} s, captured {cold_capture['seconds']:.2f} s, ratio "
          f"{cold_capture['seconds'] / cold_plain['seconds']:.3f} (target <= 1.05; one pair)")
    ratios = sorted(c["seconds"] / p["seconds"] for p, c in pairs)
    plain, captured = (statistics.median(row["seconds"] for row in rows) for rows in zip(*pairs))
    print(f"warm: plain {plain:.2f} s, captured {captured:.2f} s (medians), ratio {statistics.median(ratios):.3f} "
          f"(target <= 1.05; median of {len(pairs)} pairs: {', '.join(f'{r:.3f}' for r in ratios)})")
    warm_capture = pairs[-1][1]
    share = warm_capture["live"] / max(warm_capture["kernels"], 1)
    print(f"warm capture: {warm_capture['live']}/{warm_capture['kernels']} kernels ({100 * share:.0f}%) with "
          f"Inductor's own metadata, {warm_capture['located']} with the user's source lines; warnings: "
          f"{warm_capture['warnings'] or 'none'}")


if __name__ == "__main__":
    main()
