// The launches of a graph's call() as table rows (plain data, no DOM), made once per graph.
// Timing fields are read as the model has them (kernelviz.model.LaunchTiming); nothing is recomputed.

const CACHE = new WeakMap();

/** Kind shown for a launch: its kernel's kind, or "extern" for an extern call. */
export function kindOf(kernel, launch) {
  if (!launch.kernel_name) return "extern";
  return kernel ? kernel.kind : "kernel";
}

/** The launch's rate: a collective's bus bandwidth (as nccl-tests counts it); GB/s where bandwidth bounds a
 * kernel or no FLOPs are known, else TFLOP/s. */
function rate(t, c) {
  if (c) return c.bus_gb_per_s != null ? { value: c.bus_gb_per_s, unit: "GB/s bus" } : null;
  const flops = t.tflop_per_s != null && (t.bound === "compute" || t.gb_per_s == null);
  if (flops) return { value: t.tflop_per_s, unit: "TFLOP/s" };
  if (t.gb_per_s != null) return { value: t.gb_per_s, unit: "GB/s" };
  return null;
}

/** % of the roofline: of the compute peak for a compute-bound launch, else of the DRAM peak (both from
 * L2-flushed times, never above 100 in the model). Where the bound is not known the figure says which peak
 * it is of ("bw" or "flop"): it is not the roofline's. */
function roofline(t) {
  const flops = { pct: t.pct_peak_flops, of: `${t.dtype || ""} compute peak`.trim(), tag: "flop" };
  const bw = { pct: t.pct_peak_bw, of: "DRAM bandwidth peak", tag: "bw" };
  const pick = t.bound === "compute" && flops.pct != null ? flops : bw.pct != null ? bw : flops.pct != null ? flops : null;
  return pick && { ...pick, tag: t.bound ? "" : pick.tag };
}

/** Whether the capture knows its device's peaks (else no figure is a % of them). */
export const peaksKnown = (peaks) => !!(peaks && (peaks.dram_gb_per_s || Object.keys(peaks.tflops || {}).length));

/** One row of data per launch of call(), in order; `peaks` (Capture.peaks): without them no % of a roof. */
export function launchRows(graph, peaks) {
  if (CACHE.has(graph)) return CACHE.get(graph);
  const known = peaks === undefined || peaksKnown(peaks);
  const byName = new Map(graph.kernels.map((k) => [k.name, k]));
  const rows = graph.launches.map((l) => {
    const k = l.kernel_name ? byName.get(l.kernel_name) || null : null;
    const meta = (k && k.inductor_meta) || {};
    const t = l.timing || {};
    const r = rate(t, l.collective), roof = known ? roofline(t) : null;
    const name = l.kernel_name || l.op || "?";
    return {
      launch: l, kernel: k, index: l.index, name, kind: kindOf(k, l),
      aten: l.original_aten.join(", "), nodes: l.source_nodes.join(", "), type: (k && k.kernel_type) || "",
      lsr: k && meta.num_load !== undefined ? `${meta.num_load}/${meta.num_store}/${meta.num_reduction}` : "",
      bytes: t.bytes ?? null, ms: t.in_graph_ms ?? null, share: t.share ?? null,
      iso: (k && k.timing && k.timing.isolated_ms) ?? null,
      rate: r ? r.value : null, rateUnit: r ? r.unit : "", cacheResident: !!t.cache_resident,
      pct: roof ? roof.pct : null, pctOf: roof ? roof.of : "", pctTag: roof ? roof.tag : "", bound: t.bound || "", note: t.note || "",
      flops: t.flops ?? null, intensity: t.flops && t.bytes ? t.flops / t.bytes : null,
      tflops: t.tflop_per_s ?? null, gbps: t.gb_per_s ?? null, unit: t.unit || "",
    };
  });
  CACHE.set(graph, rows);
  return rows;
}

/** Whether any launch of the graph carries a time. */
export const isTimed = (graph) => graph.launches.some((l) => l.timing && l.timing.in_graph_ms != null);
