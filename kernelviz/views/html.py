"""A self-contained HTML report of a capture: inline CSS, no script, no network.

Each section is a function returning a string; every captured string goes through ``escape``
(pygments escapes the highlighted source), so a saved page never runs anything it shows.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from pathlib import Path

from pygments.formatters import HtmlFormatter

from ..model import Capture, Graph, Kernel, Launch
from .highlight import language, runs
from .memory import timeline
from .text import headline, launch_kind, size

_CSS_FILE = Path(__file__).with_name("report.css")


@lru_cache(maxsize=1)
def _css() -> str:
    return _CSS_FILE.read_text() + HtmlFormatter(style="default").get_style_defs(".kv-report .highlight")


def _num(value: float | None, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _row(graph: Graph, launch: Launch) -> str:
    t = launch.timing
    kernel = next((k for k in graph.kernels if k.name == launch.kernel_name), None)
    iso = kernel.timing.isolated_ms if kernel and kernel.timing else None
    name = escape(launch.name)
    if kernel:
        name = f'<a href="#kv-{escape(graph.id)}-{escape(kernel.name)}">{name}</a>'
    cells = [str(launch.index), name, escape(launch_kind(graph, launch)), escape(", ".join(launch.original_aten)),
             escape(", ".join(launch.source_nodes)), escape(kernel.kernel_type or "") if kernel else "",
             _num(t.in_graph_ms if t else None, 4), _num(iso, 4)]
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _launch_table(graph: Graph) -> str:
    head = "".join(f"<th>{h}</th>" for h in ("#", "launch", "kind", "original ATen", "source nodes", "type",
                                            "in-graph ms", "isolated ms"))
    rows = "".join(_row(graph, launch) for launch in graph.launches)
    return f'<table class="kv-table"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _kernel(graph: Graph, kernel: Kernel, source: bool) -> str:
    mapping = "".join(f"<tr><td>{escape(k)}</td><td>{escape(', '.join(v))}</td></tr>"
                      for k, v in kernel.node_mapping.items())
    fragment = "".join(
        "<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in (
            n.name, n.op, n.target, n.dtype or "", f"[{', '.join(n.shape)}]" if n.shape is not None else "",
            f"[{', '.join(n.stride)}]" if n.stride is not None else "", "" if n.users is None else n.users)) + "</tr>"
        for n in kernel.fragment if n.op != "output")
    locations = "".join(f"<li><code>{escape(loc.file)}:{loc.line}</code> <code>{escape(loc.code)}</code></li>"
                        for loc in kernel.locations)
    return (f'<details class="kv-kernel" id="kv-{escape(graph.id)}-{escape(kernel.name)}"><summary><code>'
            f'{escape(kernel.name)}</code> <span class="kv-badge">{escape(kernel.kind)}</span> '
            f'{escape(", ".join(kernel.original_aten))}</summary>'
            f'<p>Source nodes: {escape(", ".join(kernel.source_nodes)) or "-"}</p>'
            + (f"<table class=\"kv-small\"><tr><th>source node</th><th>ATen nodes</th></tr>{mapping}</table>"
               if mapping else "")
            + (f"<p>Your code:</p><ul>{locations}</ul>" if locations else "")
            + (f'<table class="kv-small"><tr><th>node</th><th>op</th><th>target</th><th>dtype</th><th>shape</th>'
               f"<th>stride</th><th>users</th></tr>{fragment}</table>" if fragment else "")
            + (_highlighted(kernel) if source else "") + "</details>")


def _highlighted(kernel: Kernel) -> str:
    """The kernel's source as pygments-classed spans (the same tokens the panel draws), all escaped."""
    spans = "".join(f'<span class="{cls}">{escape(text)}</span>' if cls else escape(text)
                    for cls, text in runs(kernel.source, language(kernel)))
    return f'<div class="highlight"><pre>{spans}</pre></div>'


def _graph(graph: Graph, sources: bool) -> str:
    memory = timeline(graph)
    warnings = "".join(f"<li>{escape(w)}</li>" for w in graph.warnings)
    return (f"<h3>graph {escape(graph.id)} <small>({escape(graph.kind)}, {escape(graph.device)}, "
            f"{len(graph.launches)} launches, peak memory {size(memory.peak)})</small></h3>"
            + (f'<ul class="kv-warnings">{warnings}</ul>' if warnings else "")
            + _launch_table(graph) + "".join(_kernel(graph, k, sources) for k in graph.kernels))


_NO_SOURCES = ("Kernel sources are not in this static view: the kernelviz panel (JupyterLab or Notebook 7 with "
               "kernelviz installed) shows them from the saved output, and <code>cap.save_html(path)</code> writes "
               "the full report.")


def report(capture: Capture, *, sources: bool = True) -> str:
    """The report as an HTML fragment (for a notebook's ``text/html`` output); without ``sources`` the
    kernels' source code is left out (a compact report)."""
    warnings = "".join(f"<li>{escape(w)}</li>" for w in capture.warnings)
    return (f'<div class="kv-report"><style>{_css()}</style><p><b>kernelviz</b> · '
            f"{escape(headline(capture).removeprefix('kernelviz: '))}</p>"
            + (f'<ul class="kv-warnings">{warnings}</ul>' if warnings else "")
            + ("" if sources else f"<p>{_NO_SOURCES}</p>")
            + "".join(_graph(g, sources) for g in capture.graphs) + "</div>")


def page(capture: Capture) -> str:
    """The report as a whole HTML page."""
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>kernelviz report</title></head>'
            f"<body>{report(capture)}</body></html>\n")
