"""A self-contained HTML page of a diff: inline CSS, no script, no network.

The headline (totals, biggest wins and losses, fusions and splits), then per graph pair a table of
groups and, for each group that changed, its figures on both sides and the highlighted unified diff of
its source. Every captured string goes through ``escape``.
"""

from __future__ import annotations

from html import escape

from ..compare.model import Diff, Group, Measure
from .diff_source import line_runs, source_diff, unified
from .diff_text import change, delta, names, side, value
from .html import _css

_DIFF_CSS = """
.kv-diff .kv-del { background: #ffebe9; } .kv-diff .kv-ins { background: #e6ffec; }
.kv-diff .kv-fold { color: #6e7781; font-style: italic; }
.kv-diff .kv-win { color: #1a7f37; } .kv-diff .kv-loss { color: #cf222e; }
.kv-diff .kv-changed td { font-weight: 600; }
.kv-diff .kv-rel-same { background: #eef1f4; } .kv-diff .kv-rel-changed { background: #fff1c2; }
.kv-diff .kv-rel-fused, .kv-diff .kv-rel-split { background: #ddf4ff; }
.kv-diff .kv-rel-added { background: #dafbe1; } .kv-diff .kv-rel-removed { background: #ffebe9; }
.kv-diff pre.kv-unified { background: #f7f7f7; padding: 4px; overflow-x: auto; font-size: 12px; }
.kv-diff .kv-mark { color: #6e7781; user-select: none; }
.kv-diff td code, .kv-diff li code { word-break: break-all; }
"""


def _signed(m: Measure | None) -> str:
    """The change of a measure, coloured as a win (smaller) or a loss (larger)."""
    if m is None or m.delta is None or m.delta == 0:
        return ""
    cls = "kv-win" if m.delta < 0 else "kv-loss"
    return f'<span class="{cls}">{escape(delta(m))}</span>'


def _time_cells(m: Measure | None) -> str:
    if m is None:
        return "<td></td><td></td><td></td>"
    note = f' title="{escape(m.note)}"' if m.note else ""
    return (f"<td{note}>{escape(value(m.a, m.unit))}</td><td{note}>{escape(value(m.b, m.unit))}</td>"
            f"<td>{_signed(m)}</td>")


def _badge(relation: str) -> str:
    return f'<span class="kv-badge kv-rel-{escape(relation)}">{escape(relation)}</span>'


def _group_row(diff: Diff, index: int, group: Group) -> str:
    link = (f'<a href="#kv-diff-{index}">{escape(names(diff, group, "a"))}</a>' if shows_detail(group)
            else escape(names(diff, group, "a")))
    how = escape(group.how) + (f" ({group.confidence:.2f})" if group.a and group.b else "")
    return (f"<tr><td>{_badge(group.relation)}</td><td><code>{link}</code></td>"
            f"<td><code>{escape(names(diff, group, 'b'))}</code></td>"
            + _time_cells(group.measure("in-graph")) + _time_cells(group.measure("isolated"))
            + f"<td>{how}</td></tr>")


def shows_detail(group: Group) -> bool:
    return group.relation != "same" or any(m.changed for m in group.measures if m.kind in ("config", "binary"))


def _measures(measures: list[Measure]) -> str:
    rows = "".join(
        f'<tr class="{"kv-changed" if m.changed and m.kind in ("config", "binary", "device") else ""}">'
        f"<td>{escape(m.name)}</td><td>{escape(value(m.a, m.unit))}</td><td>{escape(value(m.b, m.unit))}</td>"
        f"<td>{_signed(m)}</td><td>{escape(m.note)}</td></tr>"
        for m in measures if m.a is not None or m.b is not None)
    return ('<table class="kv-small"><tr><th>measure</th><th>a</th><th>b</th><th>change</th><th></th></tr>'
            f"{rows}</table>") if rows else ""


def _line(parts: list[tuple[str, str]]) -> str:
    return "".join(f'<span class="{cls}">{escape(text)}</span>' if cls else escape(text) for cls, text in parts)


def _source(diff: Diff, group: Group) -> str:
    """The highlighted unified diff of the group's source (or one side's source where the other has none)."""
    data = source_diff(diff, group)
    lines_a, lines_b = line_runs(data["a"], data["lang_a"]), line_runs(data["b"], data["lang_b"])
    out = []
    for tag, i, j in unified(data["ops"]):
        if tag == "…":
            out.append(f'<div class="kv-fold">⋯ {i} unchanged line{"s" * (i != 1)}</div>')
        elif tag == "-":
            out.append(f'<div class="kv-del"><span class="kv-mark">- </span>{_line(lines_a[i])}</div>')
        elif tag == "+":
            out.append(f'<div class="kv-ins"><span class="kv-mark">+ </span>{_line(lines_b[j])}</div>')
        else:
            out.append(f'<div><span class="kv-mark">  </span>{_line(lines_a[i])}</div>')
    return f'<div class="highlight"><pre class="kv-unified">{"".join(out)}</pre></div>'


def _detail(diff: Diff, index: int, group: Group) -> str:
    return (f'<details class="kv-kernel" id="kv-diff-{index}"><summary>{_badge(group.relation)} '
            f'<code>{escape(names(diff, group, "a"))}</code> → <code>{escape(names(diff, group, "b"))}</code></summary>'
            f"<p>Matched by {escape(group.how)}"
            + (f", confidence {group.confidence:.2f}" if group.a and group.b else "") + "</p>"
            + _measures(group.measures) + _source(diff, group) + "</details>")


def _graph(diff: Diff, i: int) -> str:
    gm = diff.graphs[i]
    ida = escape(diff.a.graphs[gm.a].id) if gm.a is not None else "-"
    idb = escape(diff.b.graphs[gm.b].id) if gm.b is not None else "-"
    how = escape(gm.how) + (f", confidence {gm.confidence:.2f}" if gm.a is not None and gm.b is not None else "")
    groups = [(k, g) for k, g in enumerate(diff.groups) if g.graph == i]
    head = "".join(f"<th>{h}</th>" for h in ("", "a", "b", "in-graph ms a", "b", "change", "isolated ms a", "b",
                                            "change", "matched by"))
    facts = " · ".join(escape(change(m)) for m in gm.measures if m.kind == "time" and (m.a is not None
                                                                                        or m.b is not None))
    return (f"<h3>graph {ida} → {idb} <small>({how})</small></h3>" + (f"<p>{facts}</p>" if facts else "")
            + f'<table class="kv-table"><thead><tr>{head}</tr></thead><tbody>'
            + "".join(_group_row(diff, k, g) for k, g in groups) + "</tbody></table>"
            + "".join(_detail(diff, k, g) for k, g in groups if shows_detail(g)))


def _headline(diff: Diff) -> str:
    h = diff.headline
    rows = "".join(f"<tr><td>{escape(m.name)}</td><td>{escape(value(m.a, m.unit))}</td>"
                   f"<td>{escape(value(m.b, m.unit))}</td><td>{_signed(m)}</td><td>{escape(m.note)}</td></tr>"
                   for m in h.measures)
    counts = ", ".join(f"{n} {escape(r)}" for r, n in h.counts.items() if n)
    lists = ""
    for title, indices in (("Biggest wins", h.wins), ("Biggest losses", h.losses),
                           ("Fused and split", [k for k, g in enumerate(diff.groups) if g.relation in ("fused",
                                                                                                       "split")])):
        if indices:
            items = "".join(
                f'<li>{_badge(diff.groups[k].relation)} <code>{escape(names(diff, diff.groups[k], "a"))}</code> → '
                f'<code>{escape(names(diff, diff.groups[k], "b"))}</code> {_signed(diff.groups[k].measure("in-graph"))}'
                "</li>" for k in indices)
            lists += f"<p><b>{title}</b></p><ol>{items}</ol>"
    notes = "".join(f"<li>{escape(n)}</li>" for n in h.notes)
    return ('<table class="kv-small"><tr><th></th><th>a</th><th>b</th><th>change</th><th></th></tr>'
            f"{rows}</table><p>Launch groups: {counts or 'none'}</p>{lists}"
            + (f'<ul class="kv-warnings">{notes}</ul>' if notes else ""))


def report(diff: Diff) -> str:
    """The diff as an HTML fragment (for a notebook's ``text/html`` output)."""
    return (f'<div class="kv-report kv-diff"><style>{_css()}{_DIFF_CSS}</style>'
            f"<p><b>kernelviz diff</b> · a: {escape(side(diff.a, diff.labels[0]))} → "
            f"b: {escape(side(diff.b, diff.labels[1]))}</p>"
            + _headline(diff) + "".join(_graph(diff, i) for i in range(len(diff.graphs))) + "</div>")


def page(diff: Diff) -> str:
    """The diff as a whole HTML page."""
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>kernelviz diff</title></head>'
            f"<body>{report(diff)}</body></html>\n")
