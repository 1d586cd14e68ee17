"""Captures of one step merged into one: each time the median over them and its spread taken across them.

The captures of one process share what the process drew (where its memory and threads landed, what the machine
did meanwhile): the noise a gate must allow for is the spread between processes. :func:`merged` says in the
capture's warnings how many processes its times come from (:func:`processes` reads it back): the plugin's
current side is several captures of one process, its baseline (``--kernelviz-update``) and each side of
``kernelviz check`` given several files are captures of separate processes.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from typing import Any

from ..bench.timers import summarize
from ..conductor import Capturing
from ..model import Capture

REPEAT = 3
QUARTILES = 8  # captures from which their spread is the interquartile range, not the whole range
_SAID = re.compile(r"^timing: .* medians over (\d+) captures of (\d+) separate process")


def timed_capture(step: Callable[[], Any], repeat: int = REPEAT) -> Capture:
    """Run ``step()`` under ``repeat`` timed captures (the step runs ``repeat`` times: give one whose repetition
    is harmless, e.g. a forward or a step on a copy); the first capture, with its times merged (:func:`merged`)
    as captures of one process."""
    if repeat < 1:
        raise ValueError(f"repeat {repeat}: expected at least 1")
    captures = []
    for _ in range(repeat):
        with Capturing(bench=True, progress=False) as capture:
            step()
        captures.append(capture)
    return merged(captures, separate=False)


def processes(capture: Capture) -> int:
    """How many separate processes a capture's times are medians over (1 for a capture not merged)."""
    return max((int(m.group(2)) for w in capture.warnings if (m := _SAID.match(w))), default=1)


def merged(captures: list[Capture], separate: bool = True) -> Capture:
    """The first capture, with each launch's in-graph time, each kernel's time alone and each graph's as-run time
    the median over the captures of the same graph (same code), and their spread, (p75 - p25) / median (for fewer
    than 8 captures (max - min) / median: the quartiles of a few values are narrower than their noise), taken
    across those captures; a graph whose code differs is left as the first capture timed it. ``separate``: the
    captures come from separate processes (each counted with the processes it was merged from), else from one."""
    first = captures[0]
    if len(captures) < 2:
        return first
    count = sum(processes(c) for c in captures) if separate else max(processes(c) for c in captures)
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
        _merge([g.as_run for g in same], "plain_ms", "runs")
    first.warnings = [w for w in first.warnings if not _SAID.match(w)]
    first.warnings.append(f"timing: in-graph, alone and as-run times of {merged_graphs} of {len(first.graphs)} "
                          f"graph(s) are medians over {len(captures)} captures of {count} separate process(es), "
                          "their spread taken across the captures")
    return first


def _merge(timings: list[Any], name: str, count: str | None = None) -> None:
    """Set the first timing's ``name`` and ``spread`` from all of them (and ``count``: the runs, added up), where
    each has a ``name``."""
    if any(t is None or getattr(t, name) is None for t in timings):
        return
    values = [getattr(t, name) for t in timings]
    median = statistics.median(values)
    spread = summarize(values).spread if len(values) >= QUARTILES else \
        (max(values) - min(values)) / median if median > 0 else None
    setattr(timings[0], name, median)
    timings[0].spread = spread
    if count is not None:
        setattr(timings[0], count, sum(getattr(t, count) or 0 for t in timings))
