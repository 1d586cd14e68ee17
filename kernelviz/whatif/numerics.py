"""Outputs compared with the captured graph's: the largest absolute and relative difference, and a verdict against
a tolerance that fits the dtype (a change that keeps a graph's float32 results within 1e-4 computes the same thing;
TF32's matmuls, about 1e-3 relative, do not: the verdict says so)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# dtype -> (atol, rtol): the tolerances torch.compile's own accuracy checks hold each dtype to
TOLERANCES = {"float64": (1e-7, 1e-7), "float32": (1e-4, 1e-4), "float16": (1e-3, 1e-3),
              "bfloat16": (1e-2, 1.6e-2)}


@dataclass
class Compared:
    """Every output compared: the largest differences, the verdict and the tolerance it used, in words."""

    max_abs_diff: float = 0.0
    max_rel_diff: float = 0.0
    same: bool = True
    tolerance: str = ""

    def add(self, other: Compared) -> None:
        self.max_abs_diff = max(self.max_abs_diff, other.max_abs_diff)
        self.max_rel_diff = max(self.max_rel_diff, other.max_rel_diff)
        self.same = self.same and other.same
        self.tolerance = "; ".join(dict.fromkeys(t for t in (self.tolerance, other.tolerance) if t))


def tolerance_text(dtype: str) -> str:
    if dtype not in TOLERANCES:
        return f"exact ({dtype})"
    atol, rtol = TOLERANCES[dtype]
    return f"atol {atol:g}, rtol {rtol:g} ({dtype})"


def compare(outputs: Any, expected: Any) -> Compared:
    """``outputs`` against ``expected`` (sequences of tensors and other values, as the graph returns them)."""
    import torch

    result = Compared()
    for out, ref in zip(_flat(outputs), _flat(expected)):
        if not isinstance(ref, torch.Tensor) or not isinstance(out, torch.Tensor):
            if out != ref and not (out is None or ref is None):
                result.add(Compared(same=False, tolerance="exact (non-tensor outputs)"))
            continue
        dtype = str(ref.dtype).removeprefix("torch.")
        if out.shape != ref.shape:
            result.add(Compared(float("inf"), float("inf"), False, f"shape {list(ref.shape)}"))
            continue
        a, b = out.detach().to("cpu", torch.float64), ref.detach().to("cpu", torch.float64)
        atol, rtol = TOLERANCES.get(dtype, (0.0, 0.0))
        diff = (a - b).abs()
        finite = torch.isfinite(a) & torch.isfinite(b)
        nonfinite_same = bool(((a == b) | finite | (a.isnan() & b.isnan())).all())
        diff = torch.where(finite, diff, torch.zeros_like(diff))
        rel = diff / b.abs().clamp_min(torch.finfo(torch.float64).tiny)
        within = bool((diff <= atol + rtol * b.abs()).all()) and nonfinite_same
        result.add(Compared(float(diff.max()) if diff.numel() else 0.0,
                            float(rel[diff > 0].max()) if bool((diff > 0).any()) else 0.0,
                            within, tolerance_text(dtype)))
    return result


def _flat(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flat(v)]
    return [value]
