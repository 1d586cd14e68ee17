// DOM building. Captured text only ever becomes text nodes: nothing from a capture becomes HTML.

/** An element with attributes ("class", "on<event>" handlers, others as attributes) and children
 * (nodes, or anything else as text; null and undefined are skipped). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** A small table with a header row. */
export function table(headers, rows) {
  return h("table", { class: "kv-small" },
    h("thead", {}, h("tr", {}, ...headers.map((x) => h("th", {}, x)))),
    h("tbody", {}, ...rows));
}
