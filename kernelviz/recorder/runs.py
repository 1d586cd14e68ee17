"""What the recorder saw of a graph that ran in this process: its module and the tensors it ran with."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from ..model import SourceLocation

STEP_CALLS = 3  # warm calls of a graph in the block behind its in-step time


@dataclass
class GraphRun:
    """The live side of a graph that ran in this process during a capture: what the recorder saw of its module,
    and what timing it later needs. It belongs to the capture's :class:`~kernelviz.session.Session`, never to the
    data: it is not written, copied or pickled with a capture."""

    code: str
    cache: str  # "compiled", "fx_cache_hit" or "reused" (only run: compiled before the capture)
    thread: str  # the thread where the capture first saw it
    calls: int = 0
    walls: list[float] = field(default_factory=list)  # wall ms of each call() in the block, in order
    compiled: Any = None  # weakref to the CompiledFxGraph
    inputs: list[Any] | None = None  # weakrefs to tensors (held until the timing at exit); other values as they were
    specs: list[Any] | None = None  # what the inputs were when the graph first ran (recorder.specs.InputSnapshot)
    caller: SourceLocation | None = None  # the user's line that first ran it
    sources: list[Any] = field(default_factory=list)  # the graphs it was compiled from in this run (recorder.traces)
    frames: set[tuple[str, str]] = field(default_factory=set)  # (file, function) of the user's frames that ran it
    first_seen: float = field(default_factory=time.perf_counter)

    def held_bytes(self) -> int:
        """Bytes of tensors this live side keeps alive: the inputs held for the timing at exit, and the copies of
        the inputs whose values steer the graph (seeds, offsets, indices), kept to recreate them later."""
        held = [x for x in self.inputs or [] if hasattr(x, "element_size")]
        held += [t for spec in self.specs or [] for t in (getattr(spec, "values", None), getattr(spec, "live", None))
                 if hasattr(t, "element_size")]
        return sum(t.numel() * t.element_size() for t in held)

    def in_step_ms(self) -> float | None:
        """The wall time of call() in the user's own block: the fastest of its warm calls (interference only ever
        adds time), where at least ``STEP_CALLS`` were seen; the first call of a graph compiled or loaded in the
        block (which loads its kernels) left out. None with fewer: one call's wall time says little of the step (a
        launch-bound step's calls in one quiet process vary by half from one to the next)."""
        warm = self.walls if self.cache == "reused" else self.walls[1:]
        return min(warm) if len(warm) >= STEP_CALLS else None

    def module(self) -> Any:
        """The graph's compiled module, while it lives."""
        return self.compiled() if self.compiled is not None else None
