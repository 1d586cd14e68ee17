"""The findings (``kernelviz.advice``) as text lines and as HTML, for ``kernelviz show`` and the report."""

from __future__ import annotations

from html import escape

from .. import units
from ..advice import advise
from ..model import Advice, AsRun, Capture, Graph, Launch
from ..names import label
from .groups import group_findings
from .whatif import Measured, measured_findings

TOP = 5  # groups of findings in the capture's header; each graph lists all of its own


def findings(capture: Capture) -> list[Advice]:
    """The capture's findings: as kept (a capture from this kernelviz), else worked out now (an older file)."""
    return capture.findings or advise(capture)


def _at(finding: Advice, graph: Graph | None) -> str:
    if graph is None or not finding.launches:
        return f"graph {finding.graph}" if finding.graph else "dynamo"
    shown = [i for i in finding.launches[:2] if 0 <= i < len(graph.launches)]  # a hand-edited index is left out
    more = f" +{len(finding.launches) - 2}" if len(finding.launches) > 2 else ""
    what = "launch" if len(finding.launches) == 1 else "launches"
    return (f"graph {finding.graph} {what} {', '.join(map(str, shown))}{more} "
            f"({', '.join(_label(graph.launches[i]) for i in shown)})")


def _label(launch: Launch) -> str:
    """A launch's name as the panel's table shows it (what it computes and its counter)."""
    return label(launch.name, launch.original_aten, generated=bool(launch.kernel_name))


def figure(finding: Advice, measured: Measured | None = None) -> str:
    """What a finding shows as its figure: what a what-if measured of its suggestion, else its time at stake."""
    if measured is not None:
        return measured.text
    return units.ms_text(finding.ms) if finding.ms is not None else "—"


def line(finding: Advice, graph: Graph | None, measured: Measured | None = None) -> str:
    """One finding in a line: its figure (:func:`figure`), rule, where, and what was seen."""
    return f"{figure(finding, measured):>9}  {finding.rule}  {_at(finding, graph)}: {finding.evidence}"


def as_run_line(run: AsRun, in_step_ms: float | None = None) -> str:
    """The graph as it runs: plain time, CPU launch time, CUDA-graph replay; ``in_step_ms``: call()'s wall time in
    the user's own step (``Graph.in_step_ms``)."""
    clock = "CUDA events" if run.unit == "gpu" else "wall clock"
    plain, cpu, kernels, replay, step = units.ms_texts(run.plain_ms, run.launch_cpu_ms, run.kernels_ms,
                                                       run.replay_ms, in_step_ms)
    parts = [f"plain call() {plain} ({clock}, {run.runs} runs)"]
    replay = f"{replay} ({run.replays} replays)" if replay is not None and run.replays else replay
    parts += [f"{what} {text}" for what, text in (("CPU launch", cpu), ("in your step", step), ("kernels", kernels),
                                                  ("as a CUDA graph", replay)) if text is not None]
    parts += [run.note] if run.note else []
    return "as it runs: " + " · ".join(parts)


def text_lines(capture: Capture, top: int | None = None) -> list[str]:
    """The findings grouped by rule per graph (``top``: the first groups only), most time at stake first: each
    group's title, the findings it shows with how each ms was computed and what to try, and "N more"."""
    graphs = {g.id: g for g in capture.graphs}
    found = findings(capture)
    measured = measured_findings(capture, found)
    out = []
    for group in group_findings(found)[:top]:
        out.append(f"  {group.title}")
        for i in group.shown:
            finding = found[i]
            out.append(line(finding, graphs.get(finding.graph or ""), measured.get(i)))
            out.append(f"{'':>11}ms: {measured[i].how if i in measured else finding.how}")
            out += [f"{'':>11}try: {finding.suggestion}"] if finding.suggestion else []
        out += [f"{'':>11}{group.more_text} (cap.findings has them)"] if group.more else []
    return out


def _item(finding: Advice, graph: Graph | None, measured: Measured | None) -> str:
    cls = f"kv-num kv-measured-{measured.status}" if measured else "kv-num"
    how = measured.how if measured else finding.how
    return (f'<li><b class="{cls}">{escape(figure(finding, measured))}</b> '
            f'<span class="kv-rule">{escape(finding.rule)}</span> {escape(_at(finding, graph))}: '
            f'{escape(finding.evidence)}<br><small>ms: {escape(how)}' + (f"<br>try: {escape(finding.suggestion)}"
                                                       if finding.suggestion else "") + "</small></li>")


def html_list(capture: Capture, found: list[Advice], graph: Graph | None = None, top: int | None = None) -> str:
    """The findings grouped by rule per graph: the capture's first ``top`` groups, or all of one graph's (``found``:
    the capture's findings, worked out once a page of many graphs); each group's rest in a ``<details>``, "N more"."""
    groups = [g for g in group_findings(found) if graph is None or g.graph == graph.id][:top]
    if not groups:
        return ""
    graphs = {graph.id: graph} if graph is not None else {g.id: g for g in capture.graphs}
    title = "Findings" if graph is None else f"Findings for graph {graph.id}"
    measured = measured_findings(capture, found)

    def items(indices: list[int]) -> str:
        return "".join(_item(found[i], graphs.get(found[i].graph or ""), measured.get(i)) for i in indices)

    body = "".join(
        f'<li class="kv-finding-group"><b>{escape(group.title)}</b><ul>{items(group.shown)}</ul>'
        + (f"<details><summary>{escape(group.more_text)}</summary><ul>{items(group.more)}</ul></details>"
           if group.more else "") + "</li>" for group in groups)
    return (f'<div class="kv-findings"><b>{escape(title)}</b> <small>(by rule and graph, most time at stake first)'
            f"</small><ul>{body}</ul></div>")
