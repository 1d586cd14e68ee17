"""The timing process: ``python -m kernelviz.worker [--idle SECONDS]``.

It imports torch, Inductor's runtime and kernelviz, says ``ready``, imports what graphs' code imports while no job
waits, then reads one line from stdin:
``KIND<TAB>JOB<TAB>OUT_DIR`` (none, or none within ``--idle`` seconds: it ends). So it can be started long before
its job and wait without taking GPU memory: CUDA starts once a job with a CUDA graph has come, or a line ``cuda``
(a capture timing on a GPU is under way); the profiler only once every graph of the job was timed as it runs.
KIND ``time``: JOB is a capture's JSON with the graphs to time, on what (the tensors the user's process handed over,
:mod:`kernelviz.bench.handoff`, or inputs recreated from the specs), what to leave out of each and whether to record
their repros; each timed graph is written to ``OUT_DIR/<i>.json``. Every graph is first recorded and timed as it
runs, then the profiler starts and each gets its profiled runs: the profiler leaves every later launch of a process
slower, so no figure of a graph as it runs is taken after it. KIND ``expect``: JOB holds the repro scripts' expected
outputs to compute, answered on stdout (:mod:`kernelviz.repro.child`), at a lower priority with few threads (it runs
beside the user's session). KIND ``whatif``: JOB holds candidate changes to compile and time beside the captured graphs
(:mod:`kernelviz.whatif.child`), each written to ``OUT_DIR/<k>.json``. One job, then it ends.
Every step is reported on stdout, one line each, before it runs (``phase start``: CUDA's start, ``graph i``,
``phase load`` or ``phase compile`` before each statement of its code, ``phase run``, ``enter <launch>``,
``phase as run``, ``phase profiler``, then again ``graph i``, ``phase in-graph``, ``phase isolated``,
``phase cudagraph``, ``phase repro``, ``done i``; an AOTInductor package's graph: ``phase package`` (torch loads it),
``phase run`` of its first run, then its timing's phases), so that if this process dies or hangs the parent knows
where. A launch that raises is reported as ``fail <launch> <reason>`` and ends the process: after a CUDA error
nothing else can run in it.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import importlib
import json
import os
import select
import sys
from collections.abc import Callable
from pathlib import Path

from .bench.errors import BenchError, LaunchFailed
from .bench.handoff import receive
from .bench.inputs import recreate
from .bench.measure import Prepared, finish, load_instrumented, namespace, prepare
from .bench.package import bench_package
from .model import Capture, DevicePeaks, Graph


def emit(line: str) -> None:
    sys.stdout.write(line.replace("\n", " ") + "\n")
    sys.stdout.flush()


def _warm_profiler() -> None:
    """The profiler's first start (CUPTI), before the profiled runs: it leaves every later launch of this process
    slower, so it comes after every graph was timed as it runs."""
    import torch

    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,
                                            torch.profiler.ProfilerActivity.CUDA]):
        torch.zeros(1, device="cuda").add_(1)
    torch.cuda.synchronize()


# what a graph's code imports after torch's runtime, slow to import (seconds on a machine without bytecode for torch)
_GRAPH_IMPORTS = ("torch._inductor.hooks", "torch._inductor.codegen.memory_planning",
                  "torch._inductor.select_algorithm", "triton.language")


def _preload() -> None:
    """Import what a graph's code will, while no job waits (one that does imports it as its code runs)."""
    for name in _GRAPH_IMPORTS:
        if select.select([sys.stdin], [], [], 0)[0]:
            return
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - only ahead of time: the graph's code says what fails, where it fails
            continue


@contextlib.contextmanager
def _uncollected(freeze: bool = False):
    """No garbage collection while torch, Inductor or a graph's code is imported: they make millions of objects and
    no garbage, and the collector's passes over them took a quarter of the time (on a CPU machine: torch, Inductor's
    runtime and a graph's imports 2.4-2.6 s instead of 3.1-3.5 s). ``freeze``: what the block made stays for the
    process's life (its start's imports), so it is kept out of every later pass once the block ends as it should."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze:
            gc.freeze()
    finally:
        if was:
            gc.enable()


def _background() -> None:
    """Lower priority and few threads: this job runs while the user's session goes on."""
    import torch

    with contextlib.suppress(OSError):
        os.nice(10)
    torch.set_num_threads(min(2, torch.get_num_threads()))


def _job_line(idle_s: float | None) -> str:
    """The job's line from stdin; empty at its end or when none came within ``idle_s``. A line ``cuda`` before it
    starts CUDA while the job is still to come."""
    while True:
        if idle_s is not None and not select.select([sys.stdin], [], [], idle_s)[0]:
            return ""
        line = sys.stdin.readline().rstrip("\n")
        if line != "cuda":
            return line
        import torch

        torch.cuda.init()


def main(idle_s: float | None = None) -> int:
    faulthandler.enable()  # a fault's Python stack to stderr: the parent names the frame it died in
    with _uncollected(freeze=True):
        import torch  # noqa: F401
        import torch._inductor.async_compile  # noqa: F401 - what every graph's code imports first
        import torch._inductor.runtime.triton_heuristics  # noqa: F401

        emit("ready")
        _preload()
    line = _job_line(idle_s)
    if not line:
        return 0
    kind, job_path, out_dir = line.split("\t")
    if kind == "expect":  # in the background, after the exit: out of the user's way
        from .repro.child import main as expected

        _background()
        return expected(job_path)
    if kind == "whatif":
        from .whatif.child import main as whatif

        return whatif(job_path, out_dir, emit)
    job = json.loads(Path(job_path).read_text())
    capture = Capture.from_dict(job["capture"])
    cuda = any(graph.device == "cuda" for graph in capture.graphs)
    if cuda:
        emit("phase start")
        torch.cuda.init()
    ended: set[int] = set()
    prepared: dict[int, Prepared] = {}
    try:
        for i, graph in enumerate(capture.graphs):  # first every graph as it runs, before the profiler starts here
            if graph.package is None and not _guarded(capture, graph, i, out_dir,
                                                      lambda i=i, g=graph: prepared.setdefault(i, _prepare(g, job, i))):
                ended.add(i)
        if cuda:
            emit("phase profiler")
            _warm_profiler()
        for i, graph in enumerate(capture.graphs):  # then the profiled runs
            if i not in ended and _guarded(capture, graph, i, out_dir, lambda i=i, g=graph: bench_package(g, emit)
                                           if g.package is not None  # an AOTInductor package, as shipped
                                           else _finish(prepared.pop(i), capture.peaks, job, i)):
                _end(capture, graph, i, out_dir)
    except _Stop as stop:
        return stop.status
    return 0


class _Stop(Exception):
    """This process must end with ``status``: a launch failed (3; after a CUDA error nothing else can run here) or a
    CUDA graph could not be timed (4)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


def _guarded(capture: Capture, graph: Graph, i: int, out_dir: str, work: Callable[[], object]) -> bool:
    """Run ``work`` for graph ``i``, each step reported: True where it went on; False where the graph ended not timed
    (written and reported done); :class:`_Stop` where this process must end."""
    emit(f"graph {i}")
    try:
        work()
        return True
    except LaunchFailed as exc:
        emit(f"fail {exc.index} {exc.reason}")
        raise _Stop(3) from None
    except (BenchError, ValueError) as exc:
        if _end(capture, graph, i, out_dir, exc):
            raise _Stop(4) from None
        return False


def _end(capture: Capture, graph: Graph, i: int, out_dir: str, error: Exception | None = None) -> bool:
    """Write graph ``i`` as timed (or not timed: ``error``) and report it done; True where this process must end (a
    CUDA error may have left it unusable)."""
    if error is not None:
        graph.warnings.append(f"not timed: {error}")
    Path(out_dir, f"{i}.json").write_text(Capture(graphs=[graph], peaks=capture.peaks).to_json())
    emit(f"done {i}")
    return error is not None and graph.device == "cuda"


def _prepare(graph: Graph, job: dict, i: int) -> Prepared:
    """Load graph ``i``'s code, make its inputs (handed over from the user's process, or recreated from the specs),
    record it and time it as it runs (:func:`kernelviz.bench.measure.prepare`), each step reported."""
    with _uncollected():
        scope = namespace(graph, None, emit)
        inst = load_instrumented(graph, scope)
    handed = job["handed"][i]
    if handed is not None and job["inputs"][i] == "user":
        args, graph.made_up_values, graph.timed_on = receive(handed), [], "user tensors"
    else:
        args, graph.made_up_values = recreate(graph, receive(handed) if handed is not None else None)
        graph.timed_on = "recreated inputs"
    emit("phase run")  # loaded: from here each step has limit_s, also call()'s code between launches
    prepared = prepare(graph, inst, args, job["mutated"][i], observer=emit, skip=set(job["skip"][i]))
    prepared.scope = scope
    return prepared


def _finish(prepared: Prepared, peaks: DevicePeaks | None, job: dict, i: int) -> None:
    """The profiled runs of a prepared graph; with ``repros`` its repro records."""
    finish(prepared, peaks=peaks, isolated=job["isolated"][i])
    if job["repros"][i]:
        from .repro.record import record  # not at the top: its harness imports torch, which main() imports uncollected

        emit("phase repro")
        record(prepared.graph, prepared.scope, prepared.make_args)


if __name__ == "__main__":
    flags = sys.argv[1:]
    sys.exit(main(float(flags[flags.index("--idle") + 1]) if "--idle" in flags else None))
