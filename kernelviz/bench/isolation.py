"""Time graphs in the timing process (:class:`~kernelviz.children.Worker`, running :mod:`kernelviz.worker`), so that
a segmentation fault, an illegal memory access or a hang costs only the launch that caused it, never the user's
session, and nothing the timing runs (the profiler, the instruments) stays behind in it.

The worker reports each step before it runs. When it dies or stops reporting for ``limit_s`` (it is then
killed), the last step says where: a launch of the recording run is marked failed with a one-line reason
and the graph is timed again without it (its result replaced by zeros of the right size); a fault while
timing launches alone drops the isolated times of that graph; anything else leaves the graph untimed,
with the reason. Graphs already timed keep their times.
"""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..children import Worker
from ..model import NOT_RECORDED, Capture, DevicePeaks, Graph, KernelTiming, LaunchTiming, ReproRecord
from .handoff import Handoff, hand
from .options import BenchOptions

MAX_RUNS = 8  # worker starts per bench() call (the first, and one after each fault)
LOAD_FACTOR = 10  # starting the process, and a statement of a graph's code that compiles kernels, may take this many
# times longer than any other step


@dataclass
class Job:
    """One graph for the timing process: on what (``inputs``: the plan's word; ``args``, by position, the values to
    hand over, None where it recreates one from the specs), and which inputs its code mutates (None: unknown)."""

    graph: Graph
    inputs: str = "made up"
    args: list[Any] | None = None
    mutated: list[int] | None = None
    skip: dict[int, str] = field(default_factory=dict)  # launch index -> why it failed
    isolated: bool = True
    repros: bool = False  # also record what the repro scripts need
    done: bool = False


@dataclass
class _Outcome:
    """How a worker ended: the graphs it finished and, if it stopped early, where and why."""

    finished: list[int] = field(default_factory=list)
    graph: int | None = None  # position in the job of the graph it was on
    phase: str = "start"
    launch: int | None = None  # the launch it had entered (recording run) or reported failed
    reason: str | None = None


def bench_in_worker(jobs: list[Job], peaks: DevicePeaks | None, options: BenchOptions, progress: Any = None,
                    worker: Worker | None = None) -> None:
    """Time ``jobs``' graphs in worker processes (``worker`` first, where one was prepared) and fill them in place;
    with ``repros`` also record what their repro scripts need. ``progress`` (a ``bench.Progress``) hears of each
    graph done."""
    for job in jobs:
        job.isolated, job.repros = options.isolated, options.repros
    limit_s = options.limit_s
    spare = worker
    first_stop: float | None = None  # when a worker first stopped early: retries end limit_s later
    try:
        for runs in range(MAX_RUNS):
            pending = [j for j in jobs if not j.done]
            if not pending:
                break
            if first_stop is not None and time.perf_counter() - first_stop > limit_s:
                for job in pending:
                    job.graph.warnings.append(f"not timed: the timing process stopped early {runs} times, the "
                                              f"last {time.perf_counter() - first_stop:.0f} s after the first "
                                              f"(limit_s={limit_s:g})")
                    job.done = True
                break
            if spare is not None and not spare.ready():
                spare.close()
                spare = None
            current, spare = spare or Worker.get(), None
            started = time.perf_counter()
            try:
                outcome = _run_worker(current, pending, peaks, limit_s, progress)
            finally:
                current.close()
            spent = (time.perf_counter() - started) / len(pending)
            for job in pending:
                job.graph.bench_s = (job.graph.bench_s or 0.0) + spent
            for position in outcome.finished:
                pending[position].done = True
            if outcome.graph is not None:
                _blame(pending[outcome.graph], outcome)
                first_stop = first_stop if first_stop is not None else time.perf_counter()
    finally:
        if spare is not None:
            spare.keep()
    Worker.warm_after([job.graph for job in jobs])
    for job in jobs:
        if not job.done:
            job.graph.warnings.append(f"not timed: the timing process failed {MAX_RUNS} times")
        _mark_failed(job)


def _blame(job: Job, outcome: _Outcome) -> None:
    """Decide what to leave out next time, or give the graph up, after its worker stopped early."""
    reason = outcome.reason or "the timing process stopped"
    if outcome.launch is not None and outcome.phase == "record" and len(job.skip) < len(job.graph.launches):
        job.skip[outcome.launch] = reason
    elif outcome.phase == "isolated" and job.isolated:
        job.isolated = False
        job.graph.warnings.append(f"timing: launches could not be timed alone: {reason}")
    elif outcome.phase == "repro" and job.repros:
        job.repros = False
        _no_repro(job.graph, f"recording its launches stopped the timing process: {reason}")
    else:
        where = {"load": "while loading its code", "package": "while torch loaded the package",
                 "compile": "while compiling its kernels",
                 "in-graph": "while timing it", "cudagraph": "while timing its CUDA-graph replay",
                 "as run": "while timing it as it runs", "start": "while it started",
                 "profiler": "while the profiler started",
                 "run": "while running its call()"}.get(outcome.phase, "")
        job.graph.warnings.append(f"not timed: {reason} {where}".strip())
        job.done = True


def _no_repro(graph: Graph, why: str) -> None:
    reason = f"{NOT_RECORDED}: {why}"
    graph.warnings = [w for w in graph.warnings if not w.startswith(NOT_RECORDED)] + [reason]
    graph.repro = ReproRecord(error=reason)
    for kernel in graph.kernels:
        kernel.repro = ReproRecord(error=reason)


def _mark_failed(job: Job) -> None:
    for launch in job.graph.launches:
        if launch.index in job.skip:
            launch.timing = LaunchTiming(error=job.skip[launch.index], unit="gpu" if job.graph.device == "cuda"
                                         else "cpu")
    for kernel in job.graph.kernels:
        indices = [launch.index for launch in job.graph.launches if launch.kernel_name == kernel.name]
        if indices and all(i in job.skip for i in indices):
            kernel.timing = KernelTiming(error=job.skip[indices[0]], unit=job.graph.launches[indices[0]].timing.unit)
    if job.skip and job.repros:
        first = min(job.skip)
        made_up = ", ".join(job.graph.made_up_values) or "none"
        on = ("the tensors it ran with" if job.inputs == "user"
              else f"inputs recreated from the specs (values made up for: {made_up})")
        _no_repro(job.graph, f"launch {first} ({job.graph.launches[first].name}) failed on {on}: {job.skip[first]}")


def _run_worker(worker: Worker, pending: list[Job], peaks: DevicePeaks | None, limit_s: float,
                progress: Any) -> _Outcome:
    folder = Path(worker.folder.name)
    handoffs = [hand(job.args, folder / f"inputs{i}.pt") if job.args is not None else None
                for i, job in enumerate(pending)]
    try:
        worker.give(_job_json(pending, peaks, handoffs))
        try:
            outcome = follow(worker.proc, len(pending), limit_s, progress)
        finally:
            if worker.proc.poll() is None:
                worker.proc.kill()
            worker.proc.wait()
    finally:
        for handoff in handoffs:
            if handoff is not None:
                handoff.done()
    for position in outcome.finished:
        _merge(pending[position].graph, Capture.from_json(Path(folder, f"{position}.json").read_text()).graphs[0])
    if outcome.graph is not None and outcome.reason is None:
        outcome.reason = _died(worker.proc.returncode, worker.stderr_path)
    return outcome


def _job_json(pending: list[Job], peaks: DevicePeaks | None, handoffs: list[Handoff | None]) -> str:
    import json

    capture = Capture(graphs=[j.graph for j in pending], peaks=peaks)
    return json.dumps({"capture": capture.to_dict(), "skip": [sorted(j.skip) for j in pending],
                       "isolated": [j.isolated for j in pending],
                       "repros": [j.repros and not j.skip for j in pending],
                       "inputs": [j.inputs for j in pending], "mutated": [j.mutated for j in pending],
                       "handed": [str(h.path) if h is not None else None for h in handoffs]})


def follow(proc: subprocess.Popen, graphs: int, limit_s: float, progress: Any) -> _Outcome:
    """Read the worker's steps until it has done its ``graphs`` (it is then stopped, not waited on to end) or
    ends, or kill it when a step outlasts its limit."""
    lines: queue.Queue[str | None] = queue.Queue()

    def read() -> None:
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)

    threading.Thread(target=read, daemon=True).start()
    outcome = _Outcome()
    while True:
        limit = limit_s * (LOAD_FACTOR if outcome.phase in ("start", "compile") else 1)
        try:
            line = lines.get(timeout=limit)
        except queue.Empty:
            proc.kill()
            outcome.reason = f"did not finish within {limit:.0f} s (a hang?): the timing process was stopped"
            break
        if line is None:
            break
        word, _, rest = line.partition(" ")
        if word == "ready":
            outcome.phase = "load"
        elif word == "graph":
            outcome.graph, outcome.phase, outcome.launch = int(rest), "", None
        elif word == "phase":
            outcome.phase, outcome.launch = rest, None
        elif word == "enter":
            outcome.phase, outcome.launch = "record", int(rest)
        elif word == "fail":
            index, _, reason = rest.partition(" ")
            outcome.phase, outcome.launch, outcome.reason = "record", int(index), reason
        elif word == "done":
            outcome.finished.append(int(rest))
            outcome.graph = None
            if progress is not None:
                progress.done()
            if len(outcome.finished) == graphs:
                break
    return outcome


def _died(returncode: int | None, stderr_path: Path) -> str:
    """One line on how the worker ended (killed by a signal: the Python frame it was in, where its fault handler
    wrote one)."""
    text = stderr_path.read_text(errors="replace")
    if returncode is not None and returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        frame = _fault_frame(text)
        return f"the timing process died ({name}){f' in {frame}' if frame else ''}"
    tail = [line.strip() for line in text.splitlines() if line.strip()]
    return f"the timing process exited ({returncode}): {tail[-1] if tail else 'no message'}"


_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<function>\S+)')


def _fault_frame(text: str) -> str | None:
    """The innermost frame of the faulting thread in a fault handler's report, where it lies in an installed library
    (the one that faulted, e.g. ``_load_aoti at torch/export/pt2_archive/_package.py:1068``); None elsewhere (the
    graph's own code, the standard library), where the step the worker was at says more."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("Current thread")), len(lines))
    match = next((m for line in lines[start + 1:] if (m := _FRAME.match(line)) is not None), None)
    if match is None:
        return None
    root = next((r for r in ("site-packages/", "dist-packages/") if r in match["file"]), None)
    return f"{match['function']} at {match['file'].rsplit(root, 1)[1]}:{match['line']}" if root else None


def _merge(graph: Graph, timed: Graph) -> None:
    """Copy the times of ``timed`` (the worker's copy of ``graph``) into ``graph``."""
    for launch, other in zip(graph.launches, timed.launches):
        launch.timing = other.timing
    for kernel, other in zip(graph.kernels, timed.kernels):
        kernel.timing = other.timing
    for name in ("gpu_busy_ms", "gap_ms", "cudagraph_ms", "as_run", "timed_on", "made_up_values", "repro"):
        setattr(graph, name, getattr(timed, name))
    if timed.repro is not None:  # recorded there: each kernel's record and each launch's grid
        for launch, other in zip(graph.launches, timed.launches):
            launch.grid = other.grid
        for kernel, other in zip(graph.kernels, timed.kernels):
            kernel.repro = other.repro
    graph.warnings.extend(w for w in timed.warnings if w not in graph.warnings)
