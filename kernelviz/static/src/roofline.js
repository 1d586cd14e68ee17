// The roofline of a graph's launches: arithmetic intensity (FLOP per byte) against the achieved rate
// (TFLOP/s), under the device's ceilings (DRAM bandwidth, compute peak per dtype; Capture.peaks, labelled
// with where they come from). Launches without counted FLOPs (most generated kernels move data) are drawn
// on a strip of achieved GB/s against the DRAM peak. A point's click selects its row.
import { axisBottom, axisLeft } from "d3-axis";
import { scaleLog } from "d3-scale";
import { h } from "./dom.js";
import { decades, kindColour, legend, svgFrame, tickLabel } from "./palette.js";

const W = 460, H = 220, M = { left: 46, right: 12, top: 18, bottom: 38 };
const STRIP_H = 92;


function extent(values, pad) {
  const lo = Math.min(...values), hi = Math.max(...values);
  return [lo / pad, hi * pad];
}

/** Points at one pixel (rounded) are drawn once: the launch with the most in-graph time there. */
function onePerPixel(rows, place) {
  const at = new Map();
  for (const r of rows) {
    const [x, y] = place(r), key = `${Math.round(x)},${Math.round(y)}`;
    const other = at.get(key);
    if (!other || (r.ms || 0) > (other.r.ms || 0)) at.set(key, { r, x, y });
  }
  return [...at.values()];
}

/** "measured" where Nsight Compute counted the launch's DRAM bytes, with the estimate it replaced. */
function measuredNote(r) {
  const c = r.launch.counters, t = r.texts;
  if (!c || c.error || c.dram_read_bytes == null) return "";
  const estimate = t.bytes_estimate ? `Inductor's estimate ${t.bytes_estimate}`
    : t.bytes_args ? `arguments ${t.bytes_args}` : "no estimate";
  return `\nmeasured: ${t.bytes || ""} DRAM (Nsight Compute; ${estimate})`;
}

function point(g, r, x, y, onSelect) {
  g.append("circle").attr("class", "kv-point").attr("data-key", r.key).attr("cx", x).attr("cy", y).attr("r", 4)
    .attr("fill", kindColour(r.kind)).on("click", () => onSelect(r.key))
    .append("title").text(`#${r.index} ${r.name} (${r.kind})\n` +
      (r.intensity != null ? `${r.texts.intensity || ""} · ${r.texts.tflops || ""}\n` : "") +
      (r.gbps != null ? (r.texts.gbps || "") + (r.launch.timing.cache_resident ? " (cache-resident)" : "") : "") + measuredNote(r));
}

function flopChart(rows, peaks, ceiling, dtypes, onSelect) {
  const svg = svgFrame("kv-roofline-flops", W, H, "roofline: arithmetic intensity against achieved TFLOP/s");
  const bw = peaks && peaks.dram_gb_per_s;
  const ceilings = dtypes.map((d) => [d, peaks && peaks.tflops[d]]).filter(([, v]) => v);
  const xs = rows.map((r) => r.intensity), ys = rows.map((r) => r.tflops);
  if (bw) ceilings.forEach(([, v]) => xs.push(v * 1000 / bw));
  ceilings.forEach(([, v]) => ys.push(v));
  const x = scaleLog().domain(extent(xs, 3)).range([M.left, W - M.right]).clamp(true);
  const y = scaleLog().domain(extent(ys, 3)).range([H - M.bottom, M.top]).clamp(true);
  svg.append("g").attr("class", "kv-axis").attr("transform", `translate(0,${H - M.bottom})`).call(axisBottom(x).tickValues(decades(x)).tickFormat(tickLabel));
  svg.append("g").attr("class", "kv-axis").attr("transform", `translate(${M.left},0)`)
    .call(axisLeft(y).tickValues(decades(y)).tickFormat(tickLabel));
  svg.append("text").attr("class", "kv-chart-label").attr("x", W - M.right).attr("y", H - 2).attr("text-anchor", "end").text("FLOP per byte");
  svg.append("text").attr("class", "kv-chart-label").attr("x", 4).attr("y", 12).text("TFLOP/s");
  const [x0, x1] = x.domain();
  if (bw) {
    // the diagonal ends where it meets the highest compute ceiling (the ridge), or at the chart's top
    const top = ceilings.length ? Math.max(...ceilings.map(([, v]) => v)) : y.domain()[1];
    const xr = Math.min(x1, top * 1000 / bw);
    svg.append("line").attr("class", "kv-roof").attr("x1", x(x0)).attr("y1", y(x0 * bw / 1000)).attr("x2", x(xr)).attr("y2", y(xr * bw / 1000));
    svg.append("text").attr("class", "kv-roof-label").attr("x", x(x0) + 4).attr("y", y(x0 * bw / 1000) + 12).text(`DRAM ${ceiling.dram || ""} GB/s`);
  }
  for (const [dtype, v] of ceilings) {
    const from = bw ? Math.max(x0, v * 1000 / bw) : x0;
    svg.append("line").attr("class", "kv-roof").attr("x1", x(from)).attr("y1", y(v)).attr("x2", x(x1)).attr("y2", y(v));
    svg.append("text").attr("class", "kv-roof-label").attr("x", x(x1) - 2).attr("y", y(v) - 5).attr("text-anchor", "end")
      .text(`${dtype} ${(ceiling.tflops || {})[dtype] || ""} TFLOP/s`);
  }
  const g = svg.append("g");
  for (const p of onePerPixel(rows, (r) => [x(r.intensity), y(r.tflops)])) point(g, p.r, p.x, p.y, onSelect);
  return svg.node();
}

function bandwidthStrip(rows, peaks, ceiling, onSelect) {
  const svg = svgFrame("kv-roofline-bw", W, STRIP_H, "achieved GB/s of launches without counted FLOPs");
  const bw = peaks && peaks.dram_gb_per_s;
  const xs = rows.map((r) => r.gbps);
  if (bw) xs.push(bw);
  const x = scaleLog().domain(extent(xs, 2)).range([M.left, W - M.right]).clamp(true);
  const top = 18, bottom = STRIP_H - 36;
  svg.append("g").attr("class", "kv-axis").attr("transform", `translate(0,${bottom})`)
    .call(axisBottom(x).tickValues(decades(x)).tickFormat(tickLabel));
  svg.append("text").attr("class", "kv-chart-label").attr("x", W - M.right).attr("y", STRIP_H - 2).attr("text-anchor", "end").text("GB/s achieved in the graph");
  svg.append("text").attr("class", "kv-chart-label").attr("x", 4).attr("y", top + 6).text("no FLOPs");
  if (bw) {
    const xp = x(bw);
    svg.append("rect").attr("class", "kv-cache-zone").attr("x", xp).attr("y", top).attr("width", W - M.right - xp).attr("height", bottom - top);
    svg.append("line").attr("class", "kv-roof").attr("x1", xp).attr("x2", xp).attr("y1", top - 4).attr("y2", bottom);
    svg.append("text").attr("class", "kv-roof-label").attr("x", xp - 3).attr("y", top - 4).attr("text-anchor", "end")
      .text(`DRAM peak ${ceiling.dram || ""} GB/s`);
  }
  const kinds = [...new Set(rows.map((r) => r.kind))];
  const g = svg.append("g");
  const spread = (bottom - top - 12) / Math.max(1, kinds.length);
  const place = (r) => [x(r.gbps), top + 8 + spread * (kinds.indexOf(r.kind) + 0.5) + ((r.index * 7) % 5) - 2];
  for (const p of onePerPixel(rows, place)) point(g, p.r, p.x, p.y, onSelect);
  return svg.node();
}

/** The roofline figure of `rows` (launchRows with their key): a DOM element, or null when nothing is timed.
 * `known`: whether the device's peaks are known (the view annex's `peaks_known`, kernelviz/views/rules.py);
 * `ceiling`: their values as text (the view annex's `peak_texts`: {dram, tflops: {dtype}}, views/texts.py). */
export function rooflineFigure(rows, peaks, known, onSelect, ceiling = {}) {
  const flops = rows.filter((r) => r.intensity > 0 && r.tflops > 0);
  const memory = rows.filter((r) => !(r.intensity > 0 && r.tflops > 0) && r.gbps > 0);
  if (!flops.length && !memory.length) return null;
  const dtypes = [...new Set(flops.map((r) => r.launch.timing.dtype).filter(Boolean))];
  if (!dtypes.length && peaks && Object.keys(peaks.tflops).length)
    dtypes.push(Object.entries(peaks.tflops).sort((a, b) => b[1] - a[1])[0][0]);
  const parts = [];
  if (flops.length) parts.push(flopChart(flops, peaks, ceiling, dtypes, onSelect));
  if (memory.length) parts.push(bandwidthStrip(memory, peaks, ceiling, onSelect));
  const kinds = [...new Set(rows.filter((r) => r.gbps > 0 || r.tflops > 0).map((r) => r.kind))];
  const key = svgFrame("kv-legend", W, 18, "kinds");
  legend(key, kinds, M.left, 14);
  const source = known ? `ceilings of ${peaks.device}: ${peaks.source || "source not given"}` +
    (memory.length && peaks.dram_gb_per_s ? `; right of the DRAM peak: cache-resident (inputs in ${
      peaks.device_type === "cpu" ? "the CPU's caches" : "L2"})` : "")
    : "no ceilings: this device's peaks are not known (so no % of a roof either)" + (peaks && peaks.source ? `: ${peaks.source}` : "");
  return h("figure", { class: "kv-figure kv-roofline" }, h("figcaption", {}, "Roofline"), ...parts, key.node(),
    h("div", { class: "kv-hint" }, source));
}
