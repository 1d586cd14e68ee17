// The launch table: one row per launch of call(), the numbers first. Only the rows in view are in the
// DOM (a 6,000-launch graph scrolls like a 10-launch one); the header sticks; columns that matter less
// are off by default and can be turned on in the column chooser (they are all in the detail pane too).
// Columns are as wide as their content; the launch column takes the rest and its names say what each
// launch computes in that room (of the forms the payload's annex gives, the fullest that fits: names.js).
// Where the table is too narrow for every column it leaves out the least important ones (the chooser says
// which) rather than scroll sideways.
import { h } from "./dom.js";
import { columnLevel, fitted } from "./names.js";

const ROW_PX = 22; // the height of a row (panel.css: .kv-row), until one is measured
const OVERSCAN = 12;
const NAME_MIN_CHARS = 22; // the launch column is never narrower than this many characters
const PAD_PX = 13; // a cell's padding and border (panel.css: .kv-table td)

function nameCell(r, { budget, level }) {
  const [head, tail] = fitted(r.forms, budget, level);
  return h("td", { class: "kv-mono", title: r.name }, h("div", { class: "kv-name" },
    h("span", { class: "kv-name-head" }, head), tail ? h("span", { class: "kv-name-tail" }, tail) : null));
}

function shareCell(r) {
  if (r.share == null) return h("td", { class: "kv-num" });
  const width = Math.max(0, Math.min(1, r.share)) || 0;
  return h("td", { class: "kv-num kv-share", title: `${r.texts.share_exact || ""} of the graph's in-graph time` },
    h("span", { class: "kv-bar", style: `width:calc((100% - 4em) * ${width.toFixed(3)})` }), h("span", { class: "kv-bar-text" }, r.texts.share || ""));
}

function rateCell(r) {
  if (r.rate == null) return h("td", { class: "kv-num" });
  const title = r.cacheResident ? "achieved in the graph, above the DRAM peak: its inputs were in cache (L2)"
    : "achieved in the graph (in-graph time)";
  return h("td", { class: "kv-num", title }, rateText(r), r.cacheResident ? h("span", { class: "kv-flag" }, " cache-resident") : null);
}

const rateText = (r) => r.texts.rate || "";
const pctText = (r) => r.pct == null ? "" : (r.texts.pct || "") + (r.pctTag ? ` ${r.pctTag}` : "");

function pctCell(r) {
  if (r.pct == null) return h("td", { class: "kv-num" });
  return h("td", { class: "kv-num", title: `${r.texts.pct_exact || ""} of the ${r.pctOf} (from an L2-flushed time)` +
    (r.pctTag ? "; what bounds the launch is not known" : "") + (r.note ? `\n${r.note}` : "") },
  pctText(r));
}

const text = (key, cls) => (r) => h("td", { class: cls || "", title: r[key] || "" }, r[key]);
const num = (key, f) => (r) => h("td", { class: "kv-num" }, f(r[key]));
/** A figure's cell: its text from the payload (rows.js `texts`). */
const figure = (key) => (r) => h("td", { class: "kv-num" }, r.texts[key] || "");

/** Every column: key (a row field, also the sort key), num (right-aligned), header, shown by default, its cell,
 * its text (what sizes it; none: the launch column, which takes the rest, or a fixed `width`), `keep`: the
 * order in which columns give way where the table is narrow (the lowest first; 0: never), and `figure`: a
 * measured figure, whose column is left out while no row has one (an untimed graph says what timing adds). */
export const COLUMNS = [
  { key: "index", num: true, label: "#", show: true, keep: 0, cell: num("index", String), text: (r) => String(r.index) },
  { key: "name", label: "launch", show: true, keep: 0, cell: nameCell },
  { key: "kind", label: "kind", show: true, keep: 4, cell: text("kind"), text: (r) => r.kind },
  { key: "ms", figure: true, num: true, label: "in-graph ms", show: true, keep: 9, cell: figure("ms"), text: (r) => r.texts.ms || "", title: "time in the graph, as call() runs it" },
  { key: "share", figure: true, num: true, label: "share", width: "6.5em", show: true, keep: 8, cell: shareCell, title: "share of the graph's in-graph time" },
  { key: "iso", figure: true, num: true, label: "isolated ms", show: true, keep: 2, cell: figure("iso"), text: (r) => r.texts.iso || "", title: "the kernel alone, L2 flushed" },
  { key: "rate", figure: true, num: true, label: "achieved", show: true, keep: 6, cell: rateCell, text: (r) => rateText(r) + (r.cacheResident ? " cache-resident" : ""), title: "GB/s, or TFLOP/s for a compute-bound launch; a collective's bus bandwidth (GB/s bus, as nccl-tests counts it)" },
  { key: "pct", figure: true, num: true, label: "% roof", show: true, keep: 5, cell: pctCell, text: pctText, title: "% of the roofline: of the peak that bounds the launch" },
  { key: "bound", figure: true, label: "bound", show: true, keep: 3, cell: text("bound"), text: (r) => r.bound },
  { key: "aten", label: "original ATen", width: "14em", show: false, keep: 1, cell: text("aten") },
  { key: "nodes", label: "source nodes", width: "14em", show: false, keep: 1, cell: text("nodes") },
  { key: "type", label: "type", show: false, keep: 1, cell: text("type"), text: (r) => r.type },
  { key: "lsr", label: "ld/st/red", show: false, keep: 1, cell: text("lsr"), text: (r) => r.lsr },
  { key: "bytes", num: true, label: "bytes", show: false, keep: 1, cell: figure("bytes"), text: (r) => r.texts.bytes || "" },
];

let canvas = null;
/** The width in px of `text` in the font of `el`. */
function textPx(el, text) {
  canvas = canvas || document.createElement("canvas");
  const ctx = canvas.getContext("2d");
  const s = getComputedStyle(el);
  ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
  return ctx.measureText(text).width;
}

/** Whether column `c` has something to show in `rows` (a figure column without figures has not). */
const filled = (c, rows) => !c.figure || rows.some((r) => r[c.key] != null && r[c.key] !== "");

/** The px width of each chosen column (by its widest text and its header's longest word; headers wrap) and
 * which of them fit in `room` px with the launch column at NAME_MIN_CHARS: { columns, widths, dropped, budget }. */
export function fitColumns(chosen, rows, { th, td, mono: monoCell }, room) {
  const em = parseFloat(getComputedStyle(td).fontSize) || 13;
  const mono = textPx(monoCell, "0123456789") / 10;
  const widths = new Map();
  for (const c of chosen) {
    if (c.key === "name") continue;
    const words = Math.max(...c.label.split(" ").map((w) => textPx(th, w)));
    let widest = "";
    if (c.text) for (const r of rows) { const t = c.text(r); if (t && t.length > widest.length) widest = t; }
    const content = c.width ? parseFloat(c.width) * em : textPx(td, widest) + 2;
    widths.set(c.key, Math.ceil(Math.max(words + 0.9 * em, content) + PAD_PX)); // room for the sort mark
  }
  const nameMin = NAME_MIN_CHARS * mono + PAD_PX;
  const shown = [...chosen];
  const dropped = [];
  const total = () => shown.reduce((s, c) => s + (widths.get(c.key) || 0), 0) + nameMin;
  while (total() > room) {
    const give = shown.filter((c) => c.keep).sort((a, b) => a.keep - b.keep)[0];
    if (!give) break;
    shown.splice(shown.indexOf(give), 1);
    dropped.push(give.key);
  }
  const namePx = Math.max(nameMin, room - shown.reduce((s, c) => s + (widths.get(c.key) || 0), 0));
  return { columns: shown, widths, dropped, budget: Math.max(NAME_MIN_CHARS, Math.floor((namePx - PAD_PX) / mono)) };
}

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

/** The column chooser: a checkbox per column; `dropped()` names the chosen columns the table has no room for,
 * `empty()` the figure columns no row has a figure for (each said in the list when it opens). */
export function columnChooser(shown, onChange, dropped = () => [], empty = () => []) {
  const list = h("div", { class: "kv-columns-list" });
  const fill = () => {
    const out = new Set(dropped()), none = new Set(empty());
    list.replaceChildren(...COLUMNS.filter((c) => c.key !== "name").map((c) => {
      const box = h("input", { type: "checkbox", "data-column": c.key, onchange: (e) => onChange(c.key, e.target.checked) });
      box.checked = shown.has(c.key);
      const why = none.has(c.key) ? " (no figures yet)" : out.has(c.key) ? " (no room at this width)" : "";
      return h("label", { class: why ? "kv-dropped" : "" }, box, " " + c.label, why ? h("span", { class: "kv-hint" }, why) : null);
    }));
  };
  fill();
  return h("details", { class: "kv-columns" }, h("summary", { onclick: fill }, "columns"), list);
}

/**
 * The table in `wrap` (a scrolling element). `onSort(key)`, `onSelect(key)` are its actions.
 * Returns { show(rows, graphIndex, gap), select(key), reveal(key) }.
 */
export function launchTable(wrap, state, { onSort, onSelect }) {
  const tableEl = h("table", { class: "kv-table" });
  wrap.replaceChildren(tableEl);
  let rows = [], graph = 0, gap = null, rowPx = ROW_PX, drawn = [-1, -1], frame = 0;
  let fit = { columns: [], widths: new Map(), dropped: [], budget: NAME_MIN_CHARS, level: 0 }, room = 0;

  const columns = () => fit.columns;

  function header() {
    tableEl.replaceChildren(h("thead"), h("tbody"));
    const probe = tableEl.tHead.appendChild(h("tr", {}, h("th", {}, "x"), h("td", {}, "x"), h("td", { class: "kv-mono" }, "x")));
    room = wrap.clientWidth || 1000;
    const [th, td, mono] = probe.cells;
    fit = fitColumns(COLUMNS.filter((c) => state.columns.has(c.key) && filled(c, rows)), rows, { th, td, mono }, room);
    fit.empty = COLUMNS.filter((c) => !filled(c, rows)).map((c) => c.key);
    fit.level = columnLevel(rows.map((r) => r.forms), fit.budget);
    const cols = columns();
    tableEl.replaceChildren(
      h("colgroup", {}, ...cols.map((c) => h("col", fit.widths.has(c.key) ? { style: `width:${fit.widths.get(c.key)}px` } : {}))),
      h("thead", {}, h("tr", {}, ...cols.map((c) => h("th", {
        class: "kv-sortable" + (c.num ? " kv-num" : "") + (state.sort === c.key ? (state.desc ? " kv-desc" : " kv-asc") : ""),
        title: c.title || "", onclick: () => onSort(c.key) }, c.label)))),
      h("tbody"));
  }

  function rowEl(r, cols) {
    const key = `${graph}/${r.index}`;
    return h("tr", { class: "kv-row" + (state.selected === key ? " kv-selected" : ""), "data-key": key,
      onclick: () => onSelect(key) }, ...cols.map((c) => c.cell(r, fit)));
  }

  function gapEl(cols) {
    const cells = cols.map((c) => c.key === "name" ? h("td", { title: gap.title }, "gap (between launches)")
      : c.key === "ms" ? h("td", { class: "kv-num" }, gap.texts.gap || "")
      : c.key === "share" ? shareCell({ share: gap.share, texts: { share: gap.texts.gap_share, share_exact: gap.texts.gap_share_exact } })
      : h("td"));
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
  if (typeof ResizeObserver !== "undefined") {
    new ResizeObserver(() => {
      if (wrap.clientWidth && Math.abs(wrap.clientWidth - room) > 1) { header(); fill(true); }
    }).observe(wrap);
  }

  return {
    /** The chosen columns left out for want of room. */
    dropped: () => fit.dropped,
    /** The figure columns left out for want of figures. */
    empty: () => fit.empty || [],
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
