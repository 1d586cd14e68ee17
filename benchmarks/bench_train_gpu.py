"""Retiming after the cell on the GPU: ``cap.bench()`` of a training step captured without timing, beside the
time the same timing took at the capture's exit (``capture(bench=True)``), and of a GPT-2 backward loaded
from its saved code (timed in the timing process, on inputs recreated from the code's specs), with ``bench()``
called at once after ``load()`` (which starts that process), 15 s after it, and at once again.

    python benchmarks/bench_train_gpu.py        # on a CUDA machine with torchvision and transformers

Steps: a resnet50 training step (channels-last, bf16 autocast, batch 64) and a 2-layer GPT-2 step (dropout,
SDPA). For each graph it prints where it was timed, the seconds it took, the GPU busy time and the gap, and any
timing warning (a stream that ran dry, a launch that failed).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

import kernelviz
from kernelviz.bench.plan import plan

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import zoo  # noqa: E402 - the tests' workloads


def show(cap, what: str, seconds: float) -> None:
    print(f"  {what}: {seconds:.2f} s")
    for graph in cap.graphs:
        busy = f"busy {graph.gpu_busy_ms:.3f} ms, gap {graph.gap_ms:.3f} ms" if graph.gpu_busy_ms else "not timed"
        failed = sum(1 for launch in graph.launches if launch.timing is not None and launch.timing.error)
        print(f"    {graph.id}: {len(graph.launches)} launches on {graph.timed_on}, {graph.bench_s or 0:.2f} s, {busy}"
              + (f", {failed} failed" if failed else ""))
        for warning in graph.warnings:
            if warning.startswith(("not timed", "timing:")) or "failed" in warning:
                print(f"      {warning[:200]}")


def measure(name: str, step) -> kernelviz.Capture:
    print(name)
    step()
    torch.cuda.synchronize()
    with kernelviz.capture(bench=True) as timed:
        step()
        torch.cuda.synchronize()
    show(timed, "timed at the capture's exit (sum of the graphs' bench_s)", sum(g.bench_s or 0 for g in timed.graphs))
    with kernelviz.capture() as cap:
        step()
        torch.cuda.synchronize()
    start = time.perf_counter()
    cap.wait_stages()  # bench() waits for them; a notebook's next cell comes after they are read
    print(f"  the stages (TTIR to SASS) were read {time.perf_counter() - start:.2f} s after the cell")
    print("  where each graph is timed after the cell:", ", ".join(f"{p.graph.id} {p.where}" for p in plan(cap)))
    for attempt in ("first", "second"):
        start = time.perf_counter()
        cap.bench(progress=False)
        show(cap, f"cap.bench() after the cell, {attempt} time (wall)", time.perf_counter() - start)
    return cap


def main() -> None:
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    measure("resnet50 training step (channels-last, bf16 autocast, batch 64)", zoo.resnet50_training_step())
    cap = measure("GPT-2 2-layer training step (dropout, SDPA)", zoo.gpt2_training_step())
    backward = max((g for g in cap.graphs if g.kind == "backward"), key=lambda g: len(g.launches))
    for when, pause in (("at once", 0.0), ("15 s after", 15.0), ("at once, again", 0.0)):
        loaded = kernelviz.load(backward.code)  # starts the timing process: torch sees a GPU here
        time.sleep(pause)
        start = time.perf_counter()
        loaded.bench(progress=False)
        show(loaded, f"its backward loaded from the saved code, cap.bench() {when} load(), a timing process (wall)",
             time.perf_counter() - start)
        print(f"    made-up values: {', '.join(loaded.graphs[0].made_up_values) or 'none'}")


if __name__ == "__main__":
    main()
