"""A capture's life, top to bottom: what ``kernelviz.capture()`` and ``%%kernelviz`` do, step by step.

1. **record**: inside the block, the recorder's hooks see every graph Inductor compiles or runs in this thread
   (:class:`~kernelviz.recorder.Recorder`); with ``bench`` the tensors each graph ran with are held for step 4.
2. **build**: when the block ends (also when it raises) every hook is undone and the recorder builds the model's
   graphs; each graph's live side (:class:`~kernelviz.recorder.runs.GraphRun`) goes into the capture's
   :class:`~kernelviz.session.Session`, never into its data.
3. **stages**: each Triton kernel's binary facts (registers, spills, shared memory, occupancy, options) are read
   now; the texts of its compiled stages (TTIR to SASS, with their links to source lines) in a thread
   (:mod:`kernelviz.ir`) begun when something first needs them: whatever shows or saves the capture waits for them
   (``LiveCapture.wait_stages``; a notebook's panel does at the cell's end). Never before: their reading is Python
   in this process, and a launch-bound step run beside it ran 2.5 times slower (mobilenet_v3_small on an H100:
   8.0 ms a step right after the exit, 3.3 ms in a clean process).
4. **bench**: with ``bench``, and when the block did not raise, every graph is timed in the timing process, on the
   tensors it ran with (:mod:`kernelviz.bench`): nothing the timing runs stays in this process. The held tensors
   are let go afterwards, timed or not.
5. **repros**: with ``repros``, the timing recorded what the repro scripts need; their expected outputs are
   computed afterwards in the timing process, in a thread that never holds the exit either
   (``LiveCapture.wait_repros``; saving or showing the capture waits for them).
6. **advice**: the findings of what was recorded and measured, worked out once (:mod:`kernelviz.advice`).

``cap.bench()`` after the cell is steps 4 to 6 again (:func:`timed`).
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from .advice import advise
from .bench import BenchOptions, bench
from .children import Worker
from .ir import read_in_background, stage_jobs
from .model import Capture, DevicePeaks
from .recorder import Recorder, distributed
from .repro.record import Landing
from .session import Session


class Capturing:
    """The context manager behind :func:`kernelviz.capture`: ``with`` gives the :class:`LiveCapture`, filled in
    when the block exits. ``progress``: as :func:`kernelviz.bench.bench` takes it (the notebook's panel passes its
    own reporter). ``profile`` None: profile the block when timing on a rank of a torch.distributed job."""

    def __init__(self, *, fresh_compile: bool = False, bench: bool = False, repros: bool = False,
                 profile: bool | None = None, progress: Any = True, capture: LiveCapture | None = None) -> None:
        self.capture = capture if capture is not None else LiveCapture()
        self.bench, self.options = bench, BenchOptions(progress=progress, repros=repros)
        if profile is None:
            profile = bench and distributed.initialized()
        self.recorder = Recorder(self.capture, fresh_compile=fresh_compile, hold_inputs=bench, profile=profile)

    def __enter__(self) -> LiveCapture:
        if self.bench:  # the timing process imports torch (and starts CUDA) while the block runs
            torch = sys.modules.get("torch")
            Worker.warm(cuda=torch is not None and torch.cuda.is_available())
        self.recorder.start()  # 1. record
        return self.capture

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        capture, session = self.capture, self.capture.session
        self.recorder.stop()
        try:
            session.runs = self.recorder.build()  # 2. build
            session.stages = read_in_background(  # 3. stages, held until something waits for them
                [job for graph, run in session.runs for job in stage_jobs(graph, run.module())], held=True)
            if self.bench and exc_type is None and capture.graphs:
                _repros(session, bench(capture, session.runs, self.options))  # 4. bench, 5. repros
        finally:
            self.recorder.release_inputs()
            capture.findings = advise(capture)  # 6. advice


def timed(capture: Capture, session: Session | None, *, isolated: bool = True, progress: Any = True,
          peaks: DevicePeaks | None = None, limit_s: float = 60.0, repros: bool = False) -> Capture:
    """Steps 4 to 6 again, after the block (``cap.bench()``): time every graph, then the findings anew. ``session``:
    the capture's live side, where it was made in this process (None: a loaded capture)."""
    from . import arguments

    arguments.instance("bench", "capture", capture, Capture, optional=False)
    options = BenchOptions.checked(isolated=isolated, progress=progress, peaks=peaks, limit_s=limit_s, repros=repros)
    capture.wait_repros()
    with _stages_paused(session):
        recorded = bench(capture, session.runs if session is not None else (), options)
    _repros(session, recorded)
    capture.findings = advise(capture)
    return capture


def measured(capture: Capture, session: Session | None, *, budget_s: float = 60.0, progress: Any = True,
             candidates: list[Any] | None = None) -> list[Any]:
    """``cap.whatif()``: the candidate changes measured in the timing process (:mod:`kernelviz.whatif`), kept in
    ``capture.whatifs``. ``session``: the capture's live side, where it was made in this process."""
    from . import arguments
    from .whatif import measure

    budget_s = arguments.seconds("whatif", "budget_s", budget_s)
    progress = arguments.progress("whatif", progress)
    if candidates is not None and not isinstance(candidates, (list, tuple)):
        raise TypeError(f"whatif() takes candidates as a list of kinds, not {arguments.what_it_is(candidates)}")
    capture.wait_repros()
    with _stages_paused(session):
        capture.whatifs = measure(capture, session.runs if session is not None else (), budget_s=budget_s,
                                  progress=progress, candidates=list(candidates) if candidates is not None else None)
    return capture.whatifs


def _repros(session: Session | None, recorded: list[Any]) -> None:
    """Step 5: the recorded graphs' expected outputs computed in the background, once the stages are read (a loaded
    capture, which has no session, waits for them here)."""
    if not recorded:
        return
    landing = Landing(recorded, after=session.wait_stages if session is not None else None)
    if session is not None:
        session.repros = landing
    else:
        landing.wait()


def _stages_paused(session: Session | None) -> Any:
    """The capture's stage reading held back (nothing where none is under way)."""
    pending = session.stages if session is not None else None
    return pending.paused() if pending is not None else contextlib.nullcontext()


class LiveCapture(Capture):
    """A capture made in this process, with its :class:`Session`: what ``kernelviz.capture()`` gives. Its data is
    a :class:`Capture`'s; showing, saving or timing it waits for what its session still works out."""

    _session: Session  # declared state, not data: never written (a leading ``_``), copied or compared
    __dataclass_fields__ = Capture.__dataclass_fields__  # its data's fields, in its own class (orjson looks there)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._session = Session()

    @property
    def session(self) -> Session:
        return self._session

    def __reduce__(self) -> tuple:
        """Copies and pickles are plain captures of the data as it is now; they never wait."""
        state = {name: value for name, value in self.__dict__.items() if name != "_session"}
        return _plain_capture, (), state

    def wait_stages(self) -> LiveCapture:
        """This capture once Triton's compiled stages are in ``Kernel.ir``: a capture on a GPU ends at once and
        reads them (files and CUDA's disassembler) in a thread once something waits for them, as this does and as
        showing or saving it does (never beside your next steps)."""
        self._session.wait_stages()
        return self

    def wait_repros(self) -> LiveCapture:
        """This capture once the repro scripts' expected outputs are in it: a timing with repros ends at once and
        has them computed in the timing process, in the background; saving, showing or timing it again waits."""
        self._session.wait_repros()
        return self

    def _settled(self) -> LiveCapture:
        return self.wait_stages().wait_repros()

    def busy(self) -> list[str]:
        """What is still worked out in the background for this capture, in words."""
        return self._session.busy()

    def held_bytes(self) -> int:
        """Bytes of memory (on the device the graphs ran on) this capture keeps alive so that :meth:`bench` can time
        its graphs on what they ran with later: copies of the inputs whose values steer them (max-pool offsets,
        gather indices, seeds). :meth:`release` gives them back."""
        return self._session.held_bytes()

    def release(self) -> LiveCapture:
        """Give back what :meth:`held_bytes` counts: a later :meth:`bench` times the graphs on inputs recreated
        from their recorded specs (integers it cannot recreate are made up there, and the timing says so)."""
        self._session.release()
        return self

    def bench(self, *, isolated: bool = True, progress: Any = True, peaks: DevicePeaks | None = None,
              limit_s: float = 60.0, repros: bool = False) -> LiveCapture:
        """Time every graph in place, in the timing process, then work out the findings again (see
        :func:`kernelviz.bench.bench` for the options)."""
        timed(self, self._session, isolated=isolated, progress=progress, peaks=peaks, limit_s=limit_s,
              repros=repros)
        return self


    def whatif(self, *, budget_s: float = 60.0, progress: Any = True,
               candidates: list[Any] | None = None) -> list[Any]:
        """Measure what each candidate change would save, on the tensors the graphs ran with where they are still
        held (see :meth:`Capture.whatif`)."""
        return measured(self, self._session, budget_s=budget_s, progress=progress, candidates=candidates)


def _plain_capture() -> Capture:
    """An empty :class:`Capture` for a copy or an unpickling to fill (its ``__init__`` is not run)."""
    return Capture.__new__(Capture)
