// The two pictures of a timed graph, side by side: its roofline and its call() timeline.
import { h } from "./dom.js";
import { rooflineFigure } from "./roofline.js";
import { timelineFigure } from "./timeline.js";

/** The charts of graph `g` (null when it is not timed); `onSelect(key)` on a click of a point or bar. */
export function chartsView(cap, g, rows, onSelect) {
  const graph = cap.graphs[g];
  const keyed = rows.map((r) => ({ ...r, key: `${g}/${r.index}` }));
  const figures = [rooflineFigure(keyed, cap.peaks, !!(cap.view || {}).peaks_known, onSelect,
    (cap.view || {}).peak_texts), timelineFigure(keyed, graph, onSelect,
    (((cap.view || {}).launches || [])[g] || {}).graph)].filter(Boolean);
  return figures.length ? h("div", { class: "kv-charts" }, ...figures) : null;
}

/** Mark the selected launch's point and bar (touching only those and the ones marked before). */
export function markSelected(el, key) {
  el.querySelectorAll(".kv-marked").forEach((m) => m.classList.remove("kv-marked"));
  el.querySelectorAll(`.kv-point[data-key="${key}"], .kv-span[data-key="${key}"]`).forEach((m) => m.classList.add("kv-marked"));
}
