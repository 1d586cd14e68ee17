// The "Why" tab: Inductor's choices for the graph in view. What reduce-overhead did with it as CUDA graphs, and each
// autotuning as a sweep: a bar per timed candidate (as long as its time), the winner marked, the failed listed with
// why. Titles, verdicts, bar lengths and time texts are worked out in Python (kernelviz/views/why.py: the view annex's
// `sweeps`, `cudagraphs`, `cudagraph_pool`); captured text only ever becomes text nodes.
import { scaleLinear } from "d3-scale";
import { h } from "./dom.js";
import { svgFrame } from "./palette.js";

const W = 460, LABEL = 190, ROW = 18, M = { top: 4, bottom: 6 }, MS = 70;
const WINNER = "#2e7d32", OTHER = "#4e79a7";

/** One sweep's bars as an SVG (null where no candidate was timed). */
function bars(sweep) {
  const timed = sweep.bars.filter((b) => b.share != null);
  if (!timed.length) return null;
  const height = M.top + ROW * timed.length + M.bottom;
  const x = scaleLinear().domain([0, 1]).range([LABEL, W - MS]);
  const svg = svgFrame("kv-sweep-chart", W, height, `autotuning sweep: ${sweep.title}`);
  timed.forEach((b, i) => {
    const y = M.top + ROW * i;
    const row = svg.append("g").attr("class", b.winner ? "kv-sweep-winner" : "kv-sweep-other");
    row.append("text").attr("class", "kv-chart-label kv-sweep-name").attr("x", LABEL - 6).attr("y", y + ROW / 2 + 4)
      .attr("text-anchor", "end").text(b.name.length > 26 ? `${b.name.slice(0, 25)}…` : b.name);
    row.append("rect").attr("x", LABEL).attr("y", y + 3).attr("width", Math.max(1, x(b.share) - LABEL))
      .attr("height", ROW - 6).attr("fill", b.winner ? WINNER : OTHER)
      .append("title").text(`${b.name} (${b.backend}): ${b.ms_text}${b.detail ? `\n${b.detail}` : ""}`);
    row.append("text").attr("class", b.winner ? "kv-sweep-ms kv-sweep-won" : "kv-sweep-ms")
      .attr("x", x(b.share) + 4).attr("y", y + ROW / 2 + 4).text(b.winner ? `${b.ms_text} ★` : b.ms_text);
  });
  return svg.node();
}

/** One sweep: its title, verdict, bars, and the candidates that failed, grouped by why. */
function sweepFigure(sweep) {
  const failed = sweep.failed || [];
  const count = failed.reduce((n, f) => n + f.names.length, 0);
  return h("figure", { class: "kv-figure kv-sweep" },
    h("figcaption", {}, sweep.title),
    h("div", { class: "kv-hint kv-sweep-verdict" }, sweep.verdict),
    bars(sweep),
    count ? h("details", { class: "kv-sweep-failed" },
      h("summary", {}, `${count} failed`),
      h("ul", {}, ...failed.map((f) => h("li", {}, `${f.error} `, h("span", { class: "kv-hint" },
        `(${f.names.length}: ${f.names.join(", ")})`)))))
      : null);
}

/** The Why tab of graph `ctx.graph`. */
export function whyTab(ctx) {
  const view = ctx.cap.view || {};
  const graph = ctx.cap.graphs[ctx.graph];
  const lines = (view.cudagraphs || {})[String(ctx.graph)] || [];
  const mine = (view.sweeps || []).filter((s) => s.graph === graph.id);
  const outside = (view.sweeps || []).filter((s) => s.graph === null);
  const out = [];
  if (lines.length || view.cudagraph_pool) {
    out.push(h("div", { class: "kv-cudagraphs" }, ...lines.map((l) => h("div", {}, l)),
      view.cudagraph_pool ? h("div", { class: "kv-hint" }, view.cudagraph_pool) : null));
  }
  if (mine.length) out.push(h("div", { class: "kv-sweeps" }, ...mine.map(sweepFigure)));
  if (outside.length) {
    out.push(h("div", { class: "kv-hint" }, "Autotuned outside the compiled graphs:"),
      h("div", { class: "kv-sweeps" }, ...outside.map(sweepFigure)));
  }
  return out.length ? out : [h("div", { class: "kv-hint" },
    "Nothing was autotuned for this graph, and it did not run under reduce-overhead's CUDA graphs.")];
}
