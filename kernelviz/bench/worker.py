"""The timing process: ``python -m kernelviz.bench.worker [--idle SECONDS]``.

It imports torch, Inductor's runtime and kernelviz, says ``ready``, imports what graphs' code imports while no job
waits, then reads one line from stdin:
``KIND<TAB>JOB<TAB>OUT_DIR`` (none, or none within ``--idle`` seconds: it ends). So it can be started long before
its job and wait without taking GPU memory: CUDA and the profiler start only once a job with a CUDA graph has come.
KIND ``time``: JOB is a capture's JSON with the graphs to time on recreated inputs, what to leave out of each and
whether to record their repros; each timed graph is written to ``OUT_DIR/<i>.json``. KIND ``expect``: JOB holds the
repro scripts' expected outputs to compute, answered on stdout (:mod:`kernelviz.repro.child`). One job, then it ends.
Every step is reported on stdout, one line each, before it runs (``phase start``: CUDA's start, ``graph i``,
``phase load`` or ``phase compile`` before each statement of its code, ``phase run``, ``enter <launch>``,
``phase in-graph``, ``phase isolated``, ``phase cudagraph``, ``phase as run``, ``phase repro``, ``done i``; an
AOTInductor package's graph: ``phase package`` (torch loads it), ``phase run`` of its first run, then its timing's
phases), so that if this process dies or hangs the parent knows where. A launch that raises is reported as
``fail <launch> <reason>`` and ends the process: after a CUDA error nothing else can run in it.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import importlib
import json
import select
import sys
from pathlib import Path

from ..model import Capture, DevicePeaks, Graph
from .errors import BenchError, LaunchFailed
from .inputs import recreate
from .measure import arg_maker, load_instrumented, measure, namespace
from .package import bench_package


def emit(line: str) -> None:
    sys.stdout.write(line.replace("\n", " ") + "\n")
    sys.stdout.flush()


def _warm_cuda() -> None:
    """CUDA's context and the profiler's first start (CUPTI), before a job needs them."""
    import torch

    torch.cuda.init()
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


def _job_line(idle_s: float | None) -> str:
    """The job's line from stdin; empty at its end or when none came within ``idle_s``."""
    if idle_s is not None and not select.select([sys.stdin], [], [], idle_s)[0]:
        return ""
    return sys.stdin.readline().rstrip("\n")


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
    if kind == "expect":
        from ..repro.child import main as expected

        return expected(job_path)
    job = json.loads(Path(job_path).read_text())
    capture = Capture.from_dict(job["capture"])
    if any(graph.device == "cuda" for graph in capture.graphs):
        emit("phase start")
        _warm_cuda()
    for i, graph in enumerate(capture.graphs):
        emit(f"graph {i}")
        failed = False
        try:
            if graph.package is not None:  # an AOTInductor package: run as it is shipped
                bench_package(graph, emit)
            else:
                _time(graph, capture.peaks, set(job["skip"][i]), job["isolated"][i], job["repros"][i])
        except LaunchFailed as exc:
            emit(f"fail {exc.index} {exc.reason}")
            return 3
        except (BenchError, ValueError) as exc:
            graph.warnings.append(f"not timed: {exc}")
            failed = graph.device == "cuda"  # a CUDA error may have left this process unusable
        Path(out_dir, f"{i}.json").write_text(Capture(graphs=[graph], peaks=capture.peaks).to_json())
        emit(f"done {i}")
        if failed:
            return 4
    return 0


def _time(graph: Graph, peaks: DevicePeaks | None, skip: set[int], isolated: bool, repros: bool) -> None:
    """Time a graph's code on recreated inputs, each step reported; with ``repros`` record its repros."""
    with _uncollected():
        scope = namespace(graph, None, emit)
        inst = load_instrumented(graph, scope)
    args, graph.made_up_values = recreate(graph)
    emit("phase run")  # loaded: from here each step has limit_s, also call()'s code between launches
    measure(graph, inst, args, None, peaks=peaks, isolated=isolated, observer=emit, skip=skip)
    graph.timed_on = "recreated inputs"
    if repros:
        from ..repro.record import record  # not at the top: its harness imports torch, which main() imports uncollected

        emit("phase repro")
        record(graph, scope, arg_maker(args, None))


if __name__ == "__main__":
    flags = sys.argv[1:]
    sys.exit(main(float(flags[flags.index("--idle") + 1]) if "--idle" in flags else None))
