// renderCapture: the panel's state and layout: header, toolbar, charts, launch table, tabs.
import { markSelected, chartsView } from "./charts.js";
import { isDiff, renderDiff } from "./diff.js";
import { h } from "./dom.js";
import { plural } from "./format.js";
import { findingsHeader } from "./findings.js";
import { headerView } from "./header.js";
import { isTimed, launchRows as rowsOf } from "./rows.js";
import { COLUMNS, columnChooser, launchTable, visibleRows } from "./table.js";
import { TABS, firstTab, tabsFor } from "./views.js";
import { whatifHeader } from "./whatif.js";

/**
 * Render a capture into `el` (a diff's payload is drawn by diff.js). `host` (optional) connects a live kernel:
 *   kernelData(key) -> {tokens, links, ir, repro} or undefined, requestKernel(key), graphData(key) -> {hip} or
 *   undefined, requestGraph(key), select(key), bench(), counters(), note (a line shown where no kernel can time
 *   the capture).
 * Returns { update(data), redrawDetail(), select(key), setLive(bool), setProgress({done, total, label} | null),
 *   setNote(text) } (setNote: the live kernel's line on why counters were not measured).
 */
export function renderCapture(el, data, host = {}) {
  if (isDiff(data)) return renderDiff(el, data, host);
  const state = { graph: 0, selected: null, filter: "", kind: "", sort: "index", desc: false, tab: firstTab(data),
    node: null, line: null, columns: new Set(COLUMNS.filter((c) => c.show).map((c) => c.key)),
    live: false, progress: null, note: null };
  let cap = data;
  const root = h("div", { class: "kv-panel" });
  el.replaceChildren(root);
  let table = null;
  const launchRows = (graph) => rowsOf(graph, ((cap.view || {}).launches || [])[cap.graphs.indexOf(graph)]);
  /** A graph's times and what they are, as text (the view annex's `launches[g].graph`, views/texts.py). */
  const graphTexts = (graph) => (((cap.view || {}).launches || [])[cap.graphs.indexOf(graph)] || {}).graph || {};

  // Tokens, links and nodes of a kernel: in the saved data, or asked of the live widget once.
  const kernelData = (key) => {
    const view = cap.view || {};
    const nodes = (view.nodes || {})[key];
    if (view.highlight && view.highlight[key]) return { tokens: view.highlight[key], links: (view.links || {})[key] || {}, nodes };
    const live = host.kernelData && host.kernelData(key);
    if (live) return live;
    if (host.requestKernel) host.requestKernel(key);
    return { tokens: null, links: {}, nodes };
  };

  function graphSelect() {
    if (cap.graphs.length < 2) return null;
    const select = h("select", { class: "kv-graph", onchange: (e) => {
      state.graph = Number(e.target.value); state.selected = null; draw(); } },
      ...cap.graphs.map((gr, i) => h("option", { value: String(i) }, `${gr.id} (${gr.kind}, ${plural(gr.launches.length, "launch")})`)));
    select.value = String(state.graph);
    return select;
  }

  function kindSelect(graph) {
    const kinds = graph ? [...new Set(launchRows(graph).map((r) => r.kind))] : [];
    const select = h("select", { class: "kv-kind", onchange: (e) => { state.kind = e.target.value; drawTable(); } },
      h("option", { value: "" }, "all kinds"), ...kinds.map((k) => h("option", { value: k }, k)));
    select.value = state.kind;
    return select;
  }

  /** Time kernels (live), progress while timing, or what the saved view says instead. */
  function timingControl(graph) {
    if (state.progress) {
      const p = state.progress;
      return h("span", { class: "kv-progress" }, h("progress", { max: String(p.total || 1), value: String(p.done || 0) }),
        ` ${p.label || "timing"}`);
    }
    if (state.live && host.bench && !cap.ranks) {  // a job's ranks are timed in the job
      return h("button", { class: "kv-bench", onclick: () => start(host.bench) },
        graph && isTimed(graph) ? "Time again" : "Time kernels");
    }
    return host.note && graph && !isTimed(graph) ? h("span", { class: "kv-hint" }, host.note) : null;
  }

  function start(action) {
    state.progress = { done: 0, total: 1, label: "starting" }; state.note = null;
    drawToolbar(); action();
  }

  /** Measure counters (live, on a timed CUDA graph: the launches with the most in-graph time are measured),
   * or the line that says why they were not. */
  function countersControl(graph) {
    if (state.note) return h("span", { class: "kv-hint kv-warn kv-note-line" }, state.note);
    if (state.progress || !state.live || !host.counters || cap.ranks || !graph || graph.device !== "cuda" || !isTimed(graph)) {
      return null;
    }
    return h("button", { class: "kv-counters-button", title: "Nsight Compute, in a child process: the 10 launches with the most in-graph time",
      onclick: () => start(host.counters) }, "Measure counters");
  }

  function timedNote(graph) {
    if (!graph || !graph.timed_on) return null;
    const texts = graphTexts(graph);
    const busy = texts.busy ? ` · ${texts.busy_label} ${texts.busy} ms` : "";
    const cuda = texts.cudagraph ? ` · as a CUDA graph ${texts.cudagraph} ms` : "";
    const madeUp = graph.made_up_values && graph.made_up_values.length
      ? ` (made-up values for ${graph.made_up_values.join(", ")})` : "";
    return h("span", { class: "kv-hint" + (graph.timed_on === "user tensors" ? "" : " kv-warn") },
      `timed on ${graph.timed_on}${madeUp}${busy}${cuda}`);
  }

  /** What timing adds to an untimed graph, in one line (the view annex's, worked out in Python). */
  function untimedNote(graph) {
    const text = graph && !state.progress && (((cap.view || {}).launches || [])[state.graph] || {}).untimed;
    return text ? h("span", { class: "kv-hint kv-untimed" }, text) : null;
  }

  /** The sizes a graph compiled with dynamic shapes holds as symbols (the view annex's, worked out in Python). */
  function dynamicNote() {
    const text = (((cap.view || {}).launches || [])[state.graph] || {}).dynamic;
    return text ? h("span", { class: "kv-hint kv-dynamic" }, text) : null;
  }

  function drawToolbar() {
    const graph = cap.graphs[state.graph];
    root.querySelector(".kv-toolbar").replaceChildren(...[graphSelect(), h("input", {
      class: "kv-filter", type: "search", placeholder: "filter by name, op, node", value: state.filter,
      oninput: (e) => { state.filter = e.target.value; drawTable(); } }), kindSelect(graph),
    columnChooser(state.columns, (key, on) => { if (on) state.columns.add(key); else state.columns.delete(key); drawTable(); },
      () => (table ? table.dropped() : []), () => (table ? table.empty() : [])),
    timingControl(graph), countersControl(graph), timedNote(graph), untimedNote(graph), dynamicNote()].filter(Boolean));
  }

  function draw() {
    const graph = cap.graphs[state.graph];
    const warnings = [...(cap.warnings || []), ...(graph ? graph.warnings : [])];
    const wrap = h("div", { class: "kv-table-wrap" });
    root.replaceChildren(...[
      headerView(cap),
      findingsHeader(cap, go),
      whatifHeader(cap, openWhatif),
      warnings.length ? h("ul", { class: "kv-warnings" }, ...warnings.map((w) => h("li", {}, w))) : null,
      h("div", { class: "kv-toolbar" }),
      graph ? chartsView(cap, state.graph, launchRows(graph), select) : null,
      wrap,
      h("div", { class: "kv-tabs" }, ...tabsFor(cap).map((tab) => h("button", {
        class: "kv-tab" + (state.tab === tab.id ? " kv-active" : ""), "data-tab": tab.id,
        onclick: () => { state.tab = tab.id; markTabs(); drawDetail(); } }, tab.label))),
      h("div", { class: "kv-detail" })].filter(Boolean));
    table = launchTable(wrap, state, {
      onSort: (key) => { state.desc = state.sort === key ? !state.desc : key !== "index" && key !== "name";
        state.sort = key; drawTable(); },
      onSelect: select,
    });
    drawToolbar();
    drawTable();
    drawDetail();
    if (state.selected) markSelected(root, state.selected);
  }

  function drawTable() {
    const graph = cap.graphs[state.graph];
    const rows = graph ? visibleRows(launchRows(graph), state) : [];
    const busy = graph && graph.gpu_busy_ms;
    const gap = graph && graph.gap_ms != null && !state.filter && !state.kind
      ? { ms: graph.gap_ms, share: busy ? graph.gap_ms / busy : null, title: graphTexts(graph).gap_title || "",
        texts: graphTexts(graph) } : null;
    table.show(rows, state.graph, gap);
  }

  /** What a tab's render gets: the capture, the graph index, the selected row (or null), the state
   * (node and line selected in the Kernel tab), kernelData(key), and a graph's lazy data in the live widget:
   * graphData(key) and requestGraph(key). */
  function tabContext() {
    let g = state.graph, row = null;
    if (state.selected) {
      const [sg, i] = state.selected.split("/").map(Number);
      g = sg;
      row = (cap.graphs[sg] && launchRows(cap.graphs[sg])[i]) || null;
    }
    return { cap, graph: g, row, state, kernelData, graphData: host.graphData, requestGraph: host.requestGraph, go };
  }

  function drawDetail() {
    const box = root.querySelector(".kv-detail");
    const tab = tabsFor(cap).find((t) => t.id === state.tab) || TABS[0];
    box.replaceChildren(...(cap.graphs[state.graph] ? tab.render(tabContext()) : []));
  }

  function markTabs() {
    root.querySelectorAll(".kv-tab").forEach((b) => b.classList.toggle("kv-active", b.dataset.tab === state.tab));
  }

  /** A finding's click: graph `g` in view, and its launch `i` selected (null: the graph's Findings tab). */
  function go(g, i) {
    if (g !== state.graph) { state.graph = g; state.selected = null; draw(); }
    if (i !== null) { select(`${g}/${i}`); return; }
    state.tab = "findings"; markTabs(); drawDetail();
  }

  /** The What if tab, from the header's line: opened and scrolled to. */
  function openWhatif() {
    state.tab = "whatif"; markTabs(); drawDetail();
    root.querySelector(".kv-tabs").scrollIntoView({ block: "start" });
  }

  function select(key) {
    state.selected = key; state.node = null; state.line = null; state.irLine = null; state.tab = TABS[0].id;
    if (host.select) host.select(key);
    markTabs();
    table.select(key);
    table.reveal(key);
    markSelected(root, key);
    drawDetail();
  }

  draw();
  return {
    update(next) { cap = next; if (state.graph >= cap.graphs.length) state.graph = 0; state.progress = null; draw(); },
    redrawDetail: drawDetail,
    select,
    setLive(live) { state.live = live; root.classList.toggle("kv-live", live); drawToolbar(); },
    setProgress(p) { state.progress = p && p.total ? p : null; drawToolbar(); },
    setNote(text) { state.note = text || null; drawToolbar(); },
  };
}
