"""The panel's figures as text (the payload's ``view.launches[g].texts`` and ``graph_texts``, ``view.memory``'s
``live``): every time, size, rate and percentage the capture panel shows, written here by :mod:`kernelviz.units`;
the panel's modules show these strings and format no figure themselves."""

from __future__ import annotations

from .. import units
from ..figures import positive, shown, valid
from ..model import DevicePeaks, Graph, Launch, LaunchCounters, LineCounters, Ranks
from .memory import Timeline
from .rules import busy_label, gap_title, rate, roof


def _kept(texts: dict[str, str]) -> dict[str, str]:
    return {key: text for key, text in texts.items() if text}


def launch_texts(graph: Graph, launch: Launch, known: bool) -> dict[str, str]:
    """A launch's figures by what they are, those it has: its times (``ms`` in the graph, ``iso`` its kernel
    alone, ``flushed``), ``share`` of the graph (capped, and ``share_exact``), rates (``rate``: the table's,
    ``gbps``, ``tflops``), % of roof (``pct``: the table's, ``pct_exact``, ``pct_bw``, ``pct_flops``), sizes
    (``bytes``, ``bytes_estimate``, ``bytes_args``), ``flops``, ``intensity`` (FLOP/B), a collective's
    ``message``, ``bus``, ``algo``, ``alone_bus`` and ``wait``, and its measured ``counters``
    (:func:`counters_texts`). ``known``: whether the device's peaks are."""
    t, c, r, f = launch.timing, launch.collective, rate(launch), roof(launch, known)
    kernel = next((k for k in graph.kernels if k.name == launch.kernel_name), None) if launch.kernel_name else None
    iso = kernel.timing.isolated_ms if kernel is not None and kernel.timing is not None else None
    texts = {"iso": units.ms_figure(iso),
             "rate": units.rate_figure(r.value, r.unit) if r else "",
             "pct": units.percent_figure(f.pct) if f else "", "pct_exact": units.percent(f.pct) if f else ""}
    if t is not None:
        intensity = t.flops / t.bytes if positive(t.flops) and positive(t.bytes) else None
        texts |= {"ms": units.ms_figure(t.in_graph_ms), "flushed": units.ms_figure(t.flushed_ms),
                  "share": units.share(t.share), "share_exact": units.relative(t.share, 2),
                  "gbps": units.rate_figure(t.gb_per_s, "GB/s"), "tflops": units.rate_figure(t.tflop_per_s, "TFLOP/s"),
                  "pct_bw": units.percent_figure(t.pct_peak_bw), "pct_flops": units.percent_figure(t.pct_peak_flops),
                  "bytes": units.size(t.bytes), "bytes_estimate": units.size(t.bytes_estimate),
                  "bytes_args": units.size(t.bytes_args), "flops": shown(t.flops, "", ".3e"),
                  "intensity": shown(intensity, "FLOP/B")}
    if launch.counters is not None and launch.counters.error is None:
        texts["counters"] = counters_texts(launch.counters)
    if c is not None:
        texts |= {"message": units.size(c.bytes), "bus": units.rate_figure(c.bus_gb_per_s, "GB/s"),
                  "algo": units.rate_figure(c.algo_gb_per_s, "GB/s"),
                  "alone_bus": units.rate_figure(c.alone_bus_gb_per_s, "GB/s"), "wait": units.ms_figure(c.wait_ms)}
    return _kept(texts)


def counters_texts(c: LaunchCounters) -> dict[str, object]:
    """A launch's hardware counters as the Counters section shows them: ``duration``; DRAM bytes (``dram_total``,
    ``dram_read``, ``dram_written``); throughputs and rates in percent (``sm``, ``memory``, ``dram``, ``l1``, ``l2``,
    ``achieved``, ``theoretical``); ``flops``; each stall's share (``stalls``: [share, exact share]); and, in the
    order of ``lines`` and ``sass``, each entry's share of their stall samples and its count (the heat column)."""
    read, written = c.dram_read_bytes, c.dram_write_bytes
    measured = read is not None or written is not None
    return {"duration": units.ms_figure(c.duration_ms),
            "dram_total": units.size((read or 0) + (written or 0)) if measured else "",
            "dram_read": units.size(read), "dram_written": units.size(written),
            "sm": units.percent_figure(c.sm_pct), "memory": units.percent_figure(c.memory_pct),
            "dram": units.percent_figure(c.dram_pct), "l1": units.percent_figure(c.l1_hit_rate),
            "l2": units.percent_figure(c.l2_hit_rate), "achieved": units.percent_figure(c.achieved_occupancy),
            "theoretical": units.percent_figure(c.theoretical_occupancy),
            "flops": shown(c.flops, "", ".3e") if c.flops else "",
            "stalls": [[units.percent_figure(100 * s.share), units.relative(s.share)] for s in c.stalls],
            "lines": _heat(c.lines), "sass": _heat(c.sass)}


def _heat(entries: list[LineCounters]) -> list[list[str]]:
    """Each entry's share of the entries' stall samples and its count of them."""
    total = sum(e.stall_samples for e in entries if valid(e.stall_samples))
    return [[units.percent_figure(100 * e.stall_samples / total) if total and valid(e.stall_samples) else "",
             units.count(e.stall_samples)] for e in entries]


def graph_texts(graph: Graph) -> dict[str, str]:
    """A graph's times: ``busy`` (call() on its device), ``cudagraph`` (replayed as a CUDA graph), ``launches``
    (its timed launches' in-graph times added up), ``gap`` (busy time no launch covers) and its ``gap_share`` of
    the busy time (capped, and ``gap_share_exact``); what its busy time is (``busy_label``) and its gap holds
    (``gap_title``)."""
    timed = [launch.timing.in_graph_ms for launch in graph.launches
             if launch.timing is not None and valid(launch.timing.in_graph_ms)]
    busy, gap = graph.gpu_busy_ms, graph.gap_ms
    share = gap / busy if valid(gap) and valid(busy) and busy > 0 else None
    return _kept({"busy": units.ms_figure(busy), "cudagraph": units.ms_figure(graph.cudagraph_ms),
                  "launches": units.ms_figure(sum(timed)) if timed else "", "gap": units.ms_figure(gap),
                  "gap_share": units.share(share), "gap_share_exact": units.relative(share, 2),
                  "busy_label": busy_label(graph), "gap_title": gap_title(graph)})


def memory_texts(graph: Graph, line: Timeline) -> dict[str, object]:
    """The memory timeline's sizes: ``live`` ([step, bytes live after it]), ``peak_text``, and ``allocated`` (each
    allocation's size, in the order of ``Graph.memory``)."""
    return {"live": [[step, units.size(nbytes)] for step, nbytes in line.steps], "peak_text": units.size(line.peak),
            "allocated": [units.size(event.nbytes) if event.kind == "alloc" else "" for event in graph.memory]}


def package_texts(graph: Graph) -> dict[str, object]:
    """An AOTInductor package's constants' sizes, each and all (``[]`` and ``0 B`` for other graphs)."""
    constants = graph.package.constants if graph.package is not None else []
    return {"constants": [units.size(c.bytes) for c in constants],
            "total": units.size(sum(c.bytes or 0 for c in constants))}


def peak_texts(peaks: DevicePeaks | None) -> dict[str, object]:
    """The device's ceilings as the roofline labels them: ``dram`` (GB/s) and ``tflops`` by dtype, whole from 100 up
    (a GPU's), else three significant digits (a CPU's ``0.0753``)."""
    def ceiling(value: float) -> str:
        return shown(value, "", ".0f" if valid(value) and value >= 100 else ".3g")

    if peaks is None:
        return {}
    return {"dram": ceiling(peaks.dram_gb_per_s) if peaks.dram_gb_per_s else "",
            "tflops": {dtype: ceiling(value) for dtype, value in peaks.tflops.items()}}


STEP_PARTS = ("window_ms", "compute_ms", "overlap_ms", "comm_ms", "idle_ms")  # a rank's step split, in ms


def ranks_texts(ranks: Ranks) -> dict[str, object]:
    """A job's ranks' times as the Ranks tab shows them: each rank's step split (``steps``, by rank), the
    percentiles of each part over the ranks (``step_stats``), and in the order of ``Ranks.launches`` each launch's
    time per rank (``ms``), percentiles (``stats``), outlier ranks' times (``outliers``) and ``spread``."""
    steps = {str(r.rank): {part: units.ms_figure(getattr(r.step, part)) for part in STEP_PARTS}
             for r in ranks.ranks if r.step is not None}
    stats = {part: {p: units.ms_figure(v) for p, v in values.items()} for part, values in ranks.step_stats.items()}
    launches = [{"ms": [units.ms_figure(ms) for ms in launch.ms],
                 "stats": {p: units.ms_figure(v) for p, v in launch.stats.items()},
                 "outliers": [f"{rank:g}: {units.ms_figure(ms)}" for rank, ms in launch.outliers],
                 "spread": units.relative(launch.spread, 0)} for launch in ranks.launches]
    return {"steps": steps, "step_stats": stats, "launches": launches}
