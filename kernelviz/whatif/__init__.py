"""What a change would save, measured: ``cap.whatif()``.

The candidates (:mod:`.candidates`) are chosen from the capture; each is compiled again from the captured graphs'
FX graphs under its change and timed in the timing process beside the captured code, its outputs compared with the
captured code's (:mod:`.child`): never in this process, whose tensors and RNG stay as they were. The results are
:class:`~kernelviz.model.WhatIf` rows, the largest measured saving first; a change whose outputs differ beyond the
dtype's tolerance comes after every one that computes the same thing, never ranked as a win.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..bench.handoff import hand
from ..bench.isolation import follow
from ..bench.plan import plan
from ..bench.progress import Progress
from ..children import Worker
from ..model import Capture, Graph, WhatIf
from ..recorder.runs import GraphRun
from .candidates import Candidate, choose

__all__ = ["Candidate", "measure", "ranked", "step_ms"]
STEP_LIMIT_S = 120.0  # a step of the timing process (a compile under max-autotune the longest) may take this long


def measure(capture: Capture, runs: Sequence[tuple[Graph, GraphRun]] = (), *, budget_s: float = 60.0,
            progress: Any = True, candidates: list[Any] | None = None) -> list[WhatIf]:
    """Every candidate for ``capture`` measured in the timing process within ``budget_s`` (``candidates``: kinds or
    :class:`Candidate` objects, default every kind that applies), the best first; ``runs``: the graphs' live sides,
    where they ran in this process (their tensors are then what the timing runs on)."""
    deadline = time.time() + budget_s
    chosen = choose(capture, candidates)
    runnable = [c for c in chosen if c.reason is None]
    measured = iter(_in_worker(capture, runs, runnable, budget_s, deadline, progress) if runnable else [])
    rows = [_row(c, {"reason": c.reason}) if c.reason is not None else next(measured) for c in chosen]
    step = step_ms(capture)
    for row in rows:
        row.step_ms = step
    return ranked(rows)


def step_ms(capture: Capture) -> float | None:
    """The step as captured: one call of each graph, as it runs (``Graph.as_run``, else its time in the block)."""
    times = [g.as_run.plain_ms if g.as_run is not None else g.in_step_ms for g in capture.graphs]
    return sum(t for t in times if t is not None) if any(t is not None for t in times) else None


def ranked(rows: list[WhatIf]) -> list[WhatIf]:
    """Measured changes that compute the same thing by saving, the largest first; then those whose outputs differ
    (flagged, never a win); then those not run."""
    def key(row: WhatIf) -> tuple[int, float]:
        if row.after_ms is None or row.before_ms is None:
            return 2, 0.0
        return (1 if row.verdict == "differs" else 0), row.after_ms - row.before_ms

    return sorted(rows, key=key)


def _row(candidate: Candidate, result: dict[str, Any]) -> WhatIf:
    return WhatIf(candidate.kind, candidate.change, candidate.patch, list(candidate.graphs), **result)


def _in_worker(capture: Capture, runs: Sequence[tuple[Graph, GraphRun]], runnable: list[Candidate],
               budget_s: float, deadline: float, progress: Any) -> list[WhatIf]:
    """The runnable candidates measured in one timing process, in order; those it did not finish say why."""
    needed = {i for c in runnable for i in c.graphs}
    plans = plan(capture, runs)
    worker = Worker.get()
    folder = Path(worker.folder.name)
    handoffs = [hand(p.args, folder / f"inputs{i}.pt") if p.args is not None and i in needed else None
                for i, p in enumerate(plans)]
    bar = Progress(progress, len(runnable), "measuring what-ifs", "change")
    try:
        worker.give(json.dumps({
            "capture": Capture(graphs=capture.graphs).to_dict(), "budget_s": budget_s, "deadline": deadline,
            "handed": [str(h.path) if h is not None else None for h in handoffs],
            "inputs": [p.inputs for p in plans],
            "candidates": [asdict(c) for c in runnable]}), kind="whatif")
        outcome = follow(worker.proc, len(runnable), STEP_LIMIT_S, bar)
        results = []
        for k, candidate in enumerate(runnable):
            path = folder / f"{k}.json"
            found = json.loads(path.read_text()) if k in outcome.finished and path.exists() else {
                "reason": f"not run: {outcome.reason or 'the timing process stopped'}"}
            results.append(_row(candidate, found))
        return results
    finally:
        bar.close()
        worker.close()
        for handoff in handoffs:
            if handoff is not None:
                handoff.done()
