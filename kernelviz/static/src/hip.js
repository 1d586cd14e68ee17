// The "HIP (ROCm)" tab: the graph's wrapper code and its C++ kernels as they read on ROCm (torch's hipify
// mapping for Inductor code), with a toggle back to CUDA, the changed lines marked and the line diff.
// Live: asked of the widget per graph (with the whole texts). Saved: the payload's view.hip annex holds the
// changed lines, applied here to the code and sources in the model.
import { h } from "./dom.js";
import { plural } from "./format.js";
import { sourceView } from "./source.js";

function hipData(ctx, g) {
  const live = ctx.graphData && ctx.graphData(String(g));
  if (live && live.hip) return live.hip;
  return ((ctx.cap.view || {}).hip || {})[String(g)] || null;
}

/** One text (wrapper code or a kernel's source) in its CUDA or ROCm reading. */
function part(title, before, diff, rocm) {
  const changed = new Map(diff.changes.map(([n, text]) => [n, text]));
  let text = before;
  if (rocm) {
    if (diff.text !== undefined) text = diff.text;
    else if (diff.same_lines) text = before.split("\n").map((line, i) => changed.has(i + 1) ? changed.get(i + 1) : line).join("\n");
    else return h("div", { class: "kv-hip-part" }, h("b", {}, title), h("pre", { class: "kv-mono kv-script" }, diff.diff));
  }
  const pane = sourceView(text, null, () => {});
  pane.querySelectorAll(".kv-line").forEach((line) => line.classList.toggle("kv-changed", changed.has(Number(line.dataset.line))));
  return h("div", { class: "kv-hip-part" },
    h("b", {}, title), h("span", { class: "kv-hint" }, ` ${plural(diff.changes.length, "line")} changed by hipify`),
    diff.changes.length ? h("details", {}, h("summary", {}, "line diff"), h("pre", { class: "kv-mono kv-script" }, diff.diff)) : null,
    pane);
}

/** The tab's content for the shown graph. */
export function hipTab(ctx) {
  const graph = ctx.cap.graphs[ctx.graph];
  const hip = hipData(ctx, ctx.graph);
  if (!hip) {
    if (!ctx.requestGraph || !ctx.state.live) {
      return [h("div", { class: "kv-hint" }, "This saved output has no HIP reading (display the capture again with this kernelviz).")];
    }
    ctx.requestGraph(String(ctx.graph));
    return [h("div", { class: "kv-hint" }, "reading the code as ROCm would…")];
  }
  if (hip.error) return [h("div", { class: "kv-note" }, hip.error)];
  const box = h("div", { class: "kv-hip-tab" });
  const kernels = graph.kernels.filter((k) => hip.kernels[k.name]);
  const draw = () => {
    const rocm = ctx.state.hip !== false;
    box.replaceChildren(h("div", { class: "kv-facts" },
      h("button", { class: "kv-tab kv-hip-toggle" + (rocm ? " kv-active" : ""),
        onclick: () => { ctx.state.hip = !rocm; draw(); } }, rocm ? "ROCm (hipified) ⇄ CUDA" : "CUDA ⇄ ROCm (hipified)"),
      " torch._inductor.codegen.aoti_hipify_utils.maybe_hipify_code_wrapper(code, force_hipify=True)"),
      part("wrapper code", hip.code.before ?? graph.code, hip.code, rocm),
      ...kernels.map((k) => part(k.name, k.source, hip.kernels[k.name], rocm)));
  };
  draw();
  return [box];
}
