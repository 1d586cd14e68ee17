"""Inductor's fusion decisions, as its ``fusion`` log tells them, read without printing anything.

The log's two kinds of record are read where Inductor emits them: ``WhyNoFuse.__call__`` (the refusal
``cannot fuse op1 with op3: <reason>``, which is the record the log prints) and ``fuse_two_nodes``
(``fusing op1 with op2``). The logger itself is left as it is: turned on at DEBUG it would also make
the scheduler format every candidate node in every fusion round. Each decision is kept per
``GraphLowering`` until its code is known; then its scheduler nodes are named by their FX nodes, and
by the kernels they ended in (the ``ops`` of each ``define_kernel`` record).
"""

from __future__ import annotations

import weakref
from typing import Any

from ..model import FusionDecision
from ..patches import Patches
from . import routing

MAX_DECISIONS = 2000  # per graph: the rest is dropped (a graph of thousands of nodes refuses many pairs)


class _Pending:
    """The decisions of one graph being scheduled: op names of each side, kept until the kernels are known."""

    def __init__(self) -> None:
        self.seen: set[tuple] = set()
        self.decisions: list[tuple[list[str], list[str], FusionDecision]] = []


_pending: weakref.WeakKeyDictionary[Any, _Pending] = weakref.WeakKeyDictionary()  # GraphLowering -> its decisions


def current_graph() -> Any:
    """The GraphLowering Inductor is lowering in this thread, if any."""
    from torch._inductor.virtualized import V

    try:
        return V.graph
    except (AssertionError, AttributeError):
        return None


def _nodes(scheduler: Any, name: str) -> list[Any]:
    """The scheduler nodes a (possibly fused: ``op1_op2``) node name stands for."""
    by_name = getattr(scheduler, "name_to_node", {})
    return [by_name[part] for part in name.split("_") if part in by_name]


def _origins(nodes: list[Any]) -> list[str]:
    names = {o.name for n in nodes for o in (getattr(getattr(n, "node", None), "origins", None) or ())}
    return sorted(names)


def _bytes_between(first: list[Any], second: list[Any]) -> int | None:
    """Bytes of the buffers that ``first`` writes and ``second`` reads (None where a size is symbolic)."""
    written = {buf.get_name(): buf for n in first for buf in n.get_outputs()}
    read = {dep.name for n in second for dep in n.read_writes.reads}
    total = 0
    for name in sorted(written.keys() & read):
        layout = written[name].node.get_layout()
        numel = 1
        for size in layout.size:
            if not getattr(size, "is_number", isinstance(size, int)):
                return None  # symbolic
            numel *= int(size)
        total += numel * layout.dtype.itemsize
    return total


def _record(name1: str, name2: str, fused: bool, reason: str) -> None:
    graph = current_graph()
    scheduler = getattr(graph, "scheduler", None)
    if graph is None or scheduler is None:
        return
    with routing.lock:
        pending = _pending.setdefault(graph, _Pending())
    key = (name1, name2, fused, reason)
    if key in pending.seen or len(pending.decisions) >= MAX_DECISIONS:
        return
    pending.seen.add(key)
    first, second = _nodes(scheduler, name1), _nodes(scheduler, name2)
    try:
        size = _bytes_between(first, second)
    except (AttributeError, TypeError, ValueError, NotImplementedError):
        size = None
    decision = FusionDecision(_origins(first), _origins(second), fused, reason, bytes=size)
    pending.decisions.append(([n.get_name() for n in first], [n.get_name() for n in second], decision))


def take(graph: Any, kernels: dict[str, str]) -> list[FusionDecision]:
    """The decisions made for ``graph`` (a GraphLowering), in order, each side named by the kernel its ops
    ended in (``kernels``: op name -> kernel name)."""
    with routing.lock:
        pending = _pending.pop(graph, None)
    out = []
    for ops1, ops2, decision in pending.decisions if pending else []:
        decision.first_kernel = next((kernels[o] for o in ops1 if o in kernels), None)
        decision.second_kernel = next((kernels[o] for o in ops2 if o in kernels), None)
        out.append(decision)
    return out


def install(patches: Patches) -> None:
    """Read each refusal and each fusion of Inductor's scheduler, undone with ``patches``."""

    def why(original):
        def wrapper(self, reason, *args):
            original(self, reason, *args)
            routing.safely(lambda: _record(self.name1, self.name2, False, _said(reason, args)))

        return wrapper

    def fuse_two_nodes(original):
        def wrapper(self, node1, node2, *args, **kwargs):
            routing.safely(lambda: _record(node1.get_name(), node2.get_name(), True, ""))
            return original(self, node1, node2, *args, **kwargs)

        return wrapper

    patches.wrap("torch._inductor.scheduler", "WhyNoFuse", "__call__", why)
    from torch._inductor.scheduler import Scheduler

    if hasattr(Scheduler, "fuse_two_nodes"):  # where it is a method (older torch: a local function, fusions unread)
        patches.wrap("torch._inductor.scheduler", "Scheduler", "fuse_two_nodes", fuse_two_nodes)


def _said(reason: Any, args: tuple) -> str:
    try:
        return str(reason) % args if args else str(reason)
    except (TypeError, ValueError):
        return " ".join(map(str, (reason, *args)))
