"""``kernelviz.capture()``: record every graph Inductor compiles or runs inside a ``with`` block."""

from __future__ import annotations

import contextlib
import time
import weakref
from dataclasses import dataclass, field
from typing import Any

from ..model import Capture
from . import distributed, inductor
from .callers import caller_line
from .overlay import build_graph


@dataclass
class GraphRun:
    """What the hooks saw of one module during a capture (not serialised)."""

    code: str
    calls: int = 0
    compiled: Any = None  # weakref to the CompiledFxGraph
    inputs: list[Any] | None = None  # weakrefs to tensors; other values as they were
    caller: Any = None  # the user's line that first ran it (SourceLocation)
    first_seen: float = field(default_factory=time.perf_counter)


_LIVE: dict[int, dict[str, GraphRun]] = {}


def live_runs(capture: Capture) -> dict[int, GraphRun]:
    """The runtime side of a capture made in this process, by graph position (empty for a loaded one)."""
    runs = _LIVE.get(id(capture), {})
    keys = [inductor.code_key(g.code) for g in capture.graphs]
    return {i: runs[k] for i, k in enumerate(keys) if k in runs}


class CaptureSession:
    """Context manager behind :func:`kernelviz.capture`: ``with`` gives the :class:`Capture`,
    filled in when the block exits (also when it raises). With ``bench=True`` the graphs are
    timed at exit on the tensors they ran with, which are held until then. With ``profile`` (by default:
    when timing on a rank of a torch.distributed job) the block itself runs under torch.profiler, which
    splits its time into compute, communication and idle (``Capture.step``)."""

    def __init__(self, *, fresh_compile: bool = True, bench: bool = False, progress: Any = True,
                 profile: bool | None = None) -> None:
        self.fresh_compile, self.bench, self.progress = fresh_compile, bench, progress
        self.profile = profile
        self._step: Any = None
        self.runs: dict[str, GraphRun] = {}
        self.warnings: list[str] = []
        self.capture = Capture()
        self._config: contextlib.ExitStack | None = None
        _LIVE[id(self.capture)] = self.runs
        weakref.finalize(self.capture, _LIVE.pop, id(self.capture), None)

    # Recorder protocol -------------------------------------------------------------------
    def on_code(self, code: str) -> None:
        self.runs.setdefault(inductor.code_key(code), GraphRun(code))

    def on_call(self, compiled: Any, inputs: Any) -> None:
        code = getattr(compiled, "source_code", None)
        if not isinstance(code, str):
            return
        run = self.runs.setdefault(inductor.code_key(code), GraphRun(code))
        run.calls += 1
        if run.compiled is None:
            run.compiled = weakref.ref(compiled)
            run.caller = caller_line()
            # to time on these tensors at exit, hold them until then; otherwise never keep them alive
            run.inputs = list(inputs) if self.bench else [_weak(x) for x in inputs]

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    # Context manager ---------------------------------------------------------------------
    def __enter__(self) -> Capture:
        import torch._inductor.config as inductor_config

        self._config = contextlib.ExitStack()
        if self.fresh_compile:  # a cache hit skips codegen, where per-kernel metadata comes from
            self._config.enter_context(inductor_config.patch(fx_graph_cache=False))
        skipped = inductor.attach(self)
        if skipped:
            self.warn("some Inductor hooks are missing in this torch version: " + ", ".join(skipped))
        if self.profile or (self.profile is None and self.bench and distributed.initialized()):
            from ..bench.step import StepProfiler

            self._step = StepProfiler()
            try:
                self._step.start()
            except Exception as exc:  # noqa: BLE001 - no profile, the capture goes on
                self.warn(f"the block could not be profiled: {type(exc).__name__}: {exc}")
                self._step = None
        return self.capture

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        try:
            self._stop_profile()
        finally:
            try:
                inductor.detach(self)
            finally:
                if self._config is not None:
                    self._config.close()
        try:
            self._build(self.capture)
            if self.capture.step is not None and any(g.cache == "compiled" for g in self.capture.graphs):
                self.capture.step.note = ("the block compiled graphs, so its idle time holds the compile: "
                                          "capture a later step for the split of a warm one")
            if self.bench and exc_type is None and self.capture.graphs:
                self.capture.bench(progress=self.progress)
        finally:
            for run in self.runs.values():
                run.inputs = [_weak(x) for x in run.inputs] if run.inputs is not None else None

    def _stop_profile(self) -> None:
        if self._step is None:
            return
        try:
            self.capture.step = self._step.stop()
            if self._step.skipped:
                self.warn(self._step.skipped)
        except Exception as exc:  # noqa: BLE001 - a failed profile must not cost the capture
            self.warn(f"the block's profile failed: {type(exc).__name__}: {exc}")
        self._step = None

    def _build(self, capture: Capture) -> None:
        for key, value in {**environment(), **distributed.job()}.items():
            setattr(capture, key, value)
        capture.warnings.extend(self.warnings)
        for run in sorted(self.runs.values(), key=lambda r: r.first_seen):
            try:
                graph = build_graph(run.code)
            except Exception as exc:  # noqa: BLE001 - one bad module must not lose the others
                capture.warnings.append(f"a compiled module could not be read: {type(exc).__name__}: {exc}")
                continue
            graph.calls, graph.caller = run.calls, run.caller
            capture.graphs.append(graph)
        distributed.resolve_groups(capture.graphs)
        if not capture.graphs:
            capture.warnings.append("nothing was compiled or run by torch.compile (Inductor) in this capture")


def _weak(value: Any) -> Any:
    try:
        return weakref.ref(value)
    except TypeError:
        return value


def environment() -> dict[str, Any]:
    """Versions and device of this process, for the capture's header."""
    import torch

    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = None
    device = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return {"torch_version": torch.__version__, "triton_version": triton_version, "device_name": device}
