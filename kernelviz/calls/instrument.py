"""An instrumented copy of a graph's ``call()`` and of the ``partition_N`` functions that CUDA-graph modes
(``reduce-overhead``, ``max-autotune``) run it through: every launch line runs inside a named range, and
the function it calls goes through ``__kv_call``, so that a timer can record the launch's arguments,
repeat it alone (``set_hook``) or leave it out (``set_skip``).

The partitions run eagerly here, as the module-level functions of the code: after a reduce-overhead run
the live ``runner.partitions`` are CUDA-graph trees whose replays would overwrite the user's outputs.
"""

from __future__ import annotations

import contextlib
import functools
import re
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import Graph

Hook = Callable[..., Any]  # hook(index, fn, *args, **kwargs) -> what fn returns
_PARTITION = re.compile(r"partition_(\d+)")
_PARTITION_DEF = re.compile(r"^def (partition_\d+)\(args\):")
_TARGET = re.compile(r"^[\w, ()]+? = ")  # as the parser reads an assignment
_CALLEE = re.compile(r"([\w.]+)\(")


@dataclass
class Recorded:
    """Arguments seen by each launch during a recording run, by launch index."""

    args: dict[int, tuple[tuple, dict]] = field(default_factory=dict)
    results: dict[int, Any] = field(default_factory=dict)
    active: bool = False
    current: int = -1


@dataclass
class Instrumented:
    """The instrumented ``call`` and what it records; ``kernels`` are the real kernel objects;
    ``partitions`` is the list ``call`` runs as ``self.partitions`` (a timer may swap its entries)."""

    call: Callable[[list], Any]
    recorded: Recorded
    kernels: dict[str, Any]
    set_range: Callable[[Callable[[int], Any] | None], None]
    set_hook: Callable[[Hook | None], None] = lambda hook: None
    set_skip: Callable[[set[int]], None] = lambda indices: None
    partitions: list[Callable[[list], Any]] = field(default_factory=list)
    plain: Callable[[list], Any] | None = None  # the module's own call(), without instruments (over its own partitions)
    ranged: bool = False  # a C++ wrapper: the launches' named ranges are in its code, no hook reaches a launch


def instrument(graph: Graph, namespace: dict[str, Any]) -> Instrumented:
    """Build the instrumented ``call`` of ``graph`` over the globals of its compiled module."""
    if graph.call_span is None:
        raise NotImplementedError("the code has no call() to time")
    if graph.wrapper == "cpp":
        from .cpp_wrapper import load_ranged

        plain = namespace.get("call")
        return Instrumented(call=load_ranged(graph), recorded=Recorded(), kernels={}, set_range=lambda make: None,
                            plain=plain if callable(plain) else None, ranged=True)
    lines = graph.code.splitlines()
    functions = {"call": graph.call_span, **_partitions(lines)}
    launch_lines = {launch.line: launch.index for launch in graph.launches}
    outside = [n for n in launch_lines if not any(first < n <= last for first, last in functions.values())]
    if outside:
        raise NotImplementedError(f"launch at line {outside[0]} is outside call() and its partition functions")
    written = {launch.index: _written(graph, launch.kernel_name) for launch in graph.launches if launch.kernel_name}

    recorded = Recorded()
    state: dict[str, Any] = {"hook": None, "skip": frozenset()}
    scope = dict(namespace)
    kernels = {k.name: namespace[k.name] for k in graph.kernels if k.name in namespace}

    def kv_call(index: int, fn: Callable) -> Callable:
        hook, skipped = state["hook"], index in state["skip"]
        if hook is None and not recorded.active and not skipped:
            return fn

        def launch(*args, **kwargs):
            if skipped:
                if index in written:
                    return _zero([args[i] for i in written[index] if i < len(args)])
                return _placeholder(fn, args, kwargs)
            if recorded.active and index not in recorded.args:
                recorded.args[index] = (args, kwargs)
            result = hook(index, fn, *args, **kwargs) if hook is not None else fn(*args, **kwargs)
            if recorded.active and index not in recorded.results:
                recorded.results[index] = result
            return result

        return launch

    def set_range(make: Callable[[int], Any] | None) -> None:
        scope["__kv_range"] = make or (lambda index: contextlib.nullcontext())

    def set_hook(hook: Hook | None) -> None:
        state["hook"] = hook

    def set_skip(indices: set[int]) -> None:
        state["skip"] = frozenset(indices)

    set_range(None)
    scope["__kv_call"] = kv_call
    for name, (first, last) in functions.items():
        source = _instrumented_source(lines, first, last, launch_lines)
        exec(_compiled(source, f"<kernelviz instrumented {graph.id} {name}>"), scope)
    numbers = [int(m.group(1)) for name in functions if (m := _PARTITION.fullmatch(name))]
    partitions: list[Callable] = [scope.get(f"partition_{i}") for i in range(max(numbers, default=-1) + 1)]
    fn = scope["call"]
    if "(self," in lines[graph.call_span[0] - 1]:
        runner = types.SimpleNamespace(**{**vars(namespace.get("runner") or types.SimpleNamespace()),
                                          "partitions": partitions})

        def call(args: list) -> Any:
            return fn(runner, args)
    else:
        call = fn
    return Instrumented(call=call, recorded=recorded, kernels=kernels, set_range=set_range, set_hook=set_hook,
                        set_skip=set_skip, partitions=partitions, plain=_plain(namespace, len(partitions)))


def _plain(namespace: dict[str, Any], count: int) -> Callable[[list], Any] | None:
    """The module's own ``call()`` without instruments; where it runs ``count`` partitions, over the module's own
    ``partition_N`` functions, eagerly (as reduce-overhead runs a graph whose CUDA graph it skipped), never over a
    live runner's CUDA-graph trees."""
    call = namespace.get("call")
    if not callable(call):
        return None
    if not count:
        return call
    own = [namespace.get(f"partition_{i}") for i in range(count)]
    fn, runner = getattr(call, "__func__", None), getattr(call, "__self__", None)
    if fn is None or runner is None or not all(callable(p) for p in own):
        return None
    eager = types.SimpleNamespace(**{**vars(runner), "partitions": own})
    return lambda args: fn(eager, args)


@contextlib.contextmanager
def kept_rng(device: str):
    """The CPU (and CUDA) RNG state put back after the block: a run of call() may draw random numbers."""
    import torch

    cpu = torch.get_rng_state()
    cuda = torch.cuda.get_rng_state_all() if device == "cuda" and torch.cuda.is_available() else None
    try:
        yield
    finally:
        torch.set_rng_state(cpu)
        if cuda is not None:
            torch.cuda.set_rng_state_all(cuda)


def _partitions(lines: list[str]) -> dict[str, list[int]]:
    """First and last line (1-based) of each module-level ``def partition_N(args):``."""
    found, current = {}, None
    for number, line in enumerate(lines, 1):
        if current and line.strip() and not line[0].isspace() and not line.startswith("#"):
            current = None
        if m := _PARTITION_DEF.match(line):
            current = m.group(1)
            found[current] = [number, number]
        elif current and line.strip():
            found[current][1] = number
    return found


def _instrumented_source(lines: list[str], first: int, last: int, launch_lines: dict[int, int]) -> str:
    body = [lines[first - 1]]
    for number in range(first + 1, last + 1):
        line = lines[number - 1]
        if number in launch_lines:
            index = launch_lines[number]
            pad = line[: len(line) - len(line.lstrip())]
            line = f"{pad}with __kv_range({index}): {_hooked(line.strip(), index)}"
        body.append(line)
    return textwrap.dedent("\n".join(body))


@functools.lru_cache(maxsize=16)
def _compiled(source: str, filename: str) -> types.CodeType:
    """The code of an instrumented function, kept in this process for the next timing of the same graph (a capture
    of a step compiled before: compiling a backward's call() took 0.03-0.04 s); a step's call()s and partitions fit."""
    return compile(source, filename, "exec")


def _hooked(statement: str, index: int) -> str:
    """``x = f(a, b)`` -> ``x = __kv_call(index, f)(a, b)`` (unchanged if it is not such a call)."""
    target = _TARGET.match(statement)
    prefix = target.group(0) if target else ""
    callee = _CALLEE.match(statement, len(prefix))
    if callee is None:
        return statement
    return f"{prefix}__kv_call({index}, {callee.group(1)})({statement[callee.end():]}"


def _written(graph: Graph, kernel_name: str) -> list[int]:
    """Positions of the arguments a generated kernel only writes (``out_ptr``)."""
    return [i for i, p in enumerate(graph.kernel(kernel_name).params()) if p.startswith("out_")]


def _zero(tensors: list[Any]) -> None:
    """A left-out kernel's outputs: zeros rather than whatever the memory held (NaNs, denormals)."""
    for tensor in tensors:
        if hasattr(tensor, "zero_"):
            tensor.zero_()


def _placeholder(fn: Callable, args: tuple, kwargs: dict) -> Any:
    """What a left-out extern call would have returned: tensors of the right size, dtype, stride and
    device (worked out on fake tensors, nothing runs), filled with zeros; its ``out=`` tensor is zeroed."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.utils._pytree import tree_map

    _zero([kwargs.get("out")])
    ops = (types.BuiltinFunctionType, types.BuiltinMethodType, torch._ops.OpOverload, torch._ops.OpOverloadPacket)
    if not (isinstance(fn, ops) or (getattr(fn, "__module__", None) or "").startswith("torch")):
        return None  # not a torch op: it cannot be run on fake tensors
    try:
        with FakeTensorMode(allow_non_fake_inputs=True):
            result = fn(*args, **kwargs)
    except Exception:  # noqa: BLE001 - no shape known: later uses of the result fail and are reported
        return None

    def real(value: Any) -> Any:
        if isinstance(value, torch.Tensor):
            return torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device=value.device).zero_()
        return value

    return tree_map(real, result)
