// The "Compiled" tab: what the selected kernel was compiled to (Triton's TTIR, TTGIR, LLVM IR, PTX, SASS on a GPU; a
// C++ kernel's assembly, with its instruction set and vectorized loops in the notes, on a CPU) beside
// its source, linked both ways (click a source line: the stage lines compiled from it light up; click a stage
// line: its source lines light up), with registers, spills, shared memory, occupancy and "Copy repro".
// Live: stages, tokens and repro come from the widget per kernel. Saved: text and links from the model,
// the rest from the payload's view.deep annex; stages are drawn unhighlighted there.
import { heatColumn, sassOffset } from "./counters.js";
import { h } from "./dom.js";
import { scrollPaneTo, sourceView } from "./source.js";

/** The kernel's stages (with text and per-line source links), facts, notes and repro, or null while the
 * live widget has not answered yet. */
function deepData(ctx, key, kernel) {
  const live = ctx.kernelData(key);
  if (live && live.ir) return { ...live.ir, repro: live.repro };
  const saved = ((ctx.cap.view || {}).deep || {})[key];
  if (!saved) return null;
  const model = (kernel.ir && kernel.ir.stages) || [];
  const stages = saved.ir.stages.map((s, i) => ({ ...s, text: model[i] ? model[i].text : "",
    lines: model[i] ? model[i].source_lines : [], helpers: model[i] ? model[i].helper_lines : [], tokens: null }));
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

// Lines that only carry line information (the links already hold it): SASS `//## File` markers, PTX `.loc`,
// `.file` and `$L__tmp` labels, LLVM's debug metadata. Hidden unless the pane's toggle shows them.
const LINE_INFO = /^\s*(\/\/## File|\.loc\s|\.file\s|\$L__tmp\d+:|!\d+ = (distinct )?!DI|#loc)/;
const lineInfoClass = (text) => (LINE_INFO.test(text) ? "kv-lineinfo" : "");

/** Mark lines of a pane: `lit(n)` and `current(n)` by their 1-based number; the first shown lit one is scrolled to. */
function mark(pane, lit, current, scroll) {
  let first = null;
  pane.querySelectorAll(".kv-line").forEach((line) => {
    const n = Number(line.dataset.line);
    line.classList.toggle("kv-lit", lit(n));
    line.classList.toggle("kv-current", current(n));
    if (!first && lit(n) && line.offsetParent) first = line;
  });
  if (scroll) scrollPaneTo(pane, first);
}

/** Stage lines compiled from helper modules (triton_helpers.py, Triton's standard.py, libdevice) say so. */
function markHelpers(pane, helpers) {
  pane.querySelectorAll(".kv-line").forEach((line) => {
    const from = helpers[Number(line.dataset.line) - 1];
    if (!from || !from.length) return;
    line.classList.add("kv-helper-line");
    line.title = `inlined from ${from.join(" ← ")}`;
  });
}

/** The tab's content for the selected row (see rows.js). */
export function compiledTab(ctx) {
  const { row, state } = ctx;
  const kernel = row && row.kernel;
  if (!kernel) return [h("div", { class: "kv-hint" }, "Select a generated kernel to see what it was compiled to.")];
  const key = `${ctx.graph}/${kernel.name}`;
  const data = deepData(ctx, key, kernel);
  const title = h("div", { class: "kv-detail-title" }, row.name, h("span", { class: "kv-badge" }, row.kind));
  if (!data) return [title, h("div", { class: "kv-hint" }, state.live ? "loading the compiled stages…"
    : "This saved output has no compiled stages (display the capture again with this kernelviz).")];
  const box = h("div", { class: "kv-compiled-tab" });
  const stages = data.stages || [];
  const draw = () => {
    const stage = stages.find((s) => s.name === state.stage) || stages[stages.length - 1];
    box.replaceChildren(...[title, factsLine(data.facts), ...(data.notes || []).map((n) => h("div", { class: "kv-note" }, n)),
      reproBar(data.repro)].filter(Boolean));
    if (!stage) return;
    const links = stage.lines || [];
    const light = (scrollSource, scrollStage) => {
      const fromStage = new Set(state.irLine ? links[state.irLine - 1] || [] : []);
      mark(source, (n) => fromStage.has(n), (n) => state.line === n, scrollSource);
      mark(code, (n) => state.line != null && (links[n - 1] || []).includes(state.line), (n) => state.irLine === n, scrollStage);
    };
    const source = sourceView(kernel.source, ctx.kernelData(key).tokens, (n) => {
      state.line = state.line === n ? null : n; state.irLine = null; light(false, true); }, { title: "kernel source" });
    const infoLines = stage.text.split("\n").filter((t) => LINE_INFO.test(t)).length;
    const toggle = infoLines ? h("label", { class: "kv-lineinfo-toggle", title: "lines that only say which source line " +
      "follows (the links between the panes hold it)" }, h("input", { type: "checkbox", onchange: (e) => {
      state.lineInfo = e.target.checked; code.classList.toggle("kv-hide-lineinfo", !state.lineInfo); light(false, true); } }),
    ` line info (${infoLines})`) : null;
    if (toggle) toggle.firstChild.checked = !!state.lineInfo;
    const code = sourceView(stage.text, stage.tokens, (n) => {
      state.irLine = state.irLine === n ? null : n; state.line = null; light(true, false); },
    { title: stage.title, tools: toggle ? [toggle] : [], lineClass: lineInfoClass });
    code.classList.toggle("kv-hide-lineinfo", !state.lineInfo);
    source.classList.add("kv-compiled-source");
    code.classList.add("kv-stage");
    if (stage.name === "sass" && row.launch.counters && row.launch.counters.sass) heatColumn(code, row.launch.counters.sass,
      (row.texts.counters || {}).sass || [], sassOffset);
    markHelpers(code, stage.helpers || []);
    box.append(h("div", { class: "kv-tabs" }, ...stages.map((s) => h("button", {
      class: "kv-tab kv-stage-tab" + (s === stage ? " kv-active" : ""),
      title: `${s.size || ""} as compiled${s.left_out ? `, ${s.left_out} left out` : ""}` +
        (s.tool ? ` · from ${s.tool}` : ""),
      onclick: () => { state.stage = s.name; state.irLine = null; draw(); } }, s.title)),
      h("span", { class: "kv-hint" }, ` ${stage.title}: ${stage.size || ""}` +
        (stage.left_out ? `, ${stage.left_out} left out` : "") + (stage.tool ? ` · ${stage.tool}` : ""))),
      h("div", { class: "kv-split" }, source, code));
    light(false, false);
  };
  draw();
  return [box];
}
