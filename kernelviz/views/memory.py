"""Live bytes over the steps of ``call()``: allocations add, frees subtract, reuses hand memory over."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Graph


@dataclass
class Timeline:
    """Bytes live after each step that changes them, and the peak."""

    steps: list[tuple[int, int]] = field(default_factory=list)  # (step, live bytes)
    peak: int = 0
    peak_step: int | None = None
    unknown: list[str] = field(default_factory=list)  # buffers of symbolic or unknown size


def timeline(graph: Graph) -> Timeline:
    """Memory of the buffers call() allocates (inputs are the caller's and are not counted)."""
    live: dict[str, int] = {}
    out = Timeline()
    for event in graph.memory:
        if event.kind == "alloc":
            if event.nbytes is None:
                out.unknown.append(event.buffer)
                continue
            live[event.buffer] = event.nbytes
        elif event.kind == "reuse" and event.source in live:
            live[event.buffer] = live.pop(event.source)
        elif event.kind == "free" and event.buffer in live:
            del live[event.buffer]
        else:
            continue
        total = sum(live.values())
        out.steps.append((event.step, total))
        if total > out.peak:
            out.peak, out.peak_step = total, event.step
    return out
