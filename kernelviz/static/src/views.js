// The one place where the panel's views are composed: the tabs under the launch table.
// A tab is { id, label, render(ctx) -> nodes, when(cap)? }; ctx is described in panel.js (tabContext). A tab
// with `when` is shown only for the captures it holds for, and opens first there. An `optional` tab is shown where
// the payload's view.tabs (Python's rule: kernelviz/views/payload.py, shown_tabs) lists it; an output saved before
// that list was kept shows it always.
// To add a view: write it as its own module and add it here.
import { h } from "./dom.js";
import { kernelTab } from "./detail.js";
import { findingsTab } from "./findings.js";
import { hipTab } from "./hip.js";
import { hasRanks, ranksTab } from "./ranks.js";
import { compiledTab } from "./stages.js";
import { whyTab } from "./sweep.js";
import { whatifTab } from "./whatif.js";
import { wrapperTab } from "./wrapper.js";

/** The compiled tab's label: what its kernels were compiled to (a GPU's Triton stages, a CPU's assembly). */
function compiledLabel(cap) {
  const devices = new Set(((cap && cap.graphs) || []).map((g) => g.device));
  const cpu = devices.has("cpu"), gpu = [...devices].some((d) => d !== "cpu");
  return `Compiled (${[gpu || !cpu ? "IR, PTX, SASS" : "", cpu ? "assembly" : ""].filter(Boolean).join("; ")})`;
}

export const TABS = [
  {
    id: "kernel", label: "Kernel",
    render: (ctx) => ctx.row ? kernelTab(ctx) : [h("div", { class: "kv-hint" }, "Select a launch to see its source and metadata.")],
  },
  { id: "wrapper", label: "Wrapper call()", render: (ctx) => wrapperTab(ctx) },
  { id: "compiled", label: compiledLabel, render: (ctx) => compiledTab(ctx) },
  { id: "hip", label: "HIP (ROCm)", optional: true, render: (ctx) => hipTab(ctx) },
  { id: "findings", label: "Findings", render: findingsTab },
  { id: "whatif", label: "What if", optional: true, render: whatifTab },
  { id: "why", label: "Why (autotuning, CUDA graphs)", optional: true, render: whyTab },
  { id: "ranks", label: "Ranks", when: hasRanks, render: ranksTab },
];

/** The tabs shown for a capture (each label a string, or made from the capture), and the one it opens on. */
const listed = (cap, id) => !(cap && cap.view && cap.view.tabs) || cap.view.tabs.includes(id);
export const tabsFor = (cap) => TABS.filter((t) => (!t.when || t.when(cap)) && (!t.optional || listed(cap, t.id)))
  .map((t) => (typeof t.label === "function" ? { ...t, label: t.label(cap) } : t));
export const firstTab = (cap) => (TABS.find((t) => t.when && t.when(cap)) || TABS[0]).id;
