"""A self-contained HTML report of a capture: inline CSS and SVG, no script, no network.

The report has the panel's parts: the header (device, versions, what the cell compiled, dynamo's events),
and per graph its roofline and call() timeline, the launch table with the panel's columns, the wrapper's
steps with the memory live after each, and every kernel (metadata and source) in a ``<details>`` that a
link from its row opens. Each section is a function returning a string; every captured string goes
through ``escape`` (pygments escapes the highlighted source), so a saved page never runs anything it shows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape
from pathlib import Path

from pygments.formatters import HtmlFormatter

from .. import units
from ..figures import positive, shown, valid
from ..model import Advice, Capture, DevicePeaks, Graph, Kernel, Launch, SourceLocation
from ..names import column_level, short_name
from .charts import roofline_svg, timeline_svg
from .counters_html import counters_section
from .findings import TOP, as_run_line, findings, html_list
from .highlight import language, runs, wrapper_language
from .memory import timeline
from .nodes import node_ops, shown_nodes
from .rules import busy_label, dynamic_sizes, heaviest_kept, kernel_of, launch_kind, peaks_known, rate, roof
from .stages import STAGE_TITLE
from .text import compile_story, dynamo_lines, headline, package_line, plural, timed_on
from .whatif import NOTE, rows
from .why import Sweep, cudagraph_lines, pool_line, sweep

_CSS_FILE = Path(__file__).with_name("report.css")


@lru_cache(maxsize=2)
def _css(highlight: bool = True) -> str:
    """The report's styles, comments and runs of white space left out; with ``highlight`` pygments' too (5.6 KB: a
    report without sources needs none)."""
    pygments = HtmlFormatter(style="default").get_style_defs(".kv-report .highlight") if highlight else ""
    return re.sub(r"\s+", " ", re.sub(r"/\*.*?\*/", "", _CSS_FILE.read_text() + pygments, flags=re.S)).strip()


def _num(value: float | None, digits: int, unit: str = "") -> str:
    return shown(value, unit, f".{digits}f")


def _anchor(graph: Graph, kernel: Kernel) -> str:
    return f"kv-{escape(graph.id)}-{escape(kernel.name)}"


def _cell(text: str, cls: str = "", title: str | None = None) -> str:
    """A table cell; with a ``title`` (the full text) its content is clipped with an ellipsis."""
    if title is not None:
        return f'<td class="{cls}" title="{escape(title)}"><span class="kv-clip">{text}</span></td>'
    return f'<td class="{cls}">{text}</td>' if cls else f"<td>{text}</td>"


_NAME_CHARS = 40  # a launch's name in the report: what it computes in this many characters (names.py)
# (key, header): each column's class is kv-c-<key> (report.css drops the least needed ones where the report is narrow)
_COLUMNS = (("index", "#"), ("name", "launch"), ("kind", "kind"), ("ms", "in-graph ms"), ("share", "share"),
            ("iso", "isolated ms"), ("rate", "achieved"), ("pct", "% roof"), ("bound", "bound"), ("bytes", "bytes"),
            ("aten", "original ATen"), ("nodes", "source nodes"))
_ALWAYS = {"index", "name", "kind"}  # every other column is left out where no launch shown has a figure in it


def _rate(launch: Launch) -> str:
    r = rate(launch)
    if r is None:
        return ""
    return shown(r.value, r.unit) + (" cache-resident" if r.cache_resident and valid(r.value) else "")


def _roof(launch: Launch, known: bool) -> str:
    f = roof(launch, known)
    if f is None:
        return ""
    return f"{f.pct:.1f}%" + (f" {f.tag}" if f.tag else "") if valid(f.pct) else shown(f.pct, "%")


def _share(share: float | None) -> str:
    if share is None:
        return _cell("", "kv-num")
    if not valid(share):
        return _cell(escape(shown(share)), "kv-num kv-share")
    pct = min(100.0, 100 * share)
    bar = f'<span class="kv-bar" style="width:calc((100% - 4em) * {pct / 100:.3f})"></span>'
    return _cell(f"{bar}{pct:.1f}%", "kv-num kv-share")


def _cells(graph: Graph, launch: Launch, known: bool, level: int, links: bool = True) -> dict[str, tuple[str, bool]]:
    """A launch's cells by column key, each with whether it holds something."""
    t = launch.timing
    kernel = kernel_of(graph, launch)
    iso = kernel.timing.isolated_ms if kernel and kernel.timing else None
    head, tail = short_name(launch.name, launch.original_aten, _NAME_CHARS, generated=launch.kernel_name is not None,
                            level=level)
    name = escape(head) + (f' <span class="kv-name-tail">{escape(tail)}</span>' if tail else "")
    if kernel and links:
        name = f'<a href="#{_anchor(graph, kernel)}">{name}</a>'
    aten, nodes = ", ".join(launch.original_aten), ", ".join(launch.source_nodes)
    ms, share = (t.in_graph_ms, t.share) if t else (None, None)
    rate_text, roof_text, bound = _rate(launch), _roof(launch, known), (t.bound or "") if t else ""
    return {"index": (_cell(str(launch.index), "kv-num"), True),
            "name": (f'<td class="kv-name" title="{escape(launch.name)}">{name}</td>', True),
            "kind": (_cell(escape(launch_kind(graph, launch))), True),
            "ms": (_cell(_num(ms, 4), "kv-num"), ms is not None), "share": (_share(share), share is not None),
            "iso": (_cell(_num(iso, 4), "kv-num"), iso is not None),
            "rate": (_cell(escape(rate_text), "kv-num"), bool(rate_text)),
            "pct": (_cell(roof_text, "kv-num"), bool(roof_text)), "bound": (_cell(escape(bound)), bool(bound)),
            "bytes": (_cell(units.size(t.bytes) if t else "", "kv-num"), bool(t and t.bytes is not None)),
            "aten": (_cell(escape(aten), "", aten), bool(aten)),
            "nodes": (_cell(escape(nodes), "", nodes), bool(nodes))}


def _classed(cell: str, key: str) -> str:
    """``cell`` (a ``<td>`` or ``<th>``) with the class of its column."""
    tag = cell[:3]
    if ' class="' in cell.split(">", 1)[0]:
        return cell.replace(' class="', f' class="kv-c-{key} ', 1)
    return f'{tag} class="kv-c-{key}"{cell[3:]}'


def launch_table(graph: Graph, peaks: DevicePeaks | None = None, top: int | None = None,
                 links: bool | None = None) -> str:
    """The launch table with the panel's columns but those no launch shown has a figure in, and the gap as its last
    row; with ``top``, only the ``top`` launches with the most in-graph time (the first where untimed), in call
    order, and a row that counts the others. ``links`` to the kernels' sections (None: where every launch is
    shown; a summary has no kernel sections)."""
    known = peaks_known(peaks)
    level = column_level([(launch.name, launch.original_aten, launch.kernel_name is not None)
                          for launch in graph.launches], _NAME_CHARS)
    shown = graph.launches if top is None else sorted(sorted(
        graph.launches, key=lambda launch: -(launch.timing.in_graph_ms or 0) if launch.timing else 0)[:top],
        key=lambda launch: launch.index)
    links = top is None if links is None else links
    cells = [_cells(graph, launch, known, level, links=links) for launch in shown]
    keys = [key for key, _ in _COLUMNS if key in _ALWAYS or any(row[key][1] for row in cells)]
    head = "".join(_classed(f"<th>{label}</th>", key) for key, label in _COLUMNS if key in keys)
    rows = "".join("<tr>" + "".join(_classed(row[key][0], key) for key in keys) + "</tr>" for row in cells)
    if len(shown) < len(graph.launches):
        where = _LEFT_OUT if links else "the panel and the full report show every one"
        rows += (f'<tr><td></td><td colspan="{len(keys) - 1}">{len(graph.launches) - len(shown)} more launches '
                 f"({where})</td></tr>")
    if graph.gap_ms is not None:
        share = graph.gap_ms / graph.gpu_busy_ms if positive(graph.gpu_busy_ms) and valid(graph.gap_ms) else None
        gap = {"name": "<td>gap (between launches)</td>", "ms": _cell(_num(graph.gap_ms, 4), "kv-num"),
               "share": _share(share)}
        rows += '<tr class="kv-gap-row">' + "".join(_classed(gap.get(key, "<td></td>"), key) for key in keys) + "</tr>"
    return (f'<div class="kv-table-wrap"><table class="kv-table"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody>'
            "</table></div>")


def wrapper_view(graph: Graph, steps: bool = True) -> str:
    """call()'s steps in order (launches, allocations, reuses, frees) with the bytes live after each; without
    ``steps``, the line that stands for them."""
    memory = timeline(graph)
    unknown = f" (+ {plural(len(memory.unknown), 'buffer')} of unknown size)" if memory.unknown else ""
    if not steps:
        return (f'<p class="kv-hint">Wrapper call(): {plural(len(graph.launches) + len(graph.memory), "step")}, peak '
                f"memory of the buffers it allocates {units.size(memory.peak)}{unknown}; each step: {_LEFT_OUT}</p>")
    live = dict(memory.steps)
    steps = sorted([(launch.step, launch.line, "launch", launch.name,
                     f"reads {', '.join(launch.reads) or '-'} → writes {', '.join(launch.writes) or '-'}")
                    for launch in graph.launches] +
                   [(e.step, e.line, e.kind, e.buffer,
                     f"{e.dtype or '?'}[{', '.join(e.shape or [])}] {units.size(e.nbytes)}" if e.kind == "alloc"
                     else f"takes over {e.source}" if e.kind == "reuse" else "") for e in graph.memory])
    rows, current = [], 0
    for step, line, what, name, detail in steps:
        current = live.get(step, current)
        peak = ' class="kv-peak"' if step == memory.peak_step else ""
        rows.append(f"<tr{peak}><td>{line}</td><td>{escape(what)}</td><td><code>{escape(name)}</code></td>"
                    f"<td>{escape(detail)}</td><td>{units.size(current)}</td></tr>")
    return (f"<details><summary>Wrapper call(): {plural(len(steps), 'step')}, peak memory of the buffers it allocates "
            f"{units.size(memory.peak)}{unknown}</summary><table class=\"kv-small\"><tr><th>line</th><th>step</th>"
            f"<th>name</th><th>detail</th><th>live</th></tr>{''.join(rows)}</table></details>")


def _where(loc: SourceLocation) -> str:
    """``cell [3], line 6`` (the cell's file on hover) or ``file:line``, escaped."""
    return (f'<code title="{escape(loc.file)}">{escape(loc.where())}</code>' if loc.cell is not None
            else f"<code>{escape(loc.where())}</code>")


def kernel_section(graph: Graph, kernel: Kernel, body: str = "") -> str:
    """A kernel's metadata, then ``body`` (the full report's source and stages: :func:`kernel_sections`), in a
    ``<details>``; the anchor is inside it, so following a link to it opens it."""
    mapping = "".join(f"<tr><td>{escape(source)}</td><td>{escape(ops)}</td></tr>" for source, ops in node_ops(kernel))
    fragment = "".join(
        f'<tr><td>?</td><td colspan="6"><code>{escape(n.text)}</code></td></tr>' if n.op == "unknown" else
        "<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in (
            n.name, n.op, n.target, n.dtype or "", f"[{', '.join(n.shape)}]" if n.shape is not None else "",
            f"[{', '.join(n.stride)}]" if n.stride is not None else "", "" if n.users is None else n.users)) + "</tr>"
        for n in shown_nodes(kernel))
    locations = "".join(f"<li>{_where(loc)} <code>{escape(loc.code)}</code></li>" for loc in kernel.locations)
    if kernel.locations_unknown:
        locations += f'<li class="kv-hint">{escape(kernel.locations_unknown)}</li>'
    return (f'<details class="kv-kernel"><summary><code>{escape(kernel.name)}</code> '
            f'<span class="kv-badge">{escape(kernel.kind)}</span> {escape(", ".join(kernel.original_aten))}</summary>'
            f'<div id="{_anchor(graph, kernel)}">'
            f'<p>Source nodes: {escape(", ".join(kernel.source_nodes)) or "-"}</p>'
            + ("<table class=\"kv-small\"><tr><th>source node</th><th>ATen ops (their nodes)</th></tr>"
               f"{mapping}</table>"
               if mapping else "")
            + (f"<p>Your code:</p><ul>{locations}</ul>" if locations else "")
            + (f'<table class="kv-small"><tr><th>node</th><th>op</th><th>target</th><th>dtype</th><th>shape</th>'
               f"<th>stride</th><th>users</th></tr>{fragment}</table>" if fragment else "")
            + body + "</div></details>")


_REPORT_STAGE_BYTES = 16 * 1024  # of each stage in the report (characters)


def stages_section(kernel: Kernel) -> str:
    """A kernel's compiled stages (Triton's, or a C++ kernel's assembly), each in a collapsed section (plain text,
    escaped)."""
    ir = kernel.ir
    if ir is None:
        return ""
    parts = "".join(
        f"<details><summary>{escape(STAGE_TITLE.get(st.name, st.name))} <small>({units.size(st.bytes)}"
        + (f"; the first {units.size(_REPORT_STAGE_BYTES)} here, the whole stage is in the capture"
           if len(st.text) > _REPORT_STAGE_BYTES else "")
        + f")</small></summary><pre>{escape(st.text[:_REPORT_STAGE_BYTES])}</pre></details>" for st in ir.stages)
    notes = "".join(f"<li>{escape(n)}</li>" for n in ir.notes)
    return (f'<details class="kv-stages"><summary>Compiled stages</summary><p>{escape(_ir_facts(kernel))}</p>'
            + (f'<ul class="kv-warnings">{notes}</ul>' if notes else "") + f"{parts}</details>")


def _ir_facts(kernel: Kernel) -> str:
    ir = kernel.ir
    if kernel.kind == "cpp":  # no registers or occupancy: its instruction set (its loops are in the notes)
        return f"at::vec compiled for {str(ir.options['isa']).upper()}" if ir.options.get("isa") else "C++ kernel"
    occ = ir.occupancy
    return (f"{ir.num_regs} registers per thread, {ir.num_spills} spills, {ir.shared_bytes} B shared memory"
            + (f"; {occ.blocks_per_sm} blocks per SM, limited by {occ.limited_by}" if occ else ""))


def _stages_elsewhere(kernel: Kernel) -> str:
    """The line that stands for a kernel's compiled stages the report leaves out, with their facts."""
    if kernel.ir is None or not kernel.ir.stages:
        return stages_section(kernel)
    titles = ", ".join(STAGE_TITLE.get(st.name, st.name) for st in kernel.ir.stages)
    held = units.size(sum(len(st.text) for st in kernel.ir.stages))
    return (f'<p class="kv-hint">{escape(_ir_facts(kernel))}. Compiled stages ({escape(titles)}, {held}): '
            f"{_ELSEWHERE}</p>")


_LEFT_OUT = "in the panel and in the capture's file (<code>cap.save()</code>)"
_ELSEWHERE = f"{_LEFT_OUT}; this report keeps those of the kernels with the most time that fit in twice the output code"


def _highlighted(kernel: Kernel) -> str:
    """The kernel's source as pygments-classed spans (the same tokens the panel draws), all escaped."""
    return _spans(kernel.source, language(kernel))


def _spans(text: str, lang: str) -> str:
    spans = "".join(f'<span class="{cls}">{escape(part)}</span>' if cls else escape(part)
                    for cls, part in runs(text, lang))
    return f'<div class="highlight"><pre>{spans}</pre></div>'


def package_view(graph: Graph) -> str:
    """An AOTInductor package's facts, its constants (not their values) and its wrapper's ``run_impl``,
    highlighted ("" for other graphs)."""
    p, lang = graph.package, wrapper_language(graph)
    if p is None:
        return ""
    rows = "".join("<tr>" + "".join(f"<td>{escape(str(x))}</td>" for x in (
        c.name, c.fqn, c.kind, c.dtype or "?", f"[{', '.join(map(str, c.shape or []))}]", units.size(c.bytes)))
        + "</tr>" for c in p.constants)
    notes = "".join(f'<p class="kv-hint">{escape(n)}</p>' for n in p.notes)
    lines, span = graph.code.splitlines(), graph.call_span
    first, last = span if span and len(span) == 2 and 1 <= span[0] <= span[1] else (1, len(lines))
    code = _spans("\n".join(lines[first - 1 : last]), lang) if lang and lines else ""
    return (f'<p class="kv-hint">{escape(package_line(graph))}</p>{notes}'
            f"<details><summary>{plural(len(p.constants), 'constant')}</summary><table class=\"kv-small\"><tr>"
            "<th>name</th><th>module's name</th><th>kind</th><th>dtype</th><th>shape</th><th>bytes</th></tr>"
            f"{rows}</table></details>"
            + (f"<details><summary>C++ wrapper: run_impl, lines {first}-{last}</summary>{code}</details>"
               if code else ""))


def _timed(graph: Graph) -> str:
    if not graph.timed_on:
        return ""
    busy, gap, replay = units.ms_texts(graph.gpu_busy_ms, graph.gap_ms, graph.cudagraph_ms)
    parts = [timed_on(graph)] + [f"{what} {text}" for what, text in (
        (busy_label(graph), busy), ("gap", gap), ("as a CUDA graph", replay)) if text is not None]
    as_run = [as_run_line(graph.as_run, graph.in_step_ms)] if graph.as_run else []
    lines = [" · ".join(parts)] + as_run  # one unit a line
    return "".join(f'<p class="kv-hint">{escape(line)}</p>' for line in lines)


def sweep_html(s: Sweep) -> str:
    """An autotuning as bars (a bar per timed candidate, as long as its time; the winner marked), the failed
    listed with why."""
    rows = []
    for bar in (bar for bar in s.bars if not bar.error):
        cls = "kv-sweep-row kv-winner" if bar.winner else "kv-sweep-row"
        tip = f' title="{escape(bar.detail)}"' if bar.detail else ""
        width = f"{100 * bar.share:.1f}%" if bar.share is not None else "0"
        mark = " ★ taken" if bar.winner else ""
        backend = f"<small> {escape(bar.backend)}</small>" if bar.backend != "config" else ""  # a config says it
        rows.append(f'<div class="{cls}"{tip}><span class="kv-sweep-name">{escape(bar.name)}{backend}</span>'
                    f'<span class="kv-sweep-track"><span class="kv-sweep-bar" style="width:{width}"></span></span>'
                    f'<span class="kv-sweep-ms">{escape(bar.ms_text)}{mark}</span></div>')
    rows += [f'<div class="kv-sweep-row kv-failed"><span class="kv-sweep-why">failed ({len(f.names)}: '
             f"{escape(', '.join(f.names))}): {escape(f.error)}</span></div>" for f in s.failed]
    return (f'<details class="kv-sweep" open><summary>{escape(s.title)} — {escape(s.verdict)}</summary>'
            f"{''.join(rows)}</details>")


def why_section(graph: Graph) -> str:
    """What reduce-overhead did with the graph, and what was autotuned for it."""
    lines = "".join(f"<li>{escape(line)}</li>" for line in cudagraph_lines(graph))
    sweeps = "".join(sweep_html(sweep(t, graph.id)) for t in graph.tunings)
    return (f'<ul class="kv-cudagraphs">{lines}</ul>' if lines else "") + (
        f'<div class="kv-sweeps"><h4>Autotuning</h4>{sweeps}</div>' if sweeps else "")


def graph_section(capture: Capture, graph: Graph, found: list[Advice], kernels: str, *,
                  top: int | None = None, fit: Fit | None = None) -> str:
    """One graph: its charts, launch table, counters, wrapper's steps and ``kernels`` (:func:`kernel_sections`;
    ``found``: see ``html_list``); with ``top`` (a summary) no charts or wrapper's steps, and the ``top``
    launches with the most time; ``fit``: what the full report cuts of it to fit (:func:`fitted`)."""
    fit = fit or Fit()
    memory = timeline(graph)
    warnings = "".join(f"<li>{escape(w)}</li>" for w in graph.warnings)
    charts = roofline_svg(graph, capture.peaks) + timeline_svg(graph) if top is None else ""
    caller = f"<p>Ran from {_where(graph.caller)} <code>{escape(graph.caller.code)}</code></p>" if graph.caller else ""
    return (f"<h3>graph {escape(graph.id)} <small>({escape(graph.kind)}, {escape(graph.device)}, "
            f"{plural(len(graph.launches), 'launch')}, peak memory {units.size(memory.peak)})</small></h3>"
            + (f'<ul class="kv-warnings">{warnings}</ul>' if warnings else "") + caller + _timed(graph)
            + (f'<p class="kv-hint">{escape(dynamic)}</p>' if (dynamic := dynamic_sizes(graph)) else "")
            + html_list(capture, found, graph) + why_section(graph)
            + (f'<div class="kv-charts">{charts}</div>' if charts else "")
            + launch_table(graph, capture.peaks, top if top is not None else fit.rows, links=top is None)
            + counters_section(graph)
            + (wrapper_view(graph, fit.steps) + package_view(graph) if top is None else "") + kernels)


@dataclass
class Fit:
    """What the full report cuts of a graph's section so that the report fits: ``steps`` False: call()'s steps
    stand as one line; ``rows``: the launches with the most time only (None: every one)."""

    steps: bool = True
    rows: int | None = None


def fitted(capture: Capture, found: list[Advice], room: int) -> tuple[list[str], int]:
    """Each graph's section of the full report (without its kernels) and the room left in ``room`` bytes: where they
    take more, the graphs with the most launches and steps first give up their call() steps' table for a line, then
    their launch rows beyond the ``TOP_LAUNCHES`` with the most time."""
    fits = [Fit() for _ in capture.graphs]
    sections = [graph_section(capture, g, found, "") for g in capture.graphs]
    heaviest = sorted(range(len(sections)), key=lambda i: -_size(sections[i]))
    for cut in ("steps", "rows"):
        for i in heaviest:
            if sum(map(_size, sections)) <= room:
                break
            graph = capture.graphs[i]
            if cut == "steps":
                fits[i].steps = False
            elif len(graph.launches) > TOP_LAUNCHES:
                fits[i].rows = TOP_LAUNCHES
            else:
                continue
            sections[i] = graph_section(capture, graph, found, "", fit=fits[i])
    return sections, room - sum(map(_size, sections))


def whatif_section(capture: Capture) -> str:
    """The candidate changes measured, best first: each one's saving and change (flagged where its outputs
    differ), its patch as code, its figures and numerics ("" where none was measured)."""
    items = "".join(
        f'<li class="kv-whatif kv-whatif-{row.status}"><b class="kv-num">{escape(row.saving)}</b> — '
        f"{escape(row.change)}" + (f' <span class="kv-flag">{escape(row.flag)}</span>' if row.flag else "")
        + (f'<pre class="kv-whatif-patch">{escape(row.patch)}</pre>' if row.patch else "")
        + "".join(f'<p class="kv-hint">{escape(text)}</p>' for text in (
            " · ".join(part for part in (row.graphs, row.step, row.compile) if part), row.numerics) if text)
        + "</li>" for row in rows(capture))
    return (f'<div class="kv-whatifs"><b>What if</b> <small>({escape(NOTE)})</small><ol>{items}</ol></div>'
            if items else "")


def header(capture: Capture, found: list[Advice]) -> str:
    """Device and versions, what the capture compiled, dynamo's events, the top findings, the what-ifs and the
    warnings."""
    story = compile_story(capture)
    events = "".join(f"<li><details><summary>{escape(line)}</summary><pre>{escape(reason)}</pre></details></li>"
                     for line, reason in dynamo_lines(capture))
    warnings = "".join(f"<li>{escape(w)}</li>" for w in capture.warnings)
    pool = pool_line(capture)
    user = "".join(sweep_html(sweep(t, None)) for t in capture.tunings)
    return (f"<p><b>kernelviz</b> · {escape(headline(capture).removeprefix('kernelviz: '))}</p>"
            + (f"<p>{escape(story)}</p>" if story else "") + (f'<p class="kv-hint">{escape(pool)}</p>' if pool else "")
            + (f'<div class="kv-sweeps"><h4>Autotuning outside the graphs</h4>{user}</div>' if user else "")
            + (f'<ul class="kv-dynamo">{events}</ul>' if events else "") + html_list(capture, found, top=TOP)
            + whatif_section(capture)
            + (f'<ul class="kv-warnings">{warnings}</ul>' if warnings else ""))


_SUMMARY = ("A summary: every launch, the charts, kernel sources, compiled stages and repros are in the kernelviz "
            "panel (JupyterLab or Notebook 7 with kernelviz installed), which shows them from this saved output, and "
            "<code>cap.save_html(path)</code> writes the full report.")
TOP_LAUNCHES = 20  # launches of each graph in the summary: those with the most in-graph time
# The full report stays within about twice the output code: what the rest of it leaves of that goes to pygments markup
# and compiled stages, 4:3, each for the kernels with the most time that fit (the other kernels' sources are plain
# text, their stages a line saying where they are)
REPORT_SIZE = 2.0
HIGHLIGHT_SHARE = 4 / 7


@dataclass
class PlainKernels:
    """Each kernel's section as the full report writes it at least, by (graph position, kernel name): its source
    plain, the line standing for its stages; ``bytes``: those sections' whole size."""

    source: dict[tuple[int, str], str]
    elsewhere: dict[tuple[int, str], str]
    bytes: int


def plain_kernels(capture: Capture) -> PlainKernels:
    keys = [(g, graph, k) for g, graph in enumerate(capture.graphs) for k in graph.kernels]
    plain = {(g, k.name): f'<div class="highlight"><pre>{escape(k.source)}</pre></div>' for g, _, k in keys}
    elsewhere = {(g, k.name): _stages_elsewhere(k) for g, _, k in keys}
    size = sum(_size(kernel_section(graph, k)) + _size(plain[g, k.name]) + _size(elsewhere[g, k.name])
               for g, graph, k in keys)
    return PlainKernels(plain, elsewhere, size)


def kernel_sections(capture: Capture, room: int, plain_parts: PlainKernels) -> list[str]:
    """Each graph's kernel sections: each kernel's source, highlighted for the kernels with the most time, and
    compiled stages for those with the most time, in ``room`` bytes beyond the plain sections (``plain_parts``)
    where they fit (each measured as it is written: escaped, a long stage cut)."""
    plain, elsewhere = plain_parts.source, plain_parts.elsewhere
    room = max(room, 0)
    marked, staged_html, extra = {}, {}, {}  # extra: the bytes a kernel's markup adds to its plain source

    def markup(g: int, kernel: Kernel) -> int:
        marked[g, kernel.name] = _highlighted(kernel)
        extra[g, kernel.name] = _size(marked[g, kernel.name]) - _size(plain[g, kernel.name])
        return extra[g, kernel.name]

    def stages(g: int, kernel: Kernel) -> int:
        staged_html[g, kernel.name] = stages_section(kernel)
        return _size(staged_html[g, kernel.name]) - _size(elsewhere[g, kernel.name])

    highlighted = heaviest_kept(capture, markup, HIGHLIGHT_SHARE * room)
    room -= sum(extra[key] for key in highlighted)
    staged = heaviest_kept(capture, stages, room)

    def content(g: int, kernel: Kernel) -> str:
        key = (g, kernel.name)
        return ((marked[key] if key in highlighted else plain[key])
                + (staged_html[key] if key in staged else elsewhere[key]))

    return ["".join(kernel_section(graph, k, content(g, k)) for k in graph.kernels)
            for g, graph in enumerate(capture.graphs)]


def _size(html: str) -> int:
    """Bytes, as a file holds the text (a lone surrogate written as its escape, as ``save_html`` writes it)."""
    return len(html.encode("utf-8", "backslashreplace"))


def report(capture: Capture, *, summary: bool = False, around: int = 0) -> str:
    """The report as an HTML fragment; with ``summary`` (a notebook's ``text/html`` output, for GitHub and
    nbviewer) the header, each graph's findings and its ``TOP_LAUNCHES`` launches, and where the rest is.
    ``around``: the bytes of what will hold it (a page's head), counted in the full report's size."""
    head, tail = f'<div class="kv-report"><style>{_css(not summary)}</style>', "</div>"
    return head + body(capture, summary=summary, around=around + _size(head + tail)) + tail


def body(capture: Capture, *, summary: bool = False, around: int = 0) -> str:
    """:func:`report`'s content: the header, then each graph's section with its kernels; the full report's (with
    ``around`` bytes around it) within ``REPORT_SIZE`` times the output code."""
    found = findings(capture)
    top = TOP_LAUNCHES if summary else None
    head = header(capture, found) + (f'<p class="kv-hint">{_SUMMARY}</p>' if summary else "")
    if summary:
        return head + "".join(graph_section(capture, g, found, "", top=top) for g in capture.graphs)
    plain = plain_kernels(capture)
    room = int(REPORT_SIZE * sum(_size(graph.code) for graph in capture.graphs)) - around - _size(head)
    graphs, room = fitted(capture, found, room - plain.bytes)
    return head + "".join(section + kernels for section, kernels in zip(graphs, kernel_sections(capture, room,
                                                                                                plain)))


def page(capture: Capture) -> str:
    """The report as a whole HTML page."""
    head = '<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>kernelviz report</title></head><body>'
    tail = "</body></html>\n"
    return head + report(capture, around=_size(head + tail)) + tail
