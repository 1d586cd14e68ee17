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
from .text import GAP_LABEL, graph_timing, headline, launch_kind, size

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
             _num(t.in_graph_ms if t else None, 4), _num(iso, 4)] + _roofline_cells(t)
    title = f' title="{escape(t.note or t.error or "")}"' if t and (t.note or t.error) else ""
    return f"<tr{title}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _roofline_cells(t) -> list[str]:
    if t is None:
        return ["", "", "", ""]
    gbps = _num(t.gb_per_s, 1) + (" (cache-resident)" if t.cache_resident else "")
    flops = f"{_num(t.pct_peak_flops, 1)} ({escape(t.dtype or '')})" if t.pct_peak_flops is not None else ""
    bound = escape(t.bound or "") if not t.error else f"failed: {escape(t.error)}"
    return [gbps, _num(t.pct_peak_bw, 1), flops, bound]


_HEAD = ("#", "launch", "kind", "original ATen", "source nodes", "type", "in-graph ms", "isolated ms",
         "GB/s in graph", "% peak bw", "% peak FLOP/s", "bound")


def _launch_table(graph: Graph) -> str:
    head = "".join(f"<th>{h}</th>" for h in _HEAD)
    rows = "".join(_row(graph, launch) for launch in graph.launches)
    if graph.gap_ms is not None:
        rows += (f'<tr class="kv-gap"><td></td><td>{escape(GAP_LABEL)}</td>' + "<td></td>" * 4
                 + f"<td>{_num(graph.gap_ms, 4)}</td>" + "<td></td>" * (len(_HEAD) - 7) + "</tr>")
    return f'<table class="kv-table"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _kernel(graph: Graph, kernel: Kernel) -> str:
    mapping = "".join(f"<tr><td>{escape(k)}</td><td>{escape(', '.join(v))}</td></tr>"
                      for k, v in kernel.node_mapping.items())
    fragment = "".join(
        "<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in (
            n.name, n.op, n.target, n.dtype or "", f"[{', '.join(n.shape)}]" if n.shape is not None else "",
            f"[{', '.join(n.stride)}]" if n.stride is not None else "", "" if n.users is None else n.users)) + "</tr>"
        for n in kernel.fragment if n.op != "output")
    locations = "".join(f"<li><code>{escape(loc.file)}:{loc.line}</code> <code>{escape(loc.code)}</code></li>"
                        for loc in kernel.locations)
    source = _highlighted(kernel)
    return (f'<details class="kv-kernel" id="kv-{escape(graph.id)}-{escape(kernel.name)}"><summary><code>'
            f'{escape(kernel.name)}</code> <span class="kv-badge">{escape(kernel.kind)}</span> '
            f'{escape(", ".join(kernel.original_aten))}</summary>'
            f'<p>Source nodes: {escape(", ".join(kernel.source_nodes)) or "-"}</p>'
            + (f"<table class=\"kv-small\"><tr><th>source node</th><th>ATen nodes</th></tr>{mapping}</table>"
               if mapping else "")
            + (f"<p>Your code:</p><ul>{locations}</ul>" if locations else "")
            + (f'<table class="kv-small"><tr><th>node</th><th>op</th><th>target</th><th>dtype</th><th>shape</th>'
               f"<th>stride</th><th>users</th></tr>{fragment}</table>" if fragment else "")
            + f"{source}</details>")


def _highlighted(kernel: Kernel) -> str:
    """The kernel's source as pygments-classed spans (the same tokens the panel draws), all escaped."""
    spans = "".join(f'<span class="{cls}">{escape(text)}</span>' if cls else escape(text)
                    for cls, text in runs(kernel.source, language(kernel)))
    return f'<div class="highlight"><pre>{spans}</pre></div>'


def _graph(graph: Graph) -> str:
    memory = timeline(graph)
    warnings = "".join(f"<li>{escape(w)}</li>" for w in graph.warnings)
    return (f"<h3>graph {escape(graph.id)} <small>({escape(graph.kind)}, {escape(graph.device)}, "
            f"{len(graph.launches)} launches, peak memory {size(memory.peak)})</small></h3>"
            + (f"<p>{escape(graph_timing(graph))}</p>" if graph.timed_on else "")
            + (f'<ul class="kv-warnings">{warnings}</ul>' if warnings else "")
            + _launch_table(graph) + "".join(_kernel(graph, k) for k in graph.kernels))


def report(capture: Capture) -> str:
    """The report as an HTML fragment (for a notebook's ``text/html`` output)."""
    warnings = "".join(f"<li>{escape(w)}</li>" for w in capture.warnings)
    return (f'<div class="kv-report"><style>{_css()}</style><p><b>kernelviz</b> · '
            f"{escape(headline(capture).removeprefix('kernelviz: '))}</p>"
            + (f"<p>% of peak against: {escape(capture.peaks.source)}</p>" if capture.peaks else "")
            + (f'<ul class="kv-warnings">{warnings}</ul>' if warnings else "")
            + "".join(_graph(g) for g in capture.graphs) + "</div>")


def page(capture: Capture) -> str:
    """The report as a whole HTML page."""
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>kernelviz report</title></head>'
            f"<body>{report(capture)}</body></html>\n")
