"""The panel's two pictures as inline SVG for the HTML report (no script): the roofline of a graph's launches
and its ``call()`` timeline, with the geometry, colours and labels of ``static/src/roofline.js`` and
``timeline.js``.

A small writer of its own rather than a charting library: the report is rebuilt on every display of a
capture and must stay fast and dependency-free (matplotlib is a large optional import, and its SVG output
embeds glyph paths); pygal has no timeline and carries its own scripts. Every string drawn is escaped.
"""

from __future__ import annotations

import dataclasses
import math
from html import escape

from .. import units
from ..figures import positive, valid
from ..model import DevicePeaks, Graph, Launch
from .rules import gap_title, launch_kind, peaks_known
from .text import plural

KIND_COLOURS = {"triton": "#4e79a7", "triton_template": "#b07aa1", "cpp": "#59a14f", "extern": "#f28e2b"}
OTHER_COLOUR = "#76b7b2"
W, LEFT, RIGHT, TOP, BOTTOM = 460, 46, 12, 18, 38  # user units; drawn 1:1 (report.css), text at 13


class _Log:
    """A log scale from ``domain`` (padded by ``pad`` either side) onto the pixel range ``(a, b)``."""

    def __init__(self, values: list[float], pad: float, a: float, b: float) -> None:
        values = [min(max(v, 1e-30), 1e30) for v in values]  # what a ratio of sane figures can reach
        self.lo, self.hi = math.log10(min(values) / pad), math.log10(max(values) * pad)
        self.a, self.b = a, b

    def __call__(self, v: float) -> float:
        t = (math.log10(min(max(v, 1e-30), 1e30)) - self.lo) / ((self.hi - self.lo) or 1)
        return self.a + min(1.0, max(0.0, t)) * (self.b - self.a)

    def decades(self) -> list[float]:
        """Its powers of ten, or 1-2-5 steps where it spans less than two."""
        out = [10.0 ** e for e in range(math.ceil(self.lo), math.floor(self.hi) + 1)]
        if len(out) >= 2:
            return out
        steps = [m * 10.0 ** e for e in range(math.floor(self.lo), math.ceil(self.hi) + 1) for m in (1, 2, 5)]
        return [v for v in steps if self.lo <= math.log10(v) <= self.hi]


def _tick(v: float) -> str:
    return f"{v / 1e6:g}M" if v >= 1e6 else f"{v / 1e3:g}k" if v >= 1e3 else f"{v:g}"


def _text(x: float, y: float, text: str, anchor: str = "start", cls: str = "kv-chart-label") -> str:
    return f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}">{escape(text)}</text>'


def _line(x1: float, y1: float, x2: float, y2: float, cls: str = "kv-roof") -> str:
    return f'<line class="{cls}" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>'


def _x_axis(scale: _Log, y: float) -> str:
    ticks = "".join(_line(scale(v), y, scale(v), y + 4, "kv-tick") + _text(scale(v), y + 17, _tick(v), "middle")
                    for v in scale.decades())
    return _line(scale.a, y, scale.b, y, "kv-tick") + ticks


def _y_axis(scale: _Log, x: float) -> str:
    ticks = "".join(_line(x - 4, scale(v), x, scale(v), "kv-tick") + _text(x - 6, scale(v) + 4, _tick(v), "end")
                    for v in scale.decades())
    return _line(x, scale.a, x, scale.b, "kv-tick") + ticks


def _svg(cls: str, height: float, label: str, body: str) -> str:
    return (f'<svg class="kv-chart {cls}" viewBox="0 0 {W} {height:.0f}" width="100%" role="img" '
            f'aria-label="{escape(label)}">{body}</svg>')


def _point(x: float, y: float, graph: Graph, launch: Launch, title: str) -> str:
    colour = KIND_COLOURS.get(launch_kind(graph, launch), OTHER_COLOUR)
    return (f'<circle class="kv-point" cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{colour}">'
            f"<title>{escape(title)}</title></circle>")


def _ceiling(value: float) -> str:
    """A ceiling's value in its label, as ``roofline.js`` writes it: whole from 100 up, else 3 significant digits."""
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def _flop_chart(graph: Graph, launches: list[Launch], peaks: DevicePeaks | None, dtypes: list[str]) -> str:
    h = 220
    bw = peaks.dram_gb_per_s if peaks else None
    ceilings = [(d, peaks.tflops[d]) for d in dtypes if peaks and peaks.tflops.get(d)]
    xs = [t.flops / t.bytes for t in (launch.timing for launch in launches)]
    ys = [launch.timing.tflop_per_s for launch in launches]
    xs += [v * 1000 / bw for _, v in ceilings] if bw else []
    ys += [v for _, v in ceilings]
    x, y = _Log(xs, 3, LEFT, W - RIGHT), _Log(ys, 3, h - BOTTOM, TOP)
    x0, x1 = 10 ** x.lo, 10 ** x.hi
    body = [_x_axis(x, h - BOTTOM), _y_axis(y, LEFT), _text(W - RIGHT, h - 2, "FLOP per byte", "end"),
            _text(4, 12, "TFLOP/s")]
    if bw:
        top = max(v for _, v in ceilings) if ceilings else 10 ** y.hi  # the diagonal ends at the ridge
        xr = min(x1, top * 1000 / bw)
        body += [_line(x(x0), y(x0 * bw / 1000), x(xr), y(xr * bw / 1000)),
                 _text(x(x0) + 4, y(x0 * bw / 1000) + 12, f"DRAM {_ceiling(bw)} GB/s", cls="kv-roof-label")]
    for dtype, v in ceilings:
        start = max(x0, v * 1000 / bw) if bw else x0
        body += [_line(x(start), y(v), x(x1), y(v)),
                 _text(x(x1) - 2, y(v) - 5, f"{dtype} {_ceiling(v)} TFLOP/s", "end", "kv-roof-label")]
    for launch in launches:
        t = launch.timing
        title = f"#{launch.index} {launch.name}: {t.flops / t.bytes:.3g} FLOP/B, {t.tflop_per_s:.3g} TFLOP/s"
        body.append(_point(x(t.flops / t.bytes), y(t.tflop_per_s), graph, launch, title))
    return _svg("kv-roofline-flops", h, "roofline: arithmetic intensity against achieved TFLOP/s", "".join(body))


def _bandwidth_strip(graph: Graph, launches: list[Launch], peaks: DevicePeaks | None) -> str:
    h, top = 92, 18
    bottom = h - 36
    bw = peaks.dram_gb_per_s if peaks else None
    x = _Log([launch.timing.gb_per_s for launch in launches] + ([bw] if bw else []), 2, LEFT, W - RIGHT)
    body = [_x_axis(x, bottom), _text(W - RIGHT, h - 2, "GB/s achieved in the graph", "end"),
            _text(4, top + 6, "no FLOPs")]
    if bw:
        xp = x(bw)
        body += [f'<rect class="kv-cache-zone" x="{xp:.1f}" y="{top}" width="{W - RIGHT - xp:.1f}" '
                 f'height="{bottom - top}"/>', _line(xp, top - 4, xp, bottom),
                 _text(xp - 3, top - 4, f"DRAM peak {_ceiling(bw)} GB/s", "end",
                       "kv-roof-label")]
    kinds = list(dict.fromkeys(launch_kind(graph, launch) for launch in launches))
    spread = (bottom - top - 12) / max(1, len(kinds))
    for launch in launches:
        t = launch.timing
        lane = kinds.index(launch_kind(graph, launch))
        body.append(_point(x(t.gb_per_s), top + 8 + spread * (lane + 0.5) + (launch.index * 7) % 5 - 2, graph, launch,
                           f"#{launch.index} {launch.name}: {t.gb_per_s:.3g} GB/s"
                           + (" (cache-resident)" if t.cache_resident else "")))
    return _svg("kv-roofline-bw", h, "achieved GB/s of launches without counted FLOPs", "".join(body))


def roofline_svg(graph: Graph, peaks: DevicePeaks | None) -> str:
    """The roofline figure of ``graph`` (empty when no launch has a rate)."""
    timed = [launch for launch in graph.launches if launch.timing]
    flops = [launch for launch in timed if all(positive(v) for v in (launch.timing.flops, launch.timing.bytes,
                                                                      launch.timing.tflop_per_s))]
    memory = [launch for launch in timed if launch not in flops and positive(launch.timing.gb_per_s)]
    odd = [launch for launch in timed if any(v is not None and not valid(v) for v in (
        launch.timing.flops, launch.timing.bytes, launch.timing.tflop_per_s, launch.timing.gb_per_s))]
    peaks = _sane_peaks(peaks)
    if not flops and not memory:
        return ""
    dtypes = list(dict.fromkeys(launch.timing.dtype for launch in flops if launch.timing.dtype))
    if not dtypes and peaks and peaks.tflops:
        dtypes = [max(peaks.tflops, key=peaks.tflops.get)]
    parts = ([_flop_chart(graph, flops, peaks, dtypes)] if flops else []) + (
        [_bandwidth_strip(graph, memory, peaks)] if memory else [])
    kinds = list(dict.fromkeys(launch_kind(graph, launch) for launch in flops + memory))
    parts.append(_legend(kinds))
    known = peaks_known(peaks)
    cache = "the CPU's caches" if peaks and peaks.device_type == "cpu" else "L2"
    source = (f"ceilings of {peaks.device}: {peaks.source or 'source not given'}"
              + (f"; right of the DRAM peak: cache-resident (inputs in {cache})"
                 if memory and peaks.dram_gb_per_s else "")
              if known else "no ceilings: this device's peaks are not known (so no % of a roof either)"
              + (f": {peaks.source}" if peaks and peaks.source else ""))
    if odd:
        source += (f"; {plural(len(odd), 'launch')} with invalid figures (negative or beyond any "
                   f"device) not drawn: #{', #'.join(str(launch.index) for launch in odd[:8])}")
    return (f'<figure class="kv-figure"><figcaption>Roofline</figcaption>{"".join(parts)}'
            f'<div class="kv-hint">{escape(source)}</div></figure>')


def _sane_peaks(peaks: DevicePeaks | None) -> DevicePeaks | None:
    """The device's peaks without the ones that make no sense (a ceiling must be above zero)."""
    if peaks is None:
        return None
    tflops = {d: v for d, v in peaks.tflops.items() if positive(v)} if isinstance(peaks.tflops, dict) else {}
    return dataclasses.replace(peaks, dram_gb_per_s=peaks.dram_gb_per_s if positive(peaks.dram_gb_per_s) else None,
                               tflops=tflops)


def _legend(kinds: list[str]) -> str:
    body, at = [], LEFT
    for kind in kinds:
        body.append(f'<rect x="{at}" y="5" width="9" height="9" fill="{KIND_COLOURS.get(kind, OTHER_COLOUR)}"/>'
                    + _text(at + 11, 14, kind))
        at += 11 + 7.5 * len(kind) + 12
    return _svg("kv-legend", 18, "kinds", "".join(body))


def timeline_svg(graph: Graph) -> str:
    """``call()`` as a timeline: launches back to back by in-graph time, generated and extern lanes, then the gap."""
    timed = [launch for launch in graph.launches if launch.timing and valid(launch.timing.in_graph_ms)]
    if not timed:
        return ""
    gap = graph.gap_ms if positive(graph.gap_ms) else 0.0
    lanes = ["generated", "extern"] + (["gap"] if gap else [])
    lane_h, top = 22, 8
    h = top + lane_h * len(lanes) + BOTTOM
    total = sum(launch.timing.in_graph_ms for launch in timed) + gap
    left = 78

    def x(ms: float) -> float:
        return left + (W - RIGHT - left) * ms / (total or 1)

    body = [_text(left - 6, top + lane_h * i + lane_h / 2 + 4, lane, "end") for i, lane in enumerate(lanes)]
    axis_y = top + lane_h * len(lanes)
    step = _nice_step(total / 6)
    ticks = [i * step for i in range(int(total / step) + 1)] if step else []
    body += [_line(left, axis_y, W - RIGHT, axis_y, "kv-tick")] + [
        _line(x(t), axis_y, x(t), axis_y + 4, "kv-tick") + _text(x(t), axis_y + 17, f"{t:g}", "middle") for t in ticks]
    clock = "CPU wall clock" if graph.device == "cpu" else "GPU"
    body.append(_text(W - RIGHT, h - 2, f"ms ({clock}, launches back to back)", "end"))
    at = 0.0
    for launch in timed:
        ms, kind = launch.timing.in_graph_ms, launch_kind(graph, launch)
        lane, title = 1 if kind == "extern" else 0, f"#{launch.index} {launch.name} ({kind}): {units.ms_sig(ms)} ms"
        body.append(f'<rect class="kv-span" x="{x(at):.2f}" y="{top + lane_h * lane + 3}" '
                    f'width="{max(0.6, x(at + ms) - x(at)):.2f}" height="{lane_h - 6}" '
                    f'fill="{KIND_COLOURS.get(kind, OTHER_COLOUR)}"><title>{escape(title)}</title></rect>')
        at += ms
    if gap:
        body.append(f'<rect class="kv-gap" x="{x(at):.2f}" y="{top + lane_h * 2 + 3}" '
                    f'width="{max(0.6, x(at + gap) - x(at)):.2f}" height="{lane_h - 6}"><title>'
                    f"gap {units.ms_sig(gap)} ms: {escape(gap_title(graph))}</title></rect>")
    svg = _svg("kv-timeline", h, "timeline of call(): launches in order with their in-graph time", "".join(body))
    caption = (f"{plural(len(timed), 'launch')} {units.ms_sig(total - gap)} ms"
               + (f" + gap {units.ms_sig(gap)} ms" if gap else ""))
    return (f'<figure class="kv-figure"><figcaption>call() timeline</figcaption>{svg}'
            f'<div class="kv-hint">{escape(caption)}</div></figure>')


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``raw``."""
    if raw <= 0:
        return 0.0
    power = 10 ** math.floor(math.log10(raw))  # 0.0 for a denormal raw: then raw itself
    return next((m * power for m in (1, 2, 5, 10) if m * power >= raw), raw)
