"""Hardware counters on a GPU: resnet18 inference (every Triton launch) and a GPT-2-style training step (the
10 launches with the most in-graph time over its graphs) measured under Nsight Compute: launches
measured, seconds taken, and per launch the measured DRAM bytes against Inductor's estimate and the
argument bytes, with the top stall and the hottest line.

    python benchmarks/bench_counters.py [resnet18] [gpt2] [--save DIR]    # on a CUDA machine with ncu
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import torch

import kernelviz


def resnet18():
    torchvision = kernelviz.needs("torchvision", "vision", "benchmarks/bench_counters.py")

    model = torchvision.models.resnet18().eval().cuda().to(memory_format=torch.channels_last)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    with torch.no_grad(), kernelviz.capture(bench=True, repros=True) as cap:
        torch.compile(model)(x)
    return cap, {"launches": [launch for launch in cap.launches if launch.kernel_name]}


def gpt2():
    import transformers

    config = transformers.GPT2Config(n_layer=2, n_embd=256, n_head=4, vocab_size=1000, n_positions=128)
    torch.manual_seed(0)
    model = transformers.GPT2LMHeadModel(config).cuda().train()
    ids = torch.randint(0, 1000, (4, 128), device="cuda")
    compiled = torch.compile(model)
    compiled(ids, labels=ids).loss.backward()  # compile outside the capture: it captures a warm step
    with kernelviz.capture(bench=True) as cap:  # no repros: the backward is replayed on recreated inputs
        compiled(ids, labels=ids).loss.backward()
    return cap, {"top": 10}


def _mb(n):
    return "-" if n is None else f"{n / 1e6:.2f}"


def _short(name: str) -> str:
    return name if len(name) <= 44 else "…" + name[-43:]


def report(name: str, cap, options: dict, save: Path | None) -> None:
    start = time.perf_counter()
    cap.counters(progress=False, **options)
    seconds = time.perf_counter() - start
    measured = [launch for graph in cap.graphs for launch in graph.launches if launch.counters is not None]
    ok = [launch for launch in measured if launch.counters.error is None]
    print(f"{name}: {len(ok)} of {len(measured)} launches measured in {seconds:.1f} s "
          f"({sum(len(g.launches) for g in cap.graphs)} launches in {len(cap.graphs)} graph(s))")
    print(f"  {'launch':44} {'in-graph ms':>11} {'ncu ms':>8} {'DRAM MB':>8} {'est. MB':>8} {'args MB':>8} "
          f"{'meas/est':>8}  top stall; hottest line")
    for launch in measured:
        c, t = launch.counters, launch.timing
        if c.error:
            print(f"  {_short(launch.name):44} not measured: {c.error}")
            continue
        ratio = f"{c.dram_bytes / t.bytes_estimate:.2f}" if c.dram_bytes and t and t.bytes_estimate else "-"
        hot = max(c.lines, key=lambda line: line.stall_samples, default=None)
        print(f"  {_short(launch.name):44} {t.in_graph_ms if t and t.in_graph_ms else 0:11.4f} {c.duration_ms:8.4f} "
              f"{_mb(c.dram_bytes):>8} {_mb(t.bytes_estimate if t else None):>8} "
              f"{_mb(t.bytes_args if t else None):>8} {ratio:>8}  "
              f"{c.stalls[0].reason if c.stalls else '-'}; {f'line {hot.line}' if hot else '-'}")
    for launch in measured[:1]:
        print("  findings of the first:", *launch.counters.findings[:3], sep="\n    ")
    if save:
        cap.save(save / f"{name}_counters.json")


def main() -> None:
    args = sys.argv[1:]
    save = Path(args[args.index("--save") + 1]) if "--save" in args else None
    names = [a for a in args if a in ("resnet18", "gpt2")] or ["resnet18", "gpt2"]
    for name in names:
        start = time.perf_counter()
        cap, options = {"resnet18": resnet18, "gpt2": gpt2}[name]()
        print(f"{name}: compiled, captured and timed in {time.perf_counter() - start:.1f} s")
        report(name, cap, options, save)


if __name__ == "__main__":
    main()
