"""The HTML report's view of hardware counters (``Launch.counters``): per measured launch its figures under
Nsight Compute, top warp stalls, hottest source lines (with their code) and NVIDIA's findings. Every captured
string goes through ``escape``."""

from __future__ import annotations

from html import escape

from .. import units
from ..model import Graph, Launch

HOT_LINES = 5


def _row(graph: Graph, launch: Launch) -> str:
    c, t = launch.counters, launch.timing
    if c.error:
        return f"<tr><td>{launch.index}</td><td><code>{escape(launch.name)}</code></td>" \
               f'<td colspan="8">not measured: {escape(c.error)}</td></tr>'
    estimate = f" (estimate {units.size(t.bytes_estimate)})" if t and t.bytes_estimate is not None else ""
    stalls = ", ".join(f"{s.reason} {100 * s.share:.0f}%" for s in c.stalls[:3])
    cells = (str(launch.index), f"<code>{escape(launch.name)}</code>",
             "" if c.duration_ms is None else f"{c.duration_ms:.4f}",
             (units.size(c.dram_bytes) if c.dram_bytes is not None else "") + escape(estimate), units.percent(c.sm_pct),
             units.percent(c.memory_pct), f"{units.percent(c.l1_hit_rate)} / {units.percent(c.l2_hit_rate)}",
             f"{units.percent(c.achieved_occupancy)} / {units.percent(c.theoretical_occupancy)}", escape(stalls))
    return "<tr>" + "".join(f"<td>{x}</td>" for x in cells) + "</tr>"


def _details(graph: Graph, launch: Launch) -> str:
    c = launch.counters
    if c.error or not (c.lines or c.findings):
        return ""
    parts = []
    total = sum(line.stall_samples for line in c.lines)
    if launch.kernel_name and total:
        source = graph.kernel(launch.kernel_name).source.splitlines()
        hot = sorted((line for line in c.lines if line.stall_samples), key=lambda line: -line.stall_samples)[:HOT_LINES]
        code = [source[line.line - 1].strip() if line.line <= len(source) else "" for line in hot]
        rows = "".join(f"<tr><td>{100 * line.stall_samples / total:.1f}%</td><td>{line.line}</td>"
                       f"<td><code>{escape(text)}</code></td>"
                       f"<td>{escape(line.top_stall or '')}</td></tr>" for line, text in zip(hot, code))
        parts.append('<table class="kv-small"><tr><th>stall samples</th><th>line</th><th>code</th>'
                     f"<th>mostly</th></tr>{rows}</table>")
    if c.findings:
        parts.append("<ul>" + "".join(f"<li>{escape(f)}</li>" for f in c.findings) + "</ul>")
    return (f"<details><summary>#{launch.index} <code>{escape(launch.name)}</code>: hottest lines and findings"
            f"</summary>{''.join(parts)}</details>")


def counters_section(graph: Graph) -> str:
    """The graph's measured launches, or nothing where none was measured."""
    measured = [launch for launch in graph.launches if launch.counters is not None]
    if not measured:
        return ""
    tool = next((launch.counters.tool for launch in measured if launch.counters.tool), "Nsight Compute")
    head = "".join(f"<th>{h}</th>" for h in ("#", "launch", "ncu ms", "DRAM bytes", "SM % SOL", "memory % SOL",
                                              "L1 / L2 hit", "occupancy achieved / theoretical", "top stalls"))
    count = f"{len(measured)} launch{'es' * (len(measured) != 1)}"
    return (f'<details class="kv-counters" open><summary>Counters ({escape(tool)}, {count}; '
            f"durations under ncu, clocks locked to base)</summary><table class=\"kv-small\"><tr>{head}</tr>"
            + "".join(_row(graph, launch) for launch in measured) + "</table>"
            + "".join(_details(graph, launch) for launch in measured) + "</details>")
