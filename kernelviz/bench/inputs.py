"""Inputs for timing: the tensors the cell used while they live, else new ones from the recorded specs."""

from __future__ import annotations

import base64
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


def recreate(graph: Graph, kept: list[Any] | None = None) -> tuple[list[Any], list[str]]:
    """New inputs from the specs (the run's where recorded, else the code's): random floats; integer and
    bool tensors hold the values kept from the run, else zeros for integers (valid as any index) and random
    bits for bools (masks); non-tensor inputs keep their recorded values. Also returns the names of
    integer/bool inputs whose values were made up. ``kept``: by position, device copies of inputs the run
    kept in this process (``recorder.specs``), whose values stand."""
    import torch

    made_up: list[str] = []
    gen = {}  # a private generator per device: the user's RNG state is never touched
    out = []
    host = _host_scalars(graph)
    for spec in graph.inputs:
        if spec.scalar is not None:
            out.append(spec.scalar)
            continue
        device = "cpu" if spec.name in host else spec.device or graph.device
        if device not in gen:
            gen[device] = torch.Generator(device=device).manual_seed(0)
        copy = kept[len(out)] if kept is not None and len(out) < len(kept) else None
        if copy is not None:
            try:
                out.append(_empty(spec, device).copy_(copy))
                continue
            except RuntimeError:  # overlapping strides: made as below, and named if made up
                pass
        out.append(_tensor(spec, device, gen[device], made_up))
    return out, made_up


_HOST_SCALAR_OPS = ("flash_attention", "efficient_attention")


def _host_scalars(graph: Graph) -> set[str]:
    """Inputs the code declares on the GPU that the run passes on the CPU: the philox seed and offset of
    flash and efficient attention (0-d integer tensors the op reads on the host; given a device pointer it
    faults). Where the run recorded an input, its own device stands."""
    specs = {spec.name: spec for spec in graph.inputs if not spec.recorded and spec.shape == []
             and spec.dtype is not None and spec.dtype.startswith(("int", "uint"))}
    return {arg for launch in graph.launches if launch.op and any(op in launch.op for op in _HOST_SCALAR_OPS)
            for arg in launch.args if arg in specs}


def _empty(spec: TensorSpec, device: str) -> Any:
    import torch

    if spec.shape is None or spec.dtype is None:
        raise ValueError(f"input {spec.name}: no dtype/shape recorded, it cannot be recreated")
    try:
        shape, stride = [int(s) for s in spec.shape], [int(s) for s in spec.stride or []]
    except ValueError:
        raise ValueError(f"input {spec.name}: symbolic shape {spec.shape} cannot be recreated") from None
    dtype = getattr(torch, spec.dtype)  # "float32", "bfloat16", ... as torch names them
    return torch.empty_strided(shape, stride, dtype=dtype, device=device)


def _tensor(spec: TensorSpec, device: str, gen: Any, made_up: list[str]) -> Any:
    import torch

    tensor = _empty(spec, device)
    dtype, shape = tensor.dtype, list(tensor.shape)
    if dtype.is_floating_point or dtype.is_complex:
        return tensor.normal_(generator=gen)
    if spec.values is not None:
        try:
            return tensor.copy_(decode(spec.values, dtype, shape))
        except (RuntimeError, ValueError):
            pass  # e.g. overlapping strides: fall back to zeros, and say so
    made_up.append(spec.name)
    if dtype == torch.bool:  # a mask (dropout's, relu's): random bits, as the run's would be
        return tensor.copy_(torch.randint(0, 2, shape, generator=gen, device=device, dtype=torch.uint8).bool())
    return tensor.zero_()


def addresses(graph: Graph, made_up: list[str]) -> list[str]:
    """The made-up inputs that could steer memory accesses: integers (indices, offsets, seeds), not bools
    (a mask selects among values it can already reach)."""
    bools = {spec.name for spec in graph.inputs if spec.dtype == "bool"}
    return [name for name in made_up if name not in bools]


def decode(text: str, dtype: Any, shape: list[int]) -> Any:
    """The tensor ``recorder.specs.encode`` stored (row-major values)."""
    import torch

    raw = bytearray(base64.b64decode(text))
    return torch.frombuffer(raw, dtype=dtype).reshape(shape) if raw else torch.empty(shape, dtype=dtype)
