"""Whether the ranks of a job agree on what a graph does: the same kernels (source with device indices
masked: each rank's code names its own GPU) and the same collectives in the same order. Ranks that issue
different collectives, or the same ones in another order, hang the job or mix up data."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .. import units
from ..model import Collective, Graph

_DEVICE_INDEX = re.compile(r"(index=|cuda:|_DeviceGuard\(|set_device\()\d+")


def describe(c: Collective) -> str:
    """``all_reduce sum 4.0 MB over ranks [0, 1]``."""
    group = f" over ranks {c.group_ranks}" if c.group_ranks else f" on group {c.group!r}" if c.group else ""
    return f"{c.op}{' ' + c.reduce_op if c.reduce_op else ''} {units.size(c.bytes) or '? B'}{group}"


@dataclass
class Shape:
    """What one rank's graph does, as far as agreement goes."""

    kernels: dict[str, str]  # name -> digest of its source with device indices masked
    launches: list[str]
    collectives: list[Collective]  # in order, without the waits
    ops: dict[int, str]  # launch index -> collective op, waits included

    @classmethod
    def of(cls, graph: Graph) -> Shape:
        return cls(kernels={k.name: hashlib.sha1(_DEVICE_INDEX.sub(r"\1#", k.source).encode()).hexdigest()
                            for k in graph.kernels},
                   launches=[launch.name for launch in graph.launches],
                   collectives=[launch.collective for launch in graph.launches
                                if launch.collective is not None and launch.collective.op != "wait_tensor"],
                   ops={launch.index: launch.collective.op for launch in graph.launches if launch.collective})


def _same(a: Collective, b: Collective, rank_a: int, rank_b: int) -> bool:
    """Two ranks' collectives match: same op, reduce op, size and group size; where one rank is in the
    other's group, the very same group."""
    if (a.op, a.reduce_op, a.bytes) != (b.op, b.reduce_op, b.bytes):
        return False
    if a.group_ranks and b.group_ranks:
        if len(a.group_ranks) != len(b.group_ranks):
            return False
        if rank_b in a.group_ranks or rank_a in b.group_ranks:
            return a.group_ranks == b.group_ranks
    return True


def collective_mismatch(graph_id: str, ref: int, a: Shape, rank: int, b: Shape) -> str | None:
    """The first difference in collective order between rank ``ref`` and ``rank``, one line, or None."""
    for i, (x, y) in enumerate(zip(a.collectives, b.collectives)):
        if not _same(x, y, ref, rank):
            return (f"graph {graph_id}: collective {i + 1} is {describe(x)} on rank {ref} but {describe(y)} on "
                    f"rank {rank}: a collective-order mismatch (the job hangs or mixes data)")
    if len(a.collectives) != len(b.collectives):
        return (f"graph {graph_id}: rank {rank} runs {len(b.collectives)} collectives, rank {ref} runs "
                f"{len(a.collectives)}: the extra ones wait forever for their peers (the job hangs)")
    return None


def kernel_mismatch(graph_id: str, ref: int, a: Shape, rank: int, b: Shape) -> str | None:
    """The first difference in kernels or launches between rank ``ref`` and ``rank``, one line, or None."""
    only = sorted(set(b.kernels) - set(a.kernels)) or sorted(set(a.kernels) - set(b.kernels))
    if only:
        holder, other = (rank, ref) if only[0] in b.kernels else (ref, rank)
        return f"graph {graph_id}: rank {holder} has kernel {only[0]} that rank {other} lacks"
    changed = next((name for name in a.kernels if a.kernels[name] != b.kernels[name]), None)
    if changed:
        return f"graph {graph_id}: kernel {changed} has different source on rank {ref} and rank {rank}"
    for i, (x, y) in enumerate(zip(a.launches, b.launches)):
        if x != y:
            return f"graph {graph_id}: launch {i} of call() is {x} on rank {ref} but {y} on rank {rank}"
    if len(a.launches) != len(b.launches):
        return (f"graph {graph_id}: call() makes {len(a.launches)} launches on rank {ref}, "
                f"{len(b.launches)} on rank {rank}")
    return None
