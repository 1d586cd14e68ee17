"""The HTML report of a job's ranks: the ranks compared (their section), then the reference rank's capture
as the capture report shows it. No script; every captured string goes through ``escape``."""

from __future__ import annotations

from html import escape

from .. import units
from ..model import RankGraph, RankInfo, RankLaunch, Ranks
from ..names import label
from .html import _css, body
from .ranks_text import PARTS, headline

PART_COLOURS = {"compute": "#4e79a7", "overlap": "#9c755f", "comm": "#e15759", "idle": "#d3d3d3"}
_PERCENTILES = ("p0", "p50", "p90", "p99", "p100")
_RANKS_CSS = """
.kv-report .kv-rank-split { display: flex; width: 260px; height: 12px; border: 1px solid #ccc; }
.kv-report .kv-rank-split span { display: block; height: 100%; }
.kv-report .kv-straggler { background: #ffd8a8; font-weight: bold; }
.kv-report .kv-mismatch { color: #b00020; font-weight: bold; }
.kv-report .kv-agree { color: #1a7f37; }
.kv-report .kv-key span { display: inline-block; width: 10px; height: 10px; margin: 0 3px 0 8px; }
"""


def _bar(info: RankInfo) -> str:
    step = info.step
    spans = "".join(
        f'<span style="width:{100 * getattr(step, key) / step.window_ms:.2f}%;background:{PART_COLOURS[label]}" '
        f'title="{label} {units.ms(getattr(step, key), 3)} ms"></span>' for label, key in PARTS if step.window_ms)
    return f'<div class="kv-rank-split">{spans}</div>'


def _key() -> str:
    return '<p class="kv-key">' + "".join(f'<span style="background:{c}"></span>{escape(label)}'
                                        for label, c in PART_COLOURS.items()) + "</p>"


def split_table(ranks: Ranks) -> str:
    """Per rank, compute vs communication vs idle of the captured block (above 16 ranks, the 8 with the most
    compute and the percentiles of each part)."""
    steps = [info for info in ranks.ranks if info.step is not None]
    if not steps:
        return '<p class="kv-hint">No rank profiled its captured block (capture(bench=True) in a job does).</p>'
    shown = steps if len(steps) <= 16 else sorted(steps, key=lambda i: i.step.compute_ms + i.step.overlap_ms,
                                                  reverse=True)[:8]
    rows = "".join(
        f'<tr class="{"kv-straggler" if info.rank == ranks.step_straggler else ""}"><td class="kv-num">{info.rank}'
        f'</td><td>{escape(info.host or "")}</td><td>{escape(info.device or "")}</td><td>{_bar(info)}</td>'
        f'<td class="kv-num">{units.ms(info.step.window_ms, 3)}</td>'
        + "".join(f'<td class="kv-num">{units.ms(getattr(info.step, key), 3)}</td>' for _, key in PARTS) + "</tr>"
        for info in shown)
    head = "".join(f"<th>{label} ms</th>" for label, _ in PARTS)
    note = ("" if len(shown) == len(steps) else
            f'<p class="kv-hint">{len(steps)} ranks: the 8 with the most compute are shown.</p>' + _percentiles(ranks))
    notes = sorted({info.step.note for info in steps if info.step.note})
    unit = "GPU: first to last device activity" if steps[0].step.unit == "gpu" else "CPU: the block's wall time"
    return (f"<h4>Compute vs communication vs idle of the captured block <small>({unit})</small></h4>{_key()}"
            f'<table class="kv-table"><tr><th>rank</th><th>host</th><th>device</th><th>split</th><th>window ms</th>'
            f"{head}</tr>{rows}</table>{note}"
            + "".join(f'<p class="kv-hint">{escape(n)}</p>' for n in notes))


def _percentiles(ranks: Ranks) -> str:
    cells = "".join(f"<tr><td>{label}</td>" + "".join(f'<td class="kv-num">{units.ms(v, 3)}</td>' for v in
                                                      ranks.step_stats.get(key, {}).values()) + "</tr>"
                    for label, key in PARTS)
    return ('<table class="kv-small"><tr><th>ms over ranks</th><th>p0</th><th>p50</th><th>p90</th><th>p99</th>'
            f"<th>max</th></tr>{cells}</table>")


def _agree(value: bool | None) -> str:
    if value is None:
        return '<span class="kv-hint">one rank</span>'
    return '<span class="kv-agree">agree</span>' if value else '<span class="kv-mismatch">differ</span>'


def _ranks(ranks: list[int]) -> str:
    return escape(", ".join(map(str, ranks[:16])) + (f" … ({len(ranks)})" if len(ranks) > 16 else ""))


def graph_table(ranks: Ranks) -> str:
    rows = "".join(
        f"<tr><td><code>{escape(g.id)}</code></td><td>{escape(g.kind)}</td><td>{_ranks(g.ranks)}</td>"
        f"<td>{_ranks(g.compiled)}</td><td>{_ranks(g.missing)}</td><td>{_agree(g.kernels_agree)}</td>"
        f"<td>{_agree(g.collectives_agree)}</td>"
        f'<td class="kv-mismatch">{escape(g.mismatch or "")}</td></tr>' for g in ranks.graphs)
    return ('<table class="kv-table"><tr><th>graph</th><th>kind</th><th>ran on</th><th>compiled on</th>'
            "<th>missing on</th><th>kernels</th><th>collective order</th><th>first difference</th></tr>"
            f"{rows}</table>")


def launch_table(ranks: Ranks, graph: RankGraph) -> str:
    """The graph's launches across ranks: a time per rank (the straggler's highlighted), or above 16 ranks
    the percentiles and the outlier ranks."""
    launches = [launch for launch in ranks.launches if launch.graph == graph.id]
    if not any(launch.stats for launch in launches):
        return '<p class="kv-hint">Not timed on the ranks (capture(bench=True) on every rank times it).</p>'
    order = [info.rank for info in ranks.ranks]
    if ranks.summarised:
        head = "<th>p0</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>spread</th><th>straggler</th>" \
               "<th>outlier ranks (ms)</th>"
    else:
        head = "".join(f"<th>rank {r} ms</th>" for r in order) + "<th>spread</th><th>straggler</th>"
    rows = "".join(_launch_row(launch, order, ranks.summarised) for launch in launches)
    return (f'<table class="kv-table"><tr><th>#</th><th>launch</th><th>collective</th>{head}</tr>{rows}</table>')


def _launch_row(launch: RankLaunch, order: list[int], summarised: bool) -> str:
    cells = f'<td class="kv-num">{launch.index}</td><td class="kv-name" title="{escape(launch.name)}">' \
            f'{escape(label(launch.name))}</td><td>{escape(launch.collective or "")}</td>'
    if summarised:
        cells += "".join(f'<td class="kv-num">{units.ms(launch.stats.get(k))}</td>' for k in _PERCENTILES)
    else:
        cells += "".join(
            f'<td class="kv-num{" kv-straggler" if rank == launch.straggler else ""}">{units.ms(ms)}</td>'
            for rank, ms in zip(order, launch.ms))
    spread = units.relative(launch.spread, 0)
    straggler = "" if launch.straggler is None else str(launch.straggler)
    cells += f'<td class="kv-num">{spread}</td><td class="kv-num">{straggler}</td>'
    if summarised:
        cells += "<td>" + escape(", ".join(f"{int(r)}: {units.ms(ms)}" for r, ms in launch.outliers)) + "</td>"
    return f"<tr>{cells}</tr>"


def ranks_section(ranks: Ranks) -> str:
    """The ranks compared: the headline, warnings, each rank's split of the captured block, the graphs'
    agreement, and each graph's launches across ranks."""
    warnings = "".join(f"<li>{escape(w)}</li>" for w in ranks.warnings)
    graphs = "".join(f"<details open><summary>graph <code>{escape(g.id)}</code> across ranks</summary>"
                     f"{launch_table(ranks, g)}</details>" for g in ranks.graphs)
    straggler = ('<p class="kv-hint">A straggler is the rank that holds the others back: the slowest for work, '
                 "the fastest for a collective (it arrived last; the others' collective time went on waiting for "
                 "it).</p>")
    return (f'<section class="kv-ranks"><h2>{escape(headline(ranks))}</h2>'
            + (f'<ul class="kv-warnings">{warnings}</ul>' if warnings else "")
            + split_table(ranks) + "<h4>Graphs on the ranks</h4>" + graph_table(ranks) + straggler + graphs
            + "</section>")


def report(ranks: Ranks) -> str:
    """The ranks compared, then the reference rank's capture, as an HTML fragment."""
    ref = ranks.reference
    detail = "" if ref is None else f"<h2>Rank {ref.rank if ref.rank is not None else '?'} in detail</h2>{body(ref)}"
    return f'<div class="kv-report"><style>{_css()}{_RANKS_CSS}</style>{ranks_section(ranks)}{detail}</div>'


def page(ranks: Ranks) -> str:
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>kernelviz ranks</title></head>'
            f"<body>{report(ranks)}</body></html>\n")
