"""What kernelviz's process-wide hooks (kernel metadata, fusion decisions, autotuning: recorder.inductor.keep_why)
cost a compile outside any capture, and what `import kernelviz` costs beside torch.

    python benchmarks/bench_keep_why.py [--pairs 3]

Each run is a new process with an empty Inductor cache: torch imported, then either nothing more ("plain") or
`import kernelviz` (which puts the hooks in), then the CPU zoo's training step compiled and run once; timed from
before that import (which loads Inductor's modules a compile would load anyway) to the step's end. Pairs
alternate; the medians of wall and CPU seconds of the compiling process are printed, and the import's seconds.
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
RUN = r"""
import json, sys, time
sys.path.insert(0, {tests!r})
import torch, zoo
torch.manual_seed(0)
model, x = zoo.make_mlp(), torch.randn(16, 32)
target = torch.randint(0, 32, (16,))
wall, cpu = time.perf_counter(), time.process_time()
if sys.argv[1] == "kept":
    import kernelviz
imported = time.perf_counter() - wall
torch.compile(zoo.training_step)(model, x, target)
print(json.dumps({{"import_s": imported, "wall_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu}}))
"""


def _run(mode: str) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        out = subprocess.run([sys.executable, "-c", RUN.format(tests=str(ROOT / "tests")), mode], env=env,
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pairs", type=int, default=3)
    pairs = parser.parse_args().pairs
    rows: dict[str, list[dict]] = {"plain": [], "kept": []}
    for i in range(pairs):
        for mode in ("plain", "kept") if i % 2 == 0 else ("kept", "plain"):
            rows[mode].append(_run(mode))
    for key in ("wall_s", "cpu_s"):
        plain, kept = (statistics.median(r[key] for r in rows[m]) for m in ("plain", "kept"))
        print(f"import + compile + first call, {key[:-2]}: plain {plain:.2f} s, kernelviz imported {kept:.2f} s "
              f"({kept / plain:.2f}x)")
    print(f"import kernelviz beside torch: {statistics.median(r['import_s'] for r in rows['kept']):.2f} s")


if __name__ == "__main__":
    main()
