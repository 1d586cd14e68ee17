// The "Kernel" tab: the selected launch in full (its name, every number the table shows and the columns
// it hides), its metadata and its source. Clicking a fragment node lights its lines and scrolls the source
// pane to the first; clicking a line lights its nodes; neither redraws the tab.
import { countersSection, heatColumn } from "./counters.js";
import { h } from "./dom.js";
import { metaView } from "./fragment.js";
import { scrollPaneTo, sourceView } from "./source.js";

function fact(label, value, title) {
  return value === "" || value === null || value === undefined ? null
    : h("div", { class: "kv-fact", title: title || "" }, h("span", { class: "kv-fact-label" }, label), h("span", {}, value));
}

/** " (Inductor's estimate X, arguments Y)": the counts behind a launch's bytes that are known (`x`: its figures as
 * text, rows.js `texts`). */
function byteSources(x) {
  const parts = [x.bytes_estimate && `Inductor's estimate ${x.bytes_estimate}`,
    x.bytes_args && `arguments ${x.bytes_args}`].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

function pct(text, of) {
  return text ? `${text} of the ${of}` : null;
}

/** What a collective moved, over which group, how fast (bus and algorithm bandwidth, as nccl-tests counts
 * them), and for a wait_tensor how long it stood waiting. `x`: its figures as text; `world`: the capture's world
 * size. */
function collectiveFacts(c, x, world) {
  const group = c.group_ranks ? `ranks ${c.group_ranks.join(", ")}` : c.group != null ? `group "${c.group}"` : "";
  const bandwidth = [x.bus && `bus ${x.bus}`, x.algo && `algorithm ${x.algo}`,
    x.alone_bus && `alone, back to back: bus ${x.alone_bus}`,
    c.bus_gb_per_s == null && c.algo_gb_per_s != null && world === 1 && "no bus figure: at one rank nothing crosses a link"]
    .filter(Boolean).join(" · ");
  return [
    fact("collective", c.op + (c.reduce_op ? ` (${c.reduce_op})` : "") + (group ? ` over ${group}` : "")),
    fact("message", x.message || "", "the message size as nccl-tests counts it"),
    fact("bandwidth", bandwidth),
    fact("waited", x.wait ? `${x.wait} ms` + (c.waits_on != null ? ` for launch #${c.waits_on}` : "") : ""),
  ];
}

function launchFacts(row, graph, world) {
  const t = row.launch.timing || {};
  const kt = (row.kernel && row.kernel.timing) || {};
  const x = row.texts;
  const clock = t.unit === "cpu" ? "CPU wall clock" : "GPU device time";
  return h("div", { class: "kv-facts-grid" },
    ...(row.launch.collective ? collectiveFacts(row.launch.collective, x, world) : []),
    fact("in-graph", x.ms ? `${x.ms} ms (${clock})` : "", graph.timed_on ? `timed on ${graph.timed_on}` : ""),
    fact("share", x.share ? `${x.share} of the graph` : ""),
    fact("isolated", x.iso ? `${x.iso} ms` : kt.error ? `not timed: ${kt.error}` : ""),
    row.launch.collective
      ? fact("alone", x.flushed ? `${x.flushed} ms (the collective repeated back to back)` : "")
      : fact("flushed", x.flushed ? `${x.flushed} ms (L2 flushed: the % figures use it)` : ""),
    fact("achieved", [x.gbps || "", x.tflops || ""]
      .filter(Boolean).join(" · ") + (t.cache_resident ? ` (cache-resident: above the DRAM peak, inputs in ${t.unit === "cpu" ? "the CPU's caches" : "L2"})` : "")),
    fact("% of peak", row.pct == null ? "" : [pct(x.pct_bw, "DRAM peak"), // none where the peaks are not known
      pct(x.pct_flops, `${t.dtype || ""} compute peak`)].filter(Boolean).join(" · ")),
    fact("bound", t.bound || ""),
    fact("bytes", x.bytes ? x.bytes + byteSources(x) : ""),
    fact("FLOPs", x.flops ? x.flops + (t.dtype ? ` (${t.dtype})` : "") : ""),
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
      countersSection(launch, row.texts, "", {}, () => {}) || "");
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
  if (launch.counters && launch.counters.lines) {
    heatColumn(source, launch.counters.lines, (row.texts.counters || {}).lines || [], (el) => Number(el.dataset.line));
  }
  const counted = countersSection(launch, row.texts, kernel.source, links, (n) => {
    selectLine(n);
    scrollPaneTo(source, source.querySelector(`.kv-line[data-line="${n}"]`));
  });
  box.append(metaView(kernel, links, selectNode, graph.caller, nodes), counted || "", source);
  light(box, links, state);
  return [box];
}

