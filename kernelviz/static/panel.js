// kernelviz panel: one view of a capture, used by the live widget (anywidget) and by the
// JupyterLab MIME renderer of saved notebooks. It reads the model's JSON and its "view" annex.
// Captured text is only ever placed with textContent: nothing from a capture becomes HTML.

const COLUMNS = [
  ["index", "#"], ["name", "launch"], ["kind", "kind"], ["aten", "original ATen"],
  ["nodes", "source nodes"], ["type", "type"], ["lsr", "ld/st/red"], ["bytes", "bytes"],
  ["ms", "in-graph ms"], ["share", "share"], ["iso", "isolated ms"], ["gbps", "GB/s"], ["peak", "% peak"],
];

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function fmtBytes(n) {
  if (n === null || n === undefined) return "";
  const units = ["B", "KB", "MB", "GB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

function fmt(x, digits) {
  return x === null || x === undefined ? "" : Number(x).toFixed(digits);
}

function kindOf(graph, launch) {
  if (!launch.kernel_name) return "extern";
  const k = graph.kernels.find((k) => k.name === launch.kernel_name);
  return k ? k.kind : "kernel";
}

/** One table row of data per launch of call(), in order. */
export function launchRows(graph) {
  const byName = new Map(graph.kernels.map((k) => [k.name, k]));
  return graph.launches.map((l) => {
    const k = l.kernel_name ? byName.get(l.kernel_name) : null;
    const meta = (k && k.inductor_meta) || {};
    const t = l.timing || {};
    const lsr = k && meta.num_load !== undefined ? `${meta.num_load}/${meta.num_store}/${meta.num_reduction}` : "";
    return {
      launch: l, kernel: k, index: l.index, name: l.kernel_name || l.op, kind: kindOf(graph, l),
      aten: l.original_aten.join(", "), nodes: l.source_nodes.join(", "), type: (k && k.kernel_type) || "",
      lsr, bytes: t.bytes ?? null, ms: t.in_graph_ms ?? null, share: t.share ?? null,
      iso: (k && k.timing && k.timing.isolated_ms) ?? null, gbps: t.gb_per_s ?? null,
      peak: t.pct_peak_bw ?? t.pct_peak_flops ?? null, unit: t.unit || "",
    };
  });
}

function headline(cap) {
  const count = (items, key) => {
    const m = new Map();
    for (const it of items) m.set(it[key], (m.get(it[key]) || 0) + 1);
    return [...m].map(([k, n]) => `${n} ${k}`).join(", ");
  };
  const kernels = cap.graphs.flatMap((g) => g.kernels);
  const externs = cap.graphs.flatMap((g) => g.launches).filter((l) => !l.kernel_name).length;
  const parts = [
    `${cap.graphs.length} graph${cap.graphs.length === 1 ? "" : "s"}` + (cap.graphs.length ? ` (${count(cap.graphs, "kind")})` : ""),
    `${kernels.length} kernel${kernels.length === 1 ? "" : "s"}` + (kernels.length ? ` (${count(kernels, "kind")})` : ""),
    `${externs} extern call${externs === 1 ? "" : "s"}`,
  ];
  const devices = [...new Set(cap.graphs.map((g) => g.device))].join(", ");
  if (devices) parts.push(cap.device_name ? `${devices} (${cap.device_name})` : devices);
  if (cap.torch_version) parts.push(`torch ${cap.torch_version}`);
  if (cap.triton_version) parts.push(`triton ${cap.triton_version}`);
  const compile = cap.graphs.reduce((s, g) => s + (g.compile_s || 0), 0);
  if (compile) parts.push(`compile ${compile.toFixed(2)} s`);
  return parts.join(" · ");
}

function sourceView(kernel, tokens, links, state, onLineClick) {
  const src = kernel.source;
  const lines = [[]];
  const pushText = (cls, text) => {
    const pieces = text.split("\n");
    pieces.forEach((piece, i) => {
      if (i > 0) lines.push([]);
      if (piece) lines[lines.length - 1].push(cls ? h("span", { class: `kv-tok-${cls}` }, piece) : piece);
    });
  };
  if (tokens) {
    let pos = 0;
    for (let i = 0; i < tokens.length; i += 2) {
      pushText(tokens[i], src.slice(pos, pos + tokens[i + 1]));
      pos += tokens[i + 1];
    }
    if (pos < src.length) pushText("", src.slice(pos));
  } else {
    pushText("", src);
  }
  const lit = new Set();
  if (state.node && links[state.node]) links[state.node].forEach((n) => lit.add(n));
  const rows = lines.map((parts, i) => {
    const n = i + 1;
    return h("div", { class: "kv-line" + (lit.has(n) ? " kv-lit" : "") + (state.line === n ? " kv-current" : ""),
      "data-line": String(n), onclick: () => onLineClick(n) },
      h("span", { class: "kv-lineno" }, String(n)), h("span", { class: "kv-code" }, ...parts));
  });
  const copy = h("button", { class: "kv-copy", title: "copy the kernel source",
    onclick: () => navigator.clipboard && navigator.clipboard.writeText(src) }, "copy");
  return h("div", { class: "kv-source" + (tokens ? " kv-highlighted" : "") }, copy, ...rows);
}

function table(headers, rows) {
  return h("table", { class: "kv-small" },
    h("thead", {}, h("tr", {}, ...headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, ...rows));
}

function detailView(cap, g, row, ctx) {
  const graph = cap.graphs[g];
  const { launch, kernel } = row;
  const out = [h("div", { class: "kv-detail-title" }, row.name, h("span", { class: "kv-badge" }, row.kind),
    row.type ? h("span", { class: "kv-badge" }, row.type) : null)];
  const t = launch.timing;
  if (t) {
    out.push(h("div", { class: "kv-facts" },
      `in-graph ${fmt(t.in_graph_ms, 4)} ms (${t.unit === "cpu" ? "CPU wall clock" : "GPU device time"})`,
      t.share != null ? ` · ${(100 * t.share).toFixed(1)}% of the graph` : "",
      t.bytes ? ` · ${fmtBytes(t.bytes)}` : "", t.gb_per_s ? ` · ${fmt(t.gb_per_s, 1)} GB/s` : "",
      t.pct_peak_bw != null ? ` (${fmt(t.pct_peak_bw, 1)}% of peak)` : "",
      t.tflop_per_s ? ` · ${fmt(t.tflop_per_s, 2)} TFLOP/s` : "",
      t.pct_peak_flops != null ? ` (${fmt(t.pct_peak_flops, 1)}% of peak)` : ""));
    if (t.device_kernels && t.device_kernels.length)
      out.push(h("div", { class: "kv-facts" }, "device kernels: " + t.device_kernels.join(", ")));
  }
  if (!kernel) {
    out.push(h("pre", { class: "kv-call" }, launch.text));
    out.push(h("div", { class: "kv-facts" }, `reads ${launch.reads.join(", ") || "-"} · writes ${launch.writes.join(", ") || "-"}`));
    return out;
  }
  const kt = kernel.timing;
  if (kt) {
    const iso = kt.isolated_ms != null ? `isolated ${fmt(kt.isolated_ms, 4)} ms` : `isolated: ${kt.error || "not timed"}`;
    const cfg = kt.config ? " · " + Object.entries(kt.config).map(([k, v]) => `${k}=${v}`).join(" ") : "";
    const bin = kt.num_regs != null ? ` · ${kt.num_regs} regs, ${kt.num_spills} spills, ${kt.shared_bytes} B shared` : "";
    out.push(h("div", { class: "kv-facts" }, iso + cfg + bin));
    if (t && t.in_graph_ms != null && kt.isolated_ms != null && Math.abs(kt.isolated_ms - t.in_graph_ms) > 0.2 * kt.isolated_ms)
      out.push(h("div", { class: "kv-note" }, "In-graph and isolated times differ: in the graph, inputs may still be in L2 (isolated runs start with a flushed L2)."));
  }
  const { tokens, links } = ctx.kernelData(`${g}/${kernel.name}`);
  const state = ctx.state;
  const byLine = new Map();
  for (const [node, ls] of Object.entries(links)) for (const n of ls) byLine.set(n, [...(byLine.get(n) || []), node]);
  const litNodes = new Set(state.line ? byLine.get(state.line) || [] : []);
  out.push(h("div", { class: "kv-meta" },
    h("div", {}, h("b", {}, "Source nodes → ATen nodes"), table(["source node", "ATen nodes"],
      Object.entries(kernel.node_mapping).map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, v.join(", ")))))),
    kernel.locations.length ? h("div", {}, h("b", {}, "Your code"), table(["file:line", "code"],
      kernel.locations.map((loc) => h("tr", {}, h("td", {}, `${loc.file}:${loc.line}`), h("td", { class: "kv-mono" }, loc.code))))) : null,
    h("div", {}, h("b", {}, "Graph fragment"), h("span", { class: "kv-hint" }, " (click a node to light the lines linked to it)"),
      table(["node", "op", "target", "dtype", "shape", "stride", "users"], kernel.fragment.filter((n) => n.op !== "output").map((n) =>
        h("tr", { class: "kv-node" + (state.node === n.name ? " kv-selected" : "") + (litNodes.has(n.name) ? " kv-lit" : "") +
          (links[n.name] ? " kv-linked" : ""), "data-node": n.name, onclick: () => ctx.selectNode(n.name) },
          h("td", {}, n.name), h("td", {}, n.op), h("td", { class: "kv-mono" }, n.target), h("td", {}, n.dtype || ""),
          h("td", {}, n.shape ? `[${n.shape.join(", ")}]` : ""), h("td", {}, n.stride ? `[${n.stride.join(", ")}]` : ""),
          h("td", {}, n.users ?? "")))))));
  out.push(sourceView(kernel, tokens, links, state, ctx.selectLine));
  return out;
}

function wrapperView(cap, g) {
  const graph = cap.graphs[g];
  const mem = (cap.view && cap.view.memory && cap.view.memory[String(g)]) || { steps: [], peak: 0 };
  const live = new Map(mem.steps.map(([s, b]) => [s, b]));
  const steps = [
    ...graph.launches.map((l) => ({ step: l.step, line: l.line, what: "launch", text: l.kernel_name || l.op,
      detail: `reads ${l.reads.join(", ") || "-"} → writes ${l.writes.join(", ") || "-"}` })),
    ...graph.memory.map((e) => ({ step: e.step, line: e.line, what: e.kind, text: e.buffer,
      detail: e.kind === "alloc" ? `${e.dtype || "?"}[${(e.shape || []).join(", ")}] ${fmtBytes(e.nbytes)}` :
        e.kind === "reuse" ? `takes over ${e.source}` : "" })),
  ].sort((a, b) => a.step - b.step);
  let current = 0;
  const rows = steps.map((s) => {
    if (live.has(s.step)) current = live.get(s.step);
    return h("tr", { class: `kv-step kv-${s.what}` + (s.step === mem.peak_step ? " kv-peak" : "") },
      h("td", {}, s.line), h("td", {}, s.what), h("td", { class: "kv-mono" }, s.text), h("td", {}, s.detail),
      h("td", {}, fmtBytes(current)));
  });
  return [h("div", { class: "kv-facts" }, `peak memory of buffers call() allocates: ${fmtBytes(mem.peak)}` +
    (mem.unknown && mem.unknown.length ? ` (+ ${mem.unknown.length} buffers of unknown size)` : "")),
    table(["line", "step", "name", "detail", "live"], rows)];
}

/**
 * Render a capture into `el`. `host` (optional) connects the live widget:
 *   kernelData(key) -> {tokens, links} or undefined, requestKernel(key), select(key), bench(), canBench.
 * Returns a function that re-renders with new data.
 */
export function renderCapture(el, data, host = {}) {
  const state = { graph: 0, selected: null, filter: "", kind: "", sort: "index", desc: false, tab: "kernel",
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

  function visibleRows() {
    const graph = cap.graphs[state.graph];
    if (!graph) return [];
    const f = state.filter.toLowerCase();
    let rows = launchRows(graph).filter((r) => (!state.kind || r.kind === state.kind) &&
      (!f || `${r.name} ${r.aten} ${r.nodes}`.toLowerCase().includes(f)));
    const key = state.sort;
    rows.sort((a, b) => {
      const x = a[key], y = b[key];
      const c = x === y ? a.index - b.index : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
      return state.desc ? -c : c;
    });
    return rows;
  }

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
      h("div", { class: "kv-tabs" },
        h("button", { class: "kv-tab" + (state.tab === "kernel" ? " kv-active" : ""), onclick: () => { state.tab = "kernel"; draw(); } }, "Kernel"),
        h("button", { class: "kv-tab" + (state.tab === "wrapper" ? " kv-active" : ""), onclick: () => { state.tab = "wrapper"; draw(); } }, "Wrapper call()")),
      h("div", { class: "kv-detail" })].filter(Boolean));
    drawTable();
    drawDetail();
  }

  function drawTable() {
    const tableEl = root.querySelector(".kv-table");
    tableEl.tHead.replaceChildren(h("tr", {}, ...COLUMNS.map(([key, label]) => h("th", {
      class: "kv-sortable" + (state.sort === key ? (state.desc ? " kv-desc" : " kv-asc") : ""),
      onclick: () => { state.desc = state.sort === key ? !state.desc : key !== "index" && key !== "name";
        state.sort = key; drawTable(); } }, label))));
    const frag = document.createDocumentFragment();
    for (const r of visibleRows()) {
      const key = `${state.graph}/${r.index}`;
      frag.append(h("tr", { class: "kv-row" + (state.selected === key ? " kv-selected" : ""), "data-key": key,
        onclick: () => select(key) },
        h("td", {}, r.index), h("td", { class: "kv-mono" }, r.name), h("td", {}, r.kind), h("td", {}, r.aten),
        h("td", {}, r.nodes), h("td", {}, r.type), h("td", {}, r.lsr), h("td", {}, fmtBytes(r.bytes)),
        h("td", { class: "kv-num" }, fmt(r.ms, 4) + (r.ms != null && r.unit === "cpu" ? " (CPU)" : "")),
        h("td", { class: "kv-num" }, r.share != null ? `${(100 * r.share).toFixed(1)}%` : ""),
        h("td", { class: "kv-num" }, fmt(r.iso, 4)), h("td", { class: "kv-num" }, fmt(r.gbps, 1)),
        h("td", { class: "kv-num" }, fmt(r.peak, 1))));
    }
    tableEl.tBodies[0].replaceChildren(frag);
  }

  function drawDetail() {
    const box = root.querySelector(".kv-detail");
    if (state.tab === "wrapper") { box.replaceChildren(...(cap.graphs[state.graph] ? wrapperView(cap, state.graph) : [])); return; }
    if (!state.selected) { box.replaceChildren(h("div", { class: "kv-hint" }, "Select a launch to see its source and metadata.")); return; }
    const [g, i] = state.selected.split("/").map(Number);
    const row = cap.graphs[g] && launchRows(cap.graphs[g])[i];
    if (!row) { box.replaceChildren(); return; }
    box.replaceChildren(...detailView(cap, g, row, {
      state, kernelData,
      selectNode: (name) => { state.node = state.node === name ? null : name; state.line = null; drawDetail(); },
      selectLine: (n) => { state.line = state.line === n ? null : n; state.node = null; drawDetail(); },
    }));
  }

  function select(key) {
    state.selected = key; state.node = null; state.line = null; state.tab = "kernel";
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

// anywidget entry point: the widget syncs "payload" (the capture) and "selected" with Python.
function render({ model, el }) {
  const live = new Map();
  const host = {
    kernelData: (key) => live.get(key),
    requestKernel: (key) => model.send({ type: "kernel", key }),
    select: (key) => { model.set("selected", key); model.save_changes(); },
    bench: () => model.send({ type: "bench" }),
    canBench: true,
  };
  const view = renderCapture(el, model.get("payload"), host);
  const onMsg = (msg) => {
    if (msg && msg.type === "kernel") { live.set(msg.key, { tokens: msg.tokens, links: msg.links }); view.redrawDetail(); }
  };
  const onPayload = () => view.update(model.get("payload"));
  const onSelected = () => { const key = model.get("selected"); if (key) view.select(key); };
  model.on("msg:custom", onMsg);
  model.on("change:payload", onPayload);
  model.on("change:selected", onSelected);
  if (model.get("selected")) view.select(model.get("selected"));
  return () => {
    model.off("msg:custom", onMsg);
    model.off("change:payload", onPayload);
    model.off("change:selected", onSelected);
  };
}

export default { render };
