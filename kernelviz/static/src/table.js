// The launch table: one sortable row per launch of call().
import { h } from "./dom.js";
import { fmt, fmtBytes } from "./format.js";

export const COLUMNS = [
  ["index", "#"], ["name", "launch"], ["kind", "kind"], ["aten", "original ATen"],
  ["nodes", "source nodes"], ["type", "type"], ["lsr", "ld/st/red"], ["bytes", "bytes"],
  ["ms", "in-graph ms"], ["share", "share"], ["iso", "isolated ms"], ["gbps", "GB/s"], ["peak", "% peak"],
];

/** Rows filtered by kind and text, sorted by the state's column. */
export function visibleRows(rows, state) {
  const f = state.filter.toLowerCase();
  const out = rows.filter((r) => (!state.kind || r.kind === state.kind) &&
    (!f || `${r.name} ${r.aten} ${r.nodes}`.toLowerCase().includes(f)));
  const key = state.sort;
  out.sort((a, b) => {
    const x = a[key], y = b[key];
    const c = x === y ? a.index - b.index : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
    return state.desc ? -c : c;
  });
  return out;
}

/** Fill `tableEl` (a table with a thead and a tbody) with the header and `rows`.
 * `onSort(key)` and `onSelect(key)` are the table's actions. */
export function fillTable(tableEl, rows, state, { onSort, onSelect }) {
  tableEl.tHead.replaceChildren(h("tr", {}, ...COLUMNS.map(([key, label]) => h("th", {
    class: "kv-sortable" + (state.sort === key ? (state.desc ? " kv-desc" : " kv-asc") : ""),
    onclick: () => onSort(key) }, label))));
  const frag = document.createDocumentFragment();
  for (const r of rows) {
    const key = `${state.graph}/${r.index}`;
    frag.append(h("tr", { class: "kv-row" + (state.selected === key ? " kv-selected" : ""), "data-key": key,
      onclick: () => onSelect(key) },
      h("td", {}, r.index), h("td", { class: "kv-mono" }, r.name), h("td", {}, r.kind), h("td", {}, r.aten),
      h("td", {}, r.nodes), h("td", {}, r.type), h("td", {}, r.lsr), h("td", {}, fmtBytes(r.bytes)),
      h("td", { class: "kv-num" }, fmt(r.ms, 4) + (r.ms != null && r.unit === "cpu" ? " (CPU)" : "")),
      h("td", { class: "kv-num" }, r.share != null ? `${(100 * r.share).toFixed(1)}%` : ""),
      h("td", { class: "kv-num" }, fmt(r.iso, 4)), h("td", { class: "kv-num" }, fmt(r.gbps, 1)),
      h("td", { class: "kv-num" }, fmt(r.peak, 1))));
  }
  tableEl.tBodies[0].replaceChildren(frag);
}
