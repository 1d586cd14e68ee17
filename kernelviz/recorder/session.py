"""The recorder: what Inductor compiles and runs in this thread inside a capture, and dynamo's reasons for what it
did not compile, built into the model's graphs when the block ends. It records and builds, nothing more: what a
capture's life does next (stages, timing, findings) is the conductor's (:mod:`kernelviz.conductor`)."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import weakref
from typing import Any

from ..jiterator import recording as jiterator_calls
from ..model import Capture, CudaGraphEvent, DynamoEvent, Graph, Tuning
from ..parse.package import read_package
from . import cudagraphs, distributed, inductor, routing, traces
from .callers import caller_line, running_frames
from .cells import name_cells
from .overlay import build_graph, overlay
from .runs import GraphRun
from .specs import apply_snapshot, snapshot

_RANK = {"reused": 0, "fx_cache_hit": 1, "compiled": 2}  # what a graph seen several ways is shown as


class Recorder:
    """Records into ``capture`` between :meth:`start` and :meth:`stop` what its own thread compiles and runs (see
    :mod:`.routing`), then :meth:`build` makes the graphs. With ``hold_inputs`` the tensors each graph ran with
    are held until :meth:`release_inputs` (to be timed on), else only weakly. With ``profile`` the block runs under
    torch.profiler, which splits its time into compute, communication and idle (``Capture.step``)."""

    def __init__(self, capture: Capture, *, fresh_compile: bool = False, hold_inputs: bool = False,
                 profile: bool = False) -> None:
        self.capture, self.fresh_compile, self.hold_inputs, self.profile = capture, fresh_compile, hold_inputs, profile
        self._step: Any = None
        self.runs: dict[str, GraphRun] = {}
        self.regenerated: set[str] = set()
        self.compile_ids: set[str] = set()  # dynamo compiles whose graphs this capture saw
        self.warnings: list[str] = []
        self.dynamo: list[DynamoEvent] = []
        self.tuned: list[tuple[Tuning, str | None]] = []  # what was autotuned in this capture, with its graph's key
        self.cudagraphs: list[tuple[CudaGraphEvent | None, str | None]] = []  # reduce-overhead's (None: a replay)
        self._config: contextlib.ExitStack | None = None
        self._ident: int | None = None
        # AOTInductor packages written: (file, kernel records, compile seconds)
        self.packages: list[tuple[Any, list[Any], float | None]] = []

    # Recorder protocol (see routing.Recorder) --------------------------------------------
    def _run(self, code: str, key: str, cache: str) -> GraphRun:
        run = self.runs.get(key)
        if run is None:
            run = self.runs[key] = GraphRun(code, cache, threading.current_thread().name)
        elif _RANK[cache] > _RANK[run.cache]:
            run.cache = cache
        return run

    def on_code(self, code: str, key: str, cache: str) -> None:
        run = self._run(code, key, cache)
        sources = traces.current()
        if all(s is not sources for s in run.sources):
            run.sources.append(sources)
        if (current := routing.compile_id()) is not None:
            self.compile_ids.add(current)

    def on_call(self, compiled: Any, inputs: Any, key: str) -> None:
        run = self._run(compiled.source_code, key, "reused")
        run.calls += 1
        if run.compiled is None:
            run.compiled = weakref.ref(compiled)
            run.specs = snapshot(inputs)
            run.caller = caller_line()
            if run.sources:  # compiled or loaded in this capture: a later capture that only runs it knows its lines
                traces.remember(compiled, run.sources)
            else:
                run.sources = list(traces.of_module(compiled))
                run.frames = running_frames()
            # to time on these tensors at exit, hold them until then; otherwise never keep them alive
            run.inputs = list(inputs) if self.hold_inputs else [_weak(x) for x in inputs]

    def on_called(self, key: str, ms: float) -> None:
        if (run := self.runs.get(key)) is not None:
            run.walls.append(ms)

    def on_dynamo(self, event: DynamoEvent) -> None:
        last = self.dynamo[-1] if self.dynamo else None
        if (event.kind == "skip" and last is not None and last.kind == "graph_break"
                and (last.file, last.line) == (event.file, event.line)):
            # the graph break that made dynamo skip the frame: one event, with dynamo's reason for the skip
            event.code = event.code or last.code
            self.dynamo[-1] = event
        else:
            self.dynamo.append(event)

    def on_regenerated(self, key: str) -> None:
        self.regenerated.add(key)

    def on_tuning(self, tuning: Tuning, key: str | None) -> None:
        if tuning.tuned or all(t != tuning for t, _ in self.tuned):  # a cache hit said once
            self.tuned.append((tuning, key))

    def on_cudagraph(self, event: CudaGraphEvent | None, key: str | None) -> None:
        if event is None or event.kind != "skip" or (event, key) not in self.cudagraphs:  # a skip told once
            self.cudagraphs.append((event, key))

    def on_package(self, archive: Any, records: list[Any], seconds: float | None) -> None:
        self.packages.append((archive, records, seconds))

    def knows(self, key: str | None, compile_id: str | None) -> bool:
        return key in self.runs or compile_id in self.compile_ids

    def warn(self, message: str) -> None:
        if message not in self.warnings:
            self.warnings.append(message)

    # The recording ---------------------------------------------------------------------------------
    def start(self) -> None:
        """Attach the hooks (and the profiler); :meth:`stop` undoes every one of them."""
        import torch._inductor.config as inductor_config

        self._config = contextlib.ExitStack()
        if self.fresh_compile:  # every graph goes through code generation (the old behaviour)
            self._config.enter_context(inductor_config.patch(fx_graph_cache=False))
        self._config.enter_context(jiterator_calls(self.capture))  # jiterator kernels: their own entries
        self._ident, skipped = inductor.attach(self)
        if skipped:
            self.warn("some Inductor/dynamo hooks are missing in this torch version: " + ", ".join(skipped))
        if self.profile:
            from .step import StepProfiler

            self._step = StepProfiler()
            try:
                self._step.start()
            except Exception as exc:  # noqa: BLE001 - no profile, the capture goes on
                self.warn(f"the block could not be profiled: {type(exc).__name__}: {exc}")
                self._step = None

    def stop(self) -> None:
        """Stop the profiler and detach every hook and patch, whatever fails on the way."""
        try:
            self._stop_profile()
        finally:
            try:
                inductor.detach(self, self._ident)
            finally:
                if self._config is not None:
                    self._config.close()

    def release_inputs(self) -> None:
        """Hold the graphs' input tensors no longer (only weakly): the timing at exit is over."""
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

    def build(self) -> list[tuple[Graph, GraphRun]]:
        """The capture's graphs from what was recorded (in the order they were first seen), its versions and
        device, dynamo's events and the recorder's warnings; returns each graph that ran here with its live side."""
        capture = self.capture
        runs: list[tuple[Graph, GraphRun]] = []
        for key, value in {**environment(), **distributed.job()}.items():
            setattr(capture, key, value)
        capture.warnings.extend(self.warnings)
        capture.dynamo.extend(self.dynamo)
        if self.regenerated:
            n = len(self.regenerated)
            capture.warnings.append(
                f"{n} graph{'s were' if n > 1 else ' was'} in Inductor's cache without kernelviz metadata (the cache "
                f"was filled without kernelviz): kernelviz had Inductor generate {'their' if n > 1 else 'its'} code "
                "again to read it; the cache stays valid")
        for key, run in sorted(self.runs.items(), key=lambda item: item[1].first_seen):
            try:
                records = inductor.kernel_records(key)
                graph = build_graph(run.code, records, run.cache, _lines(run, records),
                                    inductor.aot_name(key) if "# AOT ID" not in run.code[:200] else None)
            except Exception as exc:  # noqa: BLE001 - one bad module must not lose the others
                capture.warnings.append(f"a compiled module could not be read: {type(exc).__name__}: {exc}")
                continue
            graph.compile_s = inductor.compile_seconds(key) if run.cache == "compiled" else None
            graph.fusions = inductor.fusion_decisions(key)
            graph.tunings = self._tunings(graph, key)
            graph.cudagraphs = [e for e, k in self.cudagraphs if k == key and e is not None]
            graph.cudagraph_replays = sum(1 for e, k in self.cudagraphs if k == key and e is None)
            graph.calls, graph.thread, graph.caller = run.calls, run.thread, run.caller
            graph.in_step_ms = run.in_step_ms()
            if (fx := inductor.fx_graph(key)) is not None:
                graph.fx, graph.fx_static = fx.code or None, fx.static
            apply_snapshot(graph, run.specs)
            runs.append((graph, run))
            capture.graphs.append(graph)
        capture.tunings = [t for t, key in self.tuned if key is None or key not in self.runs]
        for event, key in self.cudagraphs:
            if event is not None and key not in self.runs:
                where = f" ({event.location.file}:{event.location.line})" if event.location else ""
                capture.warnings.append(f"a CUDA graph was left out ({event.kind}): {event.reason}{where}")
        if any(e is None or e.kind != "skip" for e, _ in self.cudagraphs):  # recorded or replayed: the pool
            capture.cudagraph_pool_bytes = cudagraphs.pool_bytes()
        for archive, records, seconds in self.packages:
            try:
                for graph in read_package(archive).graphs:
                    capture.graphs.append(overlay(graph, records, "compiled"))
                    graph.compile_s = seconds
            except Exception as exc:  # noqa: BLE001 - one bad package must not lose the others
                capture.warnings.append(f"an AOTInductor package could not be read: {type(exc).__name__}: {exc}")
        name_cells(capture.graphs, capture.dynamo)
        distributed.resolve_groups(capture.graphs)
        if capture.step is not None and any(g.cache == "compiled" for g in capture.graphs):
            capture.step.note = ("the block compiled graphs, so its idle time holds the compile: "
                                 "capture a later step for the split of a warm one")
        if not capture.graphs:
            skipped = [e for e in capture.dynamo if e.kind == "skip"]
            capture.warnings.append("nothing was compiled or run by torch.compile (Inductor) in this capture" + (
                f"; dynamo skipped {len(skipped)} frame{'s' * (len(skipped) > 1)} (reasons in Capture.dynamo)"
                if skipped else ""))
        return runs


    def _tunings(self, graph: Graph, key: str) -> list[Tuning]:
        """The graph's tunings: those made in this capture as they were, the others (kept from an earlier compile
        or run in this process, or stored beside Inductor's cache) marked as not tuned here, saying where from."""
        here, kept = [t for t, k in self.tuned if k == key], inductor.tunings(key)
        out = [t if any(t is h for h in here) else dataclasses.replace(t, tuned=False, source=_EARLIER[graph.cache])
               for t in kept]
        return out + [t for t in here if not any(t is k for k in kept)]


_EARLIER = {  # where a graph's tunings came from, when they were not made in this capture
    "compiled": "an earlier compile of the same code in this process",
    "fx_cache_hit": "the compile that filled Inductor's FX graph cache (kernelviz keeps its tunings beside it)",
    "reused": "the graph's compile earlier in this process (it only ran in this capture)",
}

_LINES_UNKNOWN = {
    "no graphs": "unknown: compiled before the capture, and the lines recorded for it are not of the code that ran "
                 "it (capture the code that compiles it to see them)",
    "no nodes": "unknown: the graphs this run compiled it from lack the nodes its lines were recorded for",
}


def _lines(run: GraphRun, records: list[Any] | None) -> tuple[list[list[str] | None], str] | None:
    """This run's stack traces of each record's kernel, and why where they are unknown: a module compiled
    in this capture has its own; one loaded from a cache (or compiled before) takes those of this run's
    graphs (see :mod:`.traces`), never those of the program that filled the cache."""
    if records is None:
        return None
    if run.cache == "compiled":
        return [r.stack_traces for r in records], ""
    if run.sources:
        return traces.this_run(records, run.sources), _LINES_UNKNOWN["no nodes"]
    return traces.running(records, run.frames), _LINES_UNKNOWN["no graphs"]


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
    return {"torch_version": str(torch.__version__), "triton_version": triton_version, "device_name": device}
