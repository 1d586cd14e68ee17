// The "Wrapper call()" tab: call()'s steps in order (launches, allocations, reuses, frees) with
// the bytes live after each, and the peak; the selected launch's step is highlighted and scrolled into view.
// For an AOTInductor package, also what the package holds (metadata, files, constants without their values) and
// its C++ wrapper, highlighted, scrolled to run_impl; a launch's step or line opens its kernel, as the launch
// table does.
import { h, table } from "./dom.js";
import { plural } from "./format.js";
import { scrollPaneTo, sourceView } from "./source.js";

export function wrapperTab(ctx) {
  const cap = ctx.cap, g = ctx.graph;
  const graph = cap.graphs[g];
  const mem = (cap.view && cap.view.memory && cap.view.memory[String(g)]) || { steps: [], peak: 0 };
  const live = new Map((mem.live || []).map(([s, text]) => [s, text]));  // sizes as text (views/texts.py)
  const allocated = mem.allocated || [];
  const steps = [
    ...graph.launches.map((l) => ({ step: l.step, line: l.line, what: "launch", text: l.kernel_name || l.op,
      launch: l.index, detail: `reads ${l.reads.join(", ") || "-"} → writes ${l.writes.join(", ") || "-"}` })),
    ...graph.memory.map((e, i) => ({ step: e.step, line: e.line, what: e.kind, text: e.buffer,
      detail: e.kind === "alloc" ? `${e.dtype || "?"}[${(e.shape || []).join(", ")}] ${allocated[i] || ""}` :
        e.kind === "reuse" ? `takes over ${e.source}` : "" })),
  ].sort((a, b) => a.step - b.step);
  let current = "", selected = null;
  const chosen = ctx.row ? ctx.row.index : null;
  const rows = steps.map((s) => {
    if (live.has(s.step)) current = live.get(s.step);
    const open = s.launch === undefined ? {} : { onclick: () => ctx.go(g, s.launch), title: "open its kernel" };
    const peak = s.step === mem.peak_step;
    const row = h("tr", { class: `kv-step kv-${s.what}` + (peak ? " kv-peak" : "") + (s.launch === chosen ? " kv-selected" : ""),
      ...open }, h("td", {}, s.line), h("td", {}, s.what), h("td", { class: "kv-mono" }, s.text), h("td", {}, s.detail),
    h("td", {}, current + (peak ? " (peak)" : "")));
    if (s.launch === chosen) selected = row;
    return row;
  });
  if (selected) requestAnimationFrame(() => selected.scrollIntoView({ block: "nearest" }));
  return [h("div", { class: "kv-facts" }, `peak memory of buffers call() allocates: ${mem.peak_text || ""}` +
    (mem.unknown && mem.unknown.length ? ` (+ ${plural(mem.unknown.length, "buffer")} of unknown size)` : "") +
    (chosen !== null ? ` · launch ${chosen} selected` : "")),
    table(["line", "step", "name", "detail", "live"], rows), ...packageView(ctx, graph)];
}

/** What an AOTInductor package holds, and its C++ wrapper (nothing for other graphs). */
function packageView(ctx, graph) {
  const p = graph.package;
  if (!p) return [];
  const sizes = ((ctx.cap.view || {}).package_sizes || {})[String(ctx.graph)] || { constants: [], total: "" };
  const constants = p.constants.map((c, i) => h("tr", {}, h("td", { class: "kv-mono" }, c.name), h("td", {}, c.fqn),
    h("td", {}, c.kind), h("td", {}, c.dtype || "?"), h("td", {}, `[${(c.shape || []).join(", ")}]`),
    h("td", {}, sizes.constants[i] || "")));
  return [
    h("div", { class: "kv-facts" }, ((ctx.cap.view || {}).packages || {})[String(ctx.graph)] || `AOTInductor package ${p.path}`),
    ...p.notes.map((n) => h("div", { class: "kv-note" }, n)),
    h("details", {}, h("summary", {}, `${plural(p.constants.length, "constant")}, ${sizes.total} (values not kept)`),
      table(["name", "module's name", "kind", "dtype", "shape", "bytes"], constants)),
    ...codeView(ctx, graph)];
}

/** The package's C++ wrapper, highlighted, scrolled to run_impl; a launch's line opens its kernel. */
function codeView(ctx, graph) {
  const g = ctx.graph;
  const annex = ((ctx.cap.view || {}).wrapper || {})[String(g)];
  const lazy = ctx.graphData && ctx.graphData(String(g));
  const wrapper = annex && graph.code ? { code: graph.code, tokens: annex } : lazy && lazy.wrapper;
  if (!wrapper) {
    if (ctx.requestGraph && ctx.state.live) {
      ctx.requestGraph(String(g));
      return [h("div", { class: "kv-hint" }, "reading the C++ wrapper…")];
    }
    return graph.code ? [sourceView(graph.code, null, () => {}, { title: "C++ wrapper" })] : [];
  }
  const byLine = new Map(graph.launches.map((l) => [l.line, l.index]));
  const pane = sourceView(wrapper.code, wrapper.tokens, (line) => byLine.has(line) && ctx.go(g, byLine.get(line)),
    { title: "C++ wrapper (the package's <hash>.wrapper.cpp)" });
  pane.querySelectorAll(".kv-line").forEach((line) => line.classList.toggle("kv-changed", byLine.has(Number(line.dataset.line))));
  const first = graph.call_span ? pane.querySelector(`.kv-line[data-line="${graph.call_span[0]}"]`) : null;
  requestAnimationFrame(() => scrollPaneTo(pane, first));
  return [pane];
}
