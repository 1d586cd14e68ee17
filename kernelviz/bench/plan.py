"""Where and on what each graph of a capture is timed, decided before any is.

Every graph is timed in the timing process (``worker``), never in the user's: what the timing runs (the profiler,
instruments, made-up inputs) can neither fault the user's session nor leave it slower. What it is timed on:

- ``user``: the tensors it ran with, while they live here (handed over without a copy: :mod:`.handoff`);
- ``recorded``: inputs recreated from the run's specs, with the values of every integer input the run kept here
  (its module is live here and none is made up);
- ``made up``: inputs recreated there from the specs alone (a loaded capture, or integers not kept), said so.

A graph that holds collectives is timed here, with the job's other ranks at once (``together``: the timing
process has no process group); an AOTInductor package is run as it is shipped (``package``, in the timing process
too, as torch's loader of a package can fault)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..model import Capture, Graph
from ..recorder.runs import GraphRun
from .errors import BenchError
from .inputs import live_inputs
from .measure import check, talks
from .package import missing

Where = Literal["worker", "together", "package", "none"]
Inputs = Literal["user", "recorded", "made up"]


@dataclass
class GraphPlan:
    graph: Graph
    where: Where
    inputs: Inputs = "made up"
    run: GraphRun | None = None  # the graph's live side, where this process ran it
    args: list[Any] | None = None  # the values to hand over, by input position (None: recreate it there)
    cannot: str | None = None  # why it cannot be timed (``none``)


def plan(capture: Capture, runs: Sequence[tuple[Graph, GraphRun]] = ()) -> list[GraphPlan]:
    plans = []
    for graph in capture.graphs:
        if graph.package is not None:  # an AOTInductor package: run as it is shipped
            try:
                check(graph)
                why = missing(graph)
            except BenchError as exc:
                why = str(exc)
            plans.append(GraphPlan(graph, "package") if why is None else GraphPlan(graph, "none", cannot=why))
            continue
        run = next((r for g, r in runs if g is graph), None)
        args = live_inputs(run.inputs) if run is not None else None
        if talks(graph):
            plans.append(GraphPlan(graph, "together", "user", run, args))
            continue
        try:
            check(graph)
        except BenchError as exc:
            plans.append(GraphPlan(graph, "none", cannot=str(exc)))
            continue
        if args is not None:
            plans.append(GraphPlan(graph, "worker", "user", run, args))
        elif as_recorded(graph, run):
            plans.append(GraphPlan(graph, "worker", "recorded", run, kept_values(run)))
        else:
            plans.append(GraphPlan(graph, "worker", "made up", run))
    return plans


def as_recorded(graph: Graph, run: GraphRun | None) -> bool:
    """Whether ``graph`` can be timed on inputs recreated from the run's specs: its module is live in this process
    and the run recorded every input, with the values of every integer tensor (in the model, or too big for it,
    kept on its device in this process; none to make up: a bool mask too big to keep gets random bits, which
    address no memory)."""
    if run is None or not graph.inputs or any(not spec.recorded for spec in graph.inputs):
        return False
    kept = kept_values(run)
    return not any(spec.scalar is None and spec.values is None and not _floating(spec.dtype) and spec.dtype != "bool"
                   and kept[i] is None for i, spec in enumerate(graph.inputs))


def kept_values(run: GraphRun | None) -> list[Any]:
    """By input position, the device copies of larger integer inputs the run kept in this process."""
    return [snap.live for snap in run.specs or []] if run is not None else []


def _floating(dtype: str | None) -> bool:
    return dtype is not None and dtype.startswith(("float", "bfloat", "complex"))
