"""What a graph's inputs really were when it ran: device, dtype, shape and stride of each tensor, the
values of small integer/bool tensors (seeds, offsets, indices, masks: they steer control flow and memory)
and of non-tensor inputs (sizes). The code's own specs can be wrong: Inductor's ``get_args()`` declares
the philox seed and offset of efficient attention on ``cuda:0`` where the run passes CPU scalars.

``snapshot`` runs in the capture's call hook, before the graph runs, and does no device sync (it keeps a
device-side copy of the small tensors, and of larger integer tensors up to 256 MB a graph, which stay in this
process for timing here: max-pool offsets, gather indices); ``apply_snapshot`` turns the snapshot into
``TensorSpec`` fields when the capture is built."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from ..model import Graph

MAX_VALUE_BYTES = 64 * 1024  # per tensor
MAX_GRAPH_VALUE_BYTES = 1024 * 1024  # per graph
MAX_LIVE_BYTES = 256 * 1024 * 1024  # per graph: larger integer/bool tensors kept on their device, in this process


@dataclass
class InputSnapshot:
    """One input as the graph received it (``values`` is a copy, converted to bytes in ``apply_snapshot``)."""

    device: str | None = None
    dtype: str | None = None
    shape: list[str] | None = None
    stride: list[str] | None = None
    values: Any = None  # torch.Tensor copy of a small integer/bool tensor
    scalar: int | float | bool | None = None
    live: Any = None  # a device copy of a larger integer/bool tensor (max-pool offsets), for timing in this process


def snapshot(inputs: Any) -> list[InputSnapshot]:
    """Specs of the inputs about to be passed to the graph, with copies of the values that matter."""
    import torch

    out, kept, live = [], 0, 0
    for value in list(inputs):
        if isinstance(value, torch.Tensor):
            snap = InputSnapshot(device=str(value.device), dtype=str(value.dtype).removeprefix("torch."),
                                 shape=[str(s) for s in value.shape], stride=[str(s) for s in value.stride()])
            nbytes = value.numel() * value.element_size()
            if _steers(value) and nbytes <= MAX_VALUE_BYTES and kept + nbytes <= MAX_GRAPH_VALUE_BYTES:
                snap.values = value.detach().clone(memory_format=torch.contiguous_format)
                kept += nbytes
            elif _steers(value) and value.dtype != torch.bool and live + nbytes <= MAX_LIVE_BYTES:
                snap.live = value.detach().clone(memory_format=torch.contiguous_format)
                live += nbytes
        elif isinstance(value, (bool, int, float)):
            snap = InputSnapshot(scalar=value)
        elif isinstance(value, torch.SymInt | torch.SymFloat | torch.SymBool):
            snap = InputSnapshot(scalar=_hint(value))
        else:
            snap = InputSnapshot()
        out.append(snap)
    return out


def _steers(tensor: Any) -> bool:
    """Integer and bool tensors hold seeds, offsets, indices and masks; float tensors hold data."""
    return not (tensor.is_floating_point() or tensor.is_complex())


def _hint(value: Any) -> int | float | bool | None:
    try:
        return type(value.node.hint)(value.node.hint)
    except (AttributeError, TypeError):
        return None


def apply_snapshot(graph: Graph, snapshots: list[InputSnapshot] | None) -> None:
    """Replace the code's specs of ``graph.inputs`` by what the run passed (matched by position)."""
    if not snapshots:
        return
    if len(snapshots) != len(graph.inputs):
        graph.warnings.append(f"the graph ran with {len(snapshots)} inputs but its call() takes "
                              f"{len(graph.inputs)}: input specs are the code's")
        return
    for spec, snap in zip(graph.inputs, snapshots):
        if snap.dtype is None and snap.scalar is None:
            continue
        spec.recorded = True
        if snap.scalar is not None:
            spec.scalar = snap.scalar
            continue
        if spec.shape and not all(size.isdigit() for size in spec.shape):  # a graph compiled with dynamic shapes
            spec.symbols = spec.shape
        spec.device, spec.dtype, spec.shape, spec.stride = snap.device, snap.dtype, snap.shape, snap.stride
        if snap.values is not None:
            spec.values = encode(snap.values)


def encode(tensor: Any) -> str:
    """Base64 of a tensor's raw bytes in row-major order (``inputs.decode`` reads them back)."""
    import torch

    flat = tensor.detach().to("cpu").contiguous().reshape(-1).view(torch.uint8)
    raw = bytearray(flat.numel())
    if raw:  # copied through a tensor over the buffer: torch does not need numpy for this
        torch.frombuffer(raw, dtype=torch.uint8).copy_(flat)
    return base64.b64encode(raw).decode("ascii")
