"""What every view shows of a launch, worked out once: its kernel and kind, its rate, its % of a roof, the forms
of its name (``names.py``) and why its times in the graph and alone differ. The HTML reports, the roofline SVG and
the text summary call these; the panel reads the rates, % of roof, name forms and notes from the payload's ``view``
annex (:func:`launch_annex`) and finds a launch's kernel by its ``kernel_name``, as the model refers to it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..figures import positive, valid
from ..model import Capture, DevicePeaks, Graph, Kernel, Launch
from ..names import name_forms
from ..units import ms_texts


@dataclass(frozen=True)
class Rate:
    """A launch's achieved rate: ``value`` in ``unit`` ("GB/s", "TFLOP/s" or a collective's "GB/s bus");
    ``cache_resident``: a GB/s above the DRAM peak (its inputs were in cache)."""

    value: float
    unit: str
    cache_resident: bool = False


@dataclass(frozen=True)
class Roof:
    """A launch's % of a roof: ``pct`` (never above 100) of the peak ``of``; ``tag`` ("bw" or "flop") says
    which where what bounds the launch is not known (then it is not the roofline's), else it is ""."""

    pct: float
    of: str
    tag: str


def kernel_of(graph: Graph, launch: Launch) -> Kernel | None:
    """The kernel a launch runs (what its row links to): None for an extern call or a kernel not in the graph."""
    if launch.kernel_name is None:
        return None
    return next((k for k in graph.kernels if k.name == launch.kernel_name), None)


def launch_kind(graph: Graph, launch: Launch) -> str:
    """The kind shown for a launch: its kernel's kind, or "extern" for an extern call."""
    if launch.kernel_name is None:
        return "extern"
    kernel = kernel_of(graph, launch)
    return kernel.kind if kernel else "kernel"


def rate(launch: Launch) -> Rate | None:
    """A collective's bus bandwidth (as nccl-tests counts it); a kernel's TFLOP/s where compute bounds it or only
    FLOPs are known, else its GB/s; None where none was measured."""
    t, c = launch.timing, launch.collective
    if c is not None:
        return None if c.bus_gb_per_s is None else Rate(c.bus_gb_per_s, "GB/s bus")
    if t is None:
        return None
    if t.tflop_per_s is not None and (t.bound == "compute" or t.gb_per_s is None):
        return Rate(t.tflop_per_s, "TFLOP/s")
    return None if t.gb_per_s is None else Rate(t.gb_per_s, "GB/s", t.cache_resident)


def peaks_known(peaks: DevicePeaks | None) -> bool:
    """Whether the device's peaks are known (else no figure is a % of them)."""
    return peaks is not None and bool(peaks.dram_gb_per_s or peaks.tflops)


def roof(launch: Launch, known: bool) -> Roof | None:
    """% of the roofline (both from L2-flushed times): of the compute peak for a compute-bound launch, else of the
    DRAM peak; where the bound is not known, tagged with the peak it is of; None where the peaks are not
    ``known`` or no % was worked out. A value that makes no sense (``figures.valid``) is kept as it is."""
    t = launch.timing
    if t is None or not known:
        return None
    flops = (t.pct_peak_flops, f"{t.dtype or ''} compute peak".strip(), "flop")
    bw = (t.pct_peak_bw, "DRAM bandwidth peak", "bw")
    pick = flops if t.bound == "compute" and flops[0] is not None else bw if bw[0] is not None else flops
    pct, of, tag = pick
    if pct is None:
        return None
    return Roof(min(pct, 100.0) if valid(pct) else pct, of, "" if t.bound else tag)


AGREE = 0.2  # in-graph and isolated times within this share of the isolated one agree: no note

_FASTER = {  # the device's clock -> why a launch runs faster in the graph than alone
    "gpu": "its inputs may still be in L2, written there by the launches before it; alone, each run starts with a "
           "flushed L2",
    "cpu": "its inputs may still be in the CPU's caches, written there by the launches before it",
}
_SLOWER = {  # the device's clock -> what slows a launch in the graph
    "gpu": "in the graph it runs after call()'s other launches, under the profiler that times each, and its figure "
           "is the mean of its runs (a slow one counts in full); alone, the median of its runs by itself",
    "cpu": "in the graph it shares the cores and caches with call()'s other work (extern calls, other kernels and "
           "their threads); alone it runs by itself, repeated on the same inputs",
}


def time_note(graph: Graph, launch: Launch) -> str:
    """Why a launch's in-graph time and its kernel's time alone differ, chosen by which is the larger and the
    launch's clock (``unit``); "" where one is missing or makes no sense, or they agree within :data:`AGREE`."""
    kernel = kernel_of(graph, launch)
    t, alone = launch.timing, kernel.timing if kernel is not None else None
    if t is None or alone is None or not positive(t.in_graph_ms) or not positive(alone.isolated_ms):
        return ""
    if abs(t.in_graph_ms - alone.isolated_ms) <= AGREE * alone.isolated_ms:
        return ""
    clock = "cpu" if t.unit == "cpu" else "gpu"
    (in_graph,), (isolated,) = ms_texts(t.in_graph_ms), ms_texts(alone.isolated_ms)  # each in its own unit
    if t.in_graph_ms < alone.isolated_ms:
        return f"Faster in the graph ({in_graph}) than alone ({isolated}): in the graph {_FASTER[clock]}."
    return f"Slower in the graph ({in_graph}) than alone ({isolated}): {_SLOWER[clock]}."


def dynamic_sizes(graph: Graph) -> str:
    """``dynamic shapes: arg1_1 [s0] ran as [16]``: the inputs whose sizes the graph was compiled for as symbols
    (with dynamic shapes), and their sizes in this run ("" where none is symbolic)."""
    inputs = [spec for spec in graph.inputs if spec.symbols or spec.shape and not all(s.isdigit() for s in spec.shape)]
    parts = [f"{spec.name} [{', '.join(spec.symbols or spec.shape or [])}]"
             + (f" ran as [{', '.join(spec.shape or [])}]" if spec.symbols else "") for spec in inputs]
    return f"dynamic shapes: {'; '.join(parts)}" if parts else ""


def untimed_line(graph: Graph, known: bool) -> str:
    """What timing a graph adds, in one line ("" where it is timed): the panel shows it in place of the columns
    that have no figures yet."""
    if any(launch.timing and launch.timing.in_graph_ms is not None for launch in graph.launches):
        return ""
    roofline = ", its % of the roofline and what bounds it" if known else ""
    return ("not timed: timing adds each launch's time in the graph (in-graph ms, share), its kernel's time alone "
            f"(isolated ms), the rate it achieves{roofline}")


def name_entries(names: Iterable[tuple[str, Iterable[str], bool | None]]) -> dict[str, list]:
    """The forms of each distinct name of (name, aten, generated) (``NameForms.to_json``), by name: what the
    panel picks its labels from. A kernel's launches share its ``original_aten``, so a name has one entry."""
    entries: dict[str, list] = {}
    for name, aten, generated in names:
        if name not in entries:
            entries[name] = name_forms(name, tuple(aten), generated).to_json()
    return entries


def launch_names(launches: Iterable[Launch]) -> dict[str, list]:
    """:func:`name_entries` of launches, each split with its ``original_aten``."""
    return name_entries((launch.name, launch.original_aten, launch.kernel_name is not None) for launch in launches)


def graph_annex(graph: Graph, known: bool) -> dict[str, Any]:
    """One graph's entries: ``names`` (:func:`launch_names`), by launch index the ``rates`` ([value, unit,
    cache_resident]), ``roofs`` ([pct, of, tag]) and time ``notes`` (:func:`time_note`) of the launches that have
    them, ``dynamic`` (:func:`dynamic_sizes`) and ``untimed`` (:func:`untimed_line`)."""
    rates, roofs, notes = {}, {}, {}
    for launch in graph.launches:
        if (r := rate(launch)) is not None:
            rates[str(launch.index)] = [r.value, r.unit, r.cache_resident]
        if (f := roof(launch, known)) is not None:
            roofs[str(launch.index)] = [f.pct, f.of, f.tag]
        if note := time_note(graph, launch):
            notes[str(launch.index)] = note
    return {"names": launch_names(graph.launches), "rates": rates, "roofs": roofs, "notes": notes,
            "dynamic": dynamic_sizes(graph), "untimed": untimed_line(graph, known)}


def launch_annex(capture: Capture) -> list[dict[str, Any]]:
    """:func:`graph_annex` of every graph, in order (the payload's ``view.launches``)."""
    known = peaks_known(capture.peaks)
    return [graph_annex(graph, known) for graph in capture.graphs]


def heaviest_kept(capture: Capture, size: Callable[[int, Kernel], int], budget: float) -> set[tuple[int, str]]:
    """The kernels (graph index, name) whose heavy parts a bounded view keeps: by their launches' in-graph time
    added up, most first (untimed ones after, in call() order), each whose ``size(graph index, kernel)`` still
    fits in what is left of ``budget``."""
    ranked = []
    for g, graph in enumerate(capture.graphs):
        ms = {kernel.name: 0.0 for kernel in graph.kernels}
        for launch in graph.launches:
            t = launch.timing
            if launch.kernel_name in ms and t is not None and valid(t.in_graph_ms):
                ms[launch.kernel_name] += t.in_graph_ms
        ranked += [(-ms[kernel.name], g, kernel) for kernel in graph.kernels]
    kept: set[tuple[int, str]] = set()
    for _, g, kernel in sorted(ranked, key=lambda entry: entry[0]):
        heavy = size(g, kernel)
        if heavy <= budget:
            kept.add((g, kernel.name))
            budget -= heavy
    return kept


def busy_label(graph: Graph) -> str:
    """What a graph's busy time is on its device."""
    return "call() wall time" if graph.device == "cpu" else "GPU busy time"


def gap_title(graph: Graph) -> str:
    """What a graph's gap holds: the busy time no launch covers."""
    held = "the wrapper's own work between kernels" if graph.device == "cpu" else \
        "idle between kernels and launch overhead"
    return f"{busy_label(graph)} not covered by launches: {held}"
