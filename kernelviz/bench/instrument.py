"""An instrumented copy of a graph's ``call()``: every launch line runs inside a named range, and
kernels and extern calls record the arguments they were given (for isolated timing and bytes)."""

from __future__ import annotations

import contextlib
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import Graph


@dataclass
class Recorded:
    """Arguments seen by each launch during a recording run, by launch index."""

    args: dict[int, tuple[tuple, dict]] = field(default_factory=dict)
    results: dict[int, Any] = field(default_factory=dict)
    active: bool = False
    current: int = -1


class _KernelProxy:
    """Stands in for a kernel global: records ``.run(...)`` or a direct call, then forwards it."""

    def __init__(self, kernel: Any, recorded: Recorded):
        self._kernel, self._recorded = kernel, recorded

    def _note(self, args: tuple, kwargs: dict) -> None:
        if self._recorded.active and self._recorded.current not in self._recorded.args:
            self._recorded.args[self._recorded.current] = (args, kwargs)

    def run(self, *args, **kwargs):
        self._note(args, kwargs)
        return self._kernel.run(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        self._note(args, kwargs)
        return self._kernel(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._kernel, name)


class _ExternProxy:
    """Stands in for ``extern_kernels``: each function records its arguments and result."""

    def __init__(self, externs: Any, recorded: Recorded):
        self._externs, self._recorded = externs, recorded

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self._externs, name)
        recorded = self._recorded

        def wrapper(*args, **kwargs):
            result = fn(*args, **kwargs)
            if recorded.active and recorded.current not in recorded.args:
                recorded.args[recorded.current] = (args, kwargs)
                recorded.results[recorded.current] = result
            return result

        return wrapper


@dataclass
class Instrumented:
    """The instrumented ``call`` and what it records; ``kernels`` are the real kernel objects."""

    call: Callable[[list], Any]
    recorded: Recorded
    kernels: dict[str, Any]
    set_range: Callable[[Callable[[int], Any]], None]


def instrument(graph: Graph, namespace: dict[str, Any]) -> Instrumented:
    """Build the instrumented ``call`` of ``graph`` over the globals of its compiled module."""
    if graph.call_span is None:
        raise NotImplementedError("the code has no call() to time")
    lines = graph.code.splitlines()
    first, last = graph.call_span
    launch_lines = {launch.line: launch.index for launch in graph.launches}
    if not all(first < n <= last for n in launch_lines):
        raise NotImplementedError("launches outside call() (graph partitions) cannot be timed yet")
    body = []
    for number in range(first + 1, last + 1):
        line = lines[number - 1]
        if number in launch_lines:
            pad = line[: len(line) - len(line.lstrip())]
            line = f"{pad}with __kv_range({launch_lines[number]}): {line.lstrip()}"
        body.append(line)
    header = lines[first - 1]
    source = textwrap.dedent("\n".join([header] + body))

    recorded = Recorded()
    scope = dict(namespace)
    kernels = {k.name: namespace[k.name] for k in graph.kernels if k.name in namespace}
    scope.update({name: _KernelProxy(obj, recorded) for name, obj in kernels.items()})
    if "extern_kernels" in namespace:
        scope["extern_kernels"] = _ExternProxy(namespace["extern_kernels"], recorded)

    def set_range(make: Callable[[int], Any] | None) -> None:
        scope["__kv_range"] = make or (lambda index: contextlib.nullcontext())

    set_range(None)
    exec(compile(source, f"<kernelviz instrumented {graph.id}>", "exec"), scope)
    fn = scope["call"]
    if "(self," in header:
        runner = namespace.get("runner")

        def call(args: list) -> Any:
            return fn(runner, args)
    else:
        call = fn
    return Instrumented(call=call, recorded=recorded, kernels=kernels, set_range=set_range)

