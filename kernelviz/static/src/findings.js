// Findings (kernelviz.advice, kept in the capture's `findings`): the header's top ones, ranked by the time at
// stake, and the Findings tab of one graph. Each is a click to its first launch (or to its graph). Every text
// here is captured or derived from captured text: it only ever becomes text nodes.
import { h } from "./dom.js";
import { formsOf, nameLabel } from "./names.js";

export const TOP = 5;

/** Milliseconds as a finding shows them: µs below 0.1 ms, seconds from 1000 ms; "—" where none was measured. */
export function findingMs(ms) {
  if (ms === null || ms === undefined) return "—";
  if (ms >= 1000) return `${(ms / 1e3).toPrecision(3)} s`;
  return ms < 0.1 ? `${(ms * 1e3).toFixed(1)} µs` : `${ms.toPrecision(3)} ms`;
}

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

/** One finding as a line (header) or with how its ms was computed and what to try (tab); `go(graph, launch)`
 * switches to the graph and selects the launch (launch null: the graph alone). */
function item(cap, f, go, full) {
  const g = graphIndex(cap, f.graph);
  const target = g >= 0 ? () => go(g, f.launches.length ? f.launches[0] : null) : null;
  const head = [
    h("b", { class: "kv-finding-ms", title: `ms: ${f.how}` }, findingMs(f.ms)), " ",
    h("span", { class: "kv-rule" }, f.rule), " ",
    target ? h("a", { class: "kv-finding-at", href: "#", onclick: (e) => { e.preventDefault(); target(); } }, where(cap, f))
      : h("span", { class: "kv-finding-at" }, where(cap, f)),
    h("span", { class: "kv-finding-evidence", title: full ? null : `${f.evidence}\nms: ${f.how}\ntry: ${f.suggestion}` },
      `: ${f.evidence}`)];
  if (!full) return h("li", { class: "kv-finding" }, ...head);
  return h("li", { class: "kv-finding kv-finding-full" }, ...head,
    h("div", { class: "kv-finding-how" }, `ms: ${f.how}`),
    f.suggestion ? h("div", { class: "kv-finding-try" }, `try: ${f.suggestion}`) : null);
}

/** The header's top findings of the capture, most time at stake first. */
export function findingsHeader(cap, go) {
  const all = findingsOf(cap);
  if (!all.length) return null;
  return h("div", { class: "kv-findings" },
    h("div", { class: "kv-findings-title" }, `Findings (${all.length}, most time at stake first`
      + (all.length > TOP ? `; the top ${TOP} here, each graph's in its Findings tab)` : ")")),
    h("ul", {}, ...all.slice(0, TOP).map((f) => item(cap, f, go, false))));
}

const ofGraph = (cap, g) => findingsOf(cap).filter((f) => f.graph === (cap.graphs[g] || {}).id);

/** The Findings tab: every finding of the graph in view, and dynamo's, with how each ms was computed. */
export function findingsTab(ctx) {
  const { cap, graph, go } = ctx;
  const mine = ofGraph(cap, graph);
  const dynamo = findingsOf(cap).filter((f) => !f.graph);
  if (!mine.length && !dynamo.length) return [h("div", { class: "kv-hint" }, "No findings for this graph.")];
  return [h("ul", { class: "kv-findings kv-findings-tab" }, ...[...mine, ...dynamo].map((f) => item(cap, f, go, true)))];
}
