// The one place where the panel's views are composed: the tabs under the launch table.
// A tab is { id, label, render(ctx) -> nodes }; ctx is described in panel.js (tabContext).
// To add a view: write it as its own module and add it here.
import { h } from "./dom.js";
import { kernelTab } from "./detail.js";
import { wrapperTab } from "./wrapper.js";

export const TABS = [
  {
    id: "kernel", label: "Kernel",
    render: (ctx) => ctx.row ? kernelTab(ctx) : [h("div", { class: "kv-hint" }, "Select a launch to see its source and metadata.")],
  },
  { id: "wrapper", label: "Wrapper call()", render: (ctx) => wrapperTab(ctx.cap, ctx.graph) },
];
