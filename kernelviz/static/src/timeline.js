// call() as a timeline: its launches in order, each as long as its in-graph time, generated kernels and
// extern calls on their own lanes, then the gap (GPU busy time no launch covers). A bar's click selects its row.
import { axisBottom } from "d3-axis";
import { scaleLinear } from "d3-scale";
import { h } from "./dom.js";
import { plural } from "./format.js";
import { kindColour, svgFrame } from "./palette.js";

const W = 460, M = { left: 78, right: 12, top: 8, bottom: 38 }, LANE = 22;

/** Launches in order, where neighbours on one lane narrower than a unit of the chart are one span (its
 * click selects the longest of them): a 6,000-launch graph draws as fast as a small one. */
function spans(rows, x) {
  const out = [];
  const unit = (x.domain()[1] - x.domain()[0]) / (x.range()[1] - x.range()[0]);
  for (const r of rows) {
    const last = out[out.length - 1];
    const extern = r.kind === "extern";
    if (last && last.extern === extern && last.ms < unit && r.ms < unit) {
      last.ms += r.ms; last.count += 1;
      if (r.ms > last.longest.ms) last.longest = r;
    } else {
      out.push({ extern, ms: r.ms, count: 1, longest: r });
    }
  }
  return out;
}

/** The timeline figure of `rows` (launchRows with their key) and the graph's gap, or null when untimed; `texts`: the
 * graph's times as text (the view annex's `launches[g].graph`). A span of several launches names its count and its
 * longest launch's time (the payload holds each launch's). */
export function timelineFigure(rows, graph, onSelect, texts = {}) {
  const timed = rows.filter((r) => r.ms != null);
  if (!timed.length) return null;
  const gap = graph.gap_ms > 0 ? graph.gap_ms : 0;
  const lanes = ["generated", "extern", ...(gap ? ["gap"] : [])];
  const height = M.top + LANE * lanes.length + M.bottom;
  const total = timed.reduce((s, r) => s + r.ms, 0) + gap;
  const x = scaleLinear().domain([0, total]).range([M.left, W - M.right]);
  const svg = svgFrame("kv-timeline", W, height, "timeline of call(): launches in order with their in-graph time");
  lanes.forEach((lane, i) => svg.append("text").attr("class", "kv-chart-label").attr("x", M.left - 6)
    .attr("y", M.top + LANE * i + LANE / 2 + 4).attr("text-anchor", "end").text(lane));
  svg.append("g").attr("class", "kv-axis").attr("transform", `translate(0,${M.top + LANE * lanes.length})`)
    .call(axisBottom(x).ticks(4, "~g"));
  svg.append("text").attr("class", "kv-chart-label").attr("x", W - M.right).attr("y", height - 2).attr("text-anchor", "end")
    .text(`ms (${graph.device === "cpu" ? "CPU wall clock" : "GPU"}, launches back to back)`);
  const g = svg.append("g");
  let at = 0;
  for (const span of spans(timed, x)) {
    const r = span.longest, lane = r.kind === "extern" ? 1 : 0;
    const title = span.count === 1 ? `#${r.index} ${r.name} (${r.kind}): ${r.texts.ms || ""} ms` +
      (r.texts.share ? `, ${r.texts.share}` : "")
      : `${plural(span.count, "launch")}; the longest #${r.index} ${r.name}, ${r.texts.ms || ""} ms`;
    g.append("rect").attr("class", "kv-span").attr("data-key", r.key).attr("x", x(at)).attr("y", M.top + LANE * lane + 3)
      .attr("width", Math.max(0.6, x(at + span.ms) - x(at))).attr("height", LANE - 6).attr("fill", kindColour(r.kind))
      .on("click", () => onSelect(r.key))
      .append("title").text(title);
    at += span.ms;
  }
  if (gap) {
    g.append("rect").attr("class", "kv-span kv-gap").attr("x", x(at)).attr("y", M.top + LANE * 2 + 3)
      .attr("width", Math.max(0.6, x(at + gap) - x(at))).attr("height", LANE - 6)
      .append("title").text(`gap ${texts.gap || ""} ms: ${texts.gap_title || ""}`);
  }
  const busy = texts.busy ? ` · ${texts.busy_label} ${texts.busy} ms` : "";
  return h("figure", { class: "kv-figure kv-timeline-figure" }, h("figcaption", {}, "call() timeline"), svg.node(),
    h("div", { class: "kv-hint" }, `${plural(timed.length, "launch")} ${texts.launches || ""} ms` + (gap ? ` + gap ${texts.gap || ""} ms` : "") + busy));
}
