"""Figures on both sides of a group of launches, of a graph pair and of the whole diff.

A side's time is the sum over its launches, and only when every one of them was timed; times in
different units (CPU wall clock against GPU device time) are shown side by side but not compared.
"""

from __future__ import annotations

from ..model import Capture, Graph, Kernel, Launch
from .model import RELATIONS, Diff, Group, Headline, Measure, is_number

TOP = 5  # wins and losses in the headline
NOISE_PCT = 2.0  # changes of a launch's time smaller than this share of it are not listed as wins or losses


def _units(timings: list) -> str | None:
    units = {t.unit for t in timings if t is not None}
    return units.pop() if len(units) == 1 else None


def _sum(values: list) -> float | int | None:
    """The sum as a float (exact, an int, where it is beyond one); None where a value is missing or, in a
    hand-edited file, not a number."""
    if not values or not all(is_number(v) for v in values):
        return None
    total = sum(values)
    try:
        return float(total)
    except OverflowError:
        return total


def _timed(name: str, a: list, b: list, field: str) -> Measure:
    """A time summed over each side's timings (None where one of that side's is missing), compared only
    where both sides were timed on the same clock."""
    def total(timings):
        return _sum([getattr(t, field) if t is not None else None for t in timings])

    m = Measure(name, "time", total(a), total(b), unit="ms")
    ua, ub = _units(a), _units(b)
    if a and b and ua and ub and ua != ub:
        m.comparable = False
        m.note = f"not compared: {_clock(ua)} against {_clock(ub)}"
    elif a and b and (m.a is None) != (m.b is None):
        m.note = f"{'a' if m.a is None else 'b'} not timed"
    return m


def _time(name: str, a: list[Launch], b: list[Launch]) -> Measure:
    """In-graph time summed over each side's launches."""
    return _timed(name, [x.timing for x in a], [x.timing for x in b], "in_graph_ms")


def _clock(unit: str) -> str:
    return "CPU wall clock" if unit == "cpu" else "GPU device time"


def kernels_by_name(graph: Graph | None) -> dict[str, Kernel]:
    """A graph's generated kernels by name (none for a missing graph): looked up once for all its groups."""
    return {k.name: k for k in graph.kernels} if graph else {}


def group_measures(ga: Graph | None, gb: Graph | None, group: Group,
                   kernels: tuple[dict[str, Kernel], dict[str, Kernel]]) -> list[Measure]:
    """In-graph and isolated time, bytes, and for one kernel on each side its config and binary; ``kernels``:
    :func:`kernels_by_name` of both graphs."""
    la = [ga.launches[i] for i in group.a] if ga else []
    lb = [gb.launches[i] for i in group.b] if gb else []
    ka, kb = ([by_name.get(x.kernel_name or "") for x in launches] for by_name, launches in zip(kernels, (la, lb)))
    out = [_time("in-graph", la, lb)]
    iso = _timed("isolated", [k.timing if k else None for k in ka], [k.timing if k else None for k in kb],
                 "isolated_ms")
    if None in ka or None in kb:
        iso.note = "extern calls are timed only in the graph"
    out.append(iso)
    out.append(_bytes(la, ka, lb, kb))
    if len(ka) == 1 and len(kb) == 1 and ka[0] and kb[0]:
        ta, tb = ka[0].timing, kb[0].timing
        ca, cb = (ta.config if ta else None) or {}, (tb.config if tb else None) or {}
        out += [Measure(key, "config", ca.get(key), cb.get(key)) for key in dict.fromkeys([*ca, *cb])]
        for name, attr in (("registers", "num_regs"), ("spills", "num_spills"), ("shared memory", "shared_bytes")):
            va, vb = getattr(ta, attr, None), getattr(tb, attr, None)
            if va is not None or vb is not None:
                out.append(Measure(name, "binary", va, vb, unit="B" if name == "shared memory" else ""))
    device_a = ", ".join(d for x in la if x.timing for d in x.timing.device_kernels if x.kernel_name is None)
    device_b = ", ".join(d for x in lb if x.timing for d in x.timing.device_kernels if x.kernel_name is None)
    if device_a or device_b:
        out.append(Measure("library kernels", "device", device_a or None, device_b or None))
    return out


def _bytes(la, ka, lb, kb) -> Measure:
    """Bytes moved: the timing's figure where the launches were timed, else Inductor's estimate."""
    def side(launches, kernels):
        timed = _sum([x.timing.bytes if x.timing else None for x in launches])
        if timed is not None:
            return timed, ""
        estimate = _sum([k.num_gb if k else None for k in kernels])
        if estimate is None:
            return None, ""
        return estimate * (1e9 if isinstance(estimate, float) else 10**9), "Inductor's estimate"

    (a, note_a), (b, note_b) = side(la, ka), side(lb, kb)
    m = Measure("bytes", "bytes", a, b, unit="B")
    if note_a != note_b:
        m.comparable = False
        m.note = "not compared: one side is Inductor's estimate, the other the timing's count"
    elif note_a:
        m.note = note_a
    return m


def graph_measures(ga: Graph | None, gb: Graph | None) -> list[Measure]:
    """Launch time and busy time of call(), launches, kernels and compile time of a graph pair."""
    la, lb = (ga.launches if ga else []), (gb.launches if gb else [])
    out = [_time("launches' time", la, lb)]
    busy = Measure("busy", "time", ga.gpu_busy_ms if ga else None, gb.gpu_busy_ms if gb else None, unit="ms")
    if ga and gb and ga.device != gb.device:
        busy.comparable, busy.note = False, f"not compared: {ga.device} against {gb.device}"
    out.append(busy)
    out.append(Measure("launches", "count", len(la) if ga else None, len(lb) if gb else None))
    out.append(Measure("kernels", "count", len(ga.kernels) if ga else None, len(gb.kernels) if gb else None))
    out.append(Measure("compile", "time", ga.compile_s if ga else None, gb.compile_s if gb else None, unit="s"))
    return out


def headline(diff: Diff) -> Headline:
    """Totals over every graph of each side (and over the matched graphs where some have no counterpart),
    the biggest wins and losses inside matched graphs, and the groups by relation."""
    a_launches, b_launches = diff.a.launches, diff.b.launches
    gpu = {_units([x.timing for x in a_launches]), _units([x.timing for x in b_launches])} == {"gpu"}
    out = Headline(measures=[_time("GPU time of launches" if gpu else "time of launches", a_launches, b_launches),
                             Measure("launches", "count", len(a_launches), len(b_launches)),
                             Measure("kernels", "count", len(diff.a.kernels), len(diff.b.kernels))])
    paired_at = {i for i, gm in enumerate(diff.graphs) if gm.a is not None and gm.b is not None}
    paired = [diff.graphs[i] for i in sorted(paired_at)]
    if len(paired) < len(diff.graphs):
        out.notes.append(f"{len(diff.graphs) - len(paired)} graph(s) have no counterpart: their launches are in "
                         "the totals above, not among the wins and losses")
        if paired:
            matched_a = [x for gm in paired for x in diff.a.graphs[gm.a].launches]
            matched_b = [x for gm in paired for x in diff.b.graphs[gm.b].launches]
            out.measures.insert(1, _time("in matched graphs", matched_a, matched_b))
    for relation in RELATIONS:
        out.counts[relation] = sum(1 for g in diff.groups if g.relation == relation)
    deltas = [(d, i) for i, g in enumerate(diff.groups)
              if g.graph in paired_at and (d := time_delta(g)) and _beyond_noise(g, d)]
    out.wins = [i for d, i in sorted(deltas) if d < 0][:TOP]
    out.losses = [i for d, i in sorted(deltas, reverse=True) if d > 0][:TOP]
    out.notes += _timing_notes(diff.a, "a") + _timing_notes(diff.b, "b")
    return out


def _beyond_noise(group: Group, d: float) -> bool:
    base = group.measure("in-graph").a if group.a else None
    return not base or abs(d) >= base * NOISE_PCT / 100


def time_delta(group: Group) -> float | None:
    """In-graph ms of b minus a (an added or removed group counts the missing side as nothing)."""
    m = group.measure("in-graph")
    if m is None or not m.comparable:
        return None
    a = 0.0 if not group.a else m.a
    b = 0.0 if not group.b else m.b
    return None if a is None or b is None else b - a


def _timing_notes(capture: Capture, side: str) -> list[str]:
    graphs = capture.graphs
    untimed, notes = [], []
    for g in graphs:
        missing = [x.timing for x in g.launches if x.timing is None or x.timing.in_graph_ms is None]
        why = {t.error for t in missing if t is not None and t.error}
        if missing and len(why) == 1 and all(t is not None for t in missing):  # timed, and it says why not these
            notes.append(f"{side}: {g.id}: {len(missing)} launch{'es' * (len(missing) > 1)} not timed: {why.pop()}")
        elif missing:
            untimed.append(g.id)
    if untimed and len(untimed) == len(graphs):
        notes.append(f"{side} is not timed (cap.bench() or kernelviz.capture(bench=True) times it)")
    elif untimed:
        notes.append(f"{side}: {len(untimed)} of {len(graphs)} graphs not timed ({', '.join(untimed)})")
    recreated = [g.id for g in graphs if g.timed_on == "recreated inputs"]
    if recreated:
        notes.append(f"{side}: timed on recreated inputs, not the program's tensors ({', '.join(recreated)})")
    return notes
