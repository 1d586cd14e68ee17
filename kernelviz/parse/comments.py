"""Parse the metadata comments Inductor writes above kernels and launches.

The same text is what ``torch._inductor.utils.get_kernel_metadata`` returns, so live captures
feed Inductor's own metadata through this parser too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import split_list

_HEADER = re.compile(r"^(Topologically Sorted|Unsorted) Source Nodes: \[(.*)\], Original ATen: \[(.*)\]$")
_MAPPING = re.compile(r"^(\S+) => (.*)$")


@dataclass
class Origin:
    """Origin metadata of a kernel or launch, as parsed from Inductor's comments."""

    source_nodes: list[str] = field(default_factory=list)
    original_aten: list[str] = field(default_factory=list)
    node_mapping: dict[str, list[str]] = field(default_factory=dict)
    fragment: list[str] = field(default_factory=list)  # the graph fragment's lines (Kernel.fragment)
    path: str | None = None
    found: bool = False  # a "Source Nodes" header was present


def parse_origin(lines: list[str], comment: str = "#") -> Origin:
    """Parse comment lines (with their ``#`` or ``//`` marker) into an :class:`Origin`."""
    origin = Origin()
    section = None
    lines = _without_fragment(lines, comment, origin)
    for raw in lines:
        text = raw.strip()
        if not text.startswith(comment):
            continue
        line = text[len(comment):].strip()
        if section == "fragment" and line.startswith("%"):  # most lines: the graph fragment's nodes
            origin.fragment.append(line)
        elif line.startswith("kernel path:"):
            origin.path = line.split(":", 1)[1].strip()
        elif m := _HEADER.match(line):
            origin.found = True
            origin.source_nodes, origin.original_aten = split_list(m.group(2)), split_list(m.group(3))
            section = None
        elif line == "Source node to ATen node mapping:":
            section = "mapping"
        elif line == "Graph fragment:":
            section = "fragment"
        elif section == "mapping" and (m := _MAPPING.match(line)):
            origin.node_mapping[m.group(1)] = split_list(m.group(2))
        elif section == "fragment" and line:
            origin.fragment.append(line)
    return origin



def _without_fragment(lines: list[str], comment: str, origin: Origin) -> list[str]:
    """The lines before the graph fragment, its lines put in ``origin`` in one pass, where the fragment ends
    the comment as Inductor writes it: a node or ``return`` per line (else ``lines``, for the general way)."""
    title = f"{comment} Graph fragment:"
    if title not in lines:
        return lines
    at = lines.index(title)
    if any("Graph fragment:" in line for line in lines[:at]):  # a title written otherwise before it
        return lines
    contents = [raw[len(comment):].strip() if raw.startswith(comment) else None for raw in lines[at + 1 :]]
    if None in contents or not all(c[:1] == "%" or c.startswith("return ") or not c for c in contents):
        return lines
    origin.fragment = [c for c in contents if c]
    return lines[:at]
