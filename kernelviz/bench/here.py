"""Timing in this process, on the tensors a graph ran with, together with the job's other ranks (lockstep): a graph
that holds collectives needs the job's process group, which the timing process has not."""

from __future__ import annotations

from typing import Any

from ..model import Capture, DevicePeaks, Graph
from .errors import BenchError, LaunchFailed
from .lockstep import Lockstep, LockstepError
from .measure import check, load_instrumented, measure, namespace, talks


def lockstep_of(capture: Capture, limit_s: float) -> Lockstep | None:
    """The ranks' meeting point, where some graph holds collectives and this process is in a job."""
    from ..recorder.distributed import initialized

    if not any(talks(g) for g in capture.graphs) or not initialized():
        return None
    return Lockstep(limit_s)


def bench_together(graph: Graph, run: Any, args: list[Any] | None, peaks: DevicePeaks | None, isolated: bool,
                   lockstep: Lockstep | None) -> None:
    """Time a graph that holds collectives: on every rank at once, on the tensors it ran with (a timing
    process has no process group). A rank that cannot time it still comes to say so, so none waits for it."""
    if lockstep is None:
        raise BenchError("its collectives need the job's process group: time it in the job, where every rank "
                         "runs capture(bench=True)")
    if lockstep.failed:
        raise BenchError(f"its collectives need every rank: {lockstep.failed}")
    try:
        check(graph)
        if args is None:
            raise BenchError("its collectives can be timed only on the tensors it ran with, which are gone")
    except BenchError as exc:
        _agree(graph, lockstep, cannot=str(exc))
        raise
    _bench_live(graph, run, args, peaks, isolated, lockstep)  # no repros: they would run collectives alone


def _agree(graph: Graph, lockstep: Lockstep, cannot: str | None = None) -> None:
    """Every rank means to time the same collectives, in the same order (or one says why it cannot)."""
    plan = [(c.op, c.reduce_op, c.bytes, len(c.group_ranks or ())) for launch in graph.launches
            if (c := launch.collective) is not None]
    try:
        lockstep.agree(f"the timing of graph {graph.id}", f"{graph.id} {plan}", cannot=cannot)
    except LockstepError as exc:
        raise BenchError(f"its collectives need every rank: {exc}") from None


def _bench_live(graph: Graph, run: Any, args: list[Any], peaks: DevicePeaks | None, isolated: bool,
                lockstep: Lockstep) -> None:
    """Time ``graph`` in this process on ``args``, together with the job's other ranks once they agree on it."""
    try:
        scope = namespace(graph, run.module() if run is not None else None)
        inst = load_instrumented(graph, scope)
    except BenchError as exc:
        _agree(graph, lockstep, cannot=str(exc))
        raise
    _agree(graph, lockstep)
    mutated = getattr(run.module() if run is not None else None, "mutated_input_idxs", None)
    try:
        measure(graph, inst, args, mutated, peaks=peaks, isolated=isolated, lockstep=lockstep)
    except LaunchFailed as exc:
        raise BenchError(f"launch {exc.index} ({graph.launches[exc.index].name}) failed: {exc.reason}") from None
    graph.timed_on = "user tensors"
