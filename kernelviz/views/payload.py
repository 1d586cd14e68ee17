"""What the front end reads: the model's JSON plus a ``view`` annex of data derived for display
(pygments tokens, fragment-to-line links, memory timelines). The model ignores the annex on load."""

from __future__ import annotations

from typing import Any

from ..model import Capture
from .highlight import language, tokens
from .links import kernel_links
from .memory import timeline


def kernel_key(graph_index: int, kernel_name: str) -> str:
    return f"{graph_index}/{kernel_name}"


def view_annex(capture: Capture, *, highlight: bool = True) -> dict[str, Any]:
    """Display data for every kernel and graph; ``highlight=False`` leaves the tokens out (the live
    widget asks for them kernel by kernel)."""
    annex: dict[str, Any] = {"highlight": {}, "language": {}, "links": {}, "memory": {}}
    for g, graph in enumerate(capture.graphs):
        for kernel in graph.kernels:
            key = kernel_key(g, kernel.name)
            annex["language"][key] = language(kernel)
            annex["links"][key] = kernel_links(graph, kernel)
            if highlight:
                annex["highlight"][key] = list(tokens(kernel.source, language(kernel)))
        line = timeline(graph)
        annex["memory"][str(g)] = {"steps": line.steps, "peak": line.peak, "peak_step": line.peak_step,
                                   "unknown": line.unknown}
    return annex


def payload(capture: Capture, *, highlight: bool = True) -> dict[str, Any]:
    """The JSON behind ``application/vnd.kernelviz.v1+json``: the model and its view annex."""
    data = capture.to_dict()
    data["view"] = view_annex(capture, highlight=highlight)
    return data


def kernel_tokens(capture: Capture, key: str) -> list:
    """Tokens of one kernel by its ``graph/name`` key (the live widget's lazy request)."""
    g, name = key.split("/", 1)
    kernel = capture.graphs[int(g)].kernel(name)
    return list(tokens(kernel.source, language(kernel)))
