"""Where a capture sits in a torch.distributed job: rank, world size, host, device, backend, and the
global ranks of each process group its collectives name."""

from __future__ import annotations

import socket
from typing import Any

from ..model import Graph


def initialized() -> bool:
    try:
        import torch.distributed as dist
    except ImportError:
        return False
    return dist.is_available() and dist.is_initialized()


def job() -> dict[str, Any]:
    """The Capture fields of this process's place in the job (empty outside a torch.distributed job)."""
    import torch

    if not initialized():
        return {}
    import torch.distributed as dist

    device = f"cuda:{torch.cuda.current_device()}" if torch.cuda.is_available() else "cpu"
    try:
        backend = str(dist.get_backend())
    except (RuntimeError, ValueError):
        backend = None
    return {"rank": dist.get_rank(), "world_size": dist.get_world_size(), "host": socket.gethostname(),
            "device": device, "backend": backend}


def group_ranks(name: str) -> list[int] | None:
    """The global ranks of the process group that functional collectives call ``name`` (None if unknown)."""
    try:
        import torch.distributed as dist
        from torch.distributed.distributed_c10d import _resolve_process_group

        return sorted(int(r) for r in dist.get_process_group_ranks(_resolve_process_group(name)))
    except Exception:  # noqa: BLE001 - a name this torch cannot resolve (or a group already destroyed)
        return None


def resolve_groups(graphs: list[Graph]) -> None:
    """Fill each collective's ``group_ranks`` from its group's name."""
    if not initialized():
        return
    known: dict[str, list[int] | None] = {}
    for graph in graphs:
        for launch in graph.launches:
            collective = launch.collective
            if collective is not None and collective.group is not None:
                if collective.group not in known:
                    known[collective.group] = group_ranks(collective.group)
                collective.group_ranks = known[collective.group]
