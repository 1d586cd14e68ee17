"""Inductor's choices in words, one rule for every view: each autotuning as a sweep (its title, a bar per candidate,
the winner marked, the failed with why) and what reduce-overhead did with each graph as CUDA graphs. The text
summary and the HTML report call these; the panel reads the same from the payload's ``view`` annex."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from .. import units
from ..figures import valid
from ..model import Capture, CudaGraphEvent, Graph, Tuning

KIND_TITLE = {"template": "max-autotune", "configs": "Triton configs", "coordinate-descent": "coordinate descent",
              "user": "@triton.autotune"}


@dataclass
class SweepBar:
    """One candidate of a sweep: its time (``share``: of the slowest timed, for the bar), or why it failed."""

    name: str
    backend: str
    ms_text: str = ""
    share: float | None = None
    winner: bool = False
    error: str = ""
    detail: str = ""


@dataclass
class Failed:
    """The candidates that failed for one reason: their names and that reason."""

    names: list[str]
    error: str


@dataclass
class Sweep:
    """One autotuning as shown: a title, a line saying who won and by how much (or where an earlier result came
    from), its candidates fastest first (the failed last), and the failed grouped by their reason."""

    graph: str | None
    title: str  # "max-autotune · bmm (4x64x128, 4x128x96): 2 candidates"
    verdict: str  # "mm won: the runner-up triton_mm_13 took 4x as long"; "nothing tuned in this capture: ..."
    bars: list[SweepBar] = field(default_factory=list)
    failed: list[Failed] = field(default_factory=list)

    def to_json(self) -> dict:
        return asdict(self)


def verdict(tuning: Tuning) -> str:
    """Who won and by how much; for a result not tuned here, that nothing was, and where it came from."""
    if not tuning.tuned:
        won = f" (taken: {tuning.winner})" if tuning.winner else ""
        return f"nothing tuned in this capture: the result of {tuning.source}{won}"
    timed = sorted((c for c in tuning.candidates if c.ms is not None and valid(c.ms)), key=lambda c: c.ms)
    if tuning.winner is None:
        return "no candidate was timed: none could be taken"
    runner = next((c for c in timed if c.name != tuning.winner), None)
    if runner is None or tuning.margin is None:
        return f"{tuning.winner} taken, the only candidate timed"
    if tuning.margin < 0:  # the tuner's pick (coordinate descent keeps a step only past its threshold)
        return f"{tuning.winner} taken by the tuner; {runner.name} timed {100 * -tuning.margin:.1f}% less"
    ratio = tuning.margin + 1
    longer = (f"{ratio:.3g}x as long" if ratio >= 2 else f"{100 * tuning.margin:.1f}% longer"
              if tuning.margin >= 0.001 else "as long, within 0.1%")
    return f"{tuning.winner} won: the runner-up {runner.name} took {longer}"


def sweep(tuning: Tuning, graph: str | None) -> Sweep:
    timed = sorted((c for c in tuning.candidates if c.ms is not None and valid(c.ms)), key=lambda c: c.ms)
    failed = [c for c in tuning.candidates if c not in timed]
    texts = units.ms_texts(*(c.ms for c in timed))
    top = max((c.ms for c in timed), default=0.0)
    bars = [SweepBar(c.name, c.backend, text or "", c.ms / top if top > 0 else None, c.name == tuning.winner,
                     detail=c.detail) for c, text in zip(timed, texts)]
    bars += [SweepBar(c.name, c.backend, winner=c.name == tuning.winner, error=c.error or "failed", detail=c.detail)
             for c in failed]
    shapes = f" ({tuning.shapes})" if tuning.shapes else ""
    count = f"{len(tuning.candidates)} candidate{'s' * (len(tuning.candidates) != 1)}" + (
        f", {len(failed)} failed" if failed else "")
    title = f"{KIND_TITLE.get(tuning.kind, tuning.kind)} · {tuning.op}{shapes}" + (
        f": {count}" if tuning.candidates else "")
    reasons: dict[str, list[str]] = {}
    for c in failed:
        reasons.setdefault(c.error or "failed", []).append(c.name)
    return Sweep(graph, title, verdict(tuning), bars, [Failed(names, error) for error, names in reasons.items()])


def sweeps(capture: Capture) -> list[Sweep]:
    """Every tuning of the capture as a sweep: each graph's, then those outside graphs (a user's kernels)."""
    return [sweep(t, g.id) for g in capture.graphs for t in g.tunings] + [sweep(t, None) for t in capture.tunings]


def sweep_lines(s: Sweep, shown: int = 4) -> list[str]:
    """A sweep in text: its title and verdict, then the first ``shown`` candidates and how many more."""
    lines = [f"{s.title} — {s.verdict}"]
    timed = [bar for bar in s.bars if not bar.error]
    for bar in timed[:shown]:
        lines.append(f"  {'*' if bar.winner else ' '} {bar.ms_text:>10}  {bar.name}")
    if len(timed) > shown:
        lines.append(f"    {len(timed) - shown} more timed (the panel and the report show each)")
    lines += [f"    failed ({len(f.names)}): {f.error}" for f in s.failed]
    return lines


TEXT_SWEEPS = 3  # a graph's tunings in the text summary (max-autotune's first); the rest as "N more"


def graph_sweep_lines(graph: Graph) -> list[str]:
    """A graph's tunings in the text summary: the first few (max-autotune's first), then how many more."""
    ordered = sorted(graph.tunings, key=lambda t: t.kind != "template")
    lines = []
    for tuning in ordered[:TEXT_SWEEPS]:
        first, *rest = sweep_lines(sweep(tuning, graph.id))
        lines += [f"autotuned: {first}", *rest]
    more = len(ordered) - TEXT_SWEEPS
    return lines + ([f"autotuned: {more} more (the panel's Why tab and the report show each)"] if more > 0 else [])


def _event_line(event: CudaGraphEvent) -> str:
    where = f" at {event.location.where()}" if event.location else ""
    code = f" `{event.location.code}`" if event.location and event.location.code else ""
    if event.kind == "skip":
        return f"skipped: {event.reason}{where}{code}"
    shapes = f" for {event.shapes}" if event.shapes else ""
    if event.kind == "record":
        return f"recorded{f' ({event.reason})' if event.reason else ''}{shapes}"
    return f"re-recorded{shapes}: {event.reason}"


def cudagraph_lines(graph: Graph) -> list[str]:
    """What reduce-overhead did with a graph: ran as a CUDA graph (replays), recorded, re-recorded, skipped."""
    if not graph.cudagraphs and not graph.cudagraph_replays:
        return []
    skipped = any(e.kind == "skip" for e in graph.cudagraphs)
    replays = f", replayed {graph.cudagraph_replays}x" if graph.cudagraph_replays else ""
    head = ("CUDA graphs: not run as a CUDA graph" if skipped and not graph.cudagraph_replays
            else f"CUDA graphs: ran as a CUDA graph{replays}")
    return [head] + [_event_line(e) for e in graph.cudagraphs]


def pool_line(capture: Capture) -> str:
    """The CUDA-graph pool's memory, where reduce-overhead recorded any."""
    if capture.cudagraph_pool_bytes is None:
        return ""
    return f"CUDA-graph pool: {units.size(capture.cudagraph_pool_bytes)} held at the end of the capture"
