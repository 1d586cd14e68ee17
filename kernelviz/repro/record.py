"""Record what the repro scripts need while a graph is timed: in one more run of its instrumented
``call()`` on the timing's inputs, each launch's grid (``Launch.grid``) and, for each kernel's first launch
and for ``call()`` itself, the arguments' specs (``ReproRecord``); then the expected outputs: those of the
captured code (Inductor's own launchers, C++ bindings and ``call()``) run on inputs made from the specs by
the same harness the scripts use. That run makes up inputs, which can fault a kernel (an index computed
from random data), so it runs in the timing process (:mod:`kernelviz.worker`), after the timing has ended
and in a thread of this process (:class:`Landing`): a fault there only costs that record."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
from collections.abc import Callable
from typing import Any

from ..calls import instrument, kept_rng, launch_grid
from ..model import NOT_RECORDED, ArgSpec, Graph, Kernel, OutputCheck, ReproRecord
from . import child as child_process
from . import harness
from . import pending as under_way
from .script import module_code

KEEP_BYTES = 64 * 1024  # integer/bool tensors up to this size keep their values from the run
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_pdl", "debug")
CHILD_TIMEOUT_S = 900
CPP_WRAPPER = ("no kernel repro under cpp_wrapper: the C++ wrapper launches its kernels where kernelviz cannot record "
               "their arguments (graph.to_repro() runs the whole graph)")


def record(graph: Graph, namespace: dict[str, Any], make_args: Callable[[], list]) -> None:
    """Fill ``Launch.grid``, ``Kernel.repro`` and ``Graph.repro`` of ``graph`` (all but the expected outputs,
    which :func:`expect` adds for all timed graphs at once); a failure is a graph warning.

    The run is made as AOTAutograd runs a compiled graph: without grad, on detached inputs (an ``out=``
    extern on a tensor that requires grad raises under autograd), the RNG state put back after it."""
    import torch

    graph.warnings = [w for w in graph.warnings if not w.startswith(NOT_RECORDED)]
    try:
        with torch.no_grad(), kept_rng(graph.device):
            calls = _run(graph, namespace, lambda: [a.detach() if isinstance(a, torch.Tensor) else a
                                                   for a in make_args()])
        unrecorded = ReproRecord(error=CPP_WRAPPER) if graph.wrapper == "cpp" else None
        for kernel in graph.kernels:
            kernel.repro = calls.get(kernel.name) or unrecorded
    except Exception as exc:  # noqa: BLE001 - the repro is extra: timing and the capture stay usable
        if isinstance(exc, torch.cuda.OutOfMemoryError):
            torch.cuda.empty_cache()
        reason = (f"{NOT_RECORDED}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''} "
                  "(cap.bench(repros=True) tries again)")
        graph.warnings.append(reason)
        graph.repro = ReproRecord(error=reason)  # nothing half-recorded is offered as a repro
        for kernel in graph.kernels:
            kernel.repro = kernel.repro or ReproRecord(error=reason)


def _run(graph: Graph, namespace: dict[str, Any], make_args: Callable[[], list]) -> dict[str, ReproRecord]:
    """One run of the instrumented call(): specs of call()'s inputs and of each kernel's first launch."""
    inst = instrument(graph, namespace)
    recorded, kept = inst.recorded, {}
    kernel_launches = {item.index for item in graph.launches if item.kernel_name}

    @contextlib.contextmanager
    def launch(index: int):
        recorded.current = index
        yield
        if index in kernel_launches and index in recorded.args:  # integer inputs are as the kernel read them
            kept[index] = [_spec_values(a) for a in recorded.args[index][0]]

    args = make_args()
    names = [spec.name for spec in graph.inputs]
    graph.repro = ReproRecord(args=[arg_spec(names[i] if i < len(names) else f"arg{i}", a, _spec_values(a))
                                    for i, a in enumerate(args)])
    inst.set_range(launch)
    recorded.active = True
    try:
        inst.call(args)
    finally:
        recorded.active = False
        inst.set_range(None)
    calls: dict[str, tuple] = {}
    for item in graph.launches:
        if item.kernel_name in inst.kernels and item.index in recorded.args:
            obj = inst.kernels[item.kernel_name]
            call_args, kwargs = recorded.args[item.index]
            grid = launch_grid(obj, call_args)
            item.grid = list(grid) if grid else None
            if item.kernel_name not in calls:
                calls[item.kernel_name] = _launch_record(graph.kernel(item.kernel_name), obj, item.index, call_args,
                                                         kwargs, kept.get(item.index, []), item.grid)
    return calls


def _spec_values(value: Any) -> str | None:
    """The storage of a small integer or bool tensor, as base64 (the values a repro keeps)."""
    import torch

    if (isinstance(value, torch.Tensor) and not value.is_floating_point() and not value.is_complex()
            and value.untyped_storage().nbytes() <= KEEP_BYTES):
        storage = value.untyped_storage().nbytes() // value.element_size()
        return harness._raw(value.as_strided((storage,), (1,), 0))
    return None


def arg_spec(name: str, value: Any, values: str | None = None, zero: bool = False) -> ArgSpec:
    """The spec of one argument; ``values`` keeps an integer tensor's storage, ``zero`` asks for zeros."""
    import torch

    if isinstance(value, torch.Tensor):
        spec = ArgSpec(name, "tensor", dtype=str(value.dtype).removeprefix("torch."), shape=list(value.shape),
                       stride=list(value.stride()), offset=value.storage_offset(),
                       storage=value.untyped_storage().nbytes() // value.element_size(), device=str(value.device))
        if zero:
            spec.fill = "zeros"
        elif values is not None:
            spec.fill, spec.values = "values", values
        return spec
    for kind, tp in (("bool", bool), ("int", int), ("float", float)):
        if isinstance(value, tp):
            return ArgSpec(name, kind, value=tp(value))
    return ArgSpec(name, "none") if value is None else ArgSpec(name, "other", value=repr(value)[:200])


def _call_names(kernel: Kernel, obj: Any, count: int) -> list[str]:
    """The parameters a launch's positional arguments go to: for Triton, the function's parameters but
    those annotated ``tl.constexpr`` (a size Inductor specialised to a constant is still passed)."""
    fn = getattr(obj, "fn", None)
    if kernel.kind.startswith("triton") and hasattr(fn, "arg_names") and hasattr(fn, "constexprs"):
        return [name for i, name in enumerate(fn.arg_names) if i not in set(fn.constexprs)]
    return kernel.params() or [f"arg{i}" for i in range(count)]


def _launch_record(kernel: Kernel, obj: Any, index: int, args: tuple, kwargs: dict, kept: list,
                   grid: list[int] | None) -> ReproRecord:
    names = _call_names(kernel, obj, len(args))
    if len(names) != len(args):
        return ReproRecord(launch=index, error=f"{len(args)} arguments for the {len(names)} parameters of "
                                               f"{kernel.name}'s signature")
    zero = set(getattr(obj, "reset_to_zero_arg_names", None) or [])
    specs = [arg_spec(name, a, kept[i] if i < len(kept) and not _is_output(kernel, name) else None, name in zero)
             for i, (name, a) in enumerate(zip(names, args))]
    rec = ReproRecord(launch=index, args=specs, grid=grid)
    if kernel.kind.startswith("triton"):
        config = obj.launchers[0].config
        arg_names = set(getattr(getattr(obj, "fn", None), "arg_names", None) or [])
        constants = (kernel.triton_meta or {}).get("constants") or {}
        rec.constants = {k: v for k, v in constants.items() if k in arg_names and k not in names} | dict(config.kwargs)
        options = (kernel.ir.options if kernel.ir else {}) or {
            "num_warps": config.num_warps, "num_stages": config.num_stages,
            "enable_fp_fusion": (kernel.triton_meta or {}).get("enable_fp_fusion", True)}
        rec.options = {k: options[k] for k in LAUNCH_OPTIONS if k in options}
        if grid is None:
            rec.error = "Inductor's launcher did not give the launch's grid (_interpret_args_grid, GridExpr)"
    elif kernel.kind == "jiterator":
        rec.constants = {k: v for k, v in kwargs.items() if isinstance(v, (bool, int, float))}
        rec.options = {"return_by_ref": bool(getattr(obj, "return_by_ref", False)),
                       "num_outputs": int(getattr(obj, "num_outputs", 1))}
    return rec


def _is_output(kernel: Kernel, name: str) -> bool:
    """Whether the kernel writes parameter ``name``: by Inductor's naming, its mutated args, C++ constness."""
    if kernel.kind == "cpp":
        types = dict(zip(kernel.params(), kernel.arg_types or []))
        return "*" in types.get(name, "") and "const" not in types.get(name, "")
    return name.startswith(("out_ptr", "in_out_ptr")) or name in ((kernel.inductor_meta or {}).get(
        "mutated_arg_names") or [])


def expect(graphs: list[Graph]) -> None:
    """Fill the expected outputs of the graphs' records: the timing process runs the captured code on inputs
    made from the specs (a new one goes on after a job that ends it; that job's record says why)."""
    records: list[ReproRecord] = []
    jobs: list[dict] = []
    codes: list[str] = []
    for graph in graphs:
        items = _pending(graph)
        for rec, kernel in items:
            records.append(rec)
            jobs.append({"graph": len(codes), "kernel": kernel.name if kernel else None,
                         "args": [dataclasses.asdict(a) for a in rec.args], "constants": rec.constants,
                         "options": rec.options,
                         "outputs": None if kernel is None or kernel.kind == "jiterator" else
                         [a.name for a in rec.args if _is_output(kernel, a.name)]})
        codes += [module_code(graph)] if items else []
    start = 0
    while start < len(jobs):
        answers, crash = _child(codes, jobs, start)
        for index, answer in answers.items():
            if isinstance(answer, dict):
                records[index].error = answer["error"]
            else:
                records[index].expected = [OutputCheck(**summary) for summary in answer]
        start = max(answers, default=start - 1) + 1
        if crash and start < len(jobs):  # the child died in this job without a word
            records[start].error = (f"the captured code crashed on inputs made from the specs: {crash} (time it on "
                                    "the tensors it ran with: cap.bench(repros=True) in the process that captured it)")
            start += 1
    if jobs:
        from ..children import Worker

        Worker.warm_after(graphs)


def _pending(graph: Graph) -> list[tuple[ReproRecord, Kernel | None]]:
    """The graph's records (each kernel's, then its call()'s) that were recorded and wait for expected outputs."""
    items = [(k.repro, k) for k in graph.kernels if k.repro is not None and k.repro.error is None]
    return items + [(graph.repro, None)] if graph.repro is not None and graph.repro.error is None else items


class Landing:
    """The expected outputs of ``graphs``' records (:func:`expect`) computed in a thread, so that a timing with
    repros ends before they are: :meth:`wait` waits for them (``LiveCapture.wait_repros``, and what saves or shows
    a capture), and :func:`kernelviz.repro.pending.landed` for one record (``to_repro()``). They begin once
    ``after()`` returns (the capture's stages are read first: both would compete for the same CPUs). The landing is
    held by the capture's session and by the records' registry, never by the model: a copy or pickle of a record or
    a capture takes it as it is and never waits."""

    def __init__(self, graphs: list[Graph], after: Callable[[], Any] | None = None) -> None:
        self._done = threading.Event()
        records = [rec for graph in graphs for rec, _ in _pending(graph)]
        under_way.begin(records, self)
        threading.Thread(target=self._run, args=(graphs, records, after), name="kernelviz-repros",
                         daemon=True).start()

    def _run(self, graphs: list[Graph], records: list[ReproRecord], after: Callable[[], Any] | None) -> None:
        try:
            if after is not None:
                after()
            expect(graphs)
        except Exception as exc:  # noqa: BLE001 - said in each record still waiting, never lost silently
            for rec in records:
                if not rec.expected and rec.error is None:
                    rec.error = f"{NOT_RECORDED}: its expected outputs failed: {type(exc).__name__}: {exc}"
        finally:
            under_way.end(records)
            self._done.set()

    def wait(self) -> None:
        self._done.wait()


def _child(codes: list[str], jobs: list[dict], start: int) -> tuple[dict[int, Any], str | None]:
    """Answers of jobs ``start...`` from one timing process, and how it died in the first unanswered one
    (None where it answered them all or stopped after a reported CUDA error)."""
    from ..children import Worker

    answers: dict[int, Any] = {}
    worker = Worker.get()
    try:
        worker.give(json.dumps({"codes": codes, "jobs": jobs[start:]}), kind="expect")
        timer = threading.Timer(CHILD_TIMEOUT_S, worker.proc.kill)
        timer.start()
        ready = False
        try:
            for line in worker.proc.stdout:
                if not line.startswith(child_process.MARK + " "):
                    continue
                _, index, *payload = line.rstrip("\n").split(" ", 2)
                if index == "ready":
                    ready = True
                    continue
                answers[start + int(index)] = json.loads(payload[0])
            worker.proc.wait()
        finally:
            timer.cancel()
        error = worker.stderr_path.read_text(errors="replace")
        returncode = worker.proc.returncode
    finally:
        worker.close()
    last = (error.strip().splitlines() or [f"exit status {returncode}"])[-1][:300]
    if not ready:  # not even started: every job says so, and no other child is tried
        return {i: {"error": f"kernelviz's child process did not start: {last}"} for i in range(start, len(jobs))}, None
    if len(answers) == len(jobs) - start or returncode == child_process.CUDA_LOST:
        return answers, None
    return answers, last
