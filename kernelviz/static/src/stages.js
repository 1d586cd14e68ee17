// The "Compiled" tab: what Triton compiled the selected kernel to (TTIR, TTGIR, LLVM IR, PTX, SASS) beside
// its source, linked both ways (click a source line: the stage lines from it light up; click a stage line:
// its source lines light up), with registers, spills, shared memory, occupancy and the "Copy repro" button.
// Live: stages, tokens and repro come from the widget per kernel. Saved: text and links from the model,
// the rest from the payload's view.deep annex; stages are drawn unhighlighted there.
import { h } from "./dom.js";
import { fmtBytes } from "./format.js";
import { tokenLines } from "./source.js";

/** The kernel's stages (with text and per-line source links), facts, notes and repro, or null while the
 * live widget has not answered yet. */
function deepData(ctx, key, kernel) {
  const live = ctx.kernelData(key);
  if (live && live.ir) return { ...live.ir, repro: live.repro };
  const saved = ((ctx.cap.view || {}).deep || {})[key];
  if (!saved) return null;
  const model = (kernel.ir && kernel.ir.stages) || [];
  const stages = saved.ir.stages.map((s, i) => ({ ...s, text: model[i] ? model[i].text : "",
    lines: model[i] ? model[i].source_lines : [], tokens: null }));
  return { ...saved.ir, stages, repro: saved.repro };
}

function factsLine(facts) {
  if (!facts) return null;
  const occ = facts.occupancy;
  return h("div", { class: "kv-facts" },
    `${facts["registers per thread"] ?? "?"} registers per thread · ${facts.spills ?? "?"} spills · ` +
    `${facts["shared memory (B per block)"] ?? "?"} B shared memory per block · num_warps ${facts.num_warps ?? "?"}` +
    (facts.arch ? ` · ${facts.arch}` : ""),
    occ ? h("span", { title: `blocks per SM by registers ${occ["blocks by registers"]}, by shared memory ` +
      `${occ["blocks by shared memory"]}, by threads ${occ["blocks by threads"]}, by the device's limit ` +
      `${occ["blocks by device limit"] ?? "unknown"}; ${occ.device}` },
      ` · occupancy ${occ["blocks per SM"]} blocks per SM (${occ["warps per SM"]}), limited by ${occ["limited by"]}`) : null);
}

function reproBar(repro) {
  if (!repro) return null;
  if (!repro.script) return h("div", { class: "kv-hint" }, `No repro: ${repro.reason}`);
  return h("div", { class: "kv-repro" },
    h("button", { class: "kv-copy-repro", title: "copy a standalone script that launches this kernel alone",
      onclick: () => navigator.clipboard && navigator.clipboard.writeText(repro.script) }, "Copy repro"),
    h("details", {}, h("summary", {}, "repro script"), h("pre", { class: "kv-mono kv-script" }, repro.script)));
}

/** Lines of a text as clickable rows; `lit(i)` and `current(i)` style them, `onClick(i)` on a click. */
function linePane(cls, text, tokens, lit, current, onClick) {
  return h("div", { class: `kv-source ${cls}` + (tokens ? " kv-highlighted" : "") },
    ...tokenLines(text, tokens).map((parts, i) => h("div", {
      class: "kv-line" + (lit(i) ? " kv-lit" : "") + (current(i) ? " kv-current" : ""), "data-line": String(i + 1),
      onclick: () => onClick(i) }, h("span", { class: "kv-lineno" }, String(i + 1)), h("span", { class: "kv-code" }, ...parts))));
}

/** The tab's content for the selected row (see rows.js) of graph `g`. */
export function compiledTab(ctx, g, row) {
  const kernel = row && row.kernel;
  if (!kernel) return [h("div", { class: "kv-hint" }, "Select a generated kernel to see what it was compiled to.")];
  const key = `${g}/${kernel.name}`;
  const data = deepData(ctx, key, kernel);
  const title = h("div", { class: "kv-detail-title" }, row.name, h("span", { class: "kv-badge" }, row.kind));
  if (!data) return [title, h("div", { class: "kv-hint" }, ctx.live ? "loading the compiled stages…"
    : "This saved output has no compiled stages (display the capture again with this kernelviz).")];
  const st = ctx.state;
  const stages = data.stages || [];
  const stage = stages.find((s) => s.name === st.stage) || stages[stages.length - 1];
  const out = [title, factsLine(data.facts), ...(data.notes || []).map((n) => h("div", { class: "kv-note" }, n)),
    reproBar(data.repro)];
  if (!stage) return out;
  const links = stage.lines || [];
  const srcLit = new Set(st.irLine != null ? links[st.irLine] || [] : []);
  const source = linePane("kv-compiled-source", kernel.source, ctx.kernelData(key).tokens,
    (i) => srcLit.has(i + 1), (i) => st.line === i + 1,
    (i) => { st.line = st.line === i + 1 ? null : i + 1; st.irLine = null; ctx.redraw(); });
  const code = linePane("kv-stage", stage.text, stage.tokens,
    (i) => st.line != null && (links[i] || []).includes(st.line), (i) => st.irLine === i,
    (i) => { st.irLine = st.irLine === i ? null : i; st.line = null; ctx.redraw(); });
  const buttons = stages.map((s) => h("button", { class: "kv-tab kv-stage-tab" + (s === stage ? " kv-active" : ""),
    title: `${fmtBytes(s.bytes)} as compiled${s.truncated_bytes ? `, ${fmtBytes(s.truncated_bytes)} left out` : ""}` +
      (s.tool ? ` · from ${s.tool}` : ""),
    onclick: () => { st.stage = s.name; st.irLine = null; ctx.redraw(); } }, s.title));
  out.push(h("div", { class: "kv-tabs" }, ...buttons,
    h("span", { class: "kv-hint" }, ` ${stage.title}: ${fmtBytes(stage.bytes)}` +
      (stage.truncated_bytes ? `, ${fmtBytes(stage.truncated_bytes)} left out` : "") + (stage.tool ? ` · ${stage.tool}` : ""))));
  out.push(h("div", { class: "kv-split" }, source, code));
  return out;
}
