"""A plain-text summary of a capture, for terminals and the magic's text output."""

from __future__ import annotations

from collections import Counter

from ..model import Capture, Graph, Launch, LaunchTiming


def launch_kind(graph: Graph, launch: Launch) -> str:
    """The kind shown for a launch: its kernel's kind, or "extern" for an extern call."""
    if launch.kernel_name is None:
        return "extern"
    return next((k.kind for k in graph.kernels if k.name == launch.kernel_name), "kernel")


def size(nbytes: int | None) -> str:
    """Bytes for people: ``33.8 KB``."""
    if nbytes is None:
        return ""
    value, unit = float(nbytes), "B"
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            break
        value /= 1024
    return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"


def headline(capture: Capture) -> str:
    """One line: graphs by kind, kernels by kind, extern calls."""
    graphs = Counter(g.kind for g in capture.graphs)
    kernels = Counter(k.kind for k in capture.kernels)
    externs = sum(1 for launch in capture.launches if launch.kernel_name is None)
    parts = [f"{len(capture.graphs)} graph{'s' * (len(capture.graphs) != 1)}"
             + (" (" + ", ".join(f"{n} {k}" for k, n in graphs.items()) + ")" if graphs else ""),
             f"{len(capture.kernels)} kernel{'s' * (len(capture.kernels) != 1)}"
             + (" (" + ", ".join(f"{n} {k}" for k, n in kernels.items()) + ")" if kernels else ""),
             f"{externs} extern call{'s' * (externs != 1)}"]
    compile_s = sum(g.compile_s or 0 for g in capture.graphs)
    if compile_s:
        parts.append(f"compiled in {compile_s:.2f} s")
    return "kernelviz: " + ", ".join(parts)


def graph_timing(graph: Graph) -> str:
    """One line on how a graph was timed: on what, its busy time, the gap, its CUDA-graph replay."""
    if graph.timed_on is None:
        return ""
    busy = "call() wall time" if graph.device == "cpu" else "GPU busy"
    parts = [f"timed on {graph.timed_on}"]
    if graph.made_up_values:
        parts[0] += f" (made-up values for {', '.join(graph.made_up_values)})"
    if graph.gpu_busy_ms is not None:
        parts.append(f"{busy} {graph.gpu_busy_ms:.4f} ms")
    if graph.gap_ms is not None:
        parts.append(f"gap {graph.gap_ms:.4f} ms")
    if graph.cudagraph_ms is not None:
        parts.append(f"as a CUDA-graph replay {graph.cudagraph_ms:.4f} ms")
    return " · ".join(parts)


def roofline_words(timing: LaunchTiming) -> str:
    """``81% of peak bw · 12% of peak bfloat16 · memory-bound``; what a figure cannot say, said."""
    parts = []
    if timing.pct_peak_bw is not None:
        parts.append(f"{timing.pct_peak_bw:.0f}% of peak bw")
    if timing.pct_peak_flops is not None:
        parts.append(f"{timing.pct_peak_flops:.0f}% of peak {timing.dtype}")
    if timing.cache_resident:
        parts.append("cache-resident in the graph")
    if timing.bound:
        parts.append(f"{timing.bound}-bound")
    if timing.error:
        parts.append(f"failed: {timing.error}")
    return " · ".join(parts)


GAP_LABEL = "gap: busy time not covered by launches"


def summary(capture: Capture, width: int = 110) -> str:
    """Graphs, then each graph's launches in call() order with kind and ATen ops (and times, once timed)."""
    lines = [headline(capture)]
    lines += [f"  warning: {w}" for w in capture.warnings]
    if capture.peaks is not None:
        lines.append(f"  peaks: {capture.peaks.source}")
    for graph in capture.graphs:
        ran = f", ran {graph.calls}x" if graph.calls else ""
        lines.append(f"\ngraph {graph.id} [{graph.kind}, {graph.device}{ran}]")
        if graph.timed_on:
            lines.append(f"  {graph_timing(graph)}")
        lines += [f"  warning: {w}" for w in graph.warnings]
        for launch in graph.launches:
            aten = ", ".join(launch.original_aten) or "-"
            timing = ""
            if launch.timing and launch.timing.in_graph_ms is not None:
                timing = f" {launch.timing.in_graph_ms:9.4f} ms"
            words = roofline_words(launch.timing) if launch.timing else ""
            name = launch.name if len(launch.name) <= 52 else launch.name[:51] + "…"
            row = f"  {launch.index:>3}  {name:<52} {launch_kind(graph, launch):<15}{timing}  {aten}"
            row = row if len(row) <= width else row[: width - 1] + "…"
            lines.append(row + (f"\n       {words}" if words else ""))
        if graph.gap_ms is not None:
            lines.append(f"       {GAP_LABEL:<68}{graph.gap_ms:9.4f} ms")
    return "\n".join(lines)
