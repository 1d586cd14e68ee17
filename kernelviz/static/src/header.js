// The panel's one-line header: graphs, kernels, extern calls, device, versions, compile time.

export function headline(cap) {
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
