"""Findings: what to change next, read off a capture by rules over the model alone.

:func:`advise` runs every rule and ranks the findings by the time at stake (``Advice.ms``, largest
first; findings without a figure last). Each finding says in ``how`` how its ms was computed and from
which measured figures: a saving only where one was measured (a CUDA-graph replay against the plain
call()) or derived from measured figures (bytes at the graph's achieved bandwidth); otherwise the time
of the launches concerned, named as such.
"""

from __future__ import annotations

from ..model import Advice, Capture
from .dynamo import dynamo_findings
from .graphs import graph_findings, wrapper_twins
from .kernels import kernel_findings

RULES = ("launch-bound", "wrapper-overhead", "refused-fusion", "spills", "occupancy", "memory-bound",
         "latency-bound", "stall", "graph-break", "recompile", "skip")


def advise(capture: Capture) -> list[Advice]:
    """Every rule's findings over ``capture``, the most time at stake first."""
    found: list[Advice] = []
    twins = wrapper_twins(capture.graphs)
    for graph in capture.graphs:
        found += graph_findings(graph, twins.get(graph.id))
        found += kernel_findings(graph, capture.peaks)
    found += dynamo_findings(capture)
    order = {rule: i for i, rule in enumerate(RULES)}
    return sorted(found, key=lambda a: (a.ms is None, -(a.ms or 0.0), order.get(a.rule, len(RULES))))


__all__ = ["advise", "RULES"]
