"""The gate's noise: false alarms over pairs of captures of one unchanged step, and detections of a planted
slowdown of one kernel (tests/gate_steps.py: 20% more sin · mul in the one fused kernel).

    python benchmarks/bench_gate.py [--pairs 20] [--repeat 3] [--slower 5%] [--device cpu]

Prints the false-alarm and detection counts, the kernel's measured slowdown, and every wrong verdict's reasons.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from gate_steps import GPU_CHAINS, pairs  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3, help="timed captures behind each side (the fixture's)")
    parser.add_argument("--slower", default="5%")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)  # see tests/test_gate.py: one thread per kernel on a 2-core machine others share
    gpu = {"chains": GPU_CHAINS, "rows": 2048, "cols": 2048} if args.device.startswith("cuda") else {}
    started = time.perf_counter()
    counts = pairs(args.pairs, args.repeat, args.slower, args.device, **gpu)
    print(f"{args.pairs} pairs, repeat {args.repeat}, threshold {args.slower}, {args.device}: "
          f"false alarms {counts.false_alarms}/{counts.pairs}, planted slowdown detected {counts.detected}/"
          f"{counts.pairs} (the kernel measured {100 * (counts.slowdown - 1):+.1f}% slower, median), "
          f"{time.perf_counter() - started:.0f} s")
    for line in counts.lines:
        print("  " + line)


if __name__ == "__main__":
    main()
