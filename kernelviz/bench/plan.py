"""Where each graph of a capture is timed, decided before any is: on the tensors it ran with (``user``), with
the job's other ranks (``together``), on inputs recreated in this process (``here``: its module is live here
and every input is as the run recorded it, no integer value made up), in the timing process
(``elsewhere``: made-up integers or a loaded capture's code, which can fault), or by running the AOTInductor
package it was read from (``package``: in the timing process too, as torch's loader of a package can fault)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..live import module_globals
from ..model import Capture, Graph, GraphRun
from .errors import BenchError
from .inputs import live_inputs
from .measure import check, talks
from .package import missing


@dataclass
class GraphPlan:
    graph: Graph
    where: str  # "user", "together", "here", "elsewhere", "package", or "none" (``cannot`` says why)
    run: GraphRun | None = None  # the graph's live side, where this process ran it
    args: list[Any] | None = None  # the tensors it ran with, where they live
    cannot: str | None = None


def plan(capture: Capture) -> list[GraphPlan]:
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
        run = graph._run
        args = live_inputs(run.inputs) if run is not None else None
        if talks(graph):
            plans.append(GraphPlan(graph, "together", run, args))
            continue
        try:
            check(graph)
        except BenchError as exc:
            plans.append(GraphPlan(graph, "none", cannot=str(exc)))
            continue
        where = "user" if args is not None else "here" if as_recorded(graph, run) else "elsewhere"
        plans.append(GraphPlan(graph, where, run, args))
    return plans


def as_recorded(graph: Graph, run: GraphRun | None) -> bool:
    """Whether ``graph`` can be timed here on recreated inputs: its module is live in this process and the
    run recorded every input, with the values of every integer tensor (in the model, or too big for it, kept
    on its device in this process; none to make up: a bool mask too big to keep gets random bits, which
    address no memory)."""
    if run is None or not graph.inputs or any(not spec.recorded for spec in graph.inputs):
        return False
    kept = kept_values(run)
    if any(spec.scalar is None and spec.values is None and not _floating(spec.dtype) and spec.dtype != "bool"
           and kept[i] is None for i, spec in enumerate(graph.inputs)):
        return False
    return module_globals(graph, run.compiled() if run.compiled is not None else None) is not None


def kept_values(run: GraphRun | None) -> list[Any]:
    """By input position, the device copies of larger integer inputs the run kept in this process."""
    return [snap.live for snap in run.specs or []] if run is not None else []


def _floating(dtype: str | None) -> bool:
    return dtype is not None and dtype.startswith(("float", "bfloat", "complex"))
