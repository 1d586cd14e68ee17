// A kernel's metadata: source nodes -> ATen nodes, the user's code, and the graph fragment
// (click a node to light the source lines linked to it). Node rows carry data-node.
import { h, table } from "./dom.js";

const locationRow = (loc, label) => h("tr", {},
  h("td", { class: "kv-loc", title: `${loc.file}:${loc.line}` }, `${loc.file}:${loc.line}`),
  h("td", { class: "kv-mono" }, loc.code), h("td", { class: "kv-hint" }, label));

/** `caller` (Graph.caller) is the user's line that ran the graph (for an nn.Sequential, the only user line). */
export function metaView(kernel, links, selectNode, caller) {
  const yours = kernel.locations.map((loc) => locationRow(loc, ""));
  if (caller) yours.push(locationRow(caller, "ran the graph"));
  return h("div", { class: "kv-meta" },
    h("div", {}, h("b", {}, "Source nodes → ATen nodes"), table(["source node", "ATen nodes"],
      Object.entries(kernel.node_mapping).map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, v.join(", ")))))),
    yours.length ? h("div", {}, h("b", {}, "Your code"), table(["file:line", "code", ""], yours)) : null,
    h("div", {}, h("b", {}, "Graph fragment"), h("span", { class: "kv-hint" }, " (click a node to light the lines linked to it)"),
      table(["node", "op", "target", "dtype", "shape", "stride", "users"], kernel.fragment.filter((n) => n.op !== "output").map((n) =>
        h("tr", { class: "kv-node" + (links[n.name] ? " kv-linked" : ""), "data-node": n.name, onclick: () => selectNode(n.name) },
          h("td", {}, n.name), h("td", {}, n.op), h("td", { class: "kv-mono" }, n.target), h("td", {}, n.dtype || ""),
          h("td", {}, n.shape ? `[${n.shape.join(", ")}]` : ""), h("td", {}, n.stride ? `[${n.stride.join(", ")}]` : ""),
          h("td", {}, n.users ?? ""))))));
}
