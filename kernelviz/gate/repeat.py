"""A step captured with timing several times, its times the median over the captures and their spread taken
across them: on a shared machine the load changes between captures more than between the runs of one, so the
noise a gate must allow for is the captures' own."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from ..bench.timers import summarize
from ..conductor import Capturing
from ..model import Capture

REPEAT = 3
QUARTILES = 8  # captures from which their spread is the interquartile range, not the whole range


def timed_capture(step: Callable[[], Any], repeat: int = REPEAT) -> Capture:
    """Run ``step()`` under ``repeat`` timed captures (the step runs ``repeat`` times: give one whose repetition
    is harmless, e.g. a forward or a step on a copy); the first capture, with its times merged (:func:`merged`)."""
    if repeat < 1:
        raise ValueError(f"repeat {repeat}: expected at least 1")
    captures = []
    for _ in range(repeat):
        with Capturing(bench=True, progress=False) as capture:
            step()
        captures.append(capture)
    return merged(captures)


def merged(captures: list[Capture]) -> Capture:
    """The first capture, with each launch's in-graph time, each kernel's time alone and each graph's as-run time
    the median over the captures of the same graph (same code), and their spread, (p75 - p25) / median (for fewer
    than 8 captures (max - min) / median: the quartiles of a few values are narrower than their noise, seen on an
    H200 as a false alarm at 5 captures that 3 did not give), taken across those captures; a graph whose code
    differs is left as the first capture timed it."""
    first = captures[0]
    if len(captures) < 2:
        return first
    merged_graphs = 0
    for i, graph in enumerate(first.graphs):
        same = [c.graphs[i] for c in captures if i < len(c.graphs) and c.graphs[i].code == graph.code]
        if len(same) < len(captures):
            continue
        merged_graphs += 1
        for j in range(len(graph.launches)):
            _merge([g.launches[j].timing for g in same], "in_graph_ms")
        for j in range(len(graph.kernels)):
            _merge([g.kernels[j].timing for g in same], "isolated_ms", "samples")
        _merge([g.as_run for g in same], "plain_ms", "runs", own_spread=True)
    first.warnings.append(f"timing: in-graph, alone and as-run times of {merged_graphs} graph(s) are medians over "
                          f"{len(captures)} captures, their spread taken across the captures")
    return first


def _merge(timings: list[Any], name: str, count: str | None = None, own_spread: bool = False) -> None:
    """Set the first timing's ``name`` and ``spread`` from all of them (and ``count``: the runs, added up), where
    each has a ``name``. ``own_spread``: the spread is at least the median of their own (a CPU graph as it runs
    drifts with the machine's load more than its kernels alone: seen +7.7% between two captures of one step whose
    3 captures each spread 6.6% across them)."""
    if any(t is None or getattr(t, name) is None for t in timings):
        return
    values = [getattr(t, name) for t in timings]
    median = statistics.median(values)
    spread = summarize(values).spread if len(values) >= QUARTILES else \
        (max(values) - min(values)) / median if median > 0 else None
    own = [t.spread for t in timings if t.spread is not None] if own_spread else []
    if own and spread is not None:
        spread = max(spread, statistics.median(own))
    setattr(timings[0], name, median)
    timings[0].spread = spread
    if count is not None:
        setattr(timings[0], count, sum(getattr(t, count) or 0 for t in timings))
