// Hardware counters of a launch (Launch.counters, measured under Nsight Compute by cap.counters()): the
// "Counters" section of the Kernel tab (figures, warp-stall shares, NVIDIA's findings, the hottest lines
// first, each linked to its FX nodes), and the heat column of stall samples that marks the lines of a source
// pane or the instructions of a SASS pane.
import { h } from "./dom.js";
import { fmtBytes, fmtMs, fmtPct } from "./format.js";

const HOT_LINES = 8;

function fact(label, value, title) {
  return value ? h("div", { class: "kv-fact", title: title || "" }, h("span", { class: "kv-fact-label" }, label),
    h("span", {}, value)) : null;
}

const pct = (p) => (p == null ? "" : `${fmtPct(p)}%`);
const count = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e4 ? `${(n / 1e3).toFixed(0)}k` : String(n));

/** "what was measured, against Inductor's estimate": the DRAM bytes fact. */
function dramBytes(c, t) {
  if (c.dram_read_bytes == null && c.dram_write_bytes == null) return "";
  const total = (c.dram_read_bytes || 0) + (c.dram_write_bytes || 0);
  const estimate = t && t.bytes_estimate != null ? ` · Inductor's estimate ${fmtBytes(t.bytes_estimate)}` : "";
  return `${fmtBytes(total)} (read ${fmtBytes(c.dram_read_bytes)}, written ${fmtBytes(c.dram_write_bytes)})${estimate}`;
}

function stallBars(stalls) {
  if (!stalls || !stalls.length) return null;
  return h("div", { class: "kv-stalls" }, h("div", { class: "kv-fact-label" }, "warp stalls"),
    ...stalls.map((s) => h("div", { class: "kv-stall", title: `${(100 * s.share).toFixed(1)}% of the stalls` },
      h("span", { class: "kv-stall-name" }, s.reason),
      h("span", { class: "kv-stall-bar" }, h("span", { style: `width:${Math.min(100, 100 * s.share).toFixed(1)}%` })),
      h("span", { class: "kv-stall-pct" }, `${fmtPct(100 * s.share)}%`))));
}

/** The lines with the most stall samples, hottest first; a click selects the line (lights its FX nodes). */
function hotLines(c, source, links, onLine) {
  const total = c.lines.reduce((s, l) => s + l.stall_samples, 0);
  if (!total) return null;
  const text = source.split("\n");
  const hot = [...c.lines].filter((l) => l.stall_samples > 0).sort((a, b) => b.stall_samples - a.stall_samples)
    .slice(0, HOT_LINES);
  const nodesOf = (n) => Object.entries(links || {}).filter(([, ls]) => ls.includes(n)).map(([node]) => node);
  return h("div", { class: "kv-hot-lines" }, h("div", { class: "kv-fact-label" }, "hottest lines (stall samples)"),
    ...hot.map((l) => {
      const nodes = nodesOf(l.line);
      return h("div", { class: "kv-hot-line", "data-line": String(l.line), onclick: () => onLine(l.line),
        title: `${l.stall_samples} of ${total} stall samples · ${l.instructions} instructions executed` +
          (l.top_stall ? ` · mostly ${l.top_stall}` : "") },
      h("span", { class: "kv-hot-pct" }, `${fmtPct((100 * l.stall_samples) / total)}%`),
      h("span", { class: "kv-lineno" }, String(l.line)),
      h("code", {}, (text[l.line - 1] || "").trim()),
      h("span", { class: "kv-hint" }, [l.top_stall, nodes.length ? `nodes ${nodes.join(", ")}` : ""].filter(Boolean).join(" · ")));
    }));
}

/** The Counters section of a launch, or null when it was not measured. `source`/`links` are the kernel's
 * source and node→lines links (generated kernels), `onLine(n)` selects a line. */
export function countersSection(launch, source, links, onLine) {
  const c = launch.counters;
  if (!c) return null;
  const title = h("div", { class: "kv-section-title" }, "Counters", h("span", { class: "kv-hint" }, ` ${c.tool || "Nsight Compute"}`));
  if (c.error) return h("div", { class: "kv-counters" }, title, h("div", { class: "kv-note" }, `Not measured: ${c.error}`));
  const occupancy = [c.achieved_occupancy != null && `achieved ${pct(c.achieved_occupancy)}`,
    c.theoretical_occupancy != null && `theoretical ${pct(c.theoretical_occupancy)}`].filter(Boolean).join(" · ");
  return h("div", { class: "kv-counters" }, title,
    h("div", { class: "kv-facts-grid" },
      fact("duration", c.duration_ms != null ? `${fmtMs(c.duration_ms)} ms under ncu` : "",
        "Nsight Compute locks the clocks to base: slower than in the graph"),
      fact("DRAM bytes", dramBytes(c, launch.timing)),
      fact("SM throughput", c.sm_pct != null ? `${pct(c.sm_pct)} of speed of light` : ""),
      fact("memory throughput", c.memory_pct != null ? `${pct(c.memory_pct)} of speed of light` : "",
        "the busiest of DRAM, L1 and L2"),
      fact("DRAM throughput", c.dram_pct != null ? `${pct(c.dram_pct)} of peak` : ""),
      fact("hit rates", [c.l1_hit_rate != null && `L1 ${pct(c.l1_hit_rate)}`, c.l2_hit_rate != null && `L2 ${pct(c.l2_hit_rate)}`]
        .filter(Boolean).join(" · ")),
      fact("occupancy", occupancy),
      fact("FLOPs", c.flops ? `${c.flops.toExponential(3)} (CUDA cores; tensor cores not counted)` : ""),
      fact("device kernels", c.kernels.length > 1 || !launch.kernel_name ? c.kernels.join(", ") : "")),
    stallBars(c.stalls),
    launch.kernel_name && c.lines.length ? hotLines(c, source, links, onLine) : null,
    c.findings.length ? h("details", { class: "kv-findings" }, h("summary", {}, `NVIDIA's findings (${c.findings.length})`),
      h("ul", {}, ...c.findings.map((f) => h("li", {}, f)))) : null);
}

/** Put a heat cell of stall samples before each `.kv-line` of `pane`; `keyOf(lineEl)` gives the entry's key
 * (a source line number, or a SASS instruction's offset), `entries` are LineCounters. */
export function heatColumn(pane, entries, keyOf) {
  const by = new Map(entries.map((e) => [e.line, e]));
  const total = entries.reduce((s, e) => s + e.stall_samples, 0);
  const most = Math.max(0, ...entries.map((e) => e.stall_samples));
  if (!most) return;
  pane.classList.add("kv-with-heat");
  pane.querySelectorAll(".kv-line").forEach((el) => {
    const e = by.get(keyOf(el));
    const heat = e ? e.stall_samples / most : 0;
    el.prepend(h("span", {
      class: "kv-heat", style: `--kv-heat:${heat.toFixed(3)}`,
      title: e ? `${e.stall_samples} stall samples (${fmtPct((100 * e.stall_samples) / total)}%) · ` +
        `${e.instructions} instructions executed${e.top_stall ? ` · mostly ${e.top_stall}` : ""}` : "" },
    e && e.stall_samples ? count(e.stall_samples) : ""));
  });
}

/** The SASS instruction offset of a stage line (`/*0a30*\/` as nvdisasm writes it), or null. */
export function sassOffset(el) {
  const m = /\/\*([0-9a-f]{4,})\*\//.exec(el.textContent);
  return m ? parseInt(m[1], 16) : null;
}
