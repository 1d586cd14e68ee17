// The diff of two captures (a payload with "format": "kernelviz-diff"): the headline (totals, biggest wins
// and losses, fusions and splits), a table of launch groups per graph pair, and the selected group's
// figures and source diff, unified or side by side. Python computes the matches, the measures, their texts and
// the unified diff's rows; this module only lays them out.
import { h, table } from "./dom.js";
import { headline } from "./header.js";
import { fitted, formsOf } from "./names.js";
import { tokenLines } from "./source.js";

const FOLD = 6; // a run of at least this many unchanged groups is one row until opened (views/diff_html.py)
const SHOW = 200; // unchanged groups a click on a folded run shows

export const isDiff = (data) => !!data && data.format === "kernelviz-diff";

/** One side of a measure as the payload writes it (kernelviz/views/diff_text.py's words), "-" where there is none. */
const value = (m, side) => (m ? m.shown[side] : "-");

/** The change of a measure ("+0.0018 ms, +5.9%"; a factor where b is more than twice a), or null. */
function change(m) {
  return m && m.shown.change !== null ? { text: m.shown.change, cls: m.shown.win ? "kv-win" : "kv-loss", delta: m.b - m.a } : null;
}

const measure = (group, name) => group.measures.find((m) => m.name === name) || null;

function graphsOf(diff, group) {
  const gm = diff.graphs[group.graph];
  return [gm.a === null ? null : diff.a.graphs[gm.a], gm.b === null ? null : diff.b.graphs[gm.b]];
}

/** "extern_kernels.mm + triton_poi_fused_relu_0": the launches of one side of a group. */
export function names(diff, group, side) {
  const graph = graphsOf(diff, group)[side === "a" ? 0 : 1];
  const idx = side === "a" ? group.a : group.b;
  return graph && idx.length ? idx.map((i) => graph.launches[i].kernel_name || graph.launches[i].op).join(" + ") : "-";
}

/** Every launch of one side of a group, numbered, in full ("-" where it has none). */
export function fullNames(diff, group, side) {
  const graph = graphsOf(diff, group)[side === "a" ? 0 : 1];
  const idx = side === "a" ? group.a : group.b;
  return graph && idx.length ? idx.map((i) => `${i} ${graph.launches[i].kernel_name || graph.launches[i].op}`).join(" + ") : "-";
}

/** The forms of the launch names of one side of a group's graph (the view annex's `names`, notebook/diff_display.py). */
const namesOf = (diff, group, side) => (((diff.view || {}).names || {})[side] || [])[diff.graphs[group.graph][side]];

/** A launch's name as the launch table shows it (what it computes, its counter; names.js) from `forms` (namesOf):
 * the head clipped where the cell is narrow, the counter kept, the full name on hover. */
function launchName(launch, forms) {
  const name = launch.kernel_name || launch.op;
  const [head, tail] = fitted(formsOf(forms, name), 40);
  return h("span", { class: "kv-name", title: name }, h("span", { class: "kv-name-head" }, head), h("span", { class: "kv-name-tail" }, tail));
}

/** One side of a group in a table cell: each launch's number and shortened name. */
function sideCell(diff, group, side) {
  const graph = graphsOf(diff, group)[side === "a" ? 0 : 1];
  const idx = side === "a" ? group.a : group.b;
  if (!graph || !idx.length) return h("td", { class: "kv-c-name kv-none" });
  const forms = namesOf(diff, group, side);
  return h("td", { class: "kv-c-name" }, ...idx.map((i) => h("div", { class: "kv-launch" },
    h("span", { class: "kv-idx" }, String(i)), launchName(graph.launches[i], forms))));
}

/** "source nodes + ATen ops 0.91": how a group was matched (empty where added or removed: the badge says so);
 * `confidence`: its confidence as text (the view annex's). */
export const howText = (g, confidence) => (g.a.length && g.b.length ? `${g.how} ${confidence || ""}` : "");

/** Rows [tag, i, j] side by side, from the unified diff's rows (the payload's): a run of removed and added lines
 * is laid out in pairs. */
export function sideBySideRows(unified) {
  const rows = [];
  let run = [];
  const flush = () => {
    const del = run.filter((r) => r[0] === "-"), ins = run.filter((r) => r[0] === "+");
    for (let k = 0; k < Math.max(del.length, ins.length); k++)
      rows.push(["~", del[k] ? del[k][1] : null, ins[k] ? ins[k][2] : null]);
    run = [];
  };
  for (const row of unified) {
    if (row[0] === "-" || row[0] === "+") { run.push(row); continue; }
    flush();
    rows.push(row);
  }
  flush();
  return rows;
}

function line(lines, i, cls, mark) {
  return h("div", { class: `kv-line ${cls}` }, h("span", { class: "kv-lineno" }, i === null ? "" : String(i + 1)),
    h("span", { class: "kv-mark" }, mark), h("span", { class: "kv-code" }, ...(i === null ? [] : lines[i] || [])));
}

/** The source diff of a group from the payload's view annex. */
function sourceDiff(src, layout) {
  const la = tokenLines(src.a, src.ta), lb = tokenLines(src.b, src.tb);
  const fold = (n) => h("div", { class: "kv-fold" }, `⋯ ${n} unchanged line${n === 1 ? "" : "s"}`);
  if (layout === "unified") {
    return h("div", { class: "kv-source kv-diff-source kv-highlighted" }, ...src.rows.map(([tag, i, j]) =>
      tag === "…" ? fold(i) : tag === "-" ? line(la, i, "kv-del", "-") : tag === "+" ? line(lb, j, "kv-ins", "+")
        : line(la, i, "", " ")));
  }
  const cell = (lines, i, cls) => h("td", { class: cls }, line(lines, i, "", ""));
  return h("div", { class: "kv-source kv-diff-source kv-highlighted" }, h("table", { class: "kv-sbs" },
    ...sideBySideRows(src.rows).map(([tag, i, j]) => tag === "…" ? h("tr", {}, h("td", { colspan: "2" }, fold(i)))
      : h("tr", {}, cell(la, i, tag === "~" && i !== null ? "kv-del" : ""), cell(lb, j, tag === "~" && j !== null ? "kv-ins" : "")))));
}

function changeCell(m) {
  const c = change(m);
  return h("td", { class: "kv-num" + (c ? ` ${c.cls}` : "") }, c ? c.text : "");
}

function measuresTable(group) {
  const rows = group.measures.filter((m) => m.a !== null || m.b !== null).map((m) =>
    h("tr", { class: m.a !== m.b && ["config", "binary", "device"].includes(m.kind) ? "kv-changed" : "" },
      h("td", {}, m.name), h("td", { class: m.kind === "device" ? "" : "kv-num" }, value(m, "a")),
      h("td", { class: m.kind === "device" ? "" : "kv-num" }, value(m, "b")), changeCell(m), h("td", { class: "kv-hint" }, m.note)));
  return rows.length ? table(["measure", "a", "b", "change", ""], rows) : null;
}

const badge = (relation) => h("span", { class: `kv-badge kv-rel-${relation}` }, relation);

/**
 * Render a diff payload into `el`. Returns the panel's view interface ({ update(data), redrawDetail(),
 * select(key), setLive(), setNote(), setProgress() }); `select` takes a group index.
 */
export function renderDiff(el, data, host = {}) {
  const state = { graph: 0, relation: "", filter: "", byChange: false, selected: null, layout: "unified", open: new Map() };
  let diff = data;
  /** The confidence of match `i` of `what` ("graphs", "groups", "matches") as text (the view annex's). */
  const sure = (what, i) => ((((diff.view || {}).confidence || {})[what]) || [])[i] || "";
  const root = h("div", { class: "kv-panel kv-diff" });
  el.replaceChildren(root);

  const pick = (k) => { state.selected = k; state.graph = diff.groups[k].graph; draw(); };

  function headlineBox() {
    const hl = diff.headline;
    const item = (k) => h("li", {}, badge(diff.groups[k].relation), " ",
      h("a", { href: "#", class: "kv-mono kv-pair", title: `${fullNames(diff, diff.groups[k], "a")} → ${fullNames(diff, diff.groups[k], "b")}`,
        onclick: (e) => { e.preventDefault(); pick(k); } }, ...inlineNames(diff.groups[k], "a"), " → ", ...inlineNames(diff.groups[k], "b")), " ",
      ...(() => { const c = change(measure(diff.groups[k], "in-graph")); return c ? [h("span", { class: c.cls }, c.text)] : []; })());
    const lists = [["Biggest wins", hl.wins], ["Biggest losses", hl.losses],
      ["Fused and split", diff.groups.map((g, k) => (g.relation === "fused" || g.relation === "split" ? k : -1)).filter((k) => k >= 0)]]
      .filter(([, ks]) => ks.length)
      .map(([title, ks]) => h("div", {}, h("b", {}, title), h("ol", {}, ...ks.map(item))));
    const counts = Object.entries(hl.counts).filter(([, n]) => n).map(([r, n]) => `${n} ${r}`).join(", ");
    return h("div", { class: "kv-diff-headline" },
      table(["", "a", "b", "change", ""], hl.measures.map((m) => h("tr", {}, h("td", {}, m.name),
        h("td", { class: "kv-num" }, value(m, "a")), h("td", { class: "kv-num" }, value(m, "b")), changeCell(m),
        h("td", { class: "kv-hint" }, m.note)))),
      h("div", { class: "kv-facts" }, `Launch groups: ${counts || "none"}`),
      h("div", { class: "kv-meta" }, ...lists),
      hl.notes.length ? h("ul", { class: "kv-warnings" }, ...hl.notes.map((n) => h("li", {}, n))) : null);
  }

  function inlineNames(g, side) {
    const graph = graphsOf(diff, g)[side === "a" ? 0 : 1];
    const idx = side === "a" ? g.a : g.b;
    if (!graph || !idx.length) return ["-"];
    const forms = namesOf(diff, g, side);
    return idx.flatMap((i, n) => [...(n ? [" + "] : []), launchName(graph.launches[i], forms)]);
  }

  function graphLabel(k) {
    const gm = diff.graphs[k];
    const ida = gm.a === null ? "-" : diff.a.graphs[gm.a].id, idb = gm.b === null ? "-" : diff.b.graphs[gm.b].id;
    return `${ida} → ${idb} (${gm.a !== null && gm.b !== null ? `${gm.how}, ${sure("graphs", k)}` : gm.how})`;
  }

  function visibleGroups() {
    const f = state.filter.toLowerCase();
    const out = diff.groups.map((g, k) => [g, k]).filter(([g]) => g.graph === state.graph &&
      (!state.relation || g.relation === state.relation) &&
      (!f || `${names(diff, g, "a")} ${names(diff, g, "b")}`.toLowerCase().includes(f)));
    if (state.byChange) {
      const d = ([g]) => { const c = change(measure(g, "in-graph")); return c ? c.delta : 0; };
      out.sort((x, y) => d(x) - d(y));
    }
    return out;
  }

  const hasTime = (groups, name) => groups.some(([g]) => { const m = measure(g, name); return m && (m.a !== null || m.b !== null); });

  function groupRow([g, k], times) {
    const cells = [h("td", { class: "kv-c-rel" }, badge(g.relation)), sideCell(diff, g, "a"), sideCell(diff, g, "b")];
    for (const name of times) {
      const m = measure(g, name), cls = name === "isolated" ? "kv-c-iso" : "kv-c-ig", c = change(m);
      cells.push(h("td", { class: `kv-num ${cls}`, title: (m && m.note) || "" }, g.a.length ? value(m, "a") : ""),
        h("td", { class: `kv-num ${cls}`, title: (m && m.note) || "" }, g.b.length ? value(m, "b") : ""),
        h("td", { class: `kv-num ${cls}-d` + (c ? ` ${c.cls}` : ""), title: c ? c.text : "" }, c ? c.text.split(", ").pop() : ""));
    }
    const how = howText(g, sure("groups", k));
    cells.push(h("td", { class: "kv-c-how", title: how && `matched by ${how}` }, how));
    return h("tr", { class: "kv-row" + (state.selected === k ? " kv-selected" : ""), "data-group": String(k),
      onclick: () => { state.selected = k; drawTable(); drawDetail(); } }, ...cells);
  }

  /** Runs of at least FOLD unchanged groups as one row ("⋯ 22 launches the same"); a click shows SHOW more of
   * them (a run of thousands opens a page at a time). */
  /** The rows of `groups`, runs of unchanged launches folded; `cols` as the header has them ([class, label]). */
  function foldRows(groups, times, cols) {
    const rows = [];
    let k = 0;
    const same = ([g, key]) => g.relation === "same" && !((diff.view || {}).sources || {})[String(key)];
    const folding = !state.byChange && !state.relation && !state.filter;
    while (k < groups.length) {
      let end = k;
      while (end < groups.length && same(groups[end])) end++;
      if (end - k < FOLD || !folding) {
        end = Math.max(end, k + 1);
        for (let i = k; i < end; i++) rows.push(groupRow(groups[i], times));
        k = end;
        continue;
      }
      const key = `${groups[k][0].graph}:${groups[k][0].a[0]}`;
      const shown = Math.min(state.open.get(key) || 0, end - k);
      for (let i = k; i < k + shown; i++) rows.push(groupRow(groups[i], times));
      const rest = end - k - shown;
      if (rest >= FOLD) {
        const first = groups[k + shown][0], last = groups[end - 1][0];
        rows.push(h("tr", { class: "kv-fold-row", onclick: () => { state.open.set(key, shown + SHOW); drawTable(); } },
          // over the three columns always shown, and a cell in each of the others: a cell spanning a column that a
          // narrow panel leaves out would keep that column's room, blank
          h("td", { colspan: "3", title: rest > SHOW ? `show ${SHOW} more` : "show them" },
            `⋯ ${rest} launches the same (a ${first.a[0]}-${last.a[last.a.length - 1]}, b ${first.b[0]}-${last.b[last.b.length - 1]})`),
          ...cols.slice(3).map(([cls]) => h("td", { class: cls }))));
      } else {
        for (let i = k + shown; i < end; i++) rows.push(groupRow(groups[i], times));
      }
      k = end;
    }
    return rows;
  }

  function drawTable() {
    const groups = visibleGroups();
    const inGraph = diff.groups.map((g, k) => [g, k]).filter(([g]) => g.graph === state.graph);
    const times = ["in-graph", "isolated"].filter((name) => hasTime(inGraph, name));
    const cols = [["kv-c-rel", ""], ["kv-c-name", "# a"], ["kv-c-name", "# b"]];
    for (const name of times) {
      const cls = name === "isolated" ? "kv-c-iso" : "kv-c-ig";
      cols.push([`kv-c-t ${cls}`, `${name} ms a`], [`kv-c-t ${cls}`, "b"], [`kv-c-d ${cls}-d`, "change"]);
    }
    cols.push(["kv-c-how", "matched by"]);
    const sortable = times.includes("in-graph") ? 5 : -1;
    const tableEl = root.querySelector(".kv-table");
    tableEl.replaceChildren(h("colgroup", {}, ...cols.map(([cls]) => h("col", { class: cls }))),
      h("thead", {}, h("tr", {}, ...cols.map(([cls, label], i) => h("th", {
        class: cls + (i === sortable ? " kv-sortable" + (state.byChange ? " kv-asc" : "") : ""),
        title: i === sortable ? "sort by the change of in-graph time (biggest win first)" : "",
        onclick: i === sortable ? () => { state.byChange = !state.byChange; drawTable(); } : null }, label)))),
      h("tbody", {}, ...foldRows(groups, times, cols)));
  }

  function drawDetail() {
    const box = root.querySelector(".kv-detail");
    const g = state.selected === null ? null : diff.groups[state.selected];
    if (!g) { box.replaceChildren(h("div", { class: "kv-hint" }, "Select a row to see its figures and source diff.")); return; }
    const matches = diff.matches.map((m, i) => [m, sure("matches", i)]).filter(([m]) => m.group === state.selected);
    const src = ((diff.view || {}).sources || {})[String(state.selected)];
    const layout = h("select", { class: "kv-layout", onchange: (e) => { state.layout = e.target.value; drawDetail(); } },
      ...["unified", "side by side"].map((v) => { const o = h("option", { value: v }, v); if (v === state.layout) o.selected = true; return o; }));
    box.replaceChildren(...[
      h("div", { class: "kv-detail-title" }, badge(g.relation), " ", fullNames(diff, g, "a"), " → ", fullNames(diff, g, "b")),
      h("ul", { class: "kv-facts" }, ...matches.map(([m, confidence]) => h("li", {}, `${m.a || "-"} → ${m.b || "-"}: ${m.how}` +
        (m.a && m.b ? ` (confidence ${confidence})` : "")))),
      measuresTable(g),
      src ? h("div", { class: "kv-toolbar" }, h("b", {}, "Source"), layout) : null,
      src ? sourceDiff(src, state.layout) : h("div", { class: "kv-hint" }, "Same source on both sides (apart from the kernel's name).")].filter(Boolean));
  }

  function draw() {
    const graphSelect = h("select", { class: "kv-graph", onchange: (e) => { state.graph = Number(e.target.value); state.selected = null; draw(); } },
      ...diff.graphs.map((gm, k) => { const o = h("option", { value: String(k) }, graphLabel(k)); if (k === state.graph) o.selected = true; return o; }));
    const relations = [...new Set(diff.groups.map((g) => g.relation))];
    const relationSelect = h("select", { class: "kv-relation", onchange: (e) => { state.relation = e.target.value; drawTable(); } },
      h("option", { value: "" }, "all changes"), ...relations.map((r) => { const o = h("option", { value: r }, r); if (r === state.relation) o.selected = true; return o; }));
    const filter = h("input", { class: "kv-filter", type: "search", placeholder: "filter by launch name", value: state.filter,
      oninput: (e) => { state.filter = e.target.value; drawTable(); } });
    const story = (diff.headline || {}).summary;
    root.replaceChildren(
      h("div", { class: "kv-header" }, h("b", {}, "kernelviz diff"),
        h("div", { class: "kv-side" }, "a: ", diff.labels[0], ` (${headline(diff.a)})`),
        h("div", { class: "kv-side" }, "b: ", diff.labels[1], ` (${headline(diff.b)})`),
        story ? h("div", { class: "kv-story" }, h("b", {}, "What changed: "), story) : null),
      headlineBox(),
      h("div", { class: "kv-toolbar" }, diff.graphs.length ? graphSelect : h("span", { class: "kv-hint" }, "No graphs."), filter, relationSelect),
      h("div", { class: "kv-table-wrap" }, h("table", { class: "kv-table kv-groups" })),
      h("div", { class: "kv-detail" }));
    drawTable();
    drawDetail();
  }

  draw();
  return {
    update(next) { diff = next; if (state.graph >= diff.graphs.length) state.graph = 0; state.selected = null; draw(); },
    redrawDetail: drawDetail,
    select(key) { pick(Number(key)); },
    setLive() {},
    setNote() {},
    setProgress() {},
  };
}
