// The "Kernel" tab: the selected launch in full (its name, every number the table shows and the columns
// it hides), its metadata and its source. Clicking a fragment node lights its lines and scrolls the source
// pane to the first; clicking a line lights its nodes; neither redraws the tab.
import { countersSection, heatColumn } from "./counters.js";
import { h } from "./dom.js";
import { fmtBytes, fmtMs, fmtPct, fmtRate } from "./format.js";
import { metaView } from "./fragment.js";
import { scrollPaneTo, sourceView } from "./source.js";

function fact(label, value, title) {
  return value === "" || value === null || value === undefined ? null
    : h("div", { class: "kv-fact", title: title || "" }, h("span", { class: "kv-fact-label" }, label), h("span", {}, value));
}

/** " (Inductor's estimate X, arguments Y)": the counts behind a launch's bytes that are known. */
function byteSources(t) {
  const parts = [t.bytes_estimate != null && `Inductor's estimate ${fmtBytes(t.bytes_estimate)}`,
    t.bytes_args != null && `arguments ${fmtBytes(t.bytes_args)}`].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

function pct(p, of) {
  return p == null ? null : `${fmtPct(p)}% of the ${of}`;
}

/** What a collective moved, over which group, how fast (bus and algorithm bandwidth, as nccl-tests counts
 * them), and for a wait_tensor how long it stood waiting. `world` is the capture's world size. */
function collectiveFacts(c, world) {
  const group = c.group_ranks ? `ranks ${c.group_ranks.join(", ")}` : c.group != null ? `group "${c.group}"` : "";
  const bandwidth = [c.bus_gb_per_s != null && `bus ${fmtRate(c.bus_gb_per_s, "GB/s")}`,
    c.algo_gb_per_s != null && `algorithm ${fmtRate(c.algo_gb_per_s, "GB/s")}`,
    c.alone_bus_gb_per_s != null && `alone, back to back: bus ${fmtRate(c.alone_bus_gb_per_s, "GB/s")}`,
    c.bus_gb_per_s == null && c.algo_gb_per_s != null && world === 1 && "no bus figure: at one rank nothing crosses a link"]
    .filter(Boolean).join(" · ");
  return [
    fact("collective", c.op + (c.reduce_op ? ` (${c.reduce_op})` : "") + (group ? ` over ${group}` : "")),
    fact("message", c.bytes != null ? fmtBytes(c.bytes) : "", "the message size as nccl-tests counts it"),
    fact("bandwidth", bandwidth),
    fact("waited", c.wait_ms != null ? `${fmtMs(c.wait_ms)} ms` + (c.waits_on != null ? ` for launch #${c.waits_on}` : "") : ""),
  ];
}

function launchFacts(row, graph, world) {
  const t = row.launch.timing || {};
  const kt = (row.kernel && row.kernel.timing) || {};
  const clock = t.unit === "cpu" ? "CPU wall clock" : "GPU device time";
  return h("div", { class: "kv-facts-grid" },
    ...(row.launch.collective ? collectiveFacts(row.launch.collective, world) : []),
    fact("in-graph", t.in_graph_ms != null ? `${fmtMs(t.in_graph_ms)} ms (${clock})` : "",
      graph.timed_on ? `timed on ${graph.timed_on}` : ""),
    fact("share", t.share != null ? `${(100 * t.share).toFixed(1)}% of the graph` : ""),
    fact("isolated", kt.isolated_ms != null ? `${fmtMs(kt.isolated_ms)} ms` : kt.error ? `not timed: ${kt.error}` : ""),
    row.launch.collective
      ? fact("alone", t.flushed_ms != null ? `${fmtMs(t.flushed_ms)} ms (the collective repeated back to back)` : "")
      : fact("flushed", t.flushed_ms != null ? `${fmtMs(t.flushed_ms)} ms (L2 flushed: the % figures use it)` : ""),
    fact("achieved", [t.gb_per_s != null ? fmtRate(t.gb_per_s, "GB/s") : "", t.tflop_per_s != null ? fmtRate(t.tflop_per_s, "TFLOP/s") : ""]
      .filter(Boolean).join(" · ") + (t.cache_resident ? ` (cache-resident: above the DRAM peak, inputs in ${t.unit === "cpu" ? "the CPU's caches" : "L2"})` : "")),
    fact("% of peak", row.pct == null ? "" : [pct(t.pct_peak_bw, "DRAM peak"), // none where the peaks are not known
      pct(t.pct_peak_flops, `${t.dtype || ""} compute peak`)].filter(Boolean).join(" · ")),
    fact("bound", t.bound || ""),
    fact("bytes", t.bytes != null ? fmtBytes(t.bytes) + byteSources(t) : ""),
    fact("FLOPs", t.flops != null ? t.flops.toExponential(3) + (t.dtype ? ` (${t.dtype})` : "") : ""),
    fact("binary", kt.num_regs != null ? `${kt.num_regs} registers, ${kt.num_spills} spills, ${kt.shared_bytes} B shared` : ""),
    fact("config", kt.config ? Object.entries(kt.config).map(([k, v]) => `${k}=${v}`).join(" ") : ""),
    fact("device kernels", (t.device_kernels || []).join(", ")),
    fact("original ATen", row.aten), fact("source nodes", row.nodes), fact("type", row.type),
    fact("ld/st/red", row.lsr, "loads, stores and reductions (Inductor's count)"),
    t.error ? fact("timing", t.error) : null);
}

/** Light the lines of the selected node, or the nodes of the selected line, in place. */
function light(box, links, state) {
  const lines = new Set(state.node && links[state.node] ? links[state.node] : []);
  const nodes = new Set();
  if (state.line) for (const [node, ls] of Object.entries(links)) if (ls.includes(state.line)) nodes.add(node);
  box.querySelectorAll(".kv-line").forEach((el) => {
    const n = Number(el.dataset.line);
    el.classList.toggle("kv-lit", lines.has(n));
    el.classList.toggle("kv-current", state.line === n);
  });
  box.querySelectorAll(".kv-node").forEach((el) => {
    el.classList.toggle("kv-selected", state.node === el.dataset.node);
    el.classList.toggle("kv-lit", nodes.has(el.dataset.node));
  });
}

/** The Kernel tab of `ctx.row` (see panel.js, tabContext). */
export function kernelTab(ctx) {
  const { row, state } = ctx;
  const graph = ctx.cap.graphs[ctx.graph];
  const { launch, kernel } = row;
  const box = h("div", { class: "kv-kernel-tab" },
    h("div", { class: "kv-detail-title" }, row.name, h("span", { class: "kv-badge" }, row.kind),
      row.type ? h("span", { class: "kv-badge" }, row.type) : null),
    launchFacts(row, graph, ctx.cap.world_size), row.timeNote ? h("div", { class: "kv-note" }, row.timeNote) : null,
    row.note ? h("div", { class: "kv-note" }, row.note) : null);
  if (!kernel) {
    box.append(h("pre", { class: "kv-call" }, launch.text),
      h("div", { class: "kv-facts" }, `reads ${launch.reads.join(", ") || "-"} · writes ${launch.writes.join(", ") || "-"}`),
      countersSection(launch, "", {}, () => {}) || "");
    return [box];
  }
  const { tokens, links, nodes } = ctx.kernelData(`${ctx.graph}/${kernel.name}`);
  const selectNode = (name) => {
    state.node = state.node === name ? null : name; state.line = null;
    light(box, links, state);
    const first = state.node && links[state.node] ? Math.min(...links[state.node]) : null;
    if (first) scrollPaneTo(source, source.querySelector(`.kv-line[data-line="${first}"]`));
  };
  const selectLine = (n) => {
    state.line = state.line === n ? null : n; state.node = null;
    light(box, links, state);
  };
  const source = sourceView(kernel.source, tokens, selectLine);
  if (launch.counters && launch.counters.lines) heatColumn(source, launch.counters.lines, (el) => Number(el.dataset.line));
  const counted = countersSection(launch, kernel.source, links, (n) => {
    selectLine(n);
    scrollPaneTo(source, source.querySelector(`.kv-line[data-line="${n}"]`));
  });
  box.append(metaView(kernel, links, selectNode, graph.caller, nodes), counted || "", source);
  light(box, links, state);
  return [box];
}

