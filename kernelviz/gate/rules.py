"""The checks of a current capture against its baseline, each read from their :class:`~kernelviz.compare.Diff`:
the step's and each graph's time grown beyond the threshold and the noise, and a launch's where its growth is a
real part of the step (same device only); launches added, fusions lost, new graph breaks and recompiles, kernels
that began to spill."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

from .. import units
from ..advice.graphs import waits_on_cpu
from ..compare import Diff
from ..model import Capture, Graph, Kernel, Launch
from ..names import label
from .noise import ONE_PROCESS_SIGMA, Growth, Timed
from .repeat import processes
from .verdict import Reason

PAIRED = ("same", "changed", "fused", "split")  # relations with launches on both sides
SHARE = 0.005  # a launch fails alone where it grew by this share of the step at least ...
FLOOR_MS = {"cpu": 0.005, "gpu": 0.002}  # ... and by this much at least (what the timer resolves between processes)
EXPLAINED = 2  # launches named as the explanation of a step's or a graph's growth ...
EXPLAINS = 0.1  # ... each where it grew by this share of that growth at least
ACCOUNTS = 0.25  # a plain call()'s growth fails where launches that grew account for this share of it
MACHINE_LAUNCHES = 5  # the machine's speed in each process is read from this many unchanged launches at least


@dataclass
class _Grown:
    """A time that grew beyond the threshold: its reason, its growth, and for a launch its graph pair's index."""

    reason: Reason
    growth: Growth
    graph: int | None = None


def reasons(d: Diff, slower: float) -> tuple[list[Reason], list[str]]:
    """The reasons the current side (b) fails against the baseline (a), and the notes: why times were not
    compared, the smallest change the check can see, and each time that grew beyond the threshold but not beyond
    the noise or, for a launch, not by enough of the step to fail alone (said, not failed)."""
    found: list[Reason] = []
    notes = timing_notes(d.a, d.b)
    n = processes(d.a), processes(d.b)
    graphs: dict[int, tuple[Growth, bool]] = {}
    launches: list[_Grown] = []
    machine = _machine(d, n)
    for k, gm in enumerate(d.graphs):
        ga = d.a.graphs[gm.a] if gm.a is not None else None
        gb = d.b.graphs[gm.b] if gm.b is not None else None
        if gb is not None and ga is None:
            found.append(Reason("added launches", gb.id, change=f"a new graph of {len(gb.launches)} launch(es), "
                                "not in the baseline", where=_caller(gb)))
        elif ga is not None and gb is not None and not notes and (growth := _graph_time(ga, gb, n, slower)):
            graphs[k] = growth, _as_run_compared(ga, gb)
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
        if group.relation in PAIRED and not notes and (grown := _launch_time(ga, gb, la, lb, n, slower,
                                                                                         machine)):
            grown.graph = group.graph
            launches.append(grown)
        if group.relation in ("same", "changed") and len(la) == len(lb) == 1:
            found += _spills(ga, gb, la[0], lb[0])
    times, said = _times(d, graphs, launches) if graphs else ([], [])
    return times + found + _dynamo(d.a, d.b), notes + said


def _times(d: Diff, graphs: dict[int, tuple[Growth, bool]], launches: list[_Grown]) -> tuple[list[Reason], list[str]]:
    """The step (the paired graphs' times added up) and each graph fail where they grew beyond the threshold and
    the noise, naming the launches that grew most as the explanation; a launch fails alone only where it grew
    beyond its own bars by ``SHARE`` of the step and ``FLOOR_MS`` at least. A graph timed by its plain call()
    (``graphs``' flag; on the CPU, or on a GPU that waits for the CPU) moves with the machine's load between
    processes many times more than its kernels alone (measured on a shared CPU: an unchanged forward 9.1 ms in
    one process, 31.5 ms in the next, its kernels alone within their noise): its growth, and the step's where such
    a graph is in it, fails only where launches that grew account for ``ACCOUNTS`` of it. Notes: the smallest
    change the check sees, and what grew but did not fail."""
    step = Growth(Timed.total(g.a for g, _ in graphs.values()), Timed.total(g.b for g, _ in graphs.values()),
                  next(iter(graphs.values()))[0].slower)
    bar = max(SHARE * step.a.ms, FLOOR_MS[step.a.unit])
    found, notes = [], [_smallest(step, bar)]
    judged = [(Reason("step time"), step, launches, any(plain for _, plain in graphs.values()))] \
        if len(graphs) > 1 else []
    for k, (growth, plain) in graphs.items():
        gb = d.b.graphs[d.graphs[k].b]
        judged.append((Reason("graph time", gb.id, where=_caller(gb)), growth, [x for x in launches if x.graph == k],
                       plain))
    for reason, growth, inside, plain in judged:
        if not growth.grew:
            continue
        reason.change = growth.text() + _explained(inside, growth)
        accounted = sum(x.growth.delta for x in inside if x.growth.delta > 0)
        if growth.regressed and (not plain or accounted >= ACCOUNTS * growth.delta):
            found.append(reason)
        elif growth.regressed:
            notes.append(f"not failed: launches that grew account for under {100 * ACCOUNTS:g}% of it (a plain "
                         f"call() moves with the machine's load): {reason.line()}")
        else:
            notes.append(f"within the noise, not failed: {reason.line()}")
    for x in launches:
        if x.growth.regressed and x.growth.delta >= bar:
            found.append(x.reason)
        elif x.growth.regressed:
            notes.append(f"under {units.ms_sig(bar)} ms ({100 * SHARE:g}% of the step), not failed alone: "
                         f"{x.reason.line()}")
        else:
            notes.append(f"within the noise, not failed: {x.reason.line()}")
    return found, notes


def _smallest(step: Growth, bar: float) -> str:
    """The note of the smallest change the check can see, and where the noise came from."""
    pct = 100 * step.smallest() / step.a.ms if step.a.ms else 0.0
    assumed = 100 * ONE_PROCESS_SIGMA[step.a.unit]
    source = (f"the noise measured across {step.a.n} + {step.b.n} processes" if step.measured else
              f"one process a side: the noise between processes unknown, taken as ±{assumed:g}% (give several "
              "captures a side to see less)")
    return (f"smallest change this check can see: the step {units.ms_sig(step.a.ms)} ms "
            f"+{units.ms_sig(step.smallest())} ms (+{pct:.1f}%), a launch +{units.ms_sig(bar)} ms beyond its own "
            f"noise; {source}")


def _explained(launches: list[_Grown], growth: Growth) -> str:
    """``; mostly launch #7 gelu _3 (+0.46 ms), #16 ... (+0.4 ms)``: the launches that grew most, each by at least
    ``EXPLAINS`` of the growth; else that none of the timed launches accounts for it."""
    top = sorted((x for x in launches if x.growth.delta >= EXPLAINS * growth.delta), key=lambda x: -x.growth.delta)
    if not top:
        return f"; no launch timed alone or in the graph grew by {100 * EXPLAINS:g}% of it (the time between " \
               "launches, calls not timed alone, or the machine)"
    return "; mostly " + ", ".join(f"launch {x.reason.launch} (+{units.ms_sig(x.growth.delta)} ms)"
                                   for x in top[:EXPLAINED])


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


def _graph_time(ga: Graph, gb: Graph, n: tuple[int, int], slower: float) -> Growth | None:
    """The graph as it runs (``as_run``) where both sides have it on one clock, else its launches added up. On a
    GPU the plain call() is compared only where the device waits for the CPU on either side
    (:func:`~kernelviz.advice.graphs.waits_on_cpu`, the launch-bound finding's rule): otherwise it is the
    launches' device time plus the L2 flush and the clocks between captures, which move it by several percent
    between captures of an unchanged step while its launches' in-graph times stay within their noise, and the
    launches' in-graph time is the graph's time."""
    if _as_run_compared(ga, gb):
        a, b = (Timed.of(g.as_run.plain_ms, g.as_run.spread, k, g.as_run.unit) for g, k in ((ga, n[0]), (gb, n[1])))
    else:
        a, b = _launches_time(ga.launches, n[0]), _launches_time(gb.launches, n[1])
    return None if a is None or b is None else Growth(a, b, slower)


def _as_run_compared(ga: Graph, gb: Graph) -> bool:
    """Whether the graph's plain call() is its time in the check: both sides have it on one clock, and on a GPU
    one of them waits for the CPU."""
    if not (ga.as_run and gb.as_run and ga.as_run.unit == gb.as_run.unit):
        return False
    return ga.as_run.unit != "gpu" or waits_on_cpu(ga.as_run) or waits_on_cpu(gb.as_run)


def _launch_time(ga: Graph, gb: Graph, la: list[Launch], lb: list[Launch], n: tuple[int, int], slower: float,
                 machine: float) -> _Grown | None:
    """A group's time against the baseline's, at the baseline's machine speed (``machine``: :func:`_machine`); None
    where it did not grow beyond the threshold."""
    timed = _timed(ga, gb, la, lb, n)
    if timed is None:
        return None
    a, b = timed
    growth = Growth(a, b.scaled(1 / machine), slower)
    if not growth.grew:
        return None
    how = "alone" if a.unit == "cpu" else "in the graph"
    if abs(machine - 1) >= 0.01:
        how += (f" ({units.ms_sig(b.ms)} ms as measured; every unchanged launch ran "
                f"{units.change(100 * (machine - 1))} in this process, the machine's speed, taken out)")
    return _Grown(Reason("launch time", gb.id, " + ".join(_name(x) for x in lb), f"{how}: {growth.text()}",
                         _where(gb, lb[0])), growth)


def _timed(ga: Graph, gb: Graph, la: list[Launch], lb: list[Launch], n: tuple[int, int]) -> tuple[Timed, Timed] | None:
    """A group's time on each side: on a GPU its in-graph time (device time); on the CPU its kernels' times alone:
    a CPU launch's in-graph time is a mean over runs (launches add up to the graph's busy time), so the other
    processes of a loaded machine land in it (a mean may double between two captures of one step), while a kernel
    alone is timed by its undisturbed runs. A CPU extern call, timed only in the graph, counts in the graph's time.
    None where a side has no such time."""
    if any(x.timing is None for x in la + lb) or {x.timing.unit for x in la} != {x.timing.unit for x in lb}:
        return None
    cpu = la[0].timing.unit == "cpu"
    a, b = (_kernels_time(ga, la, n[0]), _kernels_time(gb, lb, n[1])) if cpu else \
        (_launches_time(la, n[0]), _launches_time(lb, n[1]))
    return None if a is None or b is None or a.ms <= 0 else (a, b)


def _machine(d: Diff, n: tuple[int, int]) -> float:
    """How much slower the current side's processes ran every launch than the baseline's: the median ratio of the
    unchanged launches' times (1 where fewer than ``MACHINE_LAUNCHES`` are timed on both sides). A loaded machine
    slows every launch of a process alike (measured on a shared 2-core CPU: an unchanged kernel +22% alone, beside
    its graph's others); a change of code slows its own launches, which stand out from that median."""
    ratios = []
    for group in d.groups:
        if group.relation != "same" or len(group.a) != 1 or len(group.b) != 1:
            continue
        ga, gb = d.graph_pair(group)
        timed = None if ga is None or gb is None else _timed(ga, gb, [ga.launches[group.a[0]]],
                                                            [gb.launches[group.b[0]]], n)
        if timed is not None:
            ratios.append(timed[1].ms / timed[0].ms)
    speed = statistics.median(ratios) if len(ratios) >= MACHINE_LAUNCHES else 1.0
    return speed if speed > 0 else 1.0  # launches timed at 0 ms say nothing of the machine


def _launches_time(launches: list[Launch], n: int) -> Timed | None:
    """The in-graph time of launches added up (None where one of them is not timed)."""
    if not launches or any(x.timing is None or x.timing.in_graph_ms is None for x in launches):
        return None
    return Timed.total(Timed.of(x.timing.in_graph_ms, x.timing.spread, n, x.timing.unit) for x in launches)


def _kernels_time(graph: Graph, launches: list[Launch], n: int) -> Timed | None:
    """The times alone of the launches' kernels, added up (None where one has none, e.g. an extern call)."""
    kernels = [_kernel(graph, x) for x in launches]
    if any(k is None or k.timing is None or k.timing.isolated_ms is None for k in kernels):
        return None
    return Timed.total(Timed.of(k.timing.isolated_ms, k.timing.spread, n, k.timing.unit) for k in kernels)


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
