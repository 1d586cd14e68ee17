"""What the front end reads: the model's JSON plus a ``view`` annex of data derived for display
(pygments tokens, fragment-to-line links, memory timelines). The model ignores the annex on load."""

from __future__ import annotations

from typing import Any

from ..model import Capture
from .highlight import language, tokens
from .hip import hip_view
from .links import kernel_links
from .memory import timeline
from .stages import kernel_extras, strip_stages


def kernel_key(graph_index: int, kernel_name: str) -> str:
    return f"{graph_index}/{kernel_name}"


def view_annex(capture: Capture, *, per_kernel: bool = True) -> dict[str, Any]:
    """Display data for every graph, and with ``per_kernel`` for every kernel (tokens and links);
    the live widget leaves those out and sends them kernel by kernel when one is selected."""
    annex: dict[str, Any] = {"highlight": {}, "links": {}, "memory": {}}
    for g, graph in enumerate(capture.graphs):
        for kernel in graph.kernels if per_kernel else []:
            key = kernel_key(g, kernel.name)
            annex["links"][key] = kernel_links(graph, kernel)
            annex["highlight"][key] = list(tokens(kernel.source, language(kernel)))
            annex.setdefault("deep", {})[key] = kernel_extras(kernel, text=False)
        if per_kernel:
            annex.setdefault("hip", {})[str(g)] = hip_view(graph, text=False)
        line = timeline(graph)
        annex["memory"][str(g)] = {"steps": line.steps, "peak": line.peak, "peak_step": line.peak_step,
                                   "unknown": line.unknown}
    return annex


def payload(capture: Capture, *, per_kernel: bool = True) -> dict[str, Any]:
    """The JSON behind ``application/vnd.kernelviz.v1+json``: the model and its view annex.
    Without ``per_kernel`` (the live widget) the graphs' whole output code is left out too."""
    data = capture.to_dict()
    if not per_kernel:
        for graph in data["graphs"]:
            graph["code"] = ""
        strip_stages(data)
    data["view"] = view_annex(capture, per_kernel=per_kernel)
    return data


def kernel_view(capture: Capture, key: str) -> dict[str, Any]:
    """Tokens and links of one kernel by its ``graph/name`` key (the live widget's lazy request)."""
    g, name = key.split("/", 1)
    graph = capture.graphs[int(g)]
    kernel = graph.kernel(name)
    return {"tokens": list(tokens(kernel.source, language(kernel))), "links": kernel_links(graph, kernel),
            **kernel_extras(kernel)}


def graph_view(capture: Capture, index: str) -> dict[str, Any]:
    """The HIP reading of one graph, by its index (the live widget's lazy request)."""
    return {"hip": hip_view(capture.graphs[int(index)])}
