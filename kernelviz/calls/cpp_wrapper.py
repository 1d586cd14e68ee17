"""Timing a graph whose wrapper is C++ (``cpp_wrapper``): its launches run inside C++, out of reach of Python hooks.

The module's code is loaded again with each launch line of the C++ entry function wrapped in a profiler range
named as the Python instruments name theirs (``kernelviz#launch#<index>``, via the C shim's
``aoti_record_function_start``), so the timers read each launch's time from torch.profiler: its device kernels
matched by CUPTI correlation on a GPU, the range's own wall time on the CPU (less an empty range's: the profiler's
own cost). The C++ is compiled once more for that (Inductor's C++ cache keeps it for the next timing). The
un-instrumented ``call`` of the module is what ``Graph.as_run`` times. A launch alone cannot be run from outside the
C++, so none is timed alone (a line says so).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..model import Graph

LAUNCH_RANGE = "kernelviz#launch#"  # the profiler range of launch N: "kernelviz#launch#N" (Python or C++ wrapper)
EMPTY_RANGE = "kernelviz#empty"  # a range around nothing, beside a C++ wrapper's launches: the profiler's own cost
NOT_ALONE = ("under cpp_wrapper the launches run inside the C++ wrapper, where kernelviz cannot run one alone: "
             "in-graph times only")
_OPEN = 'AtenRecordFunctionHandle kv_range_ = nullptr; aoti_record_function_start("{name}", nullptr, nullptr, 0, ' \
        "&kv_range_);"
_CLOSE = "aoti_record_function_end(kv_range_);"


def ranged_code(graph: Graph) -> str:
    """The module's code with each launch line of the C++ wrapper inside a named profiler range, and an empty range
    before the first (the profiler's own cost, which the CPU timer takes off each launch)."""
    lines = graph.code.splitlines()
    for launch in graph.launches:
        line = lines[launch.line - 1]
        pad, opened = line[: len(line) - len(line.lstrip())], _OPEN.format(name=f"{LAUNCH_RANGE}{launch.index}")
        empty = f"{{ {_OPEN.format(name=EMPTY_RANGE)} {_CLOSE} }} " if launch.index == 0 else ""
        lines[launch.line - 1] = f"{pad}{empty}{{ {opened} {line.strip()} {_CLOSE} }}"
    return "\n".join(lines) + "\n"


def load_ranged(graph: Graph) -> Callable[[list], Any]:
    """The ``call`` of the graph's module loaded with its launches in named ranges (:func:`ranged_code`)."""
    scope: dict[str, Any] = {"__name__": "kernelviz_cpp_timing"}
    try:
        exec(compile(ranged_code(graph), f"<kernelviz instrumented {graph.id} C++ wrapper>", "exec"), scope)
    except Exception as exc:  # noqa: BLE001 - e.g. a torch whose C shim lacks the profiler ranges
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise NotImplementedError(f"the C++ wrapper with timing ranges does not compile here "
                                  f"({type(exc).__name__}: {first[:200]})") from None
    if not callable(scope.get("call")):
        raise NotImplementedError("the C++ wrapper's module defines no call()")
    return scope["call"]
