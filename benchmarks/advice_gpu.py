"""Findings on a GPU: resnet50 inference and a GPT-2-style 2-layer training step, each captured with
``bench=True``; prints each graph as it runs (plain call(), CPU launch time, CUDA-graph replay) and the top
findings with how their ms was computed.

    python benchmarks/advice_gpu.py [resnet50|gpt2 ...] [--save=DIR]   # on a CUDA machine with torchvision and
                                                                        # transformers; --save: each capture's JSON
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

import kernelviz
from kernelviz.views.findings import as_run_line, text_lines

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import zoo  # noqa: E402


def resnet50():
    torchvision = kernelviz.needs("torchvision", "vision", "benchmarks/advice_gpu.py")

    model = torchvision.models.resnet50().cuda().eval()
    x = torch.randn(32, 3, 224, 224, device="cuda")
    compiled = torch.compile(model)
    with torch.no_grad():
        compiled(x)  # compiled before the capture: the capture times a warm graph
        with kernelviz.capture(bench=True) as cap:
            compiled(x)
    return cap


def gpt2():
    step = zoo.gpt2_training_step()
    step()
    with kernelviz.capture(bench=True) as cap:
        step()
    return cap


def report(name: str, cap) -> None:
    print(f"== {name}: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    for graph in cap.graphs:
        print(f"graph {graph.id} ({len(graph.launches)} launches): "
              + (as_run_line(graph.as_run) if graph.as_run else "; ".join(graph.warnings) or "not timed"))
    for line in text_lines(cap, top=8):
        print(line)
    print(f"({len(cap.findings)} findings: " + ", ".join(sorted({f.rule for f in cap.findings})) + ")")


if __name__ == "__main__":
    names = [a for a in sys.argv[1:] if not a.startswith("--save=")] or ["resnet50", "gpt2"]
    save = next((a[len("--save="):] for a in sys.argv[1:] if a.startswith("--save=")), None)
    for name in names:
        start = time.perf_counter()
        cap = globals()[name]()
        report(name, cap)
        print(f"({time.perf_counter() - start:.1f} s)\n", flush=True)
        if save:
            cap.save(Path(save) / name)
