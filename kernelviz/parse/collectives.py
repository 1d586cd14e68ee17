"""Collectives among ``call()``'s launches: Inductor writes torch.distributed's functional collectives as
extern calls, e.g. ``torch.ops._c10d_functional.all_reduce_.default(buf1, 'sum', '0')`` then
``torch.ops._c10d_functional.wait_tensor.default(buf1)``. Their schemas put the group's name last and the
reduce op first among the strings (``all_reduce(Tensor input, str reduce_op, str group_name)``,
``all_gather_into_tensor(Tensor input, int group_size, str group_name)``, ``reduce_scatter_tensor(Tensor
input, str reduce_op, int group_size, str group_name)``, ``wait_tensor(Tensor tensor)``)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ..model import Collective, Launch
from .numbers import integer, written_as_number

NAMESPACES = ("_c10d_functional.", "_c10d_functional_autograd.", "c10d_functional.")
_QUOTED = re.compile(r"""^(['"])(.*)\1$""")
_IDENT = re.compile(r"[A-Za-z_]\w*")
_REDUCING = ("all_reduce", "reduce_scatter")
_GATHERS = ("all_gather_into_tensor",)


def collective_op(op: str | None) -> str | None:
    """``all_reduce`` for ``_c10d_functional.all_reduce_.default``; None for anything else."""
    if not op or not op.startswith(NAMESPACES):
        return None
    name = op.split(".")[1]
    for suffix in ("_out", "_"):
        name = name.removesuffix(suffix)
    return name


def _string(arg: str) -> str | None:
    m = _QUOTED.match(arg.strip())
    return m.group(2) if m else None


def read_collective(launch: Launch) -> Collective | None:
    """The collective a launch runs, from its op and argument text (sizes come later, see ``message_bytes``)."""
    op = collective_op(launch.op)
    if op is None:
        return None
    positional = [a for a in launch.args if not re.match(r"^\w+=", a)]
    strings = [s for s in (_string(a) for a in positional) if s is not None]
    collective = Collective(op=op)
    if op != "wait_tensor" and strings:
        collective.group = strings[-1]
        if op.startswith(_REDUCING) and len(strings) > 1:
            collective.reduce_op = strings[0]
    return collective


def group_size_arg(launch: Launch) -> int | None:
    """The ``group_size`` a gather or scatter passes (the first argument written as a number; a one-line
    :class:`ParseError` where that is not an integer as Inductor writes one)."""
    for arg in launch.args:
        if written_as_number(arg):
            return integer(arg, f"line {launch.line}: the group size of {launch.op}")
    return None


def message_bytes(launch: Launch, nbytes: Callable[[str], int | None]) -> int | None:
    """The collective's message size as nccl-tests counts it, from the sizes of its input buffers
    (``nbytes(name)``): the gathered output for an all-gather, the input otherwise."""
    collective = launch.collective
    if collective is None or collective.op == "wait_tensor" or not launch.args:
        return None
    names = [n for n in _IDENT.findall(launch.args[0]) if n not in ("None", "True", "False")]
    sizes = [nbytes(n) for n in names]
    if not sizes or any(s is None for s in sizes):
        return None
    total = sum(sizes)
    if collective.op.startswith(_GATHERS):
        n = group_size_arg(launch)
        return total * n if n else None
    return total
