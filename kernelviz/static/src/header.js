// The panel's header: what was captured (graphs, kernels, device, versions), then the story of the cell:
// what it compiled and how long that took (0 s, "cached", for graphs compiled before), and dynamo's graph
// breaks, recompiles and skipped frames with dynamo's own reasons.
import { h } from "./dom.js";
import { plural, where } from "./format.js";
import { isTimed } from "./rows.js";

function counts(items, key) {
  const m = new Map();
  for (const it of items) m.set(it[key], (m.get(it[key]) || 0) + 1);
  return [...m].map(([k, n]) => `${n} ${k}`).join(", ");
}

export function headline(cap) {
  const kernels = cap.graphs.flatMap((g) => g.kernels);
  const externs = cap.graphs.reduce((s, g) => s + g.launches.filter((l) => !l.kernel_name).length, 0);
  const parts = [
    plural(cap.graphs.length, "graph") + (cap.graphs.length ? ` (${counts(cap.graphs, "kind")})` : ""),
    plural(kernels.length, "kernel") + (kernels.length ? ` (${counts(kernels, "kind")})` : ""),
    plural(externs, "extern call"),
  ];
  const devices = [...new Set(cap.graphs.map((g) => g.device))].join(", ");
  if (devices) parts.push(cap.device_name ? `${devices} (${cap.device_name})` : devices);
  if (cap.torch_version) parts.push(`torch ${cap.torch_version}`);
  if (cap.triton_version) parts.push(`triton ${cap.triton_version}`);
  const where = [cap.device, cap.backend].filter(Boolean).join(", ");
  if (cap.rank !== null && cap.rank !== undefined)
    parts.push(`rank ${cap.rank} of ${cap.world_size}` + (cap.host ? ` on ${cap.host}` : "") + (where ? ` (${where})` : ""));
  return parts.join(" · ");
}


const EVENT_LABEL = { graph_break: "graph break", recompile: "recompile", skip: "skipped frame" };

/** Dynamo's events as a list, one line per place and reason (the view annex's `dynamo`, worked out in Python; else
 * each event's kind, place and first line), dynamo's whole text a click away. */
export function dynamoEvents(cap) {
  const events = cap.dynamo || [];
  const rows = (cap.view && cap.view.dynamo) || events.map((e) => [
    `${EVENT_LABEL[e.kind] || e.kind}${e.file ? ` at ${where(e)}` : ""}${e.code ? ` \`${e.code}\`` : ""}: `
      + (e.reason || "").trim().split("\n")[0], e.reason || ""]);
  if (!rows.length) return null;
  return h("ul", { class: "kv-dynamo" }, ...rows.map(([line, reason]) => h("li", {},
    h("details", {}, h("summary", { class: "kv-mono" }, line), h("pre", { class: "kv-reason" }, reason)))));
}

/** A capture timed, saved by a kernelviz that did not yet put its figures as text in the view annex: say so. */
const olderPayload = (cap) => cap.graphs.some((graph, g) => isTimed(graph) &&
  !((((cap.view || {}).launches || [])[g] || {}).texts));

export function headerView(cap) {
  const story = (cap.view || {}).compile || "";  // what the cell compiled, in how long (views/text.py compile_story)
  const breaks = (cap.dynamo || []).filter((e) => e.kind === "graph_break").length;
  const recompiles = (cap.dynamo || []).filter((e) => e.kind === "recompile").length;
  const summary = [story, breaks ? plural(breaks, "graph break") : "", recompiles ? plural(recompiles, "recompile") : ""]
    .filter(Boolean).join(" · ");
  return h("div", { class: "kv-header" },
    h("div", {}, h("b", {}, "kernelviz"), " · ", headline(cap)),
    summary ? h("div", { class: "kv-story" }, summary) : null,
    olderPayload(cap) ? h("div", { class: "kv-story kv-older" }, "saved by an older kernelviz: its times, rates and % of roof " +
      "are not in this output (run the cell again to see them)") : null,
    dynamoEvents(cap));
}
