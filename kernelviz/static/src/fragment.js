// A kernel's metadata: source nodes -> ATen nodes, the user's code, and the graph fragment
// (click a node to light the source lines linked to it). Node rows carry data-node.
import { h, table } from "./dom.js";
import { where } from "./format.js";
import { shortPath } from "./names.js";

// One line of Inductor's graph fragment, as kernelviz.model.FragmentNode.from_line reads it (the capture
// keeps the lines; schemas 1 and 2, which kept the nodes, are read as they are).
// (Python's \w is Unicode: [\p{L}\p{N}_] here.)
const FRAGMENT = /^%([\p{L}\p{N}_]+) : (?:Tensor "([\p{L}\p{N}_]+)\[([^\]]*)\]\[([^\]]*)\]([^"]*)")?(.*?) = ([\p{L}\p{N}_]+)\[target=(.*?)\](?:\((.*)\))?$/u;
const list = (text) => text.split(",").map((s) => s.trim()).filter((s) => s);

function fragmentNode(line) {
  if (typeof line !== "string") return line;
  const m = FRAGMENT.exec(line);
  if (!m) {
    return line.startsWith("return ") ? { name: "output", op: "output", args: line.slice(7) } : { name: "?", op: "unknown", text: line };
  }
  const [, name, dtype, shape, stride, device, rest, op, target, args] = m;
  const users = /\[num_users=(\d+)\]/.exec(rest);
  const tensor = dtype !== undefined;
  return { name, op: op === "PlaceHolder" ? "placeholder" : op, target, dtype: dtype ?? null, shape: tensor ? list(shape) : null,
    stride: tensor ? list(stride) : null, device: device || null, users: users ? Number(users[1]) : null, args: args || "" };
}

const nodeRow = (n, links, selectNode) => n.op === "unknown"
  ? h("tr", { class: "kv-node" }, h("td", {}, "?"), h("td", { class: "kv-mono", colspan: "6" }, n.text))
  : h("tr", { class: "kv-node" + (links[n.name] ? " kv-linked" : ""), "data-node": n.name, onclick: () => selectNode(n.name) },
    h("td", {}, n.name), h("td", { class: "kv-op" }, n.op), h("td", { class: "kv-mono" }, n.target), h("td", {}, n.dtype || ""),
    h("td", {}, n.shape ? `[${n.shape.join(", ")}]` : ""), h("td", {}, n.stride ? `[${n.stride.join(", ")}]` : ""),
    h("td", {}, n.users ?? ""));

// A notebook cell as the user sees it, its file on hover.
const locationRow = (loc, label) => h("tr", {},
  h("td", { class: "kv-loc kv-mono", title: loc.cell != null ? loc.file : where(loc) }, loc.cell != null ? where(loc) : shortPath(where(loc), 32)),
  h("td", { class: "kv-mono" }, loc.code), h("td", { class: "kv-hint" }, label));

/** `caller` (Graph.caller) is the user's line that ran the graph (for an nn.Sequential, the only user line);
 * `kernel.locations_unknown` says why the kernel's own lines are unknown in this run. `nodes` (the view annex's,
 * kernelviz/views/nodes.py) holds each source node's ATen ops and the fragment's lines shown (each node once);
 * without it (a payload saved before it) the mapping and the fragment show as the kernel holds them. */
export function metaView(kernel, links, selectNode, caller, nodes) {
  const lines = nodes ? nodes.fragment.map((i) => kernel.fragment[i]) : kernel.fragment;
  const fragment = table(["node", "op", "target", "dtype", "shape", "stride", "users"], lines.map(fragmentNode)
    .filter((n) => n.op !== "output").map((n) => nodeRow(n, links, selectNode)));
  fragment.classList.add("kv-fragment"); // below a width its stride and users, then its op, give way (panel.css)
  const ops = nodes ? nodes.ops : Object.entries(kernel.node_mapping).map(([k, v]) => [k, v.join(", ")]);
  const yours = kernel.locations.map((loc) => locationRow(loc, ""));
  if (caller) yours.push(locationRow(caller, "ran the graph"));
  const unknown = kernel.locations_unknown ? h("div", { class: "kv-hint kv-loc-note" }, kernel.locations_unknown) : null;
  return h("div", { class: "kv-meta" },
    h("div", { class: "kv-node-ops" }, h("b", {}, nodes ? "Source nodes → ATen ops" : "Source nodes → ATen nodes"),
      table(["source node", nodes ? "ATen ops (their nodes)" : "ATen nodes"],
        ops.map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", { class: "kv-mono" }, v))))),
    yours.length || unknown
      ? h("div", {}, h("b", {}, "Your code"), yours.length ? table(["line", "code", ""], yours) : null, unknown) : null,
    h("div", {}, h("b", {}, "Graph fragment"), h("span", { class: "kv-hint" }, " (click a node to light the lines linked to it)"),
      h("span", { class: "kv-hint kv-narrow-only" }, " (more columns in a wider output)"), fragment));
}
