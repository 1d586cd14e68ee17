"""A capture's live side in the process that made it, beside its data.

A :class:`~kernelviz.model.Capture` is plain data. What only the process that made it has is its :class:`Session`:
each graph's run (its compiled module, the tensors it ran with: :class:`~kernelviz.recorder.runs.GraphRun`), the
stages' texts still being read, the repro scripts' expected outputs still computed. The conductor owns it:
``kernelviz.capture()`` and ``%%kernelviz`` give a :class:`~kernelviz.conductor.LiveCapture`, a capture with its
session.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .model import Graph
from .recorder.runs import GraphRun


@dataclass
class Session:
    """What a capture made in this process keeps live: the graphs' runs (paired with their graphs, found by
    identity), the stages' reading (an ``ir.StageReading``) and the repros' landing (a ``repro.record.Landing``)
    while they are under way."""

    runs: list[tuple[Graph, GraphRun]] = field(default_factory=list)
    stages: Any = None
    repros: Any = None

    def run_of(self, graph: Graph) -> GraphRun | None:
        return next((run for g, run in self.runs if g is graph), None)

    def wait_stages(self) -> None:
        """Wait for the stages' texts (cleared once read, so that a second thread waiting meanwhile waits too; a
        reading begun meanwhile stays)."""
        pending = self.stages
        if pending is not None:
            pending.result()
            if self.stages is pending:
                self.stages = None

    def wait_repros(self) -> None:
        pending, self.repros = self.repros, None
        if pending is not None:
            pending.wait()

    def busy(self) -> list[str]:
        """What is worked out in the background and not yet waited for, in words."""
        return [what for what, pending in (("compiled stages", self.stages), ("repro outputs", self.repros))
                if pending is not None]

    def held_bytes(self) -> int:
        return sum(run.held_bytes() for _, run in self.runs)

    def release(self) -> None:
        self.runs = []
