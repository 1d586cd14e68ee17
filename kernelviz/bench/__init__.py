"""Time captured graphs: each launch in the graph, the graph's busy time and the gap between launches,
each launch alone after an L2 flush, and (CUDA-graph modes) the graph's CUDA-graph replay.

``bench(capture)`` fills ``Launch.timing``, ``Kernel.timing`` and the graph's times in place.

``plan`` decides where each graph is timed, ``here``/``measure`` time it in this process, ``isolation`` in the
timing process, ``results`` fill the model. Where a graph's inputs are the user's live tensors it is timed in
this process: those are the tensors the graph has just run on, through the same kernels, so the timing runs
nothing the user's own call did not (inputs the graph mutates are cloned first). So is a graph whose module
is live here and whose every input the run recorded (a backward after the cell: its saved tensors are gone,
their specs and integer values kept), on inputs recreated from those specs. Everything else (made-up
values, a loaded capture) is timed in a separate process (``isolation``), where a crash or a hang costs only
the launch that caused it; so is an AOTInductor package, run as it is shipped (``package``).
"""

from __future__ import annotations

import time
from typing import Any

from ..model import Capture, DevicePeaks, Graph
from . import collectives, isolation
from .cpupeaks import cpu_peaks
from .errors import BenchError
from .here import bench_live, bench_recreated, bench_together, lockstep_of
from .instrument import Instrumented, instrument
from .peaks import calibrate, device_peaks
from .plan import GraphPlan, plan
from .progress import Progress

__all__ = ["bench", "calibrate", "BenchError", "instrument", "Instrumented"]
_TIMING_WARNINGS = ("not timed", "timing:")
_ELSEWHERE = ("elsewhere", "package")  # timed in the timing process


def bench(capture: Capture, *, isolated: bool = True, progress: Any = True, peaks: DevicePeaks | None = None,
          limit_s: float = 60.0, repros: bool = False) -> Capture:
    """Time every graph of ``capture``; a graph that cannot be timed gets a warning saying why.

    ``progress``: True for a text progress bar, False for none, or ``report(done, total, label)``.
    ``peaks`` (e.g. ``kernelviz.calibrate()``) replaces the datasheet peaks the % figures are taken of.
    ``limit_s``: a step of the timing process that makes no progress for this long is stopped (a hang).
    ``repros``: also record what ``kernel.to_repro()`` / ``graph.to_repro()`` need (one more run of each graph;
    then the expected outputs, computed in the timing process after this returns: ``capture.wait_repros()``).
    A graph that holds collectives is timed in this process by every rank of the job at once (``lockstep``);
    there ``limit_s`` is how long a rank waits for the others before it leaves the graph untimed, saying why."""
    import torch

    from .. import arguments

    arguments.instance("bench", "capture", capture, Capture, optional=False)
    isolated, repros = arguments.flag("bench", "isolated", isolated), arguments.flag("bench", "repros", repros)
    limit_s, progress = arguments.seconds("bench", "limit_s", limit_s), arguments.progress("bench", progress)
    arguments.instance("bench", "peaks", peaks, DevicePeaks)
    capture.wait_repros()
    plans = plan(capture)
    if peaks is None and capture.peaks is None and capture.graphs and all(g.device == "cpu" for g in capture.graphs):
        # cached, else measured in a child process (a second or two, once per machine), before the timing process
        # starts: the measure has the CPU to itself
        capture.peaks = cpu_peaks()
    worker = isolation.Worker.get() if any(p.where in _ELSEWHERE for p in plans) else None  # starts while we time
    if peaks is not None:
        capture.peaks = peaks
    elif capture.peaks is None and torch.cuda.is_available() and any(g.device == "cuda" for g in capture.graphs):
        capture.peaks = device_peaks()
    recorded: list[Graph] = []
    bar = Progress(progress, len(plans))
    try:
        elsewhere = _run(plans, capture, isolated, limit_s, recorded if repros else None, bar)
        if elsewhere:
            bar.step(f"timing {len(elsewhere)} graph(s) on recreated inputs, in a separate process")
            isolation.bench_elsewhere(elsewhere, capture.peaks, isolated=isolated, limit_s=limit_s, progress=bar,
                                      repros=repros, worker=worker)
            recorded += [g for g in elsewhere if repros and g.repro is not None and g.repro.error is None]
    finally:
        bar.close()
        if worker is not None and worker.ready():  # not needed after all: kept for the next timing
            worker.keep()
    for graph in capture.graphs:
        collectives.fill(graph, capture.world_size)
    if recorded:
        from ..repro.record import Landing  # the repro scripts' expected outputs, in the background

        isolation.Worker.warm()  # the timing process they are computed in starts while the stages are read
        capture._repros = Landing(recorded, after=capture.wait_stages)
    return capture


def _run(plans: list[GraphPlan], capture: Capture, isolated: bool, limit_s: float, recorded: list[Graph] | None,
         bar: Progress) -> list[Graph]:
    """Time the graphs this process can time, in order; the graphs left for the timing process."""
    elsewhere: list[Graph] = []
    lockstep = lockstep_of(capture, limit_s)
    for item in plans:
        graph = item.graph
        graph.warnings = [w for w in graph.warnings if not w.startswith(_TIMING_WARNINGS)]
        graph.bench_s = None
        start = time.perf_counter()
        try:
            if item.where == "none":
                raise BenchError(item.cannot)
            if item.where == "together":
                bar.step(f"timing graph {graph.id} with the other ranks")
                bench_together(graph, item.run, item.args, capture.peaks, isolated, lockstep)
            elif item.where == "user":
                bar.step(f"timing graph {graph.id}")
                bench_live(graph, item.run, item.args, capture.peaks, isolated, recorded)
            elif item.where != "here" or not bench_recreated(graph, item.run, capture.peaks, isolated, recorded):
                elsewhere.append(graph)
                continue
        except BenchError as exc:
            graph.warnings.append(f"not timed: {exc}")
        bar.done()
        graph.bench_s = time.perf_counter() - start
    return elsewhere
