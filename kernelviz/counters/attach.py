"""What ``read`` found, as model data on a launch: kernel-level figures (summed over an extern call's
device kernels, rates weighted by their durations), stall shares, findings, and per line of the kernel's
source and per SASS instruction the instructions executed and stall samples."""

from __future__ import annotations

import re
from pathlib import PurePath
from typing import Any

from ..model import Graph, Kernel, Launch, LaunchCounters, LineCounters, StallShare

TOP_STALLS = 6
_DEF = re.compile(r"^def (\w+)\(", re.M)
RATES = ("l1_hit_rate", "l2_hit_rate", "sm_pct", "memory_pct", "dram_pct", "achieved_occupancy",
         "theoretical_occupancy")


def _weighted(results: list[dict], field: str) -> float | None:
    pairs = [(r[field], r.get("duration_ns") or 0.0) for r in results if r.get(field) is not None]
    if not pairs:
        return None
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else sum(v for v, _ in pairs) / len(pairs)


def _sum(results: list[dict], field: str) -> float | None:
    values = [r[field] for r in results if r.get(field) is not None]
    return sum(values) if values else None


def _stalls(results: list[dict]) -> list[StallShare]:
    totals: dict[str, float] = {}
    for r in results:
        for reason, value in (r.get("stalls") or {}).items():
            totals[reason] = totals.get(reason, 0.0) + value * (r.get("duration_ns") or 1.0)
    whole = sum(totals.values())
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])[:TOP_STALLS]
    return [StallShare(reason, value / whole) for reason, value in ranked if whole]


def _offset(kernel: Kernel, text: str | None) -> int | None:
    """Line N of the profiled file is line N - offset of ``Kernel.source``: by where ``def <name>(`` is in
    both, else the compiled stages' own offset."""
    here = _DEF.search(kernel.source)
    there = re.search(rf"^def {re.escape(here.group(1))}\(", text, re.M) if here and text else None
    if here and there:
        return text.count("\n", 0, there.start()) - kernel.source.count("\n", 0, here.start())
    return kernel.ir.line_offset if kernel.ir and kernel.ir.file else None


def _lines(kernel: Kernel, result: dict) -> list[LineCounters]:
    """Per line of the kernel's source: the instructions and samples of the PCs compiled from it."""
    rows = [row for row in result.get("pcs") or [] if row[4] and row[5]]
    files = {row[4] for row in rows}
    if kernel.ir and kernel.ir.file and len(files) > 1:
        files = {f for f in files if PurePath(f).name == PurePath(kernel.ir.file).name} or files
    count = kernel.source.count("\n") + 1
    per: dict[int, list[Any]] = {}
    for file in files:
        offset = _offset(kernel, (result.get("files") or {}).get(file))
        if offset is None:
            continue
        for _, inst, samples, reason, f, line in rows:
            n = line - offset
            if f != file or not 1 <= n <= count:
                continue
            entry = per.setdefault(n, [0, 0, {}])
            entry[0] += inst
            entry[1] += samples
            if reason:
                entry[2][reason] = entry[2].get(reason, 0) + samples
    return [LineCounters(n, inst, samples, max(reasons, key=reasons.get) if reasons else None)
            for n, (inst, samples, reasons) in sorted(per.items())]


def _sass(result: dict) -> list[LineCounters]:
    """Per SASS instruction, by its offset in the function (the first executed PC is the entry)."""
    rows = result.get("pcs") or []
    if not rows:
        return []
    entry = min(row[0] for row in rows)
    return [LineCounters(pc - entry, inst, samples, reason) for pc, inst, samples, reason, _, _ in rows]


def counters_of(graph: Graph, launch: Launch, results: list[dict], tool: str) -> LaunchCounters:
    """The counters of ``launch`` from the results of the device kernels it ran."""
    good = [r for r in results if not r.get("error")]
    if not good:
        return LaunchCounters(error=f"the report could not be read: {results[0]['error']}", tool=tool)
    duration = _sum(good, "duration_ns")
    read, written = _sum(good, "dram_read_bytes"), _sum(good, "dram_write_bytes")
    out = LaunchCounters(duration_ms=duration / 1e6 if duration is not None else None,
                         dram_read_bytes=int(read) if read is not None else None,
                         dram_write_bytes=int(written) if written is not None else None,
                         flops=_sum(good, "flops"), stalls=_stalls(good), kernels=[r["name"] for r in good],
                         tool=tool, **{field: _weighted(good, field) for field in RATES})
    many = len(good) > 1
    out.findings = [f"{r['name']}: {f}" if many else f for r in good for f in r.get("findings") or []]
    if launch.kernel_name and len(good) == 1:
        out.lines = _lines(graph.kernel(launch.kernel_name), good[0])
        out.sass = _sass(good[0])
    return out


def use_measured(launch: Launch) -> None:
    """The launch's roofline point and % of peak from what was measured: its DRAM bytes (Inductor's estimate
    and the argument bytes stay beside them), its FLOPs where the CUDA cores did the counted work (ncu's
    instruction counts leave tensor cores out: a count far below the estimate keeps the estimate), Nsight
    Compute's DRAM and SM throughput as % of peak, and its bound: compute where the SMs were busier than memory."""
    t, c = launch.timing, launch.counters
    if t is None or c is None or c.error:
        return
    if c.dram_bytes:
        t.bytes = c.dram_bytes
        if t.in_graph_ms:
            t.gb_per_s = t.bytes / (t.in_graph_ms / 1e3) / 1e9
    if t.flops and c.flops and c.flops >= 0.5 * t.flops:  # well below: tensor cores did the work, uncounted
        t.flops = c.flops
        if t.in_graph_ms:
            t.tflop_per_s = t.flops / (t.in_graph_ms / 1e3) / 1e12
    if c.dram_pct is not None:
        t.pct_peak_bw = min(c.dram_pct, 100.0)
    if c.sm_pct is not None and c.memory_pct is not None and t.bound in ("memory", "compute"):
        t.bound = "compute" if c.sm_pct > c.memory_pct else "memory"  # whichever of the two is busier
    if c.sm_pct is not None and (t.pct_peak_flops is not None or t.bound == "compute"):
        t.pct_peak_flops = min(c.sm_pct, 100.0)
    measured = ("bytes, FLOPs, % of peak and bound measured by Nsight Compute (DRAM bytes, CUDA-core FLOPs where "
                "counted; DRAM, SM and memory throughput)")
    t.note = measured if not t.note or measured in t.note else f"{t.note}; {measured}"
