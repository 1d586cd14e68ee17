"""Inputs for timing: the tensors the cell used while they live, else new ones from the recorded specs."""

from __future__ import annotations

import weakref
from typing import Any

from ..model import Graph, TensorSpec


def live_inputs(recorded: list[Any] | None) -> list[Any] | None:
    """The recorded inputs if every tensor among them is still alive and still holds its memory, else None
    (FSDP2 frees an unsharded parameter's storage after each use while the tensor lives on: a kernel given
    it would read freed memory)."""
    if recorded is None:
        return None
    values = [v() if isinstance(v, weakref.ref) else v for v in recorded]
    return None if any(v is None or not _holds_memory(v) for v in values) else values


def _holds_memory(value: Any) -> bool:
    """Whether a tensor's storage still covers every element it addresses (True for non-tensors)."""
    import torch

    if not isinstance(value, torch.Tensor):
        return True
    try:
        if value.numel() == 0:
            return True
        last = value.storage_offset() + sum((n - 1) * s for n, s in zip(value.shape, value.stride()))
        return value.untyped_storage().nbytes() >= (last + 1) * value.element_size()
    except (RuntimeError, NotImplementedError):  # a tensor without storage (a subclass): not runnable here
        return False


def recreate(graph: Graph, recorded: list[Any] | None) -> list[Any]:
    """New inputs from dtype/shape/stride (random floats; zeros for integers, always valid indices)."""
    plain = [None if isinstance(v, weakref.ref) else v for v in (recorded or [None] * len(graph.inputs))]
    return [_make(spec, plain[i] if i < len(plain) else None, graph.device) for i, spec in enumerate(graph.inputs)]


def _make(spec: TensorSpec, value: Any, device: str) -> Any:
    import torch

    if spec.shape is None or spec.dtype is None:
        if value is None:
            raise ValueError(f"input {spec.name}: neither alive nor recreatable (no dtype/shape recorded)")
        return value
    try:
        shape, stride = [int(s) for s in spec.shape], [int(s) for s in spec.stride or []]
    except ValueError:
        raise ValueError(f"input {spec.name}: symbolic shape {spec.shape} cannot be recreated") from None
    dtype = getattr(torch, spec.dtype)  # "float32", "bfloat16", ... as the code writes them
    dev = spec.device or device
    if dtype.is_floating_point:
        return torch.empty_strided(shape, stride, dtype=dtype, device=dev).normal_()
    return torch.empty_strided(shape, stride, dtype=dtype, device=dev).zero_()
