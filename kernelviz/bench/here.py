"""Timing in this process on the tensors a graph ran with, alone or with the job's other ranks (lockstep)."""

from __future__ import annotations

from typing import Any

from ..model import Capture, DevicePeaks, Graph
from .errors import BenchError, LaunchFailed
from .inputs import addresses, recreate
from .lockstep import Lockstep, LockstepError
from .measure import arg_maker, check, load_instrumented, measure, namespace, talks
from .plan import kept_values


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
    bench_live(graph, run, args, peaks, isolated, None, lockstep)  # no repros: they would run collectives alone


def _agree(graph: Graph, lockstep: Lockstep, cannot: str | None = None) -> None:
    """Every rank means to time the same collectives, in the same order (or one says why it cannot)."""
    plan = [(c.op, c.reduce_op, c.bytes, len(c.group_ranks or ())) for launch in graph.launches
            if (c := launch.collective) is not None]
    try:
        lockstep.agree(f"the timing of graph {graph.id}", f"{graph.id} {plan}", cannot=cannot)
    except LockstepError as exc:
        raise BenchError(f"its collectives need every rank: {exc}") from None


def bench_recreated(graph: Graph, run: Any, peaks: DevicePeaks | None, isolated: bool,
                    recorded: list[Graph] | None) -> bool:
    """Time ``graph`` in this process on inputs recreated from the run's specs (``plan.as_recorded``); False
    where an integer value had to be made up after all (the timing process is then the place)."""
    try:
        args, made_up = recreate(graph, kept_values(run))
    except ValueError as exc:
        raise BenchError(str(exc)) from None
    if addresses(graph, made_up):
        return False
    graph.made_up_values = made_up
    bench_live(graph, run, args, peaks, isolated, recorded, on="recreated inputs")
    return True


def bench_live(graph: Graph, run: Any, args: list[Any], peaks: DevicePeaks | None, isolated: bool,
               recorded: list[Graph] | None, lockstep: Lockstep | None = None, on: str = "user tensors") -> None:
    """Time ``graph`` in this process on ``args`` (the user's tensors, or as ``on`` says); with ``recorded``
    (a list the graph joins), also record what its repro scripts need; with ``lockstep``, together with the
    job's other ranks once they agree on it."""
    compiled = run.compiled() if run.compiled is not None else None
    try:
        scope = namespace(graph, compiled)
        inst = load_instrumented(graph, scope)
    except BenchError as exc:
        if lockstep is not None:
            _agree(graph, lockstep, cannot=str(exc))
        raise
    if lockstep is not None:
        _agree(graph, lockstep)
    mutated = getattr(compiled, "mutated_input_idxs", None)
    try:
        measure(graph, inst, args, mutated, peaks=peaks, isolated=isolated, lockstep=lockstep)
    except LaunchFailed as exc:
        raise BenchError(f"launch {exc.index} ({graph.launches[exc.index].name}) failed: {exc.reason}") from None
    graph.timed_on = on
    if recorded is not None:
        from ..repro.record import record

        record(graph, scope, arg_maker(args, mutated))
        recorded.append(graph)
