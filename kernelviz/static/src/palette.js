// Colours of launch kinds in the charts (the same as kernelviz/views/charts.py draws in the HTML report),
// and the SVG frame both charts share.
import { create } from "d3-selection";

export const KIND_COLOURS = { triton: "#4e79a7", triton_template: "#b07aa1", cpp: "#59a14f", extern: "#f28e2b" };
export const OTHER_COLOUR = "#76b7b2";
export const kindColour = (kind) => KIND_COLOURS[kind] || OTHER_COLOUR;

/** An SVG of `width` x `height` user units that scales to its container's width. */
export function svgFrame(cls, width, height, label) {
  return create("svg").attr("class", `kv-chart ${cls}`).attr("viewBox", `0 0 ${width} ${height}`)
    .attr("width", "100%").attr("role", "img").attr("aria-label", label);
}

/** A legend of the kinds present: a swatch and the kind's name for each. */
export function legend(svg, kinds, x, y) {
  let at = x;
  for (const kind of kinds) {
    svg.append("rect").attr("x", at).attr("y", y - 9).attr("width", 9).attr("height", 9).attr("fill", kindColour(kind));
    svg.append("text").attr("class", "kv-chart-label").attr("x", at + 11).attr("y", y).text(kind);
    at += 11 + 7.5 * kind.length + 12; // about 7.5 units a character at the charts' font size (the table's)
  }
}

/** Tick values of a log scale: its powers of ten (or a few ticks where it spans less than two). */
export function decades(scale) {
  const [lo, hi] = scale.domain();
  const out = [];
  for (let e = Math.ceil(Math.log10(lo)); e <= Math.floor(Math.log10(hi)); e++) out.push(10 ** e);
  if (out.length >= 2) return out;
  const ticks = scale.ticks(), step = Math.ceil(ticks.length / 4);
  return ticks.filter((_, i) => i % step === 0);
}

/** A tick label: 0.01, 1, 100, 10k, 1M. */
export function tickLabel(v) {
  return v >= 1e6 ? `${v / 1e6}M` : v >= 1e3 ? `${v / 1e3}k` : String(+v.toPrecision(2));
}
