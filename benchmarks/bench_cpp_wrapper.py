"""cpp_wrapper against the Python wrapper, as kernelviz measures them: each workload compiled both ways in one
capture with ``bench=True`` (CPU, or CUDA where there is a GPU); prints per graph the plain call() as it runs,
its launches' in-graph time added up, the capture's cost, and the finding's line on what cpp_wrapper saves.

    python benchmarks/bench_cpp_wrapper.py [tiny_chain|block ...]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

import kernelviz
from kernelviz.advice.graphs import cpp_wrapper_saving, wrapper_twins

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from test_cpp_wrapper_capture import Block  # noqa: E402

import zoo  # noqa: E402

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def tiny_chain():
    x, w = torch.randn(16, 16, device=DEVICE), torch.randn(16, 16, device=DEVICE) / 4
    return zoo.tiny_chain, (x, w)


def block():
    torch.manual_seed(0)
    return Block(64).to(DEVICE).eval(), (torch.randn(4, 32, 64, device=DEVICE),)


def run(name: str) -> None:
    fn, args = globals()[name]()
    torch._dynamo.reset()
    started = time.perf_counter()
    with torch.no_grad(), kernelviz.capture(bench=True) as cap:
        torch.compile(fn)(*args)
        torch._dynamo.reset()
        torch.compile(fn, options={"cpp_wrapper": True})(*args)
    spent = time.perf_counter() - started
    torch._dynamo.reset()
    twins = wrapper_twins(cap.graphs)
    print(f"{name} on {DEVICE} ({torch.__version__}): capture with both compiles and timing {spent:.1f} s")
    for graph in cap.graphs:
        run_ = graph.as_run
        if run_ is None:
            print(f"  {graph.wrapper:6} {graph.id}: not timed: {graph.warnings}")
            continue
        print(f"  {graph.wrapper:6} {graph.id}: {len(graph.launches)} launches; as run {run_.plain_ms:.4f} ms "
              f"(median of {run_.runs}), launches in the graph {run_.kernels_ms:.4f} ms, bench {graph.bench_s:.1f} s")
        print(f"         {cpp_wrapper_saving(graph, twins.get(graph.id))[1]}")

if __name__ == "__main__":
    for workload in sys.argv[1:] or ["tiny_chain", "block"]:
        run(workload)
