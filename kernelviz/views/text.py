"""A plain-text summary of a capture, for terminals and the magic's text output."""

from __future__ import annotations

from collections import Counter

from .. import units
from ..advice.dynamo import distinct, gist
from ..figures import valid
from ..model import Capture, Graph
from ..names import column_labels
from .findings import as_run_line, text_lines
from .ranks_text import WHOLE, split_line
from .rules import dynamic_sizes, launch_kind
from .whatif_text import text_lines as whatif_lines
from .why import cudagraph_lines, graph_sweep_lines, pool_line, sweep, sweep_lines
from .wrap import terminal_width, wrapped


def plural(n: int, word: str) -> str:
    """``1 launch``, ``2 launches``, ``3 graphs``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}es" if word.endswith(("s", "sh", "ch", "x")) else f"{n} {word}s"


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
        hit_s = seconds(by["fx_cache_hit"])
        parts.append(f"{plural(len(by['fx_cache_hit']), 'graph')} from Inductor's FX graph cache"
                     + (f" (loaded in {hit_s:.2f} s)" if hit_s >= 0.005 else ""))
    if by["reused"]:
        parts.append(f"{len(by['reused'])} cached (compile 0 s: compiled before this cell)")
    if unknown:
        parts.append(f"compile {seconds(unknown):.2f} s")
    return " · ".join(parts)


EVENT_LABELS = {"graph_break": "graph break", "recompile": "recompile", "skip": "skipped frame"}


def dynamo_lines(capture: Capture) -> list[tuple[str, str]]:
    """Dynamo's graph breaks, recompiles and skipped frames, one line per place and reason (``3x`` where dynamo hit
    it more than once): kind, place (the user's line that led into a library first), the user's line and the gist
    of dynamo's reason; each with dynamo's whole text (the report's and the panel's a click away)."""
    lines = []
    for events in distinct(capture.dynamo):
        event = events[0]
        place = event.caller or event
        where = f" at {place.where()}" if place.file else ""
        into = f" -> {event.where()}" if event.caller else ""
        code = f" `{place.code}`" if place.code else ""
        times = f" {len(events)}x" if len(events) > 1 else ""
        lines.append((f"{EVENT_LABELS.get(event.kind, event.kind)}{times}{where}{code}{into}: "
                      f"{event.change or gist(event.reason)}", event.reason))
    return lines


def package_line(graph: Graph) -> str:
    """What the AOTInductor package a graph was read from holds, in one line ("" for other graphs)."""
    p = graph.package
    if p is None:
        return ""
    held = sum(c.bytes or 0 for c in p.constants)
    built = ", ".join(f"{k}: {v}" for k, v in p.metadata.items() if v and k != "AOTI_PLATFORM")
    return (f"AOTInductor package {p.path or '(read from memory)'}, model {p.model}: "
            f"{plural(len(p.files), 'file')} ({units.size(sum(f.bytes for f in p.files))}), "
            f"{plural(len(p.constants), 'constant')} ({units.size(held)}, values not kept)"
            + (f"; {built}" if built else ""))


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


def _cut(name: str, room: int) -> str:
    """``name`` in ``room`` characters: its start and its end (the counter) either side of ``…``."""
    if len(name) <= room:
        return name
    end = max(4, room // 3)
    return name[: room - end - 1] + "…" + name[-end:]


def _ms(value: float) -> str:
    """A time in the table's ms column; one that makes no sense says so, with its unit."""
    return f"{units.ms(value):>11}" if valid(value) else units.ms(value)


def launch_rows(graph: Graph, width: int) -> list[str]:
    """The graph's launches as a table with a header, in ``width`` characters: #, launch (what it computes,
    names.py), kind, the timing columns where it was timed, and the launch's full name (as the panel's hover and
    detail have it) in the room left (none where less than 70 characters are left for both names)."""
    timed = any(launch.timing and launch.timing.in_graph_ms is not None for launch in graph.launches)
    bounds = [launch.timing.bound for launch in graph.launches if launch.timing and launch.timing.bound]
    bound_w = max(len("bound"), *map(len, bounds)) if bounds else 0  # no column where no launch has a bound
    kinds = [launch_kind(graph, launch) for launch in graph.launches]
    kind_w = max([4] + [len(k) for k in kinds])
    time_w = 20 + (2 + bound_w if bound_w else 0) if timed else 0  # "  in-graph ms  share  bound"
    rest = width - 7 - (2 + kind_w) - time_w - 2
    with_full = rest >= 70
    budget = min(40, rest - 30) if with_full else max(12, rest)
    names = column_labels([(launch.name, launch.original_aten, launch.kernel_name is not None)
                           for launch in graph.launches], budget)
    name_w = max([6] + [len(n) for n in names])
    full_w = rest - name_w
    timing_head = f"  {'in-graph ms':>11} {'share':>6}" + (f"  {'bound':<{bound_w}}" if bound_w else "")
    head = (f"  {'#':>3}  {'launch':<{name_w}}  {'kind':<{kind_w}}" + (timing_head if timed else "")
            + ("  name" if with_full else "")).rstrip()
    rows = [head]
    for launch, name, kind in zip(graph.launches, names, kinds):
        timing = ""
        if timed:
            t = launch.timing
            ms = _ms(t.in_graph_ms) if t and t.in_graph_ms is not None else " " * 11
            share = f"{units.share(t.share):>6}" if t else ""
            timing = f"  {ms} {share:>6}" + (f"  {(t.bound if t else '') or '':<{bound_w}}" if bound_w else "")
        full = f"  {_cut(launch.name, full_w)}" if with_full else ""
        rows.append(f"  {launch.index:>3}  {name:<{name_w}}  {kind:<{kind_w}}{timing}{full}".rstrip())
    if graph.gap_ms is not None:
        gap = "gap (between launches)" if name_w + kind_w >= 22 else "gap"
        rows.append(f"  {'':>3}  {gap:<{name_w + 2 + kind_w}}  {_ms(graph.gap_ms)}")
    return rows


def head(capture: Capture) -> str:
    """``repr(cap)``: the summary's head in three lines (graphs, kernels, device; how it was compiled; whether it
    was timed and what was found), never the capture's data."""
    timed = sum(1 for graph in capture.graphs if graph.timed_on)
    state = (f"timed ({timed} of {plural(len(capture.graphs), 'graph')})" if timed
             else "not timed (cap.bench() times it)")
    story = compile_story(capture)
    return "\n".join([headline(capture), *([f"  {story}"] if story else []),
                      f"  {state}; {plural(len(capture.findings), 'finding')}; {WHOLE}"])


def summary(capture: Capture, width: int | None = None) -> str:
    """Graphs, then each graph's launches in call() order as a headed table; ``width``: the terminal's."""
    width = terminal_width(width)
    lines = wrapped(headline(capture), width, "", "  ")
    story = compile_story(capture)
    lines += wrapped(story, width, "  ", "    ") if story else []
    lines += [f"  the block: {split_line(capture.step)}"] if capture.step is not None else []
    lines += [f"  warning: {w}" for w in capture.warnings]  # whole: a warning is one message
    lines += [f"  {pool}"] if (pool := pool_line(capture)) else []
    for tuning in capture.tunings:  # a user's kernels, outside the graphs
        lines += [f"  {line}" for line in sweep_lines(sweep(tuning, None))]
    found = text_lines(capture)
    lines += ["  findings by rule and graph (most time at stake first):"] if found else []
    for line in found:  # wrapped under the text after the time and under "ms:" / "try:"
        body = line.lstrip()
        lines += wrapped(body, width, " " * (2 + len(line) - len(body)), " " * 15)
    lines += [f"  {line}" for line in whatif_lines(capture, width - 2)]
    for graph in capture.graphs:
        ran = f", ran {graph.calls}x" if graph.calls else ""
        lines.append(f"\ngraph {graph.id} [{graph.kind}, {graph.device}{ran}]")
        lines += wrapped(package, width, "  ", "    ") if (package := package_line(graph)) else []
        lines += [f"  {timed_on(graph)}"] if graph.timed_on else []
        lines += [f"  {as_run_line(graph.as_run, graph.in_step_ms)}"] if graph.as_run else []
        lines += [f"  warning: {w}" for w in graph.warnings]
        lines += wrapped(dynamic, width, "  ", "    ") if (dynamic := dynamic_sizes(graph)) else []
        for line in your_code(graph):
            lines += wrapped(line, width, "  ", "    ")
        for line in cudagraph_lines(graph):
            lines += wrapped(line, width, "  ", "    ")
        lines += [f"  {line}" for line in graph_sweep_lines(graph)]
        lines += launch_rows(graph, width)
    return "\n".join(lines)
