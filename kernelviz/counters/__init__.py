"""Hardware counters per launch from Nsight Compute (``cap.counters()``), joined to the graph: the launches
with the most in-graph time (or those named) are replayed in a child process under ``ncu`` from what
kernelviz records for repros, never in the user's process; the report is read with ncu's own Python reader
(``read``) and each launch gets :class:`kernelviz.model.LaunchCounters` (``attach``)."""

from __future__ import annotations

import sys
from typing import Any

from ..model import Capture, Graph, Launch, LaunchCounters
from .attach import counters_of, use_measured
from .run import Unavailable, find_ncu, profile, tool_name

__all__ = ["measure", "measured_or_why", "select", "unavailable"]


def unavailable(capture: Capture) -> str | None:
    """Why counters cannot be measured here (one line), or None."""
    if not any(g.device == "cuda" for g in capture.graphs):
        return "counters not measured: no CUDA graph in this capture (Nsight Compute measures GPU kernels)"
    try:
        import torch
    except ImportError:
        return "counters not measured: torch is not installed here"
    if not torch.cuda.is_available():
        return "counters not measured: no CUDA device here (Nsight Compute measures GPU kernels)"
    if find_ncu() is None:
        return "counters not measured: ncu (Nsight Compute) not found on PATH, in $CUDA_HOME/bin or /usr/local/cuda/bin"
    return None


def select(capture: Capture, top: int, launches: Any) -> list[tuple[int, Launch]]:
    """(graph index, launch) to measure: those named in ``launches`` (Launch objects, launch or kernel names,
    or (graph id, launch index) pairs), else the ``top`` with the most in-graph time."""
    found = [(g, launch) for g, graph in enumerate(capture.graphs) if graph.device == "cuda"
             for launch in graph.launches if launch.collective is None]
    if launches is not None:
        wanted = list(launches) if isinstance(launches, (list, tuple, set)) else [launches]

        def named(g: int, launch: Launch) -> bool:
            return any(w is launch or w == launch.name or w == launch.op or
                       (isinstance(w, tuple) and w == (capture.graphs[g].id, launch.index)) for w in wanted)
        return [(g, launch) for g, launch in found if named(g, launch)]
    timed = [(g, launch) for g, launch in found if launch.timing and launch.timing.in_graph_ms]
    timed.sort(key=lambda item: -item[1].timing.in_graph_ms)
    return timed[:top]


class _Progress:
    """Progress per launch, as ``bench`` shows its own: to ``report(done, total, label)`` (the panel's bar), or
    a text bar on stderr for ``True``, opened when the first launch is measured."""

    def __init__(self, total: int, progress: Any):
        self.total, self.done, self.progress, self.bar = total, 0, progress, None

    def enter(self, label: str) -> None:
        if callable(self.progress):
            self.progress(self.done, self.total, label)
        elif self.progress and self.bar is None:
            try:
                from tqdm.std import tqdm
            except ImportError:
                self.progress = False
            else:
                self.bar = tqdm(total=self.total, desc="kernelviz: measuring counters", unit="launch", leave=False)
        if self.bar is not None:
            self.bar.update(1)
        self.done += 1

    def close(self) -> None:
        if callable(self.progress):
            self.progress(self.total, self.total, "counters measured")
        if self.bar is not None:
            self.bar.close()


def measure(capture: Capture, *, top: int = 10, launches: Any = None, progress: Any = True) -> Capture:
    """Fill ``Launch.counters`` of the chosen launches (see :func:`select`) in place; the roofline and % of
    peak of each then use the measured bytes and throughput (``attach.use_measured``). Where counters cannot
    be measured here (no ncu, no permission for counters, no GPU) one line on stderr says which, and nothing
    changes. ``progress``: True for a text bar, False for none, or ``report(done, total, label)``."""
    from ..arguments import count

    why = measured_or_why(capture, top=count("counters", "top", top), launches=launches, progress=progress)
    if why is not None:
        print(f"kernelviz: {why}", file=sys.stderr)
    return capture


def measured_or_why(capture: Capture, *, top: int = 10, launches: Any = None, progress: Any = True) -> str | None:
    """:func:`measure`, returning the line that says why nothing was measured (None once measured): the panel's
    "Measure counters" button shows it there."""
    capture.wait_stages().wait_repros()  # the repro records it replays where it can
    why = unavailable(capture)
    chosen = select(capture, top, launches) if why is None else []
    if why is None and not chosen:
        why = ("counters not measured: no launch named" if launches is not None else
               "counters not measured: no launch has an in-graph time: time the capture first (cap.bench()) "
               "or name the launches")
    if why is not None:
        return why
    graphs = sorted({g for g, _ in chosen})
    position = {g: i for i, g in enumerate(graphs)}
    job = {"capture": Capture(graphs=[capture.graphs[g] for g in graphs]).to_dict(),
           "launches": [[launch.index for g2, launch in chosen if g2 == g] for g in graphs]}
    bar = _Progress(len(chosen), progress)
    skipped: dict[int, str] = {}

    def on_enter(p: int, index: int) -> None:
        graph = capture.graphs[graphs[p]]
        bar.enter(f"measuring counters of launch #{index} {graph.launches[index].name} (graph {graph.id})")

    ncu = find_ncu()
    try:
        report = profile(ncu, job, on_enter, lambda p, reason: skipped.__setitem__(graphs[p], reason))
    except Unavailable as exc:
        return f"counters not measured: {exc}"
    except RuntimeError as exc:
        report, failure = {"results": []}, str(exc)
    else:
        failure = None
    finally:
        bar.close()
    tool = tool_name(ncu)
    results: dict[str, list[dict]] = {}
    for r in report["results"]:
        results.setdefault(r.get("tag") or "", []).append(r)
    for g, launch in chosen:
        graph: Graph = capture.graphs[g]
        mine = results.get(f"kv{position[g]}:{launch.index}", [])
        reason = failure or skipped.get(g) or "ncu profiled no kernel of this launch"
        launch.counters = counters_of(graph, launch, mine, tool) if mine else LaunchCounters(error=reason, tool=tool)
        use_measured(launch)
    return None
