// Findings (kernelviz.advice, kept in the capture's `findings`): the header's top ones, ranked by the time at
// stake, and the Findings tab of one graph. Each is a click to its first launch (or to its graph). Every text
// here is captured or derived from captured text: it only ever becomes text nodes.
import { h } from "./dom.js";
import { formsOf, nameLabel } from "./names.js";

export const TOP = 5;


/** The capture's findings: as kept, else as the view annex worked them out (a capture saved before they were kept). */
const findingsOf = (cap) => (cap.findings && cap.findings.length ? cap.findings : (cap.view && cap.view.findings) || []);

const graphIndex = (cap, id) => cap.graphs.findIndex((g) => g.id === id);

function where(cap, f) {
  const g = graphIndex(cap, f.graph);
  if (g < 0) return f.graph ? `graph ${f.graph}` : "dynamo";
  if (!f.launches.length) return `graph ${f.graph}`;
  const forms = (((cap.view || {}).launches || [])[g] || {}).names;
  const names = f.launches.slice(0, 2).map((i) => { const l = cap.graphs[g].launches[i];
    return l ? nameLabel(formsOf(forms, l.kernel_name || l.op || "?")) : "?"; });
  const more = f.launches.length > 2 ? ` +${f.launches.length - 2}` : "";
  return `graph ${f.graph} ${f.launches.length > 1 ? "launches" : "launch"} ${f.launches.slice(0, 2).join(", ")}${more} (${names.join(", ")})`;
}

/** One finding (index `i` of the capture's) as a line (header) or with how its ms was computed and what to try
 * (tab); where a what-if measured what it suggests (the view annex's `measured`, worked out in Python), its figure
 * and how are the measured ones. `go(graph, launch)` switches to the graph and selects the launch (launch null: the
 * graph alone). */
function item(cap, f, i, go, full) {
  const g = graphIndex(cap, f.graph);
  const target = g >= 0 ? () => go(g, f.launches.length ? f.launches[0] : null) : null;
  const measured = ((cap.view || {}).measured || {})[String(i)];
  const how = measured ? measured.how : f.how;
  const head = [
    measured ? h("b", { class: `kv-finding-ms kv-measured kv-measured-${measured.status}`, title: `ms: ${how}` }, measured.text)
      : h("b", { class: "kv-finding-ms", title: `ms: ${how}` }, ((cap.view || {}).finding_ms || [])[i] || "—"), " ",
    h("span", { class: "kv-rule" }, f.rule), " ",
    target ? h("a", { class: "kv-finding-at", href: "#", onclick: (e) => { e.preventDefault(); target(); } }, where(cap, f))
      : h("span", { class: "kv-finding-at" }, where(cap, f)),
    h("span", { class: "kv-finding-evidence", title: full ? null : `${f.evidence}\nms: ${how}\ntry: ${f.suggestion}` },
      `: ${f.evidence}`)];
  if (!full) return h("li", { class: "kv-finding" }, ...head);
  return h("li", { class: "kv-finding kv-finding-full" }, ...head,
    h("div", { class: "kv-finding-how" }, `ms: ${how}`),
    f.suggestion ? h("div", { class: "kv-finding-try" }, `try: ${f.suggestion}`) : null);
}

/** The groups of findings (by rule per graph, with their titles, worked out in Python: the view annex's `groups`),
 * else one group per finding (a payload from a kernelviz before groups). */
function groupsOf(cap) {
  const groups = cap.view && cap.view.groups;
  if (groups) return groups;
  return findingsOf(cap).map((f, i) => ({ graph: f.graph, rule: f.rule, title: f.rule, shown: [i], more: [], more_text: "" }));
}

/** One group: its title, the findings it shows, and the rest behind "N more" (with their time in all). */
function groupItem(cap, group, go, full) {
  const all = findingsOf(cap);
  const items = (indices) => indices.filter((i) => all[i]).map((i) => item(cap, all[i], i, go, full));
  return h("li", { class: "kv-finding-group" },
    h("div", { class: "kv-finding-group-title" }, group.title),
    h("ul", {}, ...items(group.shown)),
    group.more.length ? h("details", { class: "kv-finding-more" },
      h("summary", {}, group.more_text), h("ul", {}, ...items(group.more))) : null);
}

/** The header's top groups of findings, most time at stake first. */
export function findingsHeader(cap, go) {
  const all = findingsOf(cap);
  if (!all.length) return null;
  const groups = groupsOf(cap);
  return h("div", { class: "kv-findings" },
    h("div", { class: "kv-findings-title" }, `Findings (${all.length}, by rule and graph, most time at stake first`
      + (groups.length > TOP ? `; the top ${TOP} groups here, each graph's in its Findings tab)` : ")")),
    h("ul", {}, ...groups.slice(0, TOP).map((group) => groupItem(cap, group, go, false))));
}

/** The Findings tab: the groups of the graph in view, and dynamo's, with how each ms was computed. */
export function findingsTab(ctx) {
  const { cap, graph, go } = ctx;
  const id = (cap.graphs[graph] || {}).id;
  const groups = groupsOf(cap).filter((group) => group.graph === id || !group.graph);
  if (!groups.length) return [h("div", { class: "kv-hint" }, "No findings for this graph.")];
  return [h("ul", { class: "kv-findings kv-findings-tab" }, ...groups.map((group) => groupItem(cap, group, go, true)))];
}
