"""The multi-rank loader at scale, on the CPU: N rank files made from a real timed H100 capture (times
perturbed by up to 3%, one straggler), then ``kernelviz.load`` of them all. Prints, per N: the files'
size, the load's wall time and peak Python memory, the payload the panel gets, and whether the planted
straggler was found.

    python benchmarks/bench_ranks.py [--ranks 64 256 1024]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kernelviz  # noqa: E402
from kernelviz.model import Capture, StepSplit  # noqa: E402
from kernelviz.views.payload import ranks_payload  # noqa: E402

TIMED = ROOT / "tests" / "fixtures" / "cuda-h100-torch2.11" / "timed_capture.json"


def write_job(folder: Path, world: int, straggler: int) -> int:
    """Rank files of a job of ``world`` ranks; returns their total size in bytes."""
    base = TIMED.read_text()
    rng = random.Random(0)
    total = 0
    for rank in range(world):
        cap = Capture.from_json(base)
        cap.rank, cap.world_size, cap.host, cap.device = rank, world, f"node{rank // 8}", f"cuda:{rank % 8}"
        for graph in cap.graphs:
            for launch in graph.launches:
                launch.timing.in_graph_ms *= rng.uniform(0.97, 1.03) * (1.5 if rank == straggler else 1)
        compute = 10 * rng.uniform(0.98, 1.02)
        cap.step = StepSplit("gpu", 20.0, compute, 3.0, 2.0, 15.0 - compute)
        total += cap.save(folder / "step").stat().st_size
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", type=int, nargs="+", default=[64, 256, 1024])
    args = parser.parse_args()
    print(f"{'ranks':>6} {'files MB':>9} {'load s':>7} {'peak MB':>8} {'payload KB':>11}  straggler found")
    for world in args.ranks:
        with tempfile.TemporaryDirectory() as tmp:
            straggler = world // 3
            size = write_job(Path(tmp), world, straggler)
            tracemalloc.start()
            began = time.perf_counter()
            ranks = kernelviz.load_ranks(Path(tmp) / "step")
            spent = time.perf_counter() - began
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            found = all(launch.straggler == straggler for launch in ranks.launches)
            data = len(json.dumps(ranks_payload(ranks, per_kernel=False)))
            print(f"{world:>6} {size / 1e6:>9.1f} {spent:>7.2f} {peak / 1e6:>8.1f} {data / 1e3:>11.0f}  {found}")


if __name__ == "__main__":
    main()
