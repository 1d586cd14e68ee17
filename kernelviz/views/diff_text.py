"""A diff as plain text (terminals, the magic's text output), and the wording the other diff views share."""

from __future__ import annotations

from .. import units
from ..compare.model import Diff, Group, Measure
from ..model import Capture
from .ranks_text import WHOLE
from .wrap import wrapped_lines


def value(x, unit: str = "") -> str:
    """One side of a measure: ms with 4 decimals, bytes for people, the rest as it is."""
    if x is None:
        return "-"
    if unit == "B" and isinstance(x, (int, float)):
        return units.size(x)
    if isinstance(x, float):
        return f"{x:.4f}" if unit == "ms" else f"{x:.3g}"
    return str(x)


def change(m: Measure) -> str:
    """``in-graph: 0.0314 → 0.0332 ms (+0.0018 ms, +5.9%)``, and a note where the two are not compared."""
    unit = f" {m.unit}" if m.unit and m.unit != "B" else ""
    text = f"{m.name}: {value(m.a, m.unit)} → {value(m.b, m.unit)}{unit}"
    if m.delta is not None and m.delta != 0:
        text += f" ({delta(m)})"
    return text + (f" [{m.note}]" if m.note else "")


def delta(m: Measure) -> str:
    """``+0.0018 ms, +5.9%``: the change, and its size against side a (a factor beyond twice a)."""
    d = m.delta
    if m.unit == "B":
        text = units.signed_size(d)
    elif isinstance(d, int):
        text = f"{d:+d}"
    else:
        text = f"{d:+.4f} ms" if m.unit == "ms" else f"{d:+.3g}" + (f" {m.unit}" if m.unit else "")
    if m.pct is None:
        return text
    return text + (f", {m.b / m.a:.1f}× a" if m.pct > 100 else f", {m.pct:+.1f}%")


def side(capture: Capture, label: str) -> str:
    """``pair_default.json (2 graphs, cuda, torch 2.11.0, NVIDIA H100)``."""
    devices = ", ".join(dict.fromkeys(g.device for g in capture.graphs))
    parts = [f"{len(capture.graphs)} graph{'s' * (len(capture.graphs) != 1)}", devices,
             f"torch {capture.torch_version}" if capture.torch_version else "", capture.device_name or ""]
    facts = ", ".join(p for p in parts if p)
    return facts if label in ("a", "b") else f"{label} ({facts})"


def names(diff: Diff, group: Group, which: str) -> str:
    """Every launch of one side of a group, numbered as in its call(), in full (``-`` where it has none)."""
    ga, gb = diff.graph_pair(group)
    graph, indices = (ga, group.a) if which == "a" else (gb, group.b)
    return " + ".join(f"{i} {graph.launches[i].name}" for i in indices) if graph is not None and indices else "-"


def group_line(diff: Diff, group: Group) -> str:
    m = group.measure("in-graph")
    times = f"  {change(m)}" if m is not None and (m.a is not None or m.b is not None) else ""
    settings = ", ".join(f"{c.name} {value(c.a, c.unit)}→{value(c.b, c.unit)}" for c in group.measures
                         if c.kind in ("config", "binary") and c.changed)
    how = f"  [{group.how}, {units.score(group.confidence)}]" if group.a and group.b else ""
    changed = f"  {group.changed} changed" if group.changed else ""
    return (f"{group.relation:<8} {names(diff, group, 'a')} → {names(diff, group, 'b')}{changed}{times}"
            + (f"  ({settings})" if settings else "") + how)


def headline_lines(diff: Diff) -> list[str]:
    h = diff.headline
    lines = [f"kernelviz diff: {side(diff.a, diff.labels[0])} → {side(diff.b, diff.labels[1])}"]
    if h.summary:
        lines.append(f"  what changed: {h.summary}")
    lines += [f"  {change(m)}" for m in h.measures]
    lines.append("  " + (", ".join(f"{n} {r}" for r, n in h.counts.items() if n) or "no launches on either side"))
    for title, indices in (("biggest wins", h.wins), ("biggest losses", h.losses)):
        if indices:
            lines.append(f"  {title}:")
            lines += [f"    {group_line(diff, diff.groups[i])}" for i in indices]
    fusions = [g for g in diff.groups if g.relation in ("fused", "split")]
    if fusions:
        lines.append("  fused and split:")
        lines += [f"    {group_line(diff, g)}" for g in fusions]
    lines += [f"  note: {n}" for n in h.notes]
    return lines


def head(diff: Diff) -> str:
    """``repr(diff)``: the first line of the headline, what changed, and what more there is to see."""
    lines = headline_lines(diff)
    return "\n".join([*lines[: 2 if diff.headline.summary else 1], f"  {WHOLE}"])


def summary(diff: Diff, width: int | None = None) -> str:
    """The headline, then each graph pair and its groups in call() order, wrapped between words to ``width`` (the
    terminal's), each line's rest under its own text."""
    lines = headline_lines(diff)
    for i, gm in enumerate(diff.graphs):
        ida = diff.a.graphs[gm.a].id if gm.a is not None else "-"
        idb = diff.b.graphs[gm.b].id if gm.b is not None else "-"
        how = f" [{gm.how}, {units.score(gm.confidence)}]" if gm.a is not None and gm.b is not None else f" [{gm.how}]"
        lines.append(f"\ngraph {ida} → {idb}{how}")
        if gm.summary and len(diff.graphs) > 1:
            lines.append(f"  {gm.summary}")
        lines += [f"  {change(m)}" for m in gm.measures if m.kind == "time" and (m.a is not None or m.b is not None)]
        lines += [f"  {group_line(diff, g)}" for g in diff.groups if g.graph == i]
    return wrapped_lines(lines, width)
