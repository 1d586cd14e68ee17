"""The tensors a graph ran with, handed to the timing process without a copy in this process.

A CUDA tensor goes as CUDA's inter-process handle of its memory (torch's own reduction, as
``torch.multiprocessing`` sends it): the timing process maps the same memory and only reads it, since every input a
run may write is copied there first (:func:`kernelviz.bench.measure.arg_maker`). A CPU tensor, and a CUDA tensor
whose memory CUDA cannot share, is written to a file in the job's folder. Whatever was handed stays alive here until
the timing process is done with it (:class:`Handoff`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Handoff:
    """A graph's inputs written for the timing process: the file it reads (:func:`receive`), what must live here
    until it has read them, and the inputs (by position) it recreates itself from their specs (None)."""

    path: Path
    keep: list[Any] = field(default_factory=list)

    def done(self) -> None:
        self.keep = []


def hand(values: list[Any | None], path: Path) -> Handoff:
    """Write ``values`` (a graph's inputs by position; None: recreate it there) for the timing process."""
    import torch

    handoff = Handoff(path)
    items: list[tuple[str, Any]] = []
    for value in values:
        if isinstance(value, torch.Tensor):
            tensor = value.detach()
            if tensor.is_cuda:
                try:
                    from torch.multiprocessing.reductions import reduce_tensor

                    items.append(("cuda", reduce_tensor(tensor)))
                    handoff.keep.append(tensor)
                    continue
                except (RuntimeError, TypeError):  # memory CUDA cannot share: copied instead
                    items.append(("copy", (tensor.to("cpu"), str(tensor.device))))
                    continue
            items.append(("tensor", tensor))
        else:
            items.append(("value", value))
    torch.save(items, path)
    return handoff


def receive(path: str | Path) -> list[Any]:
    """The inputs :func:`hand` wrote, in the timing process (CUDA memory mapped, copies put back on their device)."""
    import torch

    values: list[Any] = []
    for kind, item in torch.load(path, weights_only=False):
        if kind == "cuda":
            rebuild, args = item
            values.append(rebuild(*args))
        elif kind == "copy":
            tensor, device = item
            values.append(tensor.to(device))
        else:
            values.append(item)
    return values
