"""A capture's life, top to bottom: what ``kernelviz.capture()`` and ``%%kernelviz`` do, step by step.

1. **record**: inside the block, the recorder's hooks see every graph Inductor compiles or runs in this thread
   (:class:`~kernelviz.recorder.Recorder`); with ``bench`` the tensors each graph ran with are held for step 4.
2. **build**: when the block ends (also when it raises) every hook is undone and the recorder builds the model's
   graphs; each graph keeps its live side (``Graph._run``) for timing later in this process.
3. **stages**: each Triton kernel's binary facts (registers, spills, shared memory, occupancy, options) are read
   now; the texts of its compiled stages (TTIR to SASS, with their links to source lines) in a thread
   (:mod:`kernelviz.ir`), which never holds the exit: whatever shows or saves the capture waits for them
   (``Capture.wait_stages``).
4. **bench**: with ``bench``, and when the block did not raise, every graph is timed (:mod:`kernelviz.bench`); the
   held tensors are let go afterwards, timed or not. With ``repros``, the repro scripts' expected outputs are
   computed afterwards in the timing process, in a thread that never holds the exit either (``Capture.wait_repros``;
   saving or showing the capture waits for them).
5. **advice**: the findings of what was recorded and measured, worked out once (:mod:`kernelviz.advice`).

The stages' reading is held back from step 4 to the exit's end: its Python would compete for the GIL with the
timing's (its CPU figures stay the capture's own) and with the exit's.

``cap.bench()`` after the cell is steps 4 and 5 again (:func:`timed`).
"""

from __future__ import annotations

import contextlib
from typing import Any

from .advice import advise
from .bench import bench
from .ir import read_in_background, stage_jobs
from .model import Capture
from .recorder import Recorder, distributed


class Capturing:
    """The context manager behind :func:`kernelviz.capture`: ``with`` gives the :class:`Capture`, filled in when
    the block exits. ``progress``: as :func:`kernelviz.bench.bench` takes it (the notebook's panel passes its
    own reporter). ``profile`` None: profile the block when timing on a rank of a torch.distributed job."""

    def __init__(self, *, fresh_compile: bool = False, bench: bool = False, repros: bool = False,
                 profile: bool | None = None, progress: Any = True, capture: Capture | None = None) -> None:
        self.capture = capture if capture is not None else Capture()
        self.bench, self.repros, self.progress = bench, repros, progress
        if profile is None:
            profile = bench and distributed.initialized()
        self.recorder = Recorder(self.capture, fresh_compile=fresh_compile, hold_inputs=bench, profile=profile)

    def __enter__(self) -> Capture:
        self.recorder.start()  # 1. record
        return self.capture

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        capture = self.capture
        self.recorder.stop()
        reading = None
        try:
            self.recorder.build()  # 2. build
            capture._stages = reading = read_in_background(  # 3. stages, held until the exit's end
                [job for graph in capture.graphs for job in stage_jobs(graph, _compiled(graph))], held=True)
            if self.bench and exc_type is None and capture.graphs:
                bench(capture, progress=self.progress, repros=self.repros)  # 4. bench
        finally:
            self.recorder.release_inputs()
            capture.findings = advise(capture)  # 5. advice
            if reading is not None:
                reading.start()  # the exit's own work done: its Python no longer competes with theirs (the GIL)


def timed(capture: Capture, **options: Any) -> Capture:
    """Steps 4 and 5 again, after the block (``cap.bench()``): time every graph, then the findings anew."""
    with _stages_paused(capture):
        bench(capture, **options)
    capture.findings = advise(capture)
    return capture


def _stages_paused(capture: Capture) -> Any:
    """The capture's stage reading held back (nothing where none is under way)."""
    return capture._stages.paused() if capture._stages is not None else contextlib.nullcontext()


def _compiled(graph: Any) -> Any:
    """The graph's compiled module, where it is alive in this process."""
    run = graph._run
    return run.compiled() if run is not None and run.compiled is not None else None
