// The launches of a graph's call() as table rows (plain data, no DOM), made once per graph.
// Timing fields are read as the model has them (kernelviz.model.LaunchTiming), for sorting and drawing; the figures
// as text, rates, % of roof and the forms of names as the payload's view annex has them (kernelviz/views/rules.py,
// texts.py): nothing is recomputed or formatted here.
import { formsOf } from "./names.js";

const CACHE = new WeakMap();

/** Kind shown for a launch: its kernel's kind, or "extern" for an extern call. */
export function kindOf(kernel, launch) {
  if (!launch.kernel_name) return "extern";
  return kernel ? kernel.kind : "kernel";
}

/** One row of data per launch of call(), in order; `annex`: the graph's entry of the view annex's `launches`
 * ({names, rates, roofs, notes, texts}; rules.py graph_annex, texts.py), without which no launch has a rate, a % of
 * a roof, a note on its times or its figures as text. */
export function launchRows(graph, annex = {}) {
  if (CACHE.has(graph)) return CACHE.get(graph);
  const { names = {}, rates = {}, roofs = {}, notes = {}, texts = {} } = annex;
  const byName = new Map(graph.kernels.map((k) => [k.name, k]));
  const rows = graph.launches.map((l) => {
    const k = l.kernel_name ? byName.get(l.kernel_name) || null : null;
    const meta = (k && k.inductor_meta) || {};
    const t = l.timing || {};
    const r = rates[l.index], roof = roofs[l.index];
    const name = l.kernel_name || l.op || "?";
    return {
      launch: l, kernel: k, index: l.index, name, forms: formsOf(names, name), kind: kindOf(k, l),
      aten: l.original_aten.join(", "), nodes: l.source_nodes.join(", "), type: (k && k.kernel_type) || "",
      lsr: k && meta.num_load !== undefined ? `${meta.num_load}/${meta.num_store}/${meta.num_reduction}` : "",
      bytes: t.bytes ?? null, ms: t.in_graph_ms ?? null, share: t.share ?? null,
      iso: (k && k.timing && k.timing.isolated_ms) ?? null,
      rate: r ? r[0] : null, rateUnit: r ? r[1] : "", cacheResident: !!(r && r[2]),
      pct: roof ? roof[0] : null, pctOf: roof ? roof[1] : "", pctTag: roof ? roof[2] : "", bound: t.bound || "", note: t.note || "",
      timeNote: notes[l.index] || "", texts: texts[l.index] || {},
      flops: t.flops ?? null, intensity: t.flops && t.bytes ? t.flops / t.bytes : null,
      tflops: t.tflop_per_s ?? null, gbps: t.gb_per_s ?? null, unit: t.unit || "",
    };
  });
  CACHE.set(graph, rows);
  return rows;
}

/** Whether any launch of the graph carries a time. */
export const isTimed = (graph) => graph.launches.some((l) => l.timing && l.timing.in_graph_ms != null);
