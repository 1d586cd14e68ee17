"""An instrumented copy of a graph's ``call()``: every launch line runs inside a named range, and
kernels and extern calls record the arguments they were given (for isolated timing and bytes)."""

from __future__ import annotations

import contextlib
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import Graph

_CALL_DEF = re.compile(r"^(\s*)def call\((self, )?args\):\s*$")


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
    lines = graph.code.splitlines()
    launch_lines = {launch.line: launch.index for launch in graph.launches}
    first = min(launch_lines)
    start = max(i for i in range(first - 1) if _CALL_DEF.match(lines[i]))
    indent = len(lines[start]) - len(lines[start].lstrip())
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent
                                or lines[end].lstrip().startswith("#")):
        end += 1
    if max(launch_lines) > end:
        raise NotImplementedError("launches outside call() (graph partitions) cannot be timed yet")
    body = []
    for i in range(start + 1, end):  # 0-based line i is line number i + 1
        line = lines[i]
        if i + 1 in launch_lines:
            pad = line[: len(line) - len(line.lstrip())]
            line = f"{pad}with __kv_range({launch_lines[i + 1]}): {line.lstrip()}"
        body.append(line)
    source = textwrap.dedent("\n".join([lines[start]] + body))

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
    if " self, " in lines[start] or "(self," in lines[start]:
        runner = namespace.get("runner")

        def call(args: list) -> Any:
            return fn(runner, args)
    else:
        call = fn
    return Instrumented(call=call, recorded=recorded, kernels=kernels, set_range=set_range)

