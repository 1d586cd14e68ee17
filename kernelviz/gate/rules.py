"""The checks of a current capture against its baseline, each read from their :class:`~kernelviz.compare.Diff`:
graph and launch times grown beyond the threshold and the noise (same device only), launches added, fusions
lost, new graph breaks and recompiles, kernels that began to spill."""

from __future__ import annotations

from collections import Counter

from ..advice.graphs import waits_on_cpu
from ..compare import Diff
from ..model import Capture, Graph, Kernel, Launch
from ..names import label
from .noise import Growth, Timed
from .verdict import Reason

PAIRED = ("same", "changed", "fused", "split")  # relations with launches on both sides


def reasons(d: Diff, slower: float) -> tuple[list[Reason], list[str]]:
    """The reasons the current side (b) fails against the baseline (a), and the notes: why times were not
    compared, and each time that grew beyond the threshold but not beyond the noise (said, not failed)."""
    found: list[Reason] = []
    notes = timing_notes(d.a, d.b)
    grown: list[tuple[Reason, Growth]] = []
    for gm in d.graphs:
        ga = d.a.graphs[gm.a] if gm.a is not None else None
        gb = d.b.graphs[gm.b] if gm.b is not None else None
        if gb is not None and ga is None:
            found.append(Reason("added launches", gb.id, change=f"a new graph of {len(gb.launches)} launch(es), "
                                "not in the baseline", where=_caller(gb)))
        elif ga is not None and gb is not None and not notes:
            grown += _graph_time(ga, gb, slower)
    for group in d.groups:
        ga, gb = d.graph_pair(group)
        if ga is None or gb is None:
            continue
        la, lb = [ga.launches[i] for i in group.a], [gb.launches[i] for i in group.b]
        if group.relation == "added":
            found += [Reason("added launches", gb.id, _name(x), "not in the baseline", _where(gb, x)) for x in lb]
        elif group.relation == "split":
            found.append(Reason("lost fusion", gb.id, " + ".join(_name(x) for x in lb),
                                f"one launch in the baseline ({_name(la[0])}) is {len(lb)} now",
                                _where(gb, lb[0])))
        if group.relation in PAIRED and not notes:
            grown += _launch_time(ga, gb, la, lb, slower)
        if group.relation in ("same", "changed") and len(la) == len(lb) == 1:
            found += _spills(ga, gb, la[0], lb[0])
    found = [reason for reason, growth in grown if growth.regressed] + found
    notes += [f"within the noise, not failed: {reason.line()}" for reason, growth in grown if not growth.regressed]
    return found + _dynamo(d.a, d.b), notes


def device(capture: Capture) -> str:
    """The device a capture was timed on, as far as it says: the GPU's name, else its graphs' device types."""
    return capture.device_name or ", ".join(sorted({g.device for g in capture.graphs})) or "no device"


def timing_notes(a: Capture, b: Capture) -> list[str]:
    """Why the two captures' times are not compared (none where they are)."""
    if device(a) != device(b):
        return [f"times not compared: the baseline ran on {device(a)}, the current capture on {device(b)}"]
    untimed = [side for side, c in (("baseline", a), ("current capture", b))
               if not any(x.timing and x.timing.in_graph_ms is not None for x in c.launches)]
    return [f"times not compared: the {' and the '.join(untimed)} not timed"] if untimed else []


def _graph_time(ga: Graph, gb: Graph, slower: float) -> list[tuple[Reason, Growth]]:
    """The graph as it runs (``as_run``) where both sides have it on one clock, else its launches added up. Its
    noise is the wider of its runs' and its launches' in the graph, added up: on a shared CPU, a graph's time moves
    with what its extern calls (MKL, oneDNN) get of the memory system, more than its runs in one capture show
    (seen: +12.7% between two captures of one unchanged step whose as-run runs spread ±3.6%), and the launches'
    in-graph spread measures that. On a GPU the plain call() is compared only where the device waits for the CPU
    on either side (:func:`~kernelviz.advice.graphs.waits_on_cpu`, the launch-bound finding's rule): otherwise it
    is the launches' device time plus the L2 flush and clocks between captures (seen on an H200: a 0.53 ms graph
    +5.8% between two captures of an unchanged step, its launches' in-graph times within their noise), and the
    launches' in-graph time is the graph's time."""
    a, b = _launches_time(ga.launches), _launches_time(gb.launches)
    if _as_run_compared(ga, gb):
        a, b = (Timed(g.as_run.plain_ms, _wider(_iqr(g.as_run.plain_ms, g.as_run.spread), t.iqr if t else None))
                for g, t in ((ga, a), (gb, b)))
    if a is None or b is None:
        return []
    growth = Growth(a, b, slower, whole=True)
    return [(Reason("graph time", gb.id, change=growth.text(), where=_caller(gb)), growth)] if growth.grew else []


def _as_run_compared(ga: Graph, gb: Graph) -> bool:
    """Whether the graph's plain call() is its time in the check: both sides have it on one clock, and on a GPU
    one of them waits for the CPU."""
    if not (ga.as_run and gb.as_run and ga.as_run.unit == gb.as_run.unit):
        return False
    return ga.as_run.unit != "gpu" or waits_on_cpu(ga.as_run) or waits_on_cpu(gb.as_run)


def _launch_time(ga: Graph, gb: Graph, la: list[Launch], lb: list[Launch],
                 slower: float) -> list[tuple[Reason, Growth]]:
    """A group's in-graph time on a GPU (device time); on the CPU its kernels' times alone: a CPU launch's in-graph
    time is a mean over runs (launches add up to the graph's busy time), so the other processes of a loaded
    machine land in it (seen here: an extern matmul's mean +93% between two captures of one step), while a kernel
    alone is timed by its undisturbed runs. A CPU extern call, timed only in the graph, counts in the graph's time."""
    if any(x.timing is None for x in la + lb) or {x.timing.unit for x in la} != {x.timing.unit for x in lb}:
        return []
    cpu = la[0].timing.unit == "cpu"
    a, b = (_kernels_time(ga, la), _kernels_time(gb, lb)) if cpu else (_launches_time(la), _launches_time(lb))
    if a is None or b is None:
        return []
    growth = Growth(a, b, slower)
    if not growth.grew:
        return []
    return [(Reason("launch time", gb.id, " + ".join(_name(x) for x in lb),
                    f"{'alone' if cpu else 'in the graph'}: {growth.text()}", _where(gb, lb[0])), growth)]


def _launches_time(launches: list[Launch]) -> Timed | None:
    """The in-graph time of launches added up (None where one of them is not timed)."""
    if not launches or any(x.timing is None or x.timing.in_graph_ms is None for x in launches):
        return None
    return Timed.of((x.timing.in_graph_ms, x.timing.spread) for x in launches)


def _kernels_time(graph: Graph, launches: list[Launch]) -> Timed | None:
    """The times alone of the launches' kernels, added up (None where one has none, e.g. an extern call)."""
    kernels = [_kernel(graph, x) for x in launches]
    if any(k is None or k.timing is None or k.timing.isolated_ms is None for k in kernels):
        return None
    return Timed.of((k.timing.isolated_ms, k.timing.spread) for k in kernels)


def _iqr(ms: float, spread: float | None) -> float | None:
    return None if spread is None else ms * spread


def _wider(*iqrs: float | None) -> float | None:
    return max((x for x in iqrs if x is not None), default=None)


def _spills(ga: Graph, gb: Graph, xa: Launch, xb: Launch) -> list[Reason]:
    before, after = _spill_count(ga, xa), _spill_count(gb, xb)
    if not after or after <= (before or 0):
        return []
    was = "none" if not before else str(before)
    return [Reason("spills", gb.id, _name(xb), f"{after} register spill(s), the baseline {was}", _where(gb, xb))]


def _spill_count(graph: Graph, launch: Launch) -> int | None:
    kernel = _kernel(graph, launch)
    if kernel is None:
        return None
    counts = [kernel.timing.num_spills if kernel.timing else None, kernel.ir.num_spills if kernel.ir else None]
    return max((c for c in counts if c is not None), default=None)


def _dynamo(a: Capture, b: Capture) -> list[Reason]:
    """Graph breaks and recompiles of the current capture beyond those the baseline had at the same line."""
    def key(event):
        return event.kind, event.file, event.line, event.function

    before = Counter(key(e) for e in a.dynamo)
    found = []
    for event in b.dynamo:
        if event.kind not in ("graph_break", "recompile"):
            continue
        if before[key(event)] > 0:
            before[key(event)] -= 1
            continue
        where = event.where() if event.file else ""
        found.append(Reason(event.kind.replace("_", " "), change=" ".join(event.reason.split())[:200],
                            where=f"{where}  `{event.code.strip()}`" if where and event.code else where))
    return found


def _name(launch: Launch) -> str:
    """``#3 sin · mul · sum _0``: the launch's index and its name as the launch table shows it."""
    return f"#{launch.index} " + label(launch.name, launch.original_aten, generated=launch.kernel_name is not None)


def _kernel(graph: Graph, launch: Launch) -> Kernel | None:
    return next((k for k in graph.kernels if k.name == launch.kernel_name), None) if launch.kernel_name else None


def _where(graph: Graph, launch: Launch) -> str:
    """The user's line a launch comes from (its kernel's first, with how many more), else the line that ran its
    graph."""
    kernel = _kernel(graph, launch)
    locations = kernel.locations if kernel else []
    if not locations:
        return _caller(graph)
    first = locations[0]
    more = f" (and {len(locations) - 1} more line(s))" if len(locations) > 1 else ""
    return f"{first.where()}  `{first.code.strip()}`{more}" if first.code else f"{first.where()}{more}"


def _caller(graph: Graph) -> str:
    caller = graph.caller
    return "" if caller is None else f"{caller.where()}  `{caller.code.strip()}`" if caller.code else caller.where()
