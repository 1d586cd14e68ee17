"""A self-contained HTML page of a diff: inline CSS, no script, no network.

The two inputs and what changed in one sentence, the totals, the biggest wins and losses and the fusions
and splits, then per graph pair a table of launch groups in reading order (a and b side by side, names
shortened to what tells them apart, the full name on hover and in the group's detail; runs of unchanged
launches folded) and, for each group that changed, its figures on both sides and the highlighted unified
diff of its source. The page fits its width (480 px up) without sideways scrolling. Every captured string
goes through ``escape``.
"""

from __future__ import annotations

from functools import lru_cache
from html import escape
from pathlib import Path

from .. import units
from ..compare.measures import time_delta
from ..compare.model import Diff, Group, Measure
from ..model import Launch
from ..names import short_name
from .diff_source import line_runs, source_diff, unified
from .diff_text import change, delta, names, side, value
from .html import _css
from .text import plural

FOLD = 6  # a run of at least this many unchanged groups is folded into one row
DETAILS = 200  # groups per graph pair whose source diff the page holds (the biggest changes of time first)
_CSS_FILE = Path(__file__).with_name("diff_report.css")


@lru_cache(maxsize=1)
def _diff_css() -> str:
    return _CSS_FILE.read_text()


def _signed(m: Measure | None, short: bool = False) -> str:
    """The change of a measure, coloured as a win (smaller) or a loss (larger); ``short``: its size against
    side a alone (the whole change on hover)."""
    if m is None or m.delta is None or m.delta == 0:
        return ""
    cls = "kv-win" if m.delta < 0 else "kv-loss"
    text = delta(m)
    if short:
        return f'<span class="{cls}" title="{escape(text)}">{escape(text.split(", ")[-1])}</span>'
    return f'<span class="{cls}">{escape(text)}</span>'


def _badge(relation: str) -> str:
    return f'<span class="kv-badge kv-rel-{escape(relation)}">{escape(relation)}</span>'


def launch_name(launch: Launch) -> str:
    """A launch's name as the launch table shows it (what it computes, its counter; kernelviz/names.py): the head
    clipped with an ellipsis where the cell is narrow, the counter always shown, the full name on hover."""
    head, tail = short_name(launch.name, launch.original_aten, generated=launch.kernel_name is not None)
    return (f'<span class="kv-name" title="{escape(launch.name)}"><span class="kv-clip">{escape(head)}</span>'
            f'<span class="kv-tail">{escape(tail)}</span></span>')


def _side(diff: Diff, group: Group, which: str, link: str | None = None) -> str:
    """One side of a group: each launch's number and shortened name, linked to the group's detail; empty
    where the group has no launch on that side."""
    ga, gb = diff.graph_pair(group)
    graph, indices = (ga, group.a) if which == "a" else (gb, group.b)
    if graph is None or not indices:
        return '<td class="kv-c-name kv-none"></td>'
    lines = []
    for i in indices:
        text = f'<span class="kv-idx">{i}</span>{launch_name(graph.launches[i])}'
        lines.append(f'<div class="kv-launch"><a href="#{link}">{text}</a></div>' if link
                     else f'<div class="kv-launch">{text}</div>')
    return f'<td class="kv-c-name">{"".join(lines)}</td>'


class _Columns:
    """The table's columns: time columns only where some group of the graph pair has that time."""

    def __init__(self, groups: list[Group]):
        def has(name):
            return any((m := g.measure(name)) is not None and (m.a is not None or m.b is not None) for g in groups)

        self.times = [name for name in ("in-graph", "isolated") if has(name)]

    def colgroup(self) -> str:
        cols = ['<col class="kv-c-rel">', '<col class="kv-c-name">', '<col class="kv-c-name">']
        for name in self.times:
            cls = "kv-c-iso" if name == "isolated" else "kv-c-ig"
            cols += [f'<col class="kv-c-t {cls}">', f'<col class="kv-c-t {cls}">', f'<col class="kv-c-d {cls}-d">']
        return "<colgroup>" + "".join(cols) + '<col class="kv-c-how"></colgroup>'

    def head(self) -> str:
        cells = ['<th class="kv-c-rel"></th>', '<th class="kv-c-name"># a</th>', '<th class="kv-c-name"># b</th>']
        for name in self.times:
            cls = "kv-c-iso" if name == "isolated" else "kv-c-ig"
            cells += [f'<th class="kv-c-t {cls}">{name} ms a</th>', f'<th class="kv-c-t {cls}">b</th>',
                      f'<th class="kv-c-d {cls}-d">change</th>']
        return "<thead><tr>" + "".join(cells) + '<th class="kv-c-how">matched by</th></tr></thead>'

    def count(self) -> int:
        return 4 + 3 * len(self.times)

    def times_of(self, group: Group) -> str:
        out = ""
        for name in self.times:
            m = group.measure(name)
            cls = "kv-c-iso" if name == "isolated" else "kv-c-ig"
            if m is None:
                out += f'<td class="{cls}"></td><td class="{cls}"></td><td class="{cls}-d"></td>'
                continue
            note = f' title="{escape(m.note)}"' if m.note else ""
            out += (f'<td class="kv-num {cls}"{note}>{escape(value(m.a, m.unit)) if group.a else ""}</td>'
                    f'<td class="kv-num {cls}"{note}>{escape(value(m.b, m.unit)) if group.b else ""}</td>'
                    f'<td class="kv-num {cls}-d">{_signed(m, short=True)}</td>')
        return out


def how_text(group: Group) -> str:
    """``source nodes + ATen ops 0.91``: the evidence and the confidence of a group (empty where added or
    removed: the row says so)."""
    return f"{group.how} {units.score(group.confidence)}" if group.a and group.b else ""


def _group_row(diff: Diff, index: int, group: Group, columns: _Columns, detailed: set[int]) -> str:
    link = f"kv-diff-{index}" if index in detailed else None
    how = how_text(group)
    return (f'<tr class="kv-rel-row-{escape(group.relation)}"><td class="kv-c-rel">{_badge(group.relation)}</td>'
            + _side(diff, group, "a", link) + _side(diff, group, "b", link) + columns.times_of(group)
            + f'<td class="kv-c-how" title="{escape(how)}">{escape(how)}</td></tr>')


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
            f'<code>{escape(names(diff, group, "a"))}</code> → '
            f'<code>{escape(names(diff, group, "b"))}</code>'
            f"</summary><p>Matched by {escape(group.how)}"
            + (f", confidence {units.score(group.confidence)}" if group.a and group.b else "") + "</p>"
            + _measures(group.measures) + _source(diff, group) + "</details>")


def _detailed(groups: list[tuple[int, Group]]) -> tuple[set[int], int]:
    """The groups whose detail the page holds (at most DETAILS: the biggest changes of in-graph time
    first, then in order) and how many more changed."""
    changed = [(k, g) for k, g in groups if shows_detail(g)]
    if len(changed) <= DETAILS:
        return {k for k, _ in changed}, 0
    ranked = sorted(changed, key=lambda kg: -abs(time_delta(kg[1]) or 0.0))
    return {k for k, _ in ranked[:DETAILS]}, len(changed) - DETAILS


def _rows(diff: Diff, groups: list[tuple[int, Group]], columns: _Columns, detailed: set[int]) -> str:
    """The rows in reading order, each run of at least FOLD unchanged groups folded into one row."""
    out, k = [], 0
    while k < len(groups):
        end = k
        while end < len(groups) and not shows_detail(groups[end][1]):
            end += 1
        if end - k >= FOLD:
            first, last = groups[k][1], groups[end - 1][1]
            label = f"⋯ {end - k} launches the same (a {first.a[0]}-{last.a[-1]}, b {first.b[0]}-{last.b[-1]})"
            inner = "".join(_group_row(diff, i, g, columns, detailed) for i, g in groups[k:end])
            out.append(f'<tr class="kv-fold-row"><td colspan="{columns.count()}"><details><summary>{label}</summary>'
                       f'<table class="kv-table kv-groups">{columns.colgroup()}<tbody>{inner}</tbody></table>'
                       "</details></td></tr>")
        else:
            end = max(end, k + 1)
            out += [_group_row(diff, i, g, columns, detailed) for i, g in groups[k:end]]
        k = end
    return "".join(out)


def _graph(diff: Diff, i: int, summary: bool = False) -> str:
    gm = diff.graphs[i]
    ida = escape(diff.a.graphs[gm.a].id) if gm.a is not None else "-"
    idb = escape(diff.b.graphs[gm.b].id) if gm.b is not None else "-"
    matched = gm.a is not None and gm.b is not None
    how = escape(gm.how) + (f", confidence {units.score(gm.confidence)}" if matched else "")
    groups = [(k, g) for k, g in enumerate(diff.groups) if g.graph == i]
    columns = _Columns([g for _, g in groups])
    detailed, more = _detailed(groups) if not summary else (set(), 0)
    same = [(k, g) for k, g in groups if not shows_detail(g)] if summary else []
    if same:  # a summary lists what changed
        groups = [(k, g) for k, g in groups if shows_detail(g)]
        more_text = (f'<p class="kv-hint">{plural(sum(len(g.b) for _, g in same), "launch")} the same are left out '
                     "(the panel and the full report list them)</p>")
    else:
        more_text = ""
    facts = " · ".join(escape(change(m)) for m in gm.measures if m.kind == "time" and (m.a is not None
                                                                                        or m.b is not None))
    story = f'<p class="kv-story">{escape(gm.summary)}</p>' if gm.summary and len(diff.graphs) > 1 else ""
    left_out = (f'<p class="kv-hint">{more} more changed groups are in the table without their source diff '
                "(the panel and the diff's JSON have them all)</p>") if more else ""
    return (f"<h3>graph {ida} → {idb} <small>({how})</small></h3>{story}" + (f"<p>{facts}</p>" if facts else "")
            + f'<table class="kv-table kv-groups">{columns.colgroup()}{columns.head()}<tbody>'
            + _rows(diff, groups, columns, detailed) + "</tbody></table>" + more_text + left_out
            + "".join(_detail(diff, k, g) for k, g in groups if k in detailed))


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
                f'<li>{_badge(diff.groups[k].relation)} {_inline(diff, diff.groups[k], "a")} → '
                f'{_inline(diff, diff.groups[k], "b")} {_signed(diff.groups[k].measure("in-graph"))}</li>'
                for k in indices)
            lists += f"<p><b>{title}</b></p><ol>{items}</ol>"
    notes = "".join(f"<li>{escape(n)}</li>" for n in h.notes)
    return ('<table class="kv-small"><tr><th></th><th>a</th><th>b</th><th>change</th><th></th></tr>'
            f"{rows}</table><p>Launch groups: {counts or 'none'}</p>{lists}"
            + (f'<ul class="kv-warnings">{notes}</ul>' if notes else ""))


def _inline(diff: Diff, group: Group, which: str) -> str:
    """One side of a group in a sentence: the shortened names, joined by +."""
    ga, gb = diff.graph_pair(group)
    graph, indices = (ga, group.a) if which == "a" else (gb, group.b)
    if graph is None or not indices:
        return "-"
    return " + ".join(f'<code>{launch_name(graph.launches[i])}</code>' for i in indices)


SUMMARY = ("A summary of what changed: every launch and the source diffs are in the kernelviz panel (JupyterLab or "
           "Notebook 7 with kernelviz installed), which shows them from this saved output, and "
           "<code>d.save_html(path)</code> writes the full report.")


def report(diff: Diff, *, summary: bool = False) -> str:
    """The diff as an HTML fragment; with ``summary`` (a notebook's ``text/html`` output, for GitHub and nbviewer)
    only the launches that changed and without the source diffs, which the saved output's JSON holds and the
    panel shows."""
    story = diff.headline.summary
    return (f'<div class="kv-report kv-diff"><style>{_css(not summary)}{_diff_css()}</style>'
            '<p class="kv-title"><b>kernelviz diff</b></p>'
            f'<p class="kv-sides">a: {escape(side(diff.a, diff.labels[0]))}'
            f"<br>b: {escape(side(diff.b, diff.labels[1]))}</p>"
            + (f'<p class="kv-story"><b>What changed:</b> {escape(story)}</p>' if story else "")
            + (f'<p class="kv-hint">{SUMMARY}</p>' if summary else "")
            + _headline(diff) + "".join(_graph(diff, i, summary) for i in range(len(diff.graphs))) + "</div>")


def page(diff: Diff) -> str:
    """The diff as a whole HTML page."""
    return ('<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1"><title>kernelviz diff</title>'
            "<style>@media (prefers-color-scheme: dark) { body { background: #1e1e1e; } }</style>"
            f"</head><body>{report(diff)}</body></html>\n")
