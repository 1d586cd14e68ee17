// The launches of a graph's call() as table rows (plain data, no DOM).

export function kindOf(graph, launch) {
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
