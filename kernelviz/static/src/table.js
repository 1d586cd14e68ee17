// The launch table: one row per launch of call(), the numbers first. Only the rows in view are in the
// DOM (a 6,000-launch graph scrolls like a 10-launch one); the header sticks; columns that matter less
// are off by default and can be turned on in the column chooser (they are all in the detail pane too).
import { h } from "./dom.js";
import { fmtBytes, fmtMs, fmtPct, fmtRate } from "./format.js";

const ROW_PX = 22; // the height of a row (panel.css: .kv-row), until one is measured
const OVERSCAN = 12;

function nameCell(r) {
  return h("td", { class: "kv-mono", title: r.name }, h("div", { class: "kv-name" },
    h("span", { class: "kv-name-head" }, r.parts[0]), h("span", { class: "kv-name-tail" }, r.parts[1])));
}

function shareCell(r) {
  if (r.share == null) return h("td", { class: "kv-num" });
  const pct = Math.min(100, 100 * r.share);
  return h("td", { class: "kv-num kv-share", title: `${(100 * r.share).toFixed(2)}% of the graph's in-graph time` },
    h("span", { class: "kv-bar", style: `width:calc((100% - 4em) * ${(pct / 100).toFixed(3)})` }), h("span", { class: "kv-bar-text" }, `${pct.toFixed(1)}%`));
}

function rateCell(r) {
  if (r.rate == null) return h("td", { class: "kv-num" });
  const title = r.cacheResident ? "achieved in the graph, above the DRAM peak: its inputs were in cache (L2)"
    : "achieved in the graph (in-graph time)";
  return h("td", { class: "kv-num", title }, fmtRate(r.rate, r.rateUnit),
    r.cacheResident ? h("span", { class: "kv-flag" }, " cache-resident") : null);
}

function pctCell(r) {
  if (r.pct == null) return h("td", { class: "kv-num" });
  return h("td", { class: "kv-num", title: `${r.pct.toFixed(1)}% of the ${r.pctOf} (from an L2-flushed time)` +
    (r.pctTag ? "; what bounds the launch is not known" : "") + (r.note ? `\n${r.note}` : "") },
  fmtPct(r.pct) + "%" + (r.pctTag ? ` ${r.pctTag}` : ""));
}

const text = (key, cls) => (r) => h("td", { class: cls || "", title: r[key] || "" }, r[key]);
const num = (key, f) => (r) => h("td", { class: "kv-num" }, f(r[key]));

/** Every column: key (a row field, also the sort key), num (right-aligned), header, width (none: takes the rest),
 * shown by default, and its cell. */
export const COLUMNS = [
  { key: "index", num: true, label: "#", width: "3em", show: true, cell: num("index", String) },
  { key: "name", label: "launch", show: true, cell: nameCell },
  { key: "kind", label: "kind", width: "6.5em", show: true, cell: text("kind") },
  { key: "ms", num: true, label: "in-graph ms", width: "8em", show: true, cell: num("ms", fmtMs), title: "time in the graph, as call() runs it" },
  { key: "share", num: true, label: "share", width: "6.5em", show: true, cell: shareCell, title: "share of the graph's in-graph time" },
  { key: "iso", num: true, label: "isolated ms", width: "7.5em", show: true, cell: num("iso", fmtMs), title: "the kernel alone, L2 flushed" },
  { key: "rate", num: true, label: "achieved", width: "8.5em", show: true, cell: rateCell, title: "GB/s, or TFLOP/s for a compute-bound launch; a collective's bus bandwidth (GB/s bus, as nccl-tests counts it)" },
  { key: "pct", num: true, label: "% roof", width: "5em", show: true, cell: pctCell, title: "% of the roofline: of the peak that bounds the launch" },
  { key: "bound", label: "bound", width: "5.5em", show: true, cell: text("bound") },
  { key: "aten", label: "original ATen", width: "14em", show: false, cell: text("aten") },
  { key: "nodes", label: "source nodes", width: "14em", show: false, cell: text("nodes") },
  { key: "type", label: "type", width: "7em", show: false, cell: text("type") },
  { key: "lsr", label: "ld/st/red", width: "5em", show: false, cell: text("lsr") },
  { key: "bytes", num: true, label: "bytes", width: "6em", show: false, cell: num("bytes", fmtBytes) },
];

/** Rows filtered by kind and text, sorted by the state's column. */
export function visibleRows(rows, state) {
  const f = state.filter.toLowerCase();
  const out = rows.filter((r) => (!state.kind || r.kind === state.kind) &&
    (!f || `${r.name} ${r.aten} ${r.nodes}`.toLowerCase().includes(f)));
  const key = state.sort;
  out.sort((a, b) => {
    const x = a[key], y = b[key];
    const c = x === y ? a.index - b.index : x === null || x === "" ? 1 : y === null || y === "" ? -1 : x < y ? -1 : 1;
    return state.desc ? -c : c;
  });
  return out;
}

/** The column chooser: a checkbox per column. */
export function columnChooser(shown, onChange) {
  return h("details", { class: "kv-columns" }, h("summary", {}, "columns"),
    h("div", { class: "kv-columns-list" }, ...COLUMNS.filter((c) => c.key !== "name").map((c) => {
      const box = h("input", { type: "checkbox", "data-column": c.key, onchange: (e) => onChange(c.key, e.target.checked) });
      box.checked = shown.has(c.key);
      return h("label", {}, box, " " + c.label);
    })));
}

/**
 * The table in `wrap` (a scrolling element). `onSort(key)`, `onSelect(key)` are its actions.
 * Returns { show(rows, graphIndex, gap), select(key), reveal(key) }.
 */
export function launchTable(wrap, state, { onSort, onSelect }) {
  const tableEl = h("table", { class: "kv-table" });
  wrap.replaceChildren(tableEl);
  let rows = [], graph = 0, gap = null, rowPx = ROW_PX, drawn = [-1, -1], frame = 0;

  const columns = () => COLUMNS.filter((c) => state.columns.has(c.key));

  function header() {
    const cols = columns();
    tableEl.replaceChildren(
      h("colgroup", {}, ...cols.map((c) => h("col", c.width ? { style: `width:${c.width}` } : {}))),
      h("thead", {}, h("tr", {}, ...cols.map((c) => h("th", {
        class: "kv-sortable" + (c.num ? " kv-num" : "") + (state.sort === c.key ? (state.desc ? " kv-desc" : " kv-asc") : ""),
        title: c.title || "", onclick: () => onSort(c.key) }, c.label)))),
      h("tbody"));
  }

  function rowEl(r, cols) {
    const key = `${graph}/${r.index}`;
    return h("tr", { class: "kv-row" + (state.selected === key ? " kv-selected" : ""), "data-key": key,
      onclick: () => onSelect(key) }, ...cols.map((c) => c.cell(r)));
  }

  function gapEl(cols) {
    const cells = cols.map((c) => c.key === "name" ? h("td", { title: "GPU busy time not covered by " +
      "launches: idle between kernels and launch overhead" }, "gap (between launches)")
      : c.key === "ms" ? h("td", { class: "kv-num" }, fmtMs(gap.ms))
      : c.key === "share" ? shareCell({ share: gap.share }) : h("td"));
    return h("tr", { class: "kv-gap-row" }, ...cells);
  }

  function spacer(px, n) {
    return h("tr", { class: "kv-spacer", style: `height:${px}px` }, h("td", { colspan: String(n) }));
  }

  /** Put the rows in view (and some around them) in the body. */
  function fill(force) {
    frame = 0;
    const total = rows.length + (gap ? 1 : 0);
    const first = Math.max(0, Math.floor(wrap.scrollTop / rowPx) - OVERSCAN);
    const last = Math.min(total, Math.ceil((wrap.scrollTop + (wrap.clientHeight || 400)) / rowPx) + OVERSCAN);
    if (!force && first === drawn[0] && last === drawn[1]) return;
    drawn = [first, last];
    const cols = columns();
    const body = [];
    if (first > 0) body.push(spacer(first * rowPx, cols.length));
    for (let i = first; i < last; i++) body.push(i < rows.length ? rowEl(rows[i], cols) : gapEl(cols));
    if (last < total) body.push(spacer((total - last) * rowPx, cols.length));
    tableEl.tBodies[0].replaceChildren(...body);
    const measured = tableEl.tBodies[0].querySelector(".kv-row");
    if (measured && measured.offsetHeight && Math.abs(measured.offsetHeight - rowPx) > 0.5) {
      rowPx = measured.offsetHeight;
      fill(true);
    }
  }

  wrap.addEventListener("scroll", () => { if (!frame) frame = requestAnimationFrame(() => fill(false)); });

  return {
    show(nextRows, graphIndex, gapRow) {
      rows = nextRows; graph = graphIndex; gap = gapRow;
      header();
      fill(true);
    },
    select(key) {
      tableEl.querySelectorAll(".kv-row").forEach((r) => r.classList.toggle("kv-selected", r.dataset.key === key));
    },
    /** Scroll the table (only the table) so that the row of `key` is in view. */
    reveal(key) {
      const i = rows.findIndex((r) => `${graph}/${r.index}` === key);
      if (i < 0) return;
      const top = i * rowPx, head = tableEl.tHead ? tableEl.tHead.offsetHeight : rowPx;
      if (top < wrap.scrollTop || top + rowPx > wrap.scrollTop + wrap.clientHeight - head)
        wrap.scrollTop = Math.max(0, top - wrap.clientHeight / 3);
      fill(true);
    },
  };
}
