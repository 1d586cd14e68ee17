"""Rules over a graph's launches: register spills, occupancy, memory-bound below the copy bandwidth,
latency-bound launches, and (where hardware counters were measured) the top stall reason.

Except for memory-bound (time above the bandwidth floor), the ms of these findings is the in-graph time of
the launches concerned: the time at stake, not a saving (``how`` says so)."""

from __future__ import annotations

from ..figures import positive
from ..model import Advice, DevicePeaks, Graph, Kernel, Launch
from ..units import ms_text, size

BANDWIDTH_SHARE = 60.0  # % of the device's copy bandwidth below which a memory-bound launch is a finding
LOW_OCCUPANCY = 0.5  # of the warps an SM holds, where registers or shared memory are the limit
HOTTEST = 3  # launches whose stall reasons are read, where counters were measured


def kernel_findings(graph: Graph, peaks: DevicePeaks | None) -> list[Advice]:
    return [*_per_kernel(graph), *_memory_bound(graph, peaks), *_latency_bound(graph), *_stalls(graph)]


def _in_graph(launches: list[Launch]) -> float | None:
    times = [launch.timing.in_graph_ms for launch in launches if launch.timing and launch.timing.in_graph_ms]
    return sum(times) if times else None


def _at_stake(launches: list[Launch]) -> tuple[float | None, str]:
    ms = _in_graph(launches)
    if ms is None:
        return None, "not timed"
    what = "its launch's" if len(launches) == 1 else f"its {len(launches)} launches'"
    return ms, f"{what} in-graph time (the time at stake, not a measured saving)"


def _per_kernel(graph: Graph) -> list[Advice]:
    found = []
    for kernel in graph.kernels:
        launches = [launch for launch in graph.launches if launch.kernel_name == kernel.name]
        if not launches:
            continue
        ms, how = _at_stake(launches)
        indices = [launch.index for launch in launches]
        spills = _spills(kernel)
        if spills:
            regs = kernel.ir.num_regs if kernel.ir and kernel.ir.num_regs else None
            found.append(Advice(
                "spills", graph.id, indices, ms,
                f"{kernel.name} spills {spills} registers to local memory" + (f" ({regs} registers per thread)"
                                                                               if regs else ""),
                "a smaller block (XBLOCK/RBLOCK) or fewer warps for this kernel, or let Inductor autotune it: "
                "torch._inductor.config.max_autotune = True", how))
        occupancy = kernel.ir.occupancy if kernel.ir else None
        if (occupancy is not None and occupancy.max_warps_per_sm
                and any(r in occupancy.limited_by for r in ("registers", "shared memory"))
                and occupancy.warps_per_sm < LOW_OCCUPANCY * occupancy.max_warps_per_sm):
            found.append(Advice(
                "occupancy", graph.id, indices, ms,
                f"{kernel.name}: {occupancy.blocks_per_sm} block(s) per SM, {occupancy.warps_per_sm} of "
                f"{occupancy.max_warps_per_sm} warps, limited by {occupancy.limited_by}",
                "fewer registers or less shared memory per block (a smaller tile or fewer stages) lets more "
                "blocks share an SM", how))
    return found


def _spills(kernel: Kernel) -> int:
    for source in (kernel.ir, kernel.timing):
        if source is not None and source.num_spills:
            return source.num_spills
    return 0


def _memory_bound(graph: Graph, peaks: DevicePeaks | None) -> list[Advice]:
    dram = peaks.dram_gb_per_s if peaks else None
    if not dram:
        return []
    found = []
    for launch in graph.launches:
        t = launch.timing
        if t is None or t.bound != "memory" or t.pct_peak_bw is None or t.pct_peak_bw >= BANDWIDTH_SHARE:
            continue
        if not (positive(t.flushed_ms) and positive(t.in_graph_ms) and positive(t.bytes)):
            continue
        floor = t.bytes / (dram * 1e9) * 1e3
        ms = t.in_graph_ms - floor
        if ms <= 0:
            continue
        found.append(Advice(
            "memory-bound", graph.id, [launch.index], ms,
            f"{launch.name} moves {size(t.bytes)} at {t.pct_peak_bw:.0f}% of the DRAM peak (L2-flushed "
            f"{ms_text(t.flushed_ms)})",
            _MEMORY_HINT["extern" if launch.kernel_name is None else "generated"],
            f"derived: in-graph {ms_text(t.in_graph_ms)} − {size(t.bytes)} at the DRAM peak {dram:.0f} GB/s "
            f"({ms_text(floor)}; {peaks.source or 'peak of unknown source'})"))
    return found


_MEMORY_HINT = {
    "generated": "well below the bandwidth: look at its access pattern (strided or broadcast loads, a transposed "
                 "layout), or at the block size of its config",
    "extern": "a library call (cuBLAS, cuDNN) well below the bandwidth: another layout (channels_last for "
              "convolutions), a lower precision, or max_autotune to let Inductor pick or generate a kernel for it",
}


def _latency_bound(graph: Graph) -> list[Advice]:
    """One finding per graph for its launches too small to fill the device."""
    small = [launch for launch in graph.launches if launch.timing and launch.timing.bound == "latency"]
    ms, how = _at_stake(small)
    if not small or ms is None:
        return []
    grids = [launch.timing.grid for launch in small if launch.timing.grid is not None]
    cpu = graph.device == "cpu"
    return [Advice(
        "latency-bound", graph.id, [launch.index for launch in sorted(
            small, key=lambda launch: -(launch.timing.in_graph_ms or 0.0))], ms,
        f"{len(small)} launch{'es' if len(small) > 1 else ''} cannot fill the device "
        + ("(under 5 µs in the graph: the order of a call's fixed cost)" if cpu else
           "(fewer thread blocks than SMs, or under 5 µs L2-flushed)")
        + (f"; grids of {min(grids)} to {max(grids)} blocks" if grids else ""),
        "each pays a call's fixed cost for little work: larger batches, or fusing them" if cpu else
        "each pays a launch's fixed cost for little work: larger batches, or fusing them (a CUDA graph hides "
        "the CPU side of that cost)", how)]


def _stalls(graph: Graph) -> list[Advice]:
    """The top stall reason of the hottest launches that carry hardware counters (``Launch.counters``)."""
    measured = [launch for launch in graph.launches
                if getattr(launch, "counters", None) is not None and getattr(launch.counters, "stalls", None)]
    measured.sort(key=lambda launch: -((launch.timing and launch.timing.in_graph_ms) or 0.0))
    found = []
    for launch in measured[:HOTTEST]:
        top = launch.counters.stalls[0]
        ms, how = _at_stake([launch])
        found.append(Advice(
            "stall", graph.id, [launch.index], ms,
            f"{launch.name}: warps stall most on {top.reason} ({100 * top.share:.0f}% of stalls, Nsight Compute)",
            _STALL_HINTS.get(top.reason, "see Nsight Compute's description of this stall reason"), how))
    return found


_STALL_HINTS = {
    "long_scoreboard": "waiting on global memory: fewer or wider (vectorised) loads, more warps to hide the latency",
    "barrier": "waiting at __syncthreads: uneven work per warp, or a smaller block",
    "math_pipe_throttle": "a math pipe is saturated: the kernel is compute-bound on that pipe",
    "mio_throttle": "shared-memory or special-function instructions queue up",
    "short_scoreboard": "waiting on shared memory or special functions",
    "lg_throttle": "too many local/global memory instructions in flight: wider loads",
    "wait": "fixed-latency dependencies: more independent work per warp",
    "not_selected": "enough warps are ready: the scheduler is busy (healthy)",
}
