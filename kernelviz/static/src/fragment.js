// A kernel's metadata: source nodes -> ATen nodes, the user's code, and the graph fragment
// (click a node to light the source lines linked to it).
import { h, table } from "./dom.js";

export function metaView(kernel, links, state, selectNode) {
  const byLine = new Map();
  for (const [node, ls] of Object.entries(links)) for (const n of ls) byLine.set(n, [...(byLine.get(n) || []), node]);
  const litNodes = new Set(state.line ? byLine.get(state.line) || [] : []);
  return h("div", { class: "kv-meta" },
    h("div", {}, h("b", {}, "Source nodes → ATen nodes"), table(["source node", "ATen nodes"],
      Object.entries(kernel.node_mapping).map(([k, v]) => h("tr", {}, h("td", {}, k), h("td", {}, v.join(", ")))))),
    kernel.locations.length ? h("div", {}, h("b", {}, "Your code"), table(["file:line", "code"],
      kernel.locations.map((loc) => h("tr", {}, h("td", {}, `${loc.file}:${loc.line}`), h("td", { class: "kv-mono" }, loc.code))))) : null,
    h("div", {}, h("b", {}, "Graph fragment"), h("span", { class: "kv-hint" }, " (click a node to light the lines linked to it)"),
      table(["node", "op", "target", "dtype", "shape", "stride", "users"], kernel.fragment.filter((n) => n.op !== "output").map((n) =>
        h("tr", { class: "kv-node" + (state.node === n.name ? " kv-selected" : "") + (litNodes.has(n.name) ? " kv-lit" : "") +
          (links[n.name] ? " kv-linked" : ""), "data-node": n.name, onclick: () => selectNode(n.name) },
          h("td", {}, n.name), h("td", {}, n.op), h("td", { class: "kv-mono" }, n.target), h("td", {}, n.dtype || ""),
          h("td", {}, n.shape ? `[${n.shape.join(", ")}]` : ""), h("td", {}, n.stride ? `[${n.stride.join(", ")}]` : ""),
          h("td", {}, n.users ?? ""))))));
}
