"""Autotuning, read where the tuners benchmark: every candidate with its time or why it failed, and the one taken.

- **max-autotune** (templates against the extern call, on the GPU and on the CPU): select_algorithm's feedback
  saver gives each choice's time; a choice that failed to precompile is gone by then, so its reason is read from
  select_algorithm's own log record ("Exception ... for benchmark choice ..."), and one that failed to run from
  ``benchmark_choice``'s exception. A lookup that finds the timings in Inductor's autotune cache calls the saver
  too, without benchmarking: that tuning says so.
- **a generated Triton kernel's configs** (``CachingAutotuner.benchmark_all_configs``, on its first run) and
  **coordinate descent** (``CoordescTuner.autotune``, each step tried from the best config).
- **a user's** ``@triton.autotune`` **kernel** (``Autotuner.run``: its ``configs_timings``).

Tunings made while Inductor lowers a graph wait on that ``GraphLowering`` (a weak key) until its code is known;
those made as a graph runs are kept for the process by the running graph's code key (:data:`routing.running`),
so a capture that only runs the graph later still has them.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import math
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from ..model import TuneCandidate, Tuning
from ..patches import Patches
from . import routing
from .fusion import current_graph

_MAX_KEPT = 512  # graphs whose run-time tunings are kept
_lowering: weakref.WeakKeyDictionary[Any, list[Tuning]] = weakref.WeakKeyDictionary()  # GraphLowering -> tunings
_failed: weakref.WeakKeyDictionary[Any, dict[str, TuneCandidate]] = weakref.WeakKeyDictionary()  # its failed choices
_at_run: OrderedDict[str, list[Tuning]] = OrderedDict()  # code key -> tunings made as that graph ran
_select = threading.local()  # .benchmarked: whether the select in progress benchmarked (else its timings were cached)
_sees_benchmarks = False  # whether AlgorithmSelectorCache.autotune is hooked (else every select counts as tuned)


def take(graph: Any) -> list[Tuning]:
    """The tunings made while lowering ``graph`` (a GraphLowering), in order."""
    with routing.lock:
        _failed.pop(graph, None)
        return _lowering.pop(graph, [])


def at_run(key: str) -> list[Tuning]:
    """The tunings made (in this process) as the graph with this code key ran: its Triton kernels' configs."""
    with routing.lock:
        return list(_at_run.get(key, ()))


def tuning(kind: str, op: str, candidates: list[TuneCandidate], winner: str | None = None, shapes: str = "",
           **rest: Any) -> Tuning:
    """A tuning of these candidates; the winner is the fastest unless the tuner named it; the margin how much
    slower the runner-up is."""
    timed = sorted((c for c in candidates if c.ms is not None and math.isfinite(c.ms)), key=lambda c: c.ms)
    if winner is None and timed:
        winner = timed[0].name
    best = next((c.ms for c in timed if c.name == winner), None)
    others = [c.ms for c in timed if c.name != winner]
    margin = others[0] / best - 1 if best and others else None
    return Tuning(kind, op, shapes, candidates, winner, margin, **rest)


def _first_line(error: BaseException | str) -> str:
    text = (str(error).strip() or type(error).__name__) if isinstance(error, BaseException) else str(error).strip()
    line = text.splitlines()[0] if text else "failed"
    return line if len(line) <= 300 else line[:299] + "…"


def _ms(value: Any) -> float | None:
    if isinstance(value, (list, tuple)):  # Triton's do_bench quantiles: the median first
        value = value[0] if value else None
    try:
        ms = float(value)
    except (TypeError, ValueError):
        return None
    return ms if math.isfinite(ms) else None


# max-autotune's select_algorithm ---------------------------------------------------------------------------------
def _candidate(choice: Any, ms: Any = None, error: str | None = None) -> TuneCandidate:
    try:
        backend = str(choice.info_dict().get("backend", ""))
    except Exception:  # noqa: BLE001 - a choice without its info: named by its class
        backend = ""
    backend = backend or ("extern" if "Extern" in type(choice).__name__ else "")
    detail = str(getattr(choice, "description", "") or "")
    timed = _ms(ms)
    if timed is None and error is None and ms is not None:
        error = "failed when benchmarked (its time is infinite)"
    return TuneCandidate(str(getattr(choice, "name", choice)), backend.lower(), timed, error, detail)


def _shapes(nodes: Any) -> str:
    sizes = []
    for node in nodes or ():
        try:
            sizes.append("x".join(str(s) for s in node.get_size()))
        except Exception:  # noqa: BLE001 - a node without a size (a scalar)
            continue
    return ", ".join(sizes)


def _on_select(timings: dict, name: str, input_nodes: Any, choices: Any, *_: Any) -> None:
    graph = current_graph()
    with routing.lock:
        failed = _failed.pop(graph, {}) if graph is not None else {}
    benchmarked = getattr(_select, "benchmarked", False) or not _sees_benchmarks
    _select.benchmarked = False
    candidates = [_candidate(c, timings.get(c)) for c in choices]
    seen = {c.name for c in candidates}
    candidates += [c for name, c in failed.items() if name not in seen]  # failed to precompile: not among choices
    found = tuning("template", str(name), candidates, shapes=_shapes(input_nodes), tuned=benchmarked,
                   source="" if benchmarked else "Inductor's autotune cache (timed by an earlier compile)")
    if graph is None:  # tuned outside a lowering (deferred): kept with the graph running, if any
        _ran(found)
        return
    with routing.lock:
        _lowering.setdefault(graph, []).append(found)


def _note_failure(choice: Any, error: Any) -> None:
    graph = current_graph()
    if graph is None or not hasattr(choice, "name"):
        return
    with routing.lock:
        _failed.setdefault(graph, {})[str(choice.name)] = _candidate(choice, error=_first_line(error))


class _FailureLog(logging.Handler):
    """select_algorithm's record of a choice that failed to precompile: (exception, choice) in its arguments."""

    def emit(self, record: logging.LogRecord) -> None:
        args = record.args if isinstance(record.args, tuple) else ()
        error = next((a for a in args if isinstance(a, BaseException)), None)
        choice = next((a for a in args if hasattr(a, "name") and hasattr(a, "info_dict")), None)
        if error is not None and choice is not None:
            routing.safely(_note_failure, choice, error)


def _install_select(patches: Patches) -> None:
    def benchmark_choice(original):
        def wrapper(cls, choice, *args, **kwargs):
            try:
                return original(choice, *args, **kwargs)
            except Exception as exc:
                routing.safely(_note_failure, choice, exc)
                raise

        return classmethod(wrapper)

    def autotune(original):
        def wrapper(self, *args, **kwargs):
            _select.benchmarked = True
            return original(self, *args, **kwargs)

        return wrapper

    try:
        from torch._inductor import select_algorithm
    except ImportError:
        patches.skipped.append("torch._inductor.select_algorithm (ImportError)")
        return
    if not hasattr(select_algorithm, "add_feedback_saver"):
        patches.skipped.append("torch._inductor.select_algorithm.add_feedback_saver (AttributeError)")
        return
    saver = _saver()
    select_algorithm.add_feedback_saver(saver)
    cache = select_algorithm.get_algorithm_selector_cache()
    patches.on_undo(lambda: _remove(getattr(cache, "feedback_saver_fns", []), saver))
    patches.wrap("torch._inductor.select_algorithm", "AlgorithmSelectorCache", "benchmark_choice", benchmark_choice)
    global _sees_benchmarks
    _sees_benchmarks = patches.wrap("torch._inductor.select_algorithm", "AlgorithmSelectorCache", "autotune", autotune)
    handler = _FailureLog(logging.WARNING)
    logger = logging.getLogger("torch._inductor.select_algorithm")
    logger.addHandler(handler)
    patches.on_undo(lambda: logger.removeHandler(handler))


def _saver() -> Callable[..., None]:
    def saver(timings, name, input_nodes, choices, *rest):
        routing.safely(_on_select, timings, name, input_nodes, choices)

    return saver


def _remove(items: list, item: Any) -> None:
    with contextlib.suppress(ValueError):
        items.remove(item)


# Tuned as a graph runs (Triton) --------------------------------------------------------------------------------
def config_text(config: Any) -> str:
    """A Triton config as its parameters: "XBLOCK=64, num_warps=4, num_stages=1"."""
    parts = [f"{k}={v}" for k, v in sorted((getattr(config, "kwargs", None) or {}).items())]
    parts += [f"{k}={getattr(config, k)}" for k in ("num_warps", "num_stages") if getattr(config, k, None) is not None]
    return ", ".join(parts) or str(config)


def _ran(found: Tuning) -> None:
    """A tuning made as code ran: kept with the running graph, and told to the captures."""
    key = routing.running.get()
    if key is not None and found.tuned:  # a cache hit is told, not kept (it comes at every launch)
        with routing.lock:
            _at_run.setdefault(key, []).append(found)
            _at_run.move_to_end(key)
            while len(_at_run) > _MAX_KEPT:
                _at_run.popitem(last=False)
    for recorder in routing.targets(key):
        recorder.on_tuning(found, key)


def _kernel_name(autotuner: Any) -> str:
    meta = getattr(autotuner, "inductor_meta", None) or {}
    return str(meta.get("kernel_name") or getattr(getattr(autotuner, "fn", None), "__name__", "triton kernel"))


def _on_configs(autotuner: Any, timings: dict) -> None:
    reasons = getattr(autotuner, "benchmark_failure_reasons", None) or {}
    candidates = []
    for launcher, ms in timings.items():
        reason = reasons.get(launcher)
        error = None if _ms(ms) is not None else (
            f"skipped: {getattr(reason, 'name', reason).lower().replace('_', ' ')}" if reason is not None
            else "failed to run (out of resources or a launch error)")
        candidates.append(TuneCandidate(config_text(launcher.config), "config", _ms(ms), error))
    _ran(tuning("configs", _kernel_name(autotuner), candidates))


def _on_descent(tuner: Any, tried: list[tuple[Any, Any]], best: Any) -> None:
    candidates, seen = [], set()
    for config, ms in tried:
        text = config_text(config)
        if text not in seen:
            seen.add(text)
            candidates.append(TuneCandidate(text, "config", _ms(ms), None if _ms(ms) is not None else "failed"))
    _ran(tuning("coordinate-descent", str(getattr(tuner, "name", "triton kernel")), candidates,
                winner=config_text(best)))


def _on_user(autotuner: Any, before: Any) -> None:
    name = str(getattr(getattr(autotuner, "base_fn", None) or getattr(autotuner, "fn", None), "__name__", "kernel"))
    timings = getattr(autotuner, "configs_timings", None)
    if timings and timings is not before:
        candidates = [TuneCandidate(config_text(c), "config", _ms(ms),
                                    None if _ms(ms) is not None else "failed to compile or run (out of resources or "
                                    "a compile error: Triton does not keep which)") for c, ms in timings.items()]
        best = getattr(autotuner, "best_config", None)
        _ran(tuning("user", name, candidates, winner=config_text(best) if best is not None else None))
    elif len(getattr(autotuner, "configs", ())) > 1 and routing.targets():  # a cache hit, told to a capture
        best = getattr(autotuner, "best_config", None)
        _ran(Tuning("user", name, winner=config_text(best) if best is not None else None, tuned=False,
                    source="Triton's autotune cache for this kernel (tuned earlier in this process, or on disk)"))


def _install_triton(patches: Patches) -> None:
    def benchmark_all_configs(original):
        def wrapper(self, *args, **kwargs):
            timings = original(self, *args, **kwargs)
            routing.safely(_on_configs, self, timings)
            return timings

        return wrapper

    def descent(original):
        def wrapper(self, func, baseline_config, baseline_timing=None, *args, **kwargs):
            tried = [] if baseline_timing is None else [(baseline_config, baseline_timing)]

            def timed(config):
                ms = func(config)
                tried.append((config, ms))
                return ms

            best = original(self, timed, baseline_config, baseline_timing, *args, **kwargs)
            routing.safely(_on_descent, self, tried, best)
            return best

        return wrapper

    def run(original):
        def wrapper(self, *args, **kwargs):
            before = getattr(self, "configs_timings", None)
            out = original(self, *args, **kwargs)
            routing.safely(_on_user, self, before)
            return out

        return wrapper

    patches.wrap("torch._inductor.runtime.triton_heuristics", "CachingAutotuner", "benchmark_all_configs",
                 benchmark_all_configs)
    patches.wrap("torch._inductor.runtime.coordinate_descent_tuner", "CoordescTuner", "autotune", descent)
    patches.wrap("triton.runtime.autotuner", "Autotuner", "run", run)


def install(patches: Patches) -> None:
    """Read every autotuning (Triton's only where Triton is installed), undone with ``patches``."""
    _install_select(patches)
    if importlib.util.find_spec("triton") is not None:
        _install_triton(patches)
