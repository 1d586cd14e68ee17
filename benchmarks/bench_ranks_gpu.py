"""Figures of kernelviz across ranks, on 2 GPUs with NCCL (NVLink multicast off in every process):

1. the per-rank split of a DDP training step of a compiled model (the test's job, tests/ranks_job.py):
   compute, compute overlapped with communication, exposed communication and idle, from the device's
   activity between its first and last kernel of the step;
2. all-reduce bus bandwidth for a few sizes: kernelviz's (an all-reduce inside a compiled graph, timed in
   lockstep: in the graph, and alone back to back where the timing pass times it alone) against a plain
   torch.distributed timing loop on the same machine (dist.all_reduce back to back between CUDA events,
   as nccl-tests times it), with NCCL's bus factor 2(n-1)/n applied to both.

    python benchmarks/bench_ranks_gpu.py --out DIR     # writes DIR/ranks_figures.json, ddp.rank<N>.json, ddp_ranks.html
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed._functional_collectives as funcol
import torch.multiprocessing as mp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import kernelviz  # noqa: E402
from kernelviz.views.ranks_text import split_line  # noqa: E402
from ranks_job import NO_MULTICAST, ddp_step, free_port, start  # noqa: E402

SIZES_MB = (1, 16, 64, 256)
LOOP_WARMUP, LOOP_ITERS = 5, 20


def all_reduce(t):
    return funcol.all_reduce(t, "sum", dist.group.WORLD)


def loop_ms(t) -> float:
    """Mean ms of dist.all_reduce back to back, between CUDA events, after a warm-up."""
    for _ in range(LOOP_WARMUP):
        dist.all_reduce(t)
    torch.cuda.synchronize()
    dist.barrier()
    start_event, end_event = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start_event.record()
    for _ in range(LOOP_ITERS):
        dist.all_reduce(t)
    end_event.record()
    end_event.synchronize()
    return start_event.elapsed_time(end_event) / LOOP_ITERS


def rank_main(rank: int, world: int, port: int, out: str) -> None:
    out = Path(out)
    start(rank, world, port, "nccl")
    found = {"ddp": ddp_step(rank, out, "ddp"), "all_reduce": []}
    factor = 2 * (world - 1) / world
    compiled = torch.compile(all_reduce, dynamic=False)
    for mb in SIZES_MB:
        t = torch.zeros(mb * 2**20 // 4, device="cuda")
        compiled(t)
        with kernelviz.capture(bench=True) as cap:
            compiled(t)
        launch = next(launch for g in cap.graphs for launch in g.launches
                      if launch.collective and launch.collective.op == "all_reduce")
        ms = loop_ms(t)
        talk = launch.collective
        found["all_reduce"].append({
            "mb": mb, "bytes": talk.bytes, "kernelviz_ms": launch.timing.in_graph_ms,
            "kernelviz_bus": talk.bus_gb_per_s, "kernelviz_alone_bus": talk.alone_bus_gb_per_s,
            "kernels": launch.timing.device_kernels, "loop_ms": ms,
            "loop_bus": mb * 2**20 / (ms / 1e3) / 1e9 * factor, "warnings": cap.graphs[0].warnings})
    (out / f"figures.rank{rank}.json").write_text(json.dumps(found, indent=1))
    dist.destroy_process_group()


def _gb(x) -> str:
    return "-" if x is None else f"{x:7.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="ranks_figures", help="folder for the rank files, figures and report")
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    if torch.cuda.device_count() < 2:
        sys.exit("bench_ranks_gpu: needs 2 CUDA GPUs")
    os.environ.update(NO_MULTICAST)
    mp.spawn(rank_main, args=(2, free_port(), str(out)), nprocs=2, join=True)
    figures = [json.loads((out / f"figures.rank{r}.json").read_text()) for r in range(2)]
    ranks = kernelviz.load(out / "ddp")
    ranks.save_html(str(out / "ddp_ranks.html"))
    print(f"device: {torch.cuda.get_device_name(0)} x2, torch {torch.__version__}, NCCL "
          f"{'.'.join(map(str, torch.cuda.nccl.version()))}")
    print("\n1. DDP step of a compiled MLP (4 x Linear(4096, 4096) + GELU, batch 256, fp32, buckets of 64 MB):")
    for info in ranks.ranks:
        ops = ", ".join(f"{c.op} x{c.calls} {c.ms:.3f} ms" for c in info.step.collectives)
        print(f"  rank {info.rank}: {split_line(info.step)}; {ops}")
    print(f"  graphs: {len(ranks.graphs)} ({', '.join(g.id for g in ranks.graphs)}), ranks agree: "
          f"{all(g.kernels_agree and g.collectives_agree for g in ranks.graphs)}")
    print("\n2. all-reduce bus bandwidth, GB/s (fp32 sum, 2 ranks, bus factor 2(n-1)/n = 1):")
    print("  size MB   loop (dist.all_reduce)   kernelviz in graph   kernelviz alone   in graph / loop"
          "   (each: rank 0 | rank 1)")
    for a, b in zip(figures[0]["all_reduce"], figures[1]["all_reduce"]):
        ratio = a["kernelviz_bus"] / a["loop_bus"] if a["kernelviz_bus"] else None
        print(f"  {a['mb']:>7}   {_gb(a['loop_bus'])} | {_gb(b['loop_bus'])}    {_gb(a['kernelviz_bus'])} | "
              f"{_gb(b['kernelviz_bus'])}    {_gb(a['kernelviz_alone_bus'])} | {_gb(b['kernelviz_alone_bus'])}    "
              f"{'-' if ratio is None else f'{ratio:.2f}'}")
    kernels = sorted({k for a in figures[0]["all_reduce"] for k in a["kernels"]})
    print(f"  NCCL kernels owned by the all-reduce launches: {', '.join(kernels)}")
    warnings = sorted({w for f in figures for a in f["all_reduce"] for w in a["warnings"]})
    for w in warnings:
        print(f"  warning: {w}")
    (out / "ranks_figures.json").write_text(json.dumps(figures, indent=1))
    print(f"\nwrote {out / 'ranks_figures.json'}, {out / 'ddp_ranks.html'} and the rank files {out}/ddp.rank<N>.json")


if __name__ == "__main__":
    main()
