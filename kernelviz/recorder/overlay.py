"""Turn what the hooks saw into the model: parse each module's code, then lay Inductor's own
per-kernel metadata (from the compile) over what the code's comments say."""

from __future__ import annotations

import functools
import os
import re

from ..model import Graph, Kernel, SourceLocation
from ..parse import NO_SOURCE, parse_graph
from ..parse.comments import parse_origin
from ..parse.kernels import read_triton
from .store import KernelRecord

FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\n(?:    (.*))?')  # a frame of a Python traceback
_MAX_LOCATIONS = 20
_UNKNOWN = {
    "reused": "compiled before the capture started, outside a capture",
    "fx_cache_hit": "loaded from a cache entry without kernelviz metadata that kernelviz could not regenerate",
}


def build_graph(code: str, records: list[KernelRecord] | None, cache: str,
                lines: tuple[list[list[str] | None], str] | None = None, graph_id: str | None = None) -> Graph:
    """The graph model of one compiled module, with Inductor's metadata of its compile where known;
    ``lines``: this run's stack traces per record (None where unknown) and why they are unknown
    (by default the records' own); ``graph_id`` where the code does not name its graph (a C++ wrapper)."""
    return overlay(parse_graph(code, graph_id), records, cache, lines)


def overlay(graph: Graph, records: list[KernelRecord] | None, cache: str,
            lines: tuple[list[list[str] | None], str] | None = None) -> Graph:
    """:func:`build_graph` of a graph already read (from a module's code, or from an AOTInductor package)."""
    graph.cache = cache
    if records is None:
        if any(k.metadata_from == "none" for k in graph.kernels):
            graph.warnings.append(f"{_UNKNOWN.get(cache, cache)}: the metadata of kernels without comments "
                                  "(C++ kernels) is unknown; after torch._dynamo.reset(), a capture of it regenerates "
                                  "only this graph's code")
        return graph
    stacks, why = lines if lines is not None else ([r.stack_traces for r in records], "")
    by_name: dict[str, tuple[KernelRecord, list[str] | None]] = {}
    for record, traces in zip(records, stacks):
        by_name.setdefault(record.name, (record, traces))
    for kernel in graph.kernels:
        if kernel.name in by_name:
            _apply(kernel, *by_name[kernel.name], why)
            if not kernel.source and by_name[kernel.name][0].source:  # a C++ wrapper's binary-only Triton kernel
                kernel.source = by_name[kernel.name][0].source
                read_triton(kernel)
                said = f"kernel {kernel.name}: {NO_SOURCE}"
                graph.warnings = [w for w in graph.warnings if w != said]  # an AOTInductor package's says none
    _fill_launches(graph, records)
    return graph


def _apply(kernel: Kernel, record: KernelRecord, traces: list[str] | None, why: str) -> None:
    origin = _origin(record.metadata + "\n" + record.detail)
    kernel.source_nodes, kernel.original_aten = origin.source_nodes, origin.original_aten
    kernel.node_mapping, kernel.fragment = origin.node_mapping, origin.fragment
    kernel.metadata_from = "inductor"
    kernel.locations = locations(traces or [])
    kernel.locations_unknown = why if traces is None else ""


def _fill_launches(graph: Graph, records: list[KernelRecord]) -> None:
    """Launches without a comment (C++ kernels) take the metadata of their define_kernel call, in order."""
    queue = list(records)
    for launch in graph.launches:
        if launch.kernel_name is None:
            continue
        match = next((r for r in queue if r.name == launch.kernel_name), None)
        if match is None:
            continue
        queue.remove(match)
        if not launch.source_nodes:
            origin = _origin(match.metadata)
            launch.source_nodes, launch.original_aten = origin.source_nodes, origin.original_aten


def _origin(metadata: str):
    """Inductor's metadata comment of a kernel, written with ``#`` (Python wrapper) or ``//`` (C++ wrapper)."""
    return parse_origin(metadata.splitlines(), "//" if metadata.lstrip().startswith("//") else "#")


@functools.cache
def torch_dir() -> str:
    """torch's package directory, with a trailing separator: its files are torch's code, not the user's."""
    import torch

    return os.path.dirname(torch.__file__) + os.sep


def locations(stack_traces: list[str]) -> list[SourceLocation]:
    """The user's lines in FX stack traces: per trace, its innermost frame outside the torch package."""
    found: list[SourceLocation] = []
    seen = set()
    for trace in stack_traces:
        frames = FRAME.findall(trace)
        if not frames:
            continue
        user = [f for f in frames if not f[0].startswith(torch_dir())] or frames
        file, line, function, code = user[-1]
        key = (file, int(line))
        if key not in seen:
            seen.add(key)
            found.append(SourceLocation(file=file, line=int(line), function=function, code=code.strip()))
        if len(found) >= _MAX_LOCATIONS:
            break
    return found
