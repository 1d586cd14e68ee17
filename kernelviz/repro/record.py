"""Record what the repro scripts need, in one more run of a graph's instrumented ``call()`` while it is
timed: each launch's grid (``Launch.grid``), and for each kernel's first launch and for ``call()`` itself
the arguments' specs (``ReproRecord``) and the expected outputs: those of the captured kernel (Inductor's
own launcher, or C++ binding) and of the real ``call()``, run on inputs made from the specs by the same
harness the scripts use."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ..bench.instrument import instrument
from ..model import ArgSpec, Graph, Kernel, OutputCheck, ReproRecord
from . import harness

KEEP_BYTES = 64 * 1024  # integer/bool tensors up to this size keep their values from the run
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_pdl", "debug")


def record(graph: Graph, namespace: dict[str, Any], make_args: Callable[[], list]) -> None:
    """Fill ``Launch.grid``, ``Kernel.repro`` and ``Graph.repro`` of ``graph``; a failure is a graph warning."""
    import torch

    try:
        calls = _run(graph, namespace, make_args)
        for kernel in graph.kernels:
            if kernel.name in calls:
                kernel.repro = _expected(kernel, *calls[kernel.name])
        if graph.repro is not None and "call" in namespace:
            graph.repro.expected = _outputs(namespace["call"], graph.repro.args, None, _returned)
    except Exception as exc:  # noqa: BLE001 - the repro is extra: timing and the capture stay usable
        if isinstance(exc, torch.cuda.OutOfMemoryError):
            torch.cuda.empty_cache()
        graph.warnings.append(f"repro not recorded: {type(exc).__name__}: {exc}")


def _run(graph: Graph, namespace: dict[str, Any], make_args: Callable[[], list]) -> dict[str, tuple]:
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
            item.grid = _grid(obj, call_args)
            if item.kernel_name not in calls:
                kernel = graph.kernel(item.kernel_name)
                calls[item.kernel_name] = (obj, _launch_record(kernel, obj, item.index, call_args, kwargs,
                                                               kept.get(item.index, []), item.grid), kwargs)
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


def _grid(obj: Any, args: tuple) -> list[int] | None:
    """The grid Inductor's launcher computes for these arguments (``_interpret_args_grid``, torch 2.11+)."""
    launchers, interpret = getattr(obj, "launchers", None), getattr(obj, "_interpret_args_grid", None)
    if not launchers or interpret is None:
        return None
    try:
        return [int(g) for g in interpret(tuple(args), launchers[0].config)[1]]
    except Exception:  # noqa: BLE001 - an unknown grid is left unknown
        return None


def _launch_record(kernel: Kernel, obj: Any, index: int, args: tuple, kwargs: dict, kept: list,
                   grid: list[int] | None) -> ReproRecord:
    names = kernel.params() or [f"arg{i}" for i in range(len(args))]
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
        rec.constants = {k: v for k, v in constants.items() if k in arg_names} | dict(config.kwargs)
        options = (kernel.ir.options if kernel.ir else {}) or {
            "num_warps": config.num_warps, "num_stages": config.num_stages,
            "enable_fp_fusion": (kernel.triton_meta or {}).get("enable_fp_fusion", True)}
        rec.options = {k: options[k] for k in LAUNCH_OPTIONS if k in options}
        if grid is None:
            rec.error = "this torch's launcher does not give the launch's grid (_interpret_args_grid)"
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


def _expected(kernel: Kernel, obj: Any, rec: ReproRecord, kwargs: dict) -> ReproRecord:
    if rec.error is None:
        run = obj.run if hasattr(obj, "run") else obj
        extra = kwargs if kernel.kind.startswith("triton") else rec.constants
        rec.expected = _outputs(lambda a: run(*a, **extra), rec.args, lambda n: _is_output(kernel, n), _returned)
    return rec


def _returned(name: str) -> bool:
    return name.startswith("return[")


def _outputs(launch: Callable[[list], Any], specs: list[ArgSpec], is_output: Callable[[str], bool] | None,
             returned: Callable[[str], bool]) -> list[OutputCheck]:
    """Run ``launch`` on arguments made from ``specs`` and summarize what it wrote or returned."""
    import dataclasses

    import torch

    plain = [dataclasses.asdict(s) for s in specs]
    args = harness.make_args(plain)
    found = harness.outputs_of(plain, args, launch(list(args)))
    if torch.cuda.is_available():
        torch.cuda.synchronize()
    wanted = [n for n, v in found.items() if isinstance(v, torch.Tensor)
              and (returned(n) or (is_output is not None and is_output(n)))]
    return [OutputCheck(**harness.summarize(n, found[n])) for n in wanted]
