"""What a what-if runs in the timing process (``KIND whatif``): each candidate's graphs compiled again from their FX
graphs under the change (``torch._inductor.compile_fx.compile_fx``), run on the inputs the timing uses (the user's
tensors handed over, or recreated from the specs), their outputs compared with the captured code's on the same
inputs, then the captured code and the candidate timed in turns, with the same clock: on a GPU CUDA events around
each run (launch overhead included, as the step runs it), on the CPU its wall clock. One line each step on stdout;
each candidate's result to ``OUT_DIR/<k>.json``, a :class:`~kernelviz.model.WhatIf`'s fields."""

from __future__ import annotations

import contextlib
import copy
import importlib
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..bench.errors import BenchError, one_line
from ..bench.handoff import receive
from ..bench.inputs import recreate
from ..bench.measure import arg_maker, namespace
from ..bench.timers import summarize
from ..model import Capture, Graph
from ..recorder import fxgraph
from .numerics import Compared, compare

PAIRS = 15  # runs of each side at least, in turns
MIN_S = 0.3  # and until both sides have run this long
MAX_S = 3.0  # per graph, at most
COMPILE_THREADS = 8
WARMUP = 3  # untimed runs of each side first (a fresh process's first runs start thread pools, load kernels)


@dataclass
class _Ready:
    """A graph made ready here: its captured ``call()``, its inputs, its FX graph, its outputs on those inputs."""

    graph: Graph
    call: Callable[[list], Any]
    args: list[Any]
    make_args: Callable[[], list]
    gm: Any
    expected: Any


def main(job_path: str, out_dir: str, emit: Callable[[str], None]) -> int:
    import torch

    job = json.loads(Path(job_path).read_text())
    capture = Capture.from_dict(job["capture"])
    if any(graph.device == "cuda" for graph in capture.graphs):
        emit("phase start")
        torch.cuda.init()
    import torch._inductor.config as inductor_config

    # the candidates' kernels compiled in parallel here (the timing process compiles one at a time otherwise)
    inductor_config.compile_threads = max(1, min(COMPILE_THREADS, (os.cpu_count() or 2) // 2))
    deadline = float(job["deadline"])  # wall clock: the budget counts from the call in the user's process
    ready: dict[int, _Ready | str] = {}
    for k, candidate in enumerate(job["candidates"]):
        emit(f"graph {k}")
        if time.time() > deadline:
            result = {"reason": f"not run: the time budget of {job['budget_s']:g} s was spent"}
        else:
            result = _measure(candidate, capture, job, ready, emit)
        Path(out_dir, f"{k}.json").write_text(json.dumps(result))
        emit(f"done {k}")
    return 0


def _prepared(i: int, capture: Capture, job: dict, ready: dict[int, _Ready | str], emit) -> _Ready:
    """Graph ``i`` made ready (once); raises :class:`BenchError` with the reason where it cannot be."""
    import torch

    if i not in ready:
        graph = capture.graphs[i]
        try:
            scope = namespace(graph, None, emit)
            handed = job["handed"][i]
            if handed is not None and job["inputs"][i] == "user":
                args = receive(handed)
            else:
                args, _ = recreate(graph, receive(handed) if handed is not None else None)
            emit("phase run")
            make_args = arg_maker(args, None)  # every input copied: a backward's code reuses (donated) inputs' memory
            with torch.no_grad():
                expected = _kept(scope["call"](make_args()))
            ready[i] = _Ready(graph, scope["call"], args, make_args, fxgraph.load(graph.fx), expected)
        except Exception as exc:  # noqa: BLE001 - one line for every candidate of this graph
            ready[i] = f"graph {graph.id} could not be run here: {one_line(exc)}"
    found = ready[i]
    if isinstance(found, str):
        raise BenchError(found)
    return found


def _measure(candidate: dict, capture: Capture, job: dict, ready: dict, emit) -> dict[str, Any]:
    import torch

    totals = {"before_ms": 0.0, "before_noise_ms": 0.0, "after_ms": 0.0, "after_noise_ms": 0.0, "compile_s": 0.0}
    compared = Compared()
    for i in candidate["graphs"]:
        try:
            item = _prepared(i, capture, job, ready, emit)
            emit("phase compile")
            with torch.no_grad():
                started = time.perf_counter()
                run, make_args = _compiled(candidate, item)
                outputs = _kept(run(make_args()))
                totals["compile_s"] += time.perf_counter() - started
                compared.add(compare(outputs, item.expected))
                emit("phase in-graph")
                before, after = _turns(item.call, item.make_args, run, make_args, item.graph.device)
        except BenchError as exc:
            return {"reason": f"not run: {exc}"}
        except Exception as exc:  # noqa: BLE001 - a candidate that cannot run says why, in one line
            return {"reason": f"not run: {one_line(exc)}"}
        for side, values in (("before", before), ("after", after)):
            samples = summarize(values)  # noise: half the runs' spread (p75 - p25)
            totals[f"{side}_ms"] += samples.median
            totals[f"{side}_noise_ms"] += (samples.spread or 0.0) * samples.median / 2
    return {**totals, "max_abs_diff": compared.max_abs_diff, "max_rel_diff": compared.max_rel_diff,
            "tolerance": compared.tolerance, "verdict": "same" if compared.same else "differs"}


@contextlib.contextmanager
def _settings(candidate: dict):
    """TF32 for fp32 matmuls, where the candidate asks, while it compiles and each time it runs (never while the
    captured code runs); undone after."""
    import torch

    if not candidate.get("tf32"):
        yield
        return
    before = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(before)


def _compiled(candidate: dict, item: _Ready) -> tuple[Callable[[list], Any], Callable[[], list]]:
    """The graph compiled under the candidate, as ``run(args)``, and what makes its arguments."""
    import torch
    from torch._inductor.compile_fx import compile_fx

    gm, args = item.gm, list(item.args)
    if candidate.get("transform"):
        module, _, name = candidate["transform"].partition(":")
        gm = getattr(importlib.import_module(module), name)(copy.deepcopy(gm))
    if candidate.get("channels_last"):
        gm = _reshaping(gm)
        args = [a.contiguous(memory_format=torch.channels_last) if isinstance(a, torch.Tensor) and a.dim() == 4
                else a for a in args]
    static = item.graph.fx_static
    if static and (candidate.get("freeze") or candidate["config"].get("triton.cudagraphs")):
        # the parameters as the module's own, as the user's module holds them: what freezing makes constants, and
        # what reduce-overhead keeps in place (its CUDA graphs copy every other input in before each replay)
        gm = _with_parameters(gm, static, args)
        args = [a for j, a in enumerate(args) if j not in set(static)]
    with _settings(candidate):
        compiled = compile_fx(gm, args, config_patches=dict(candidate["config"]))

    def run(values: list) -> Any:
        with _settings(candidate):
            return compiled(*values)

    return run, arg_maker(args, None)


def _with_parameters(gm: Any, static: list[int], args: list[Any]) -> Any:
    """A copy of ``gm`` whose static inputs (the parameters) are its own parameters."""
    import torch

    gm = copy.deepcopy(gm)
    placeholders = [node for node in gm.graph.nodes if node.op == "placeholder"]
    for j, i in enumerate(static):
        name = f"parameter_{j}"
        gm.register_parameter(name, torch.nn.Parameter(args[i], requires_grad=False))
        with gm.graph.inserting_after(placeholders[-1]):
            attr = gm.graph.get_attr(name)
        placeholders[i].replace_all_uses_with(attr)
    for i in static:
        gm.graph.erase_node(placeholders[i])
    gm.recompile()
    return gm


def _reshaping(gm: Any) -> Any:
    """A copy of ``gm`` whose views are reshapes: a view the captured (contiguous) layout allowed may need a copy in
    channels-last, as tracing the user's code in that layout would have made."""
    import torch

    gm = copy.deepcopy(gm)
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is torch.ops.aten.view.default:
            node.target = torch.ops.aten.reshape.default
    gm.recompile()
    return gm


def _turns(before: Callable, make_before: Callable, after: Callable, make_after: Callable,
           device: str) -> tuple[list[float], list[float]]:
    """Both sides run in turns with the same clock until each has :data:`PAIRS` runs and :data:`MIN_S`, at most
    :data:`MAX_S`; the ms of each run."""
    import torch

    cuda = device == "cuda"
    for _ in range(WARMUP):
        before(make_before())
        after(make_after())
    times: tuple[list[float], list[float]] = ([], [])
    started = time.perf_counter()
    while True:
        for side, (run, make) in enumerate(((before, make_before), (after, make_after))):
            args = make()
            if cuda:
                torch.cuda.synchronize()
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                run(args)
                end.record()
                end.synchronize()
                times[side].append(start.elapsed_time(end))
            else:
                began = time.perf_counter()
                run(args)
                times[side].append((time.perf_counter() - began) * 1e3)
        spent = time.perf_counter() - started
        if spent > MAX_S or (len(times[0]) >= PAIRS and min(sum(t) for t in times) / 1e3 >= MIN_S):
            return times


def _kept(outputs: Any) -> Any:
    """The outputs copied (a CUDA graph's replay writes the next run's into the same memory)."""
    import torch

    if isinstance(outputs, (list, tuple)):
        return [_kept(o) for o in outputs]
    return outputs.detach().clone() if isinstance(outputs, torch.Tensor) else outputs
