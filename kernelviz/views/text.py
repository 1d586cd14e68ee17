"""A plain-text summary of a capture, for terminals and the magic's text output."""

from __future__ import annotations

from collections import Counter

from ..model import Capture, Graph, Launch


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


def summary(capture: Capture, width: int = 110) -> str:
    """Graphs, then each graph's launches in call() order with kind and ATen ops."""
    lines = [headline(capture)]
    lines += [f"  warning: {w}" for w in capture.warnings]
    lines += [f"  dynamo {e.kind} at {e.file}:{e.line}: {e.reason.splitlines()[0] if e.reason else ''}"
              for e in capture.dynamo]
    for graph in capture.graphs:
        ran = f", ran {graph.calls}x" if graph.calls else ""
        origin = f", {graph.cache}" if graph.cache else ""
        lines.append(f"\ngraph {graph.id} [{graph.kind}, {graph.device}{ran}{origin}]")
        lines += [f"  warning: {w}" for w in graph.warnings]
        for launch in graph.launches:
            aten = ", ".join(launch.original_aten) or "-"
            timing = ""
            if launch.timing and launch.timing.in_graph_ms is not None:
                timing = f" {launch.timing.in_graph_ms:9.4f} ms"
            name = launch.name if len(launch.name) <= 52 else launch.name[:51] + "…"
            row = f"  {launch.index:>3}  {name:<52} {launch_kind(graph, launch):<15}{timing}  {aten}"
            lines.append(row if len(row) <= width else row[: width - 1] + "…")
    return "\n".join(lines)
