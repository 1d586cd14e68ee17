// A kernel's source: pygments tokens (class, length runs) built into spans, line numbers, copy button.
import { h } from "./dom.js";

/** Lines of `src` as arrays of nodes, styled by `tokens` where given. */
export function tokenLines(src, tokens) {
  const lines = [[]];
  const pushText = (cls, text) => {
    text.split("\n").forEach((piece, i) => {
      if (i > 0) lines.push([]);
      if (piece) lines[lines.length - 1].push(cls ? h("span", { class: `kv-tok-${cls}` }, piece) : piece);
    });
  };
  if (tokens) {
    let pos = 0;
    for (let i = 0; i < tokens.length; i += 2) {
      pushText(tokens[i], src.slice(pos, pos + tokens[i + 1]));
      pos += tokens[i + 1];
    }
    if (pos < src.length) pushText("", src.slice(pos));
  } else {
    pushText("", src);
  }
  return lines;
}

/** The source pane; lines linked to the selected node are lit, `onLineClick(n)` on a click. */
export function sourceView(kernel, tokens, links, state, onLineClick) {
  const src = kernel.source;
  const lit = new Set();
  if (state.node && links[state.node]) links[state.node].forEach((n) => lit.add(n));
  const rows = tokenLines(src, tokens).map((parts, i) => {
    const n = i + 1;
    return h("div", { class: "kv-line" + (lit.has(n) ? " kv-lit" : "") + (state.line === n ? " kv-current" : ""),
      "data-line": String(n), onclick: () => onLineClick(n) },
      h("span", { class: "kv-lineno" }, String(n)), h("span", { class: "kv-code" }, ...parts));
  });
  const copy = h("button", { class: "kv-copy", title: "copy the kernel source",
    onclick: () => navigator.clipboard && navigator.clipboard.writeText(src) }, "copy");
  return h("div", { class: "kv-source" + (tokens ? " kv-highlighted" : "") }, copy, ...rows);
}
