// Hardware counters of a launch (Launch.counters, measured under Nsight Compute by cap.counters()): the
// "Counters" section of the Kernel tab (figures, warp-stall shares, NVIDIA's findings, the hottest lines
// first, each linked to its FX nodes), and the heat column of stall samples that marks the lines of a source
// pane or the instructions of a SASS pane. Every figure is the payload's text (views/texts.py counters_texts).
import { h } from "./dom.js";

const HOT_LINES = 8;

function fact(label, value, title) {
  return value ? h("div", { class: "kv-fact", title: title || "" }, h("span", { class: "kv-fact-label" }, label),
    h("span", {}, value)) : null;
}

/** "what was measured, against Inductor's estimate": the DRAM bytes fact (`x`: the counters' texts, `estimate`:
 * Inductor's, as text). */
function dramBytes(x, estimate) {
  if (!x.dram_total) return "";
  return `${x.dram_total} (read ${x.dram_read || ""}, written ${x.dram_written || ""})` +
    (estimate ? ` · Inductor's estimate ${estimate}` : "");
}

function stallBars(stalls, texts) {
  if (!stalls || !stalls.length) return null;
  return h("div", { class: "kv-stalls" }, h("div", { class: "kv-fact-label" }, "warp stalls"),
    ...stalls.map((s, i) => h("div", { class: "kv-stall", title: `${(texts[i] || [])[1] || ""} of the stalls` },
      h("span", { class: "kv-stall-name" }, s.reason),
      h("span", { class: "kv-stall-bar" }, h("span", { style: `width:${(100 * Math.max(0, Math.min(1, s.share)) || 0).toFixed(1)}%` })),
      h("span", { class: "kv-stall-pct" }, (texts[i] || [])[0] || ""))));
}

/** The lines with the most stall samples, hottest first; a click selects the line (lights its FX nodes). */
function hotLines(c, heat, source, links, onLine) {
  const total = c.lines.reduce((s, l) => s + l.stall_samples, 0);
  if (!total) return null;
  const text = source.split("\n");
  const hot = c.lines.map((l, i) => [l, (heat[i] || [])[0] || ""]).filter(([l]) => l.stall_samples > 0)
    .sort(([a], [b]) => b.stall_samples - a.stall_samples).slice(0, HOT_LINES);
  const nodesOf = (n) => Object.entries(links || {}).filter(([, ls]) => ls.includes(n)).map(([node]) => node);
  return h("div", { class: "kv-hot-lines" }, h("div", { class: "kv-fact-label" }, "hottest lines (stall samples)"),
    ...hot.map(([l, share]) => {
      const nodes = nodesOf(l.line);
      return h("div", { class: "kv-hot-line", "data-line": String(l.line), onclick: () => onLine(l.line),
        title: `${l.stall_samples} of ${total} stall samples · ${l.instructions} instructions executed` +
          (l.top_stall ? ` · mostly ${l.top_stall}` : "") },
      h("span", { class: "kv-hot-pct" }, share),
      h("span", { class: "kv-lineno" }, String(l.line)),
      h("code", {}, (text[l.line - 1] || "").trim()),
      h("span", { class: "kv-hint" }, [l.top_stall, nodes.length ? `nodes ${nodes.join(", ")}` : ""].filter(Boolean).join(" · ")));
    }));
}

/** The Counters section of a launch, or null when it was not measured. `texts`: the launch's figures as text
 * (rows.js `texts`), `source`/`links` are the kernel's source and node→lines links (generated kernels), `onLine(n)`
 * selects a line. */
export function countersSection(launch, texts, source, links, onLine) {
  const c = launch.counters;
  if (!c) return null;
  const title = h("div", { class: "kv-section-title" }, "Counters", h("span", { class: "kv-hint" }, ` ${c.tool || "Nsight Compute"}`));
  if (c.error) return h("div", { class: "kv-counters" }, title, h("div", { class: "kv-note" }, `Not measured: ${c.error}`));
  const x = texts.counters || {};
  const occupancy = [x.achieved && `achieved ${x.achieved}`, x.theoretical && `theoretical ${x.theoretical}`]
    .filter(Boolean).join(" · ");
  return h("div", { class: "kv-counters" }, title,
    h("div", { class: "kv-facts-grid" },
      fact("duration", x.duration ? `${x.duration} ms under ncu` : "",
        "Nsight Compute locks the clocks to base: slower than in the graph"),
      fact("DRAM bytes", dramBytes(x, texts.bytes_estimate)),
      fact("SM throughput", x.sm ? `${x.sm} of speed of light` : ""),
      fact("memory throughput", x.memory ? `${x.memory} of speed of light` : "", "the busiest of DRAM, L1 and L2"),
      fact("DRAM throughput", x.dram ? `${x.dram} of peak` : ""),
      fact("hit rates", [x.l1 && `L1 ${x.l1}`, x.l2 && `L2 ${x.l2}`].filter(Boolean).join(" · ")),
      fact("occupancy", occupancy),
      fact("FLOPs", x.flops ? `${x.flops} (CUDA cores; tensor cores not counted)` : ""),
      fact("device kernels", c.kernels.length > 1 || !launch.kernel_name ? c.kernels.join(", ") : "")),
    stallBars(c.stalls, x.stalls || []),
    launch.kernel_name && c.lines.length ? hotLines(c, x.lines || [], source, links, onLine) : null,
    c.findings.length ? h("details", { class: "kv-findings" }, h("summary", {}, `NVIDIA's findings (${c.findings.length})`),
      h("ul", {}, ...c.findings.map((f) => h("li", {}, f)))) : null);
}

/** Put a heat cell of stall samples before each `.kv-line` of `pane`; `keyOf(lineEl)` gives the entry's key
 * (a source line number, or a SASS instruction's offset), `entries` are LineCounters, `heat` their [share, count]
 * as text, in their order (views/texts.py counters_texts). */
export function heatColumn(pane, entries, heat, keyOf) {
  const by = new Map(entries.map((e, i) => [e.line, [e, heat[i] || ["", ""]]]));
  const most = Math.max(0, ...entries.map((e) => e.stall_samples));
  if (!most) return;
  pane.classList.add("kv-with-heat");
  pane.querySelectorAll(".kv-line").forEach((el) => {
    const [e, [share, count]] = by.get(keyOf(el)) || [null, []];
    const level = e ? e.stall_samples / most : 0;
    el.prepend(h("span", {
      class: "kv-heat", style: `--kv-heat:${level.toFixed(3)}`,
      title: e ? `${e.stall_samples} stall samples (${share}) · ` +
        `${e.instructions} instructions executed${e.top_stall ? ` · mostly ${e.top_stall}` : ""}` : "" },
    e && e.stall_samples ? count : ""));
  });
}

/** The SASS instruction offset of a stage line (`/*0a30*\/` as nvdisasm writes it), or null. */
export function sassOffset(el) {
  const m = /\/\*([0-9a-f]{4,})\*\//.exec(el.textContent);
  return m ? parseInt(m[1], 16) : null;
}
