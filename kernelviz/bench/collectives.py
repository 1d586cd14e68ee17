"""A timed collective's figures: algorithm and bus bandwidth (as nccl-tests defines them), and how long each
``wait_tensor`` stood waiting for its collective.

nccl-tests (doc/PERFORMANCE.md): algbw = S / t with S the message size, and busbw = algbw x a factor that
makes the figure comparable with the links' bandwidth whatever the rank count n: 2(n-1)/n for all-reduce,
(n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast, reduce and point-to-point.
"""

from __future__ import annotations

from typing import Any

from ..model import Collective, Graph

_FACTORS = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather_into_tensor": lambda n: (n - 1) / n,
            "reduce_scatter_tensor": lambda n: (n - 1) / n, "all_to_all_single": lambda n: (n - 1) / n,
            "broadcast": lambda n: 1.0, "isend": lambda n: 1.0, "irecv": lambda n: 1.0}


def bus_factor(op: str, ranks: int) -> float | None:
    """NCCL's bus factor of ``op`` over ``ranks`` ranks (coalesced ops count as their plain op); None for an
    op it does not know, and for one rank (nothing crosses a link: no bus figure rather than 0 GB/s)."""
    base = op.removesuffix("_coalesced")
    if base not in _FACTORS or ranks < 2:
        return None
    return _FACTORS[base](ranks)


def _gb_per_s(nbytes: int, ms: float) -> float:
    return nbytes / (ms / 1e3) / 1e9


def fill(graph: Graph, world_size: int | None) -> None:
    """Bandwidths of the graph's timed collectives: in the graph (the launch's in-graph time) and alone (its
    flushed time, the collective repeated back to back); the group's size is its known ranks or the world."""
    for launch in graph.launches:
        collective, timing = launch.collective, launch.timing
        if collective is None or timing is None or not collective.bytes:
            continue
        n = len(collective.group_ranks) if collective.group_ranks else world_size
        factor = bus_factor(collective.op, n) if n else None
        if timing.in_graph_ms:
            collective.algo_gb_per_s = _gb_per_s(collective.bytes, timing.in_graph_ms)
            collective.bus_gb_per_s = collective.algo_gb_per_s * factor if factor is not None else None
        if timing.flushed_ms and factor is not None:
            collective.alone_bus_gb_per_s = _gb_per_s(collective.bytes, timing.flushed_ms) * factor


def message_size(collective: Collective, args: tuple) -> int | None:
    """The message size of a collective from the tensors it was given (as ``parse.collectives`` counts it
    from the code, but also where sizes are symbolic there)."""
    import torch

    if collective.op == "wait_tensor" or not args:
        return None
    first = args[0]
    tensors = list(first) if isinstance(first, (list, tuple)) else [first]
    if not tensors or not all(isinstance(t, torch.Tensor) for t in tensors):
        return None
    total = sum(t.numel() * t.element_size() for t in tensors)
    if collective.op.startswith("all_gather_into_tensor"):
        n = next((a for a in args[1:] if isinstance(a, int)), None)
        return total * n if n else None
    return total


def waited(result: Any) -> Any:
    """``result`` once its collective is done: functional collectives return before their work ends (NCCL
    runs it on a stream of its own), so a collective timed alone is timed up to its wait."""
    import torch

    for tensor in result if isinstance(result, (list, tuple)) else [result]:
        if isinstance(tensor, torch.Tensor):
            torch.ops._c10d_functional.wait_tensor(tensor)
    return result


def waits(graph: Graph, in_graph: Any) -> None:
    """How long each ``wait_tensor`` stood waiting: on a GPU from the device intervals of each run (see
    ``wait_times``); on the CPU the wall time of the wait itself (the thread blocks in it)."""
    if in_graph.runs:
        wait_times(graph, in_graph.runs)
        return
    for launch in graph.launches:
        if launch.collective is not None and launch.collective.op == "wait_tensor" and launch.timing is not None:
            launch.collective.wait_ms = launch.timing.in_graph_ms


def wait_times(graph: Graph, reps: list[dict[int, list[tuple[int, int]]]]) -> None:
    """How long each ``wait_tensor`` stood waiting, from device intervals (ns) per launch index, one dict per
    repetition: the time from the end of the last work launched before the wait (not a collective) to the end
    of the collective it waits for, where that is later; the mean over repetitions, in ms."""
    collectives = {launch.index for launch in graph.launches if launch.collective is not None}
    for launch in graph.launches:
        collective = launch.collective
        if collective is None or collective.op != "wait_tensor" or collective.waits_on is None:
            continue
        waited = []
        for spans in reps:
            done = max((end for _, end in spans.get(collective.waits_on, [])), default=None)
            work = [end for index, found in spans.items() if index < launch.index and index not in collectives
                    for _, end in found]
            if done is not None and work:
                waited.append(max(0, done - max(work)) / 1e6)
        if waited:
            collective.wait_ms = sum(waited) / len(waited)
