// The Ranks tab, for a job's ranks (a payload with "ranks": kernelviz.load("runs/step")): per rank how the
// captured block split into compute, overlap, exposed communication and idle; whether the ranks agree on the
// selected graph (the first difference named: mismatched collectives hang a job); and the graph's launches
// timed on each rank, with the spread and the straggler highlighted (above 16 ranks: percentiles and
// outlier ranks). Python computes every figure (kernelviz/ranks) and writes it (the view annex's `rank_texts`,
// views/texts.py); this module only lays them out.
import { h, table } from "./dom.js";
import { plural } from "./format.js";
import { formsOf, nameLabel } from "./names.js";

const PARTS = [["compute", "compute_ms"], ["overlap", "overlap_ms"], ["comm", "comm_ms"], ["idle", "idle_ms"]];
const PERCENTILES = ["p0", "p50", "p90", "p99", "p100"];
const STRAGGLER_NOTE = "straggler: the rank that holds the others back, the slowest for work, the fastest for a " +
  "collective (it arrived last; the others' collective time went on waiting for it)";

export const hasRanks = (cap) => !!(cap && cap.ranks);

const pct = (part, whole) => (whole > 0 ? Math.min(100, (100 * part) / whole) : 0);

function splitBar(step, texts) {
  return h("div", { class: "kv-rank-split", title: PARTS.map(([l, k]) => `${l} ${texts[k] || ""} ms`).join(", ") },
    ...PARTS.map(([label, key]) => h("span", { class: `kv-part kv-part-${label}`,
      style: `width:${pct(step[key], step.window_ms).toFixed(2)}%` })));
}

function legend() {
  return h("div", { class: "kv-legend-row" }, ...PARTS.map(([label]) =>
    h("span", {}, h("span", { class: `kv-swatch kv-part-${label}` }), ` ${label === "comm" ? "exposed communication" : label} `)));
}

/** Per rank, compute vs communication vs idle of the captured block (above 16 ranks: percentiles of each
 * part and the 8 ranks with the most compute). */
function splitView(ranks, texts) {
  const timed = ranks.ranks.filter((r) => r.step);
  if (!timed.length) return h("div", { class: "kv-hint" }, "No rank profiled its captured block (capture(bench=True) in a job does).");
  const compute = (r) => r.step.compute_ms + r.step.overlap_ms;
  const shown = timed.length <= 16 ? timed : [...timed].sort((a, b) => compute(b) - compute(a)).slice(0, 8);
  const stepTexts = (r) => (texts.steps || {})[String(r.rank)] || {};
  const rows = shown.map((r) => h("tr", { class: r.rank === ranks.step_straggler ? "kv-straggler" : "" },
    h("td", { class: "kv-num" }, r.rank), h("td", {}, r.host || ""), h("td", {}, r.device || ""),
    h("td", {}, splitBar(r.step, stepTexts(r))), h("td", { class: "kv-num" }, stepTexts(r).window_ms || ""),
    ...PARTS.map(([, key]) => h("td", { class: "kv-num kv-wide-only" }, stepTexts(r)[key] || ""))));
  const unit = timed[0].step.unit === "gpu" ? "GPU, first to last device activity" : "CPU, the block's wall time";
  const notes = [...new Set(timed.map((r) => r.step.note).filter(Boolean))];
  const split = table(["rank", "host", "device", "split", "window ms", ...PARTS.map(([l]) => `${l} ms`)], rows);
  split.querySelectorAll("th").forEach((th, i) => th.classList.toggle("kv-wide-only", i >= 5)); // in the bar's title
  const out = [h("div", { class: "kv-facts" }, `Compute vs communication vs idle of the captured block (${unit})`), legend(),
    split];
  if (shown.length < timed.length) {
    out.push(h("div", { class: "kv-hint" }, `${timed.length} ranks: the 8 with the most compute are shown`));
    out.push(table(["ms over ranks", ...PERCENTILES.map((p) => (p === "p100" ? "max" : p))],
      PARTS.map(([label, key]) => h("tr", {}, h("td", {}, label),
        ...PERCENTILES.map((p) => h("td", { class: "kv-num" }, ((texts.step_stats || {})[key] || {})[p] || ""))))));
  }
  notes.forEach((n) => out.push(h("div", { class: "kv-hint" }, n)));
  return h("div", { class: "kv-ranks-split" }, ...out);
}

function agreeBadge(label, value) {
  if (value === null || value === undefined) return h("span", { class: "kv-badge" }, `${label}: one rank`);
  return h("span", { class: `kv-badge ${value ? "kv-agree" : "kv-mismatch"}` }, `${label} ${value ? "agree" : "differ"}`);
}

const rankList = (list) => (list.length > 16 ? `${list.slice(0, 16).join(", ")} … (${list.length})` : list.join(", ") || "none");

/** Who ran and compiled the graph, and whether the ranks agree on it. */
function graphView(rg) {
  return h("div", { class: "kv-ranks-graph" },
    h("div", {}, `graph ${rg.id}: ran on ranks ${rankList(rg.ranks)} · compiled on ${rankList(rg.compiled)}`,
      rg.missing.length ? h("span", { class: "kv-warn" }, ` · missing on ${rankList(rg.missing)}`) : null),
    h("div", {}, agreeBadge("kernels", rg.kernels_agree), " ", agreeBadge("collective order", rg.collectives_agree)),
    rg.mismatch ? h("div", { class: "kv-mismatch-line" }, rg.mismatch) : null);
}

/** A launch's time on each rank in one cell that wraps ("0: 0.0258 · 1: 0.0250 …"), the straggler marked: what
 * a narrow panel shows instead of a column per rank. */
function perRankCell(l, x, order) {
  return h("td", { class: "kv-rank-list" }, ...l.ms.flatMap((ms, i) => [i ? " · " : "",
    h("span", { class: order[i] === l.straggler ? "kv-straggler" : "" }, `${order[i]}: ${x.ms[i] || ""}`)]));
}

/** The graph's launches across ranks. A column per rank where the panel has room for them (up to 4 ranks from
 * 600 px, up to 8 from 900 px), else one cell that wraps (panel.css). `forms`: the view annex's `rank_names`;
 * `texts`: its `rank_texts`. */
function launchesView(ranks, graphId, selected, forms, texts) {
  const none = { ms: [], stats: {}, outliers: [], spread: "" };
  const launches = ranks.launches.map((l, i) => [l, (texts.launches || [])[i] || none]).filter(([l]) => l.graph === graphId);
  if (!launches.some(([l]) => l.spread !== null && l.spread !== undefined || Object.keys(l.stats).length))
    return h("div", { class: "kv-hint" }, "Not timed on the ranks (capture(bench=True) on every rank times it).");
  const order = ranks.ranks.map((r) => r.rank);
  const coll = launches.some(([l]) => l.collective); // no column of collectives where the graph has none
  const first = coll ? 3 : 2; // the first column of times
  const head = ["#", "launch", ...(coll ? ["collective"] : []),
    ...(ranks.summarised ? ["p0", "p50", "p90", "p99", "max"] : [...order.map((r) => `rank ${r}`), "ms per rank"]),
    "spread", "straggler", ...(ranks.summarised ? ["outlier ranks (ms)"] : [])];
  const rows = launches.map(([l, x]) => h("tr", { class: l.index === selected ? "kv-selected" : "" },
    h("td", { class: "kv-num" }, l.index), h("td", { class: "kv-mono", title: l.name }, nameLabel(formsOf(forms, l.name))),
    coll ? h("td", {}, l.collective || "") : null,
    ...(ranks.summarised
      ? PERCENTILES.map((p) => h("td", { class: "kv-num" }, x.stats[p] || ""))
      : [...l.ms.map((ms, i) => h("td", { class: "kv-num kv-rank-col" + (order[i] === l.straggler ? " kv-straggler" : "") },
        x.ms[i] || "")), perRankCell(l, x, order)]),
    h("td", { class: "kv-num" }, x.spread || ""), h("td", { class: "kv-num" }, l.straggler ?? ""),
    ...(ranks.summarised ? [h("td", {}, x.outliers.join(", "))] : [])));
  const t = table(head, rows);
  const rankCols = new Set(order.map((_, i) => first + i)), list = first + order.length;
  t.querySelectorAll("th").forEach((th, i) => { th.classList.toggle("kv-rank-col", !ranks.summarised && rankCols.has(i));
    th.classList.toggle("kv-rank-list", !ranks.summarised && i === list);
    th.classList.toggle("kv-wide-only", ranks.summarised && ["p0", "p90", "p99"].includes(th.textContent)); });
  if (ranks.summarised) t.querySelectorAll("tbody tr").forEach((tr) => [0, 2, 3].forEach((i) => tr.cells[first + i].classList.add("kv-wide-only")));
  t.classList.add(order.length <= 4 ? "kv-ranks-few" : order.length <= 8 ? "kv-ranks-some" : "kv-ranks-many");
  return h("div", { class: "kv-ranks-launches" }, h("div", { class: "kv-hint" }, STRAGGLER_NOTE), t);
}

export function ranksTab(ctx) {
  const ranks = ctx.cap.ranks;
  const graph = ctx.cap.graphs[ctx.graph];
  const rg = graph && ranks.graphs.find((g) => g.id === graph.id);
  const hosts = new Set(ranks.ranks.map((r) => r.host).filter(Boolean));
  const head = h("div", { class: "kv-facts" }, `${plural(ranks.ranks.length, "rank")} of ${ranks.world_size}` +
    (hosts.size ? ` on ${plural(hosts.size, "host")}` : "") +
    (ranks.summarised ? " · summarised: percentiles and outlier ranks per launch" : ""));
  return [head,
    ranks.warnings.length ? h("ul", { class: "kv-warnings" }, ...ranks.warnings.map((w) => h("li", {}, w))) : null,
    splitView(ranks, (ctx.cap.view || {}).rank_texts || {}),
    rg ? graphView(rg) : h("div", { class: "kv-hint" }, "This graph is not in the ranks' comparison."),
    rg ? launchesView(ranks, rg.id, ctx.row ? ctx.row.index : null, (ctx.cap.view || {}).rank_names,
      (ctx.cap.view || {}).rank_texts || {}) : null].filter(Boolean);
}
