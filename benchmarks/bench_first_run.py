"""The README's demo on a machine that never ran it, then again: every launch above 1% of its graph agrees within 25%.

    python benchmarks/bench_first_run.py [--runs 3]

Each run is ``python -m kernelviz demo`` in a fresh process. The first has every cache empty, as on a fresh venv:
its own home (kernelviz's caches under ``~/.cache``), Inductor's and Triton's caches, and Python's bytecode for
torch and kernelviz (``PYTHONPYCACHEPREFIX``); the later runs keep what the first left, as a user's second demo
does. Prints each launch's in-graph time (and alone) per run beside the first, the share of its graph, and whether
each later run agrees within 25%.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARE = 0.01  # launches above this share of their graph are compared
AGREE = 0.25


def demo(out: Path, env: dict) -> tuple[dict, float]:
    began = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "kernelviz", "demo", "--out", str(out)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    if done.returncode:
        sys.exit(f"demo exited {done.returncode}: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    return json.loads(out.with_suffix(".json").read_text()), time.perf_counter() - began


def launches(capture: dict) -> dict[tuple[str, int], tuple[str, float, float | None, float]]:
    """(graph, index) -> (name, in-graph ms, alone ms, share of the graph's launches) for every timed launch."""
    found = {}
    for graph in capture["graphs"]:
        kernels = {k["name"]: k for k in graph["kernels"]}
        timed = [x for x in graph["launches"] if (x.get("timing") or {}).get("in_graph_ms") is not None]
        total = sum(x["timing"]["in_graph_ms"] for x in timed) or 1.0
        for x in timed:
            alone = ((kernels.get(x.get("kernel_name")) or {}).get("timing") or {}).get("isolated_ms")
            found[(graph["id"], x["index"])] = (x.get("kernel_name") or x.get("name") or "extern",
                                                x["timing"]["in_graph_ms"], alone, x["timing"]["in_graph_ms"] / total)
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="first-run-") as fresh:
        home = Path(fresh)
        env = dict(os.environ, HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"),
                   TORCHINDUCTOR_CACHE_DIR=str(home / "inductor"), TRITON_CACHE_DIR=str(home / "triton"),
                   PYTHONPYCACHEPREFIX=str(home / "pyc"), PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
        runs = []
        for i in range(args.runs):
            capture, seconds = demo(home / f"run{i}", env)
            runs.append(launches(capture))
            print(f"run {i + 1}{' (every cache empty)' if i == 0 else ''}: {seconds:.1f} s", flush=True)
    first = runs[0]
    print(f"\nlaunches above {SHARE:.0%} of their graph, in-graph ms (alone ms); each later run against the first")
    heads = "  ".join(f"run {i + 1:<14}" for i in range(len(runs)))
    print(f"{'graph':<12} {'#':>3} {'launch':<34} {'share':>6}  {heads}  verdict")
    misses = 0
    for key, (name, ms, _, share) in first.items():
        if share < SHARE:
            continue
        cells, ok = [], True
        for run in runs:
            _, later, later_alone, _ = run.get(key, (name, float("nan"), None, 0.0))
            cells.append(f"{later:.4f} ({later_alone:.4f})" if later_alone is not None else f"{later:.4f}")
            ok &= max(ms, later) <= (1 + AGREE) * min(ms, later)
        misses += not ok
        print(f"{key[0]:<12} {key[1]:>3} {name[:34]:<34} {share:>6.1%}  " + "  ".join(f"{c:<18}" for c in cells)
              + ("  agree" if ok else "  DISAGREE"))
    print(f"\n{misses} launch(es) above {SHARE:.0%} disagree by more than {AGREE:.0%} between the first run and a "
          "later one")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main())
