"""The grid Inductor's Triton launcher computes for a launch's arguments: its own ``_interpret_args_grid``
(torch 2.11+), or, where that cannot import Triton's interpreter (it needs numpy, which neither torch nor Triton
declares), the same computation from Inductor's ``GridExpr`` over the kernel's non-constexpr parameters."""

from __future__ import annotations

from typing import Any


def launch_grid(kernel: Any, args: tuple) -> tuple[int, int, int] | None:
    """The (x, y, z) grid of a launch of Inductor's ``CachingAutotuner`` ``kernel``, or None where this torch
    does not say (not a Triton kernel, no launcher yet, an Inductor without grid expressions)."""
    launchers = getattr(kernel, "launchers", None)
    interpret = getattr(kernel, "_interpret_args_grid", None)
    if not launchers or interpret is None:
        return None
    config = launchers[0].config
    try:
        grid = interpret(tuple(args), config)[1]
    except ImportError:
        grid = _from_grid_expression(kernel, tuple(args), config)
    except Exception:  # noqa: BLE001 - an unknown grid is left unknown
        return None
    try:
        x, y, z = (int(g) for g in grid)
    except (TypeError, ValueError):
        return None
    return x, y, z


def _from_grid_expression(kernel: Any, args: tuple, config: Any) -> tuple[int, ...] | None:
    try:
        from torch._inductor.runtime.triton_heuristics import GridExpr, triton_version_uses_attrs_dict

        names = list(kernel.triton_meta["signature"])
        if triton_version_uses_attrs_dict():  # constexprs are not passed as arguments
            constexprs = {p.num for p in kernel.fn.params if p.is_constexpr}
            names = [name for i, name in enumerate(names) if i not in constexprs]
        names += list(kernel.inductor_meta.get("extra_launcher_args", ()))
        expression = GridExpr.from_meta(kernel.inductor_meta, config, mode=getattr(kernel, "grid_mode", "python"))
        return expression.eval_slow(dict(zip(names, args)))
    except Exception:  # noqa: BLE001 - guarded use of Inductor internals: unknown stays unknown
        return None
