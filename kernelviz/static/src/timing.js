// The "Timing" tab: how the graph was timed (on what, busy, gap, CUDA-graph replay, whose peaks) and
// each launch on the roofline, with the gap as the last row so that the times add up to the busy time.
import { h, table } from "./dom.js";
import { fmt, fmtBytes } from "./format.js";

function graphFacts(cap, graph) {
  if (!graph.timed_on) return [h("div", { class: "kv-hint" }, "Not timed yet.")];
  const busy = graph.device === "cpu" ? "call() wall time" : "GPU busy";
  const parts = [`timed on ${graph.timed_on}`];
  if (graph.made_up_values && graph.made_up_values.length)
    parts[0] += ` (made-up values for ${graph.made_up_values.join(", ")})`;
  if (graph.gpu_busy_ms != null) parts.push(`${busy} ${fmt(graph.gpu_busy_ms, 4)} ms`);
  if (graph.gap_ms != null) parts.push(`gap ${fmt(graph.gap_ms, 4)} ms`);
  if (graph.cudagraph_ms != null) parts.push(`as a CUDA-graph replay ${fmt(graph.cudagraph_ms, 4)} ms`);
  const out = [h("div", { class: "kv-facts" }, parts.join(" · "))];
  if (cap.peaks) out.push(h("div", { class: "kv-facts" }, `% of peak against: ${cap.peaks.source}`));
  return out;
}

function launchRow(launch) {
  const t = launch.timing || {};
  const flops = t.pct_peak_flops != null ? `${fmt(t.pct_peak_flops, 1)} (${t.dtype})` : "";
  const gbps = t.gb_per_s != null ? fmt(t.gb_per_s, 1) + (t.cache_resident ? " (cache-resident)" : "") : "";
  const bytes = t.bytes_estimate != null ? `${fmtBytes(t.bytes_estimate)} est. / ${fmtBytes(t.bytes_args)} args`
    : fmtBytes(t.bytes_args);
  return h("tr", { class: "kv-roofline-row" },
    h("td", {}, launch.index), h("td", { class: "kv-mono" }, launch.kernel_name || launch.op),
    h("td", { class: "kv-num" }, fmt(t.in_graph_ms, 4)), h("td", { class: "kv-num" }, fmt(t.flushed_ms, 4)),
    h("td", {}, bytes), h("td", { class: "kv-num" }, gbps), h("td", { class: "kv-num" }, fmt(t.pct_peak_bw, 1)),
    h("td", { class: "kv-num" }, flops), h("td", {}, t.error ? `failed: ${t.error}` : t.bound || ""),
    h("td", {}, t.note || ""));
}

export function timingTab(cap, g) {
  const graph = cap.graphs[g];
  const rows = graph.launches.map(launchRow);
  if (graph.gap_ms != null)
    rows.push(h("tr", { class: "kv-gap" }, h("td", {}), h("td", {}, "gap: busy time not covered by launches"),
      h("td", { class: "kv-num" }, fmt(graph.gap_ms, 4)), ...Array.from({ length: 7 }, () => h("td", {}))));
  return [...graphFacts(cap, graph),
    table(["#", "launch", "in-graph ms", "flushed ms", "bytes", "GB/s in graph", "% peak bw", "% peak FLOP/s",
      "bound", "note"], rows)];
}
