"""Which source lines of a kernel compute each node of its graph fragment (best effort).

Inductor does not record this per line, so the link is made from what both sides name: a
placeholder is linked to the loads and stores of the kernel parameter its buffer is passed as,
a compute node to the lines that call its operation (``rsqrt`` -> ``libdevice.rsqrt``, ``add`` ->
``+``), and each line to the nodes it was linked from.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate

from ..model import Graph, Kernel

_ALIASES = {
    "add": [r"tmp\d+\)? \+ "], "sub": [r"tmp\d+\)? - "], "mul": [r"tmp\d+\)? \* "], "div": [r"tmp\d+\)? / "],
    "relu": [r"maximum", r"max\("],
    "convert_element_type": [r"\.to\(", r"convert<", r"static_cast<"], "where": [r"where"],
    "var_mean": [r"welford", r"sum\(", r"tmp_acc"], "mean": [r"sum\(", r"tmp_acc"],
    "sum": [r"sum\(", r"tmp_acc"], "amax": [r"max2", r"max_propagate_nan", r"tmp_acc"],
    "exp": [r"exp\("], "rsqrt": [r"rsqrt"], "sqrt": [r"sqrt"], "tanh": [r"tanh"], "erf": [r"erf"],
    "sigmoid": [r"sigmoid", r"exp\("], "gelu": [r"erf", r"tanh"], "neg": [r"-tmp"],
    "full": [r"tl\.full", r"static_cast<"], "max_pool2d_with_indices": [r"maximum", r"max"],
}


_COMPUTE = re.compile(r"^\s*(?:auto )?(?:tmp\d+|tmp_acc\d+\w*) =|\.store\(")
_ACCESS = re.compile(r"tl\.load\(|loadu\(|\.store\(|\[static_cast|ptr\d+\[")


def _op(target: str) -> str:
    """``torch.ops.aten.rsqrt.default`` -> ``rsqrt``."""
    parts = target.split(".")
    if len(parts) >= 2 and parts[-1] in ("default", "Tensor", "Scalar", "correction", "dim_IntList", "int",
                                         "self", "dim", "out"):
        parts = parts[:-1]
    return parts[-1] if parts else target


def kernel_links(graph: Graph, kernel: Kernel) -> dict[str, list[int]]:
    """Fragment node name -> 1-based source lines of ``kernel`` that it is linked to."""
    lines = kernel.source.splitlines()
    params = kernel.params()
    launch = next((launch for launch in graph.launches if launch.kernel_name == kernel.name), None)
    arg_of = {}
    if launch is not None:
        for i, arg in enumerate(launch.args):
            name = re.match(r"(?:reinterpret_tensor\()?(\w+)", arg)
            if name and i < len(params):
                arg_of.setdefault(name.group(1), []).append(params[i])
    body_start = next((i + 1 for i, line in enumerate(lines) if line.startswith(("def ", 'extern "C"'))), 0)
    body = list(enumerate(lines[body_start:], start=body_start + 1))
    # each pattern only where what it needs is in the line (a substring test spares most lines the regex)
    compute = _Lines([(n, line) for n, line in body
                      if ("tmp" in line or ".store(" in line) and _COMPUTE.search(line)])
    access = _Lines([(n, line) for n, line in body
                     if ("load" in line or ".store(" in line or "[" in line) and _ACCESS.search(line)])
    links: dict[str, list[int]] = {}
    for node in kernel.fragment_nodes():
        if node.op == "placeholder":
            names = "|".join(map(re.escape, arg_of.get(node.name, [])))
            pattern = re.compile(rf"\b(?:{names})\b") if names else None
            candidates = access
        elif node.op == "call_function":
            pattern, candidates = _pattern(_op(node.target)), compute
        else:
            continue
        found = candidates.matching(pattern) if pattern is not None else []
        if found:
            links[node.name] = found
    return links


class _Lines:
    """Numbered lines searched as one text (a pattern scans them once, not once a line)."""

    def __init__(self, numbered: list[tuple[int, str]]):
        self.numbers = [n for n, _ in numbered]
        self.text = "\n".join(line for _, line in numbered)
        self.ends = list(accumulate(len(line) + 1 for _, line in numbered))  # past each line's newline

    def matching(self, pattern: re.Pattern) -> list[int]:
        """The numbers of the lines ``pattern`` finds something in, in order, each once (no pattern here
        matches across a newline)."""
        found: list[int] = []
        search, at = pattern.search, 0
        while (m := search(self.text, at)) is not None:
            i = bisect_right(self.ends, m.start())
            found.append(self.numbers[i])
            at = self.ends[i]  # on from the next line
        return found


@lru_cache(maxsize=512)
def _pattern(op: str) -> re.Pattern:
    return re.compile("|".join(_ALIASES.get(op, [rf"\b{re.escape(op)}\b"])))
