// The "Wrapper call()" tab: call()'s steps in order (launches, allocations, reuses, frees) with
// the bytes live after each, and the peak.
import { h, table } from "./dom.js";
import { fmtBytes, plural } from "./format.js";

export function wrapperTab(cap, g) {
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
    (mem.unknown && mem.unknown.length ? ` (+ ${plural(mem.unknown.length, "buffer")} of unknown size)` : "")),
    table(["line", "step", "name", "detail", "live"], rows)];
}
