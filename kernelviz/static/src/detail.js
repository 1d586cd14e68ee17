// The "Kernel" tab: the selected launch's timing facts, metadata and source.
import { h } from "./dom.js";
import { fmt, fmtBytes } from "./format.js";
import { metaView } from "./fragment.js";
import { sourceView } from "./source.js";

function timingFacts(launch) {
  const t = launch.timing;
  if (!t) return [];
  const out = [h("div", { class: "kv-facts" },
    `in-graph ${fmt(t.in_graph_ms, 4)} ms (${t.unit === "cpu" ? "CPU wall clock" : "GPU device time"})`,
    t.share != null ? ` · ${(100 * t.share).toFixed(1)}% of the graph` : "",
    t.bytes ? ` · ${fmtBytes(t.bytes)}` : "", t.gb_per_s ? ` · ${fmt(t.gb_per_s, 1)} GB/s` : "",
    t.pct_peak_bw != null ? ` (${fmt(t.pct_peak_bw, 1)}% of peak)` : "",
    t.tflop_per_s ? ` · ${fmt(t.tflop_per_s, 2)} TFLOP/s` : "",
    t.pct_peak_flops != null ? ` (${fmt(t.pct_peak_flops, 1)}% of peak)` : "")];
  if (t.device_kernels && t.device_kernels.length)
    out.push(h("div", { class: "kv-facts" }, "device kernels: " + t.device_kernels.join(", ")));
  return out;
}

function kernelFacts(kernel, launch) {
  const kt = kernel.timing, t = launch.timing;
  if (!kt) return [];
  const iso = kt.isolated_ms != null ? `isolated ${fmt(kt.isolated_ms, 4)} ms` : `isolated: ${kt.error || "not timed"}`;
  const cfg = kt.config ? " · " + Object.entries(kt.config).map(([k, v]) => `${k}=${v}`).join(" ") : "";
  const bin = kt.num_regs != null ? ` · ${kt.num_regs} regs, ${kt.num_spills} spills, ${kt.shared_bytes} B shared` : "";
  const out = [h("div", { class: "kv-facts" }, iso + cfg + bin)];
  if (t && t.in_graph_ms != null && kt.isolated_ms != null && Math.abs(kt.isolated_ms - t.in_graph_ms) > 0.2 * kt.isolated_ms)
    out.push(h("div", { class: "kv-note" }, "In-graph and isolated times differ: in the graph, inputs may still be in L2 (isolated runs start with a flushed L2)."));
  return out;
}

/** The detail of one row (see rows.js) of graph `g`. */
export function kernelTab(ctx, g, row) {
  const { launch, kernel } = row;
  const out = [h("div", { class: "kv-detail-title" }, row.name, h("span", { class: "kv-badge" }, row.kind),
    row.type ? h("span", { class: "kv-badge" }, row.type) : null), ...timingFacts(launch)];
  if (!kernel) {
    out.push(h("pre", { class: "kv-call" }, launch.text));
    out.push(h("div", { class: "kv-facts" }, `reads ${launch.reads.join(", ") || "-"} · writes ${launch.writes.join(", ") || "-"}`));
    return out;
  }
  out.push(...kernelFacts(kernel, launch));
  const { tokens, links } = ctx.kernelData(`${g}/${kernel.name}`);
  out.push(metaView(kernel, links, ctx.state, ctx.selectNode));
  out.push(sourceView(kernel, tokens, links, ctx.state, ctx.selectLine));
  return out;
}
