"""Time captured graphs: each launch in the graph, the graph's busy time and the gap between launches,
each launch alone after an L2 flush, the graph as it runs un-instrumented, and (CUDA-graph modes) the graph's
CUDA-graph replay.

``bench(capture, runs, options)`` fills ``Launch.timing``, ``Kernel.timing`` and the graph's times in place, and
returns the graphs whose repro records it made. ``plan`` decides where and on what each graph is timed (the timing
process, on the tensors it ran with where they live), ``isolation`` runs the timing process, ``measure`` is what
runs there, ``results`` fill the model; ``here`` times a graph that holds collectives in this process, with the
job's other ranks.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..children import Worker
from ..model import Capture, Graph
from ..recorder.runs import GraphRun
from . import collectives, isolation
from .cpupeaks import cpu_peaks
from .errors import BenchError
from .here import bench_together, lockstep_of
from .options import BenchOptions
from .peaks import calibrate, device_peaks
from .plan import GraphPlan, plan
from .progress import Progress

__all__ = ["bench", "calibrate", "BenchError", "BenchOptions"]
_TIMING_WARNINGS = ("not timed", "timing:")


def bench(capture: Capture, runs: Sequence[tuple[Graph, GraphRun]] = (),
          options: BenchOptions | None = None) -> list[Graph]:
    """Time every graph of ``capture`` (``runs``: their live sides, where they ran in this process); a graph that
    cannot be timed gets a warning saying why. Returns the graphs whose repro records were made (``repros``), whose
    expected outputs are still to be computed (:func:`kernelviz.repro.record.expect`)."""
    import torch

    options = options if options is not None else BenchOptions()
    plans = plan(capture, runs)
    if options.peaks is None and capture.peaks is None and capture.graphs and all(
            g.device == "cpu" for g in capture.graphs):
        # cached, else measured in a child process (a second or two, once per machine and thread count)
        capture.peaks = cpu_peaks()
    worker = Worker.get() if any(p.where in ("worker", "package") for p in plans) else None
    if options.peaks is not None:
        capture.peaks = options.peaks
    elif capture.peaks is None and torch.cuda.is_available() and any(g.device == "cuda" for g in capture.graphs):
        capture.peaks = device_peaks()
    bar = Progress(options.progress, len(plans))
    try:
        for graph in capture.graphs:
            graph.warnings = [w for w in graph.warnings if not w.startswith(_TIMING_WARNINGS)]
            graph.bench_s = None
        _here(plans, capture, options, bar)
        jobs = [isolation.Job(p.graph, p.inputs, p.args, _mutated(p))
                for p in plans if p.where in ("worker", "package")]
        if jobs:
            bar.step(f"timing {len(jobs)} graph(s) in the timing process")
            isolation.bench_in_worker(jobs, capture.peaks, options, progress=bar, worker=worker)
            worker = None
    finally:
        bar.close()
        if worker is not None and worker.ready():  # not needed after all: kept for the next timing
            worker.keep()
    for graph in capture.graphs:
        collectives.fill(graph, capture.world_size)
    return [p.graph for p in plans if options.repros and p.where in ("worker", "package")
            and p.graph.repro is not None and p.graph.repro.error is None]


def _here(plans: list[GraphPlan], capture: Capture, options: BenchOptions, bar: Progress) -> None:
    """Say why the graphs that cannot be timed are not; time those that hold collectives, with the other ranks."""
    lockstep = lockstep_of(capture, options.limit_s)
    for item in plans:
        if item.where not in ("none", "together"):
            continue
        graph, start = item.graph, time.perf_counter()
        try:
            if item.where == "none":
                raise BenchError(item.cannot)
            bar.step(f"timing graph {graph.id} with the other ranks")
            bench_together(graph, item.run, item.args, capture.peaks, options.isolated, lockstep)
        except BenchError as exc:
            graph.warnings.append(f"not timed: {exc}")
        bar.done()
        graph.bench_s = time.perf_counter() - start


def _mutated(item: GraphPlan) -> list[int] | None:
    """The inputs the graph's code mutates, as its live module says (None: unknown, every input is copied)."""
    module = item.run.module() if item.run is not None else None
    found = getattr(module, "mutated_input_idxs", None)
    return sorted(int(i) for i in found) if found is not None else None
