// The "What if" tab: the candidate changes cap.whatif() measured on the captured graphs, best first. Each row's
// texts (saving, change, flag, patch, figures, numerics) and their order are worked out in Python
// (kernelviz/views/whatif.py: the view annex's `whatifs`); captured text only ever becomes text nodes.
import { h } from "./dom.js";

/** One change: its saving and what it is (flagged where its outputs differ), its patch as code to copy, its
 * figures and numerics. */
function whatifItem(row) {
  const figures = [row.graphs, row.step, row.compile].filter(Boolean).join(" · ");
  return h("li", { class: `kv-whatif kv-whatif-${row.status}`, "data-kind": row.kind },
    h("div", { class: "kv-whatif-head" },
      h("b", { class: "kv-whatif-saving" }, row.saving), " — ",
      h("span", { class: "kv-whatif-change" }, row.change),
      row.flag ? h("span", { class: "kv-whatif-flag" }, row.flag) : null),
    row.patch ? h("div", { class: "kv-whatif-patch" },
      h("pre", {}, row.patch),
      h("button", { class: "kv-copy", title: "copy the patch",
        onclick: () => navigator.clipboard && navigator.clipboard.writeText(row.patch) }, "copy")) : null,
    figures ? h("div", { class: "kv-hint kv-whatif-figures" }, figures) : null,
    row.numerics ? h("div", { class: "kv-hint kv-whatif-numerics" }, row.numerics) : null);
}

/** The What if tab: every change measured, whichever graph is in view (a change is compiled for the capture's
 * graphs). */
export function whatifTab(ctx) {
  const whatifs = (ctx.cap.view || {}).whatifs || { rows: [] };
  if (!whatifs.rows.length) return [h("div", { class: "kv-hint" }, "No change was measured: cap.whatif() measures some.")];
  return [h("div", { class: "kv-whatifs" },
    h("div", { class: "kv-hint" }, whatifs.note),
    h("ol", {}, ...whatifs.rows.map(whatifItem)))];
}

/** The header's line on the changes measured (Python's), a click to the What if tab; null where none was. */
export function whatifHeader(cap, open) {
  const line = ((cap.view || {}).whatifs || {}).headline;
  return line ? h("div", { class: "kv-whatif-headline" }, h("a", { href: "#", title: "the What if tab",
    onclick: (e) => { e.preventDefault(); open(); } }, line)) : null;
}
