"""Time captured graphs: each launch in the graph, the graph's busy time and the gap between launches,
each launch alone after an L2 flush, and (CUDA-graph modes) the graph's CUDA-graph replay.

``bench(capture)`` fills ``Launch.timing``, ``Kernel.timing`` and the graph's times in place.

Where a graph's inputs are the user's live tensors it is timed in this process: those are the tensors
the graph has just run on, through the same kernels, so the timing runs nothing the user's own call did
not (inputs the graph mutates are cloned first). Everything else (inputs recreated from the specs, a
loaded capture) is timed in a separate process (``isolation``), where a crash or a hang costs only the
launch that caused it.
"""

from __future__ import annotations

import time
from typing import Any

from ..model import Capture, DevicePeaks, Graph
from . import collectives
from .errors import BenchError
from .here import bench_live, bench_together, lockstep_of
from .inputs import live_inputs
from .instrument import Instrumented, instrument
from .measure import check, talks
from .peaks import calibrate, device_peaks
from .progress import Progress

__all__ = ["bench", "calibrate", "BenchError", "instrument", "Instrumented"]
_TIMING_WARNINGS = ("not timed", "timing:")


def bench(capture: Capture, *, isolated: bool = True, progress: Any = True, peaks: DevicePeaks | None = None,
          limit_s: float = 60.0, repros: bool = False) -> Capture:
    """Time every graph of ``capture``; a graph that cannot be timed gets a warning saying why.

    ``progress``: True for a text progress bar, False for none, or ``report(done, total, label)``.
    ``peaks`` (e.g. ``kernelviz.calibrate()``) replaces the datasheet peaks the % figures are taken of.
    ``limit_s``: a step of the timing process that makes no progress for this long is stopped (a hang).
    ``repros``: also record what ``kernel.to_repro()`` / ``graph.to_repro()`` need (one more run of each graph
    timed on the user's tensors, then the expected outputs in a child process: seconds more, so not by default).
    A graph that holds collectives is timed in this process by every rank of the job at once (``lockstep``);
    there ``limit_s`` is how long a rank waits for the others before it leaves the graph untimed, saying why."""
    import torch

    from ..recorder import live_runs
    from .isolation import bench_elsewhere

    capture.wait_stages()  # the stages' reading thread is done before the GPU is timed
    runs = live_runs(capture)
    if peaks is not None:
        capture.peaks = peaks
    elif capture.peaks is None and torch.cuda.is_available() and any(g.device == "cuda" for g in capture.graphs):
        capture.peaks = device_peaks()
    elsewhere: list[Graph] = []
    recorded: list[Graph] = []
    lockstep = lockstep_of(capture, limit_s)
    bar = Progress(progress, len(capture.graphs))
    try:
        for i, graph in enumerate(capture.graphs):
            graph.warnings = [w for w in graph.warnings if not w.startswith(_TIMING_WARNINGS)]
            graph.bench_s = None
            start = time.perf_counter()
            run = runs.get(i)
            args = live_inputs(run.inputs) if run is not None else None
            try:
                if talks(graph):
                    bar.step(f"timing graph {graph.id} with the other ranks")
                    bench_together(graph, run, args, capture.peaks, isolated, lockstep)
                    bar.done()
                    graph.bench_s = time.perf_counter() - start
                    continue
                check(graph)
                if args is None:
                    elsewhere.append(graph)
                    continue
                bar.step(f"timing graph {graph.id}")
                bench_live(graph, run, args, capture.peaks, isolated, recorded if repros else None)
            except BenchError as exc:
                graph.warnings.append(f"not timed: {exc}")
            bar.done()
            graph.bench_s = time.perf_counter() - start
        if elsewhere:
            bar.step(f"timing {len(elsewhere)} graph(s) on recreated inputs, in a separate process")
            bench_elsewhere(elsewhere, capture.peaks, isolated=isolated, limit_s=limit_s, progress=bar)
    finally:
        bar.close()
    for graph in capture.graphs:
        collectives.fill(graph, capture.world_size)
    if recorded:
        from ..repro.record import expect  # the repro scripts' expected outputs, one child process for all

        expect(recorded, progress=progress)
    return capture
