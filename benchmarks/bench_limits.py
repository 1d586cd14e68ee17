"""Seconds a timing of loaded code that spins or faults takes with ``limit_s`` (seconds past it, not minutes): a
``call()`` that spins, one that faults, and a module that spins as it loads.

    python benchmarks/bench_limits.py [--limit 5]
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kernelviz  # noqa: E402

SOURCE = (ROOT / "tests" / "fixtures" / "cpu-torch2.13" / "mlp_0.py").read_text()
CASES = {
    "call() spins": lambda s: re.sub(r"(\n    def call\(self, args\):\n)", r"\1        while True: pass\n", s,
                                     count=1),
    "call() faults": lambda s: re.sub(r"(\n    def call\(self, args\):\n)",
                                      r"\1        import os, signal; os.kill(os.getpid(), signal.SIGSEGV)\n", s,
                                      count=1),
    "the module spins as it loads": lambda s: s.replace("async_compile = AsyncCompile()",
                                                        "async_compile = AsyncCompile()\nwhile True: pass", 1),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=float, default=5.0, help="limit_s (default 5)")
    limit = parser.parse_args().limit
    for name, plant in CASES.items():
        cap = kernelviz.load(plant(SOURCE))
        start = time.perf_counter()
        cap.bench(progress=False, limit_s=limit)
        why = next((w for w in cap.graphs[0].warnings if w.startswith("not timed:")), "timed")
        print(f"{name:<30} {time.perf_counter() - start:6.1f} s with limit_s={limit:g}: {why}")


if __name__ == "__main__":
    main()
