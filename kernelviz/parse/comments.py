"""Parse the metadata comments Inductor writes above kernels and launches.

The same text is what ``torch._inductor.utils.get_kernel_metadata`` returns, so live captures
feed Inductor's own metadata through this parser too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import FragmentNode

_HEADER = re.compile(r"^(Topologically Sorted|Unsorted) Source Nodes: \[(.*)\], Original ATen: \[(.*)\]$")
_MAPPING = re.compile(r"^(\S+) => (.*)$")
# %name : Tensor "dtype[shape][stride]device"[num_users=N] = op[target=...](args): one regex for it all
_FRAGMENT = re.compile(r'^%(\w+) : (?:Tensor "(\w+)\[([^\]]*)\]\[([^\]]*)\]([^"]*)")?(.*?) = (\w+)\[target=(.*?)\]'
                       r"(?:\((.*)\))?$")
_USERS = re.compile(r"\[num_users=(\d+)\]")
_RETURN = re.compile(r"^return (.*)$")


@dataclass
class Origin:
    """Origin metadata of a kernel or launch, as parsed from Inductor's comments."""

    source_nodes: list[str] = field(default_factory=list)
    original_aten: list[str] = field(default_factory=list)
    node_mapping: dict[str, list[str]] = field(default_factory=dict)
    fragment: list[FragmentNode] = field(default_factory=list)
    path: str | None = None
    found: bool = False  # a "Source Nodes" header was present


def _names(text: str) -> list[str]:
    """The items of a comma-separated list, stripped, empty ones left out."""
    names, rest = text.split(", "), text.replace(", ", "")
    if " " in rest or "," in rest or "" in names:  # not plainly "a, b, c": the general way
        return [n for n in map(str.strip, text.split(",")) if n]
    return names


def parse_origin(lines: list[str], comment: str = "#") -> Origin:
    """Parse comment lines (with their ``#`` or ``//`` marker) into an :class:`Origin`."""
    origin = Origin()
    section = None
    for raw in lines:
        text = raw.strip()
        if not text.startswith(comment):
            continue
        line = text[len(comment):].strip()
        if section == "fragment" and line.startswith("%"):  # most lines: the graph fragment's nodes
            origin.fragment.append(parse_fragment_line(line))
        elif line.startswith("kernel path:"):
            origin.path = line.split(":", 1)[1].strip()
        elif m := _HEADER.match(line):
            origin.found = True
            origin.source_nodes, origin.original_aten = _names(m.group(2)), _names(m.group(3))
            section = None
        elif line == "Source node to ATen node mapping:":
            section = "mapping"
        elif line == "Graph fragment:":
            section = "fragment"
        elif section == "mapping" and (m := _MAPPING.match(line)):
            origin.node_mapping[m.group(1)] = _names(m.group(2))
        elif section == "fragment" and line:
            origin.fragment.append(parse_fragment_line(line))
    return origin


def parse_fragment_line(line: str) -> FragmentNode:
    """One ``%name : Tensor "f32[8, 64][64, 1]cpu"[num_users=2] = op[target=...](args = ...)`` line."""
    m = _FRAGMENT.match(line)
    if not m:
        if r := _RETURN.match(line):
            return FragmentNode(name="output", op="output", args=r.group(1))
        return FragmentNode(name="?", op="unknown", text=line)
    name, dtype, shape, stride, device, rest, op, target, args = m.groups()
    users = _USERS.search(rest) if "num_users" in rest else None
    tensor = dtype is not None
    return FragmentNode(name=name, op="placeholder" if op == "PlaceHolder" else op, target=target, dtype=dtype,
                        shape=_names(shape) if tensor else None, stride=_names(stride) if tensor else None,
                        device=device or None, users=int(users.group(1)) if users else None, args=args or "")
