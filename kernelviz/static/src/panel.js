// renderCapture: the panel's state and layout (header, toolbar, launch table, tabs).
import { h } from "./dom.js";
import { fmt } from "./format.js";
import { headline } from "./header.js";
import { launchRows } from "./rows.js";
import { fillTable, visibleRows } from "./table.js";
import { TABS } from "./views.js";

/**
 * Render a capture into `el`. `host` (optional) connects the live widget:
 *   kernelData(key) -> {tokens, links, ir, repro} or undefined, requestKernel(key), graphData(key) -> {hip}
 *   or undefined, requestGraph(key), select(key), bench(), canBench, note.
 * Returns { update(data), redrawDetail(), select(key) }.
 */
export function renderCapture(el, data, host = {}) {
  const state = { graph: 0, selected: null, filter: "", kind: "", sort: "index", desc: false, tab: TABS[0].id,
    node: null, line: null };
  let cap = data;
  const root = h("div", { class: "kv-panel" });
  el.replaceChildren(root);

  // Tokens and links of a kernel: in the saved data, or asked of the live widget once.
  const kernelData = (key) => {
    const view = cap.view || {};
    if (view.highlight && view.highlight[key]) return { tokens: view.highlight[key], links: (view.links || {})[key] || {} };
    const live = host.kernelData && host.kernelData(key);
    if (live) return live;
    if (host.requestKernel) host.requestKernel(key);
    return { tokens: null, links: {} };
  };

  function draw() {
    const graph = cap.graphs[state.graph];
    const warnings = [...(cap.warnings || []), ...(graph ? graph.warnings : [])];
    const graphSelect = cap.graphs.length > 1 ? h("select", { class: "kv-graph", onchange: (e) => {
      state.graph = Number(e.target.value); state.selected = null; draw(); } },
      ...cap.graphs.map((gr, i) => { const o = h("option", { value: String(i) }, `${gr.id} (${gr.kind}, ${gr.launches.length} launches)`);
        if (i === state.graph) o.selected = true; return o; })) : null;
    const kinds = graph ? [...new Set(launchRows(graph).map((r) => r.kind))] : [];
    const kindSelect = h("select", { class: "kv-kind", onchange: (e) => { state.kind = e.target.value; drawTable(); } },
      h("option", { value: "" }, "all kinds"), ...kinds.map((k) => { const o = h("option", { value: k }, k);
        if (k === state.kind) o.selected = true; return o; }));
    const filter = h("input", { class: "kv-filter", type: "search", placeholder: "filter by name, op, node",
      value: state.filter, oninput: (e) => { state.filter = e.target.value; drawTable(); } });
    const bench = host.canBench ? h("button", { class: "kv-bench", onclick: () => host.bench() }, "Time kernels")
      : host.note ? h("span", { class: "kv-hint" }, host.note) : null;
    const timed = graph && graph.timed_on ? h("span", { class: "kv-hint" },
      ` timed on ${graph.timed_on}` + (graph.gpu_busy_ms != null ? ` · ${graph.device === "cpu" ? "call() wall time" : "GPU busy"} ${fmt(graph.gpu_busy_ms, 4)} ms` : "")) : null;
    root.replaceChildren(...[
      h("div", { class: "kv-header" }, h("b", {}, "kernelviz"), " · ", headline(cap)),
      warnings.length ? h("ul", { class: "kv-warnings" }, ...warnings.map((w) => h("li", {}, w))) : null,
      h("div", { class: "kv-toolbar" }, graphSelect, filter, kindSelect, bench, timed),
      h("div", { class: "kv-table-wrap" }, h("table", { class: "kv-table" }, h("thead"), h("tbody"))),
      h("div", { class: "kv-tabs" }, ...TABS.map((tab) => h("button", {
        class: "kv-tab" + (state.tab === tab.id ? " kv-active" : ""), onclick: () => { state.tab = tab.id; draw(); } }, tab.label))),
      h("div", { class: "kv-detail" })].filter(Boolean));
    drawTable();
    drawDetail();
  }

  function drawTable() {
    const graph = cap.graphs[state.graph];
    const rows = graph ? visibleRows(launchRows(graph), state) : [];
    fillTable(root.querySelector(".kv-table"), rows, state, {
      onSort: (key) => { state.desc = state.sort === key ? !state.desc : key !== "index" && key !== "name";
        state.sort = key; drawTable(); },
      onSelect: select,
    });
  }

  /** What a tab's render gets: the capture, the graph index, the selected row (or null), the state,
   * kernelData(key), live (whether a widget answers requests), graphData(key) and requestGraph(key) (a
   * graph's lazy data in the live widget), and the actions selectNode(name), selectLine(n) and redraw(). */
  function tabContext() {
    let g = state.graph, row = null;
    if (state.selected) {
      const [sg, i] = state.selected.split("/").map(Number);
      g = sg;
      row = (cap.graphs[sg] && launchRows(cap.graphs[sg])[i]) || null;
    }
    return {
      cap, graph: g, row, state, kernelData,
      live: Boolean(host.requestKernel),
      graphData: (key) => host.graphData && host.graphData(key),
      requestGraph: (key) => host.requestGraph && host.requestGraph(key),
      redraw: drawDetail,
      selectNode: (name) => { state.node = state.node === name ? null : name; state.line = null; drawDetail(); },
      selectLine: (n) => { state.line = state.line === n ? null : n; state.node = null; drawDetail(); },
    };
  }

  function drawDetail() {
    const box = root.querySelector(".kv-detail");
    const tab = TABS.find((t) => t.id === state.tab) || TABS[0];
    box.replaceChildren(...(cap.graphs[state.graph] ? tab.render(tabContext()) : []));
  }

  function select(key) {
    state.selected = key; state.node = null; state.line = null; state.irLine = null; state.tab = TABS[0].id;
    if (host.select) host.select(key);
    root.querySelectorAll(".kv-tab").forEach((b, i) => b.classList.toggle("kv-active", i === 0));
    root.querySelectorAll(".kv-row").forEach((r) => r.classList.toggle("kv-selected", r.dataset.key === key));
    drawDetail();
  }

  draw();
  return {
    update(next) { cap = next; if (state.graph >= cap.graphs.length) state.graph = 0; draw(); },
    redrawDetail: drawDetail,
    select,
  };
}
