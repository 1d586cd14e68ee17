"""A plain-text summary of a capture, for terminals and the magic's text output."""

from __future__ import annotations

from collections import Counter

from ..model import Capture, Graph, Launch
from .ranks_text import split_line


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
    """One line: graphs by kind, kernels by kind, extern calls, device and versions."""
    graphs = Counter(g.kind for g in capture.graphs)
    kernels = Counter(k.kind for k in capture.kernels)
    externs = sum(1 for launch in capture.launches if launch.kernel_name is None)
    parts = [f"{len(capture.graphs)} graph{'s' * (len(capture.graphs) != 1)}"
             + (" (" + ", ".join(f"{n} {k}" for k, n in graphs.items()) + ")" if graphs else ""),
             f"{len(capture.kernels)} kernel{'s' * (len(capture.kernels) != 1)}"
             + (" (" + ", ".join(f"{n} {k}" for k, n in kernels.items()) + ")" if kernels else ""),
             f"{externs} extern call{'s' * (externs != 1)}"]
    devices = ", ".join(dict.fromkeys(g.device for g in capture.graphs))
    if devices:
        parts.append(f"{devices} ({capture.device_name})" if capture.device_name else devices)
    parts += [f"{name} {version}" for name, version in (("torch", capture.torch_version),
                                                         ("triton", capture.triton_version)) if version]
    if capture.rank is not None:
        where = ", ".join(x for x in (capture.device, capture.backend) if x)
        parts.append(f"rank {capture.rank} of {capture.world_size}" + (f" on {capture.host}" if capture.host else "")
                     + (f" ({where})" if where else ""))
    return "kernelviz: " + ", ".join(parts)


def compile_story(capture: Capture) -> str:
    """What the capture compiled and how long it took: graphs compiled before it (re-runs) take 0 s, "cached"."""
    def seconds(graphs: list[Graph]) -> float:
        return sum(g.compile_s or 0 for g in graphs)

    by = {c: [g for g in capture.graphs if g.cache == c] for c in ("compiled", "fx_cache_hit", "reused")}
    unknown = [g for g in capture.graphs if not g.cache and g.compile_s]
    parts = []
    if by["compiled"]:
        n = len(by["compiled"])
        parts.append(f"compiled {n} graph{'s' * (n != 1)} in {seconds(by['compiled']):.2f} s")
    if by["fx_cache_hit"]:
        n = len(by["fx_cache_hit"])
        parts.append(f"{n} graph{'s' * (n != 1)} from Inductor's FX graph cache in {seconds(by['fx_cache_hit']):.2f} s")
    if by["reused"]:
        parts.append(f"{len(by['reused'])} cached (compile 0 s: compiled before this cell)")
    if unknown:
        parts.append(f"compile {seconds(unknown):.2f} s")
    return " · ".join(parts)


EVENT_LABELS = {"graph_break": "graph break", "recompile": "recompile", "skip": "skipped frame"}


def dynamo_lines(capture: Capture) -> list[str]:
    """Dynamo's graph breaks, recompiles and skipped frames: kind, place, the user's line, dynamo's reason."""
    lines = []
    for event in capture.dynamo:
        where = f" at {event.where()}" if event.file else ""
        code = f" `{event.code}`" if event.code else ""
        reason = (event.reason or "").strip().splitlines()
        lines.append(f"{EVENT_LABELS.get(event.kind, event.kind)}{where}{code}: {reason[0] if reason else ''}")
    return lines


def timed_on(graph: Graph) -> str:
    """``timed on recreated inputs (made-up values for arg3_1)``: on what a graph's times were taken."""
    made_up = f" (made-up values for {', '.join(graph.made_up_values)})" if graph.made_up_values else ""
    return f"timed on {graph.timed_on}{made_up}" if graph.timed_on else ""


_MAX_YOURS = 6


def your_code(graph: Graph) -> list[str]:
    """The user's lines of a graph: the one that ran it, those its kernels came from (a notebook cell as
    ``cell [3], line 6``), and why they are unknown where they are."""
    lines = [f"ran from {graph.caller.where()}  `{graph.caller.code}`"] if graph.caller else []
    yours = list(dict.fromkeys((loc.where(), loc.code) for k in graph.kernels for loc in k.locations))
    lines += [f"your code: {where}  `{code}`" for where, code in yours[:_MAX_YOURS]]
    more = len(yours) - _MAX_YOURS
    lines += [f"your code: {more} more lines (in the kernels' detail)"] if more > 0 else []
    unknown = dict.fromkeys(k.locations_unknown for k in graph.kernels if k.locations_unknown)
    return lines + [f"your code: {why}" for why in unknown]


def summary(capture: Capture, width: int = 110) -> str:
    """Graphs, then each graph's launches in call() order with kind and ATen ops."""
    lines = [headline(capture)]
    story = compile_story(capture)
    lines += [f"  {story}"] if story else []
    lines += [f"  {line}" for line in dynamo_lines(capture)]
    lines += [f"  the block: {split_line(capture.step)}"] if capture.step is not None else []
    lines += [f"  warning: {w}" for w in capture.warnings]
    for graph in capture.graphs:
        ran = f", ran {graph.calls}x" if graph.calls else ""
        lines.append(f"\ngraph {graph.id} [{graph.kind}, {graph.device}{ran}]")
        lines += [f"  {timed_on(graph)}"] if graph.timed_on else []
        lines += [f"  warning: {w}" for w in graph.warnings]
        lines += [f"  {line}" for line in your_code(graph)]
        for launch in graph.launches:
            aten = ", ".join(launch.original_aten) or "-"
            timing = ""
            if launch.timing and launch.timing.in_graph_ms is not None:
                t = launch.timing
                share = f" {100 * t.share:5.1f}%" if t.share is not None else ""
                timing = f" {t.in_graph_ms:9.4f} ms{share} {t.bound or '':<8}"
            name = launch.name if len(launch.name) <= 52 else launch.name[:51] + "…"
            row = f"  {launch.index:>3}  {name:<52} {launch_kind(graph, launch):<15}{timing}  {aten}"
            lines.append(row if len(row) <= width else row[: width - 1] + "…")
        if graph.gap_ms is not None:
            lines.append(f"  {'':>3}  {'gap (between launches)':<52} {'':<15} {graph.gap_ms:9.4f} ms")
    return "\n".join(lines)
