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

/** The source pane; `onLineClick(n)` on a click of line n (1-based). Lines carry data-line. The pane's bar
 * (sticky, above the lines) holds `title`, the nodes of `tools` and the copy button; `lineClass(text)` gives
 * a line a class. */
export function sourceView(source, tokens, onLineClick, { title = "", tools = [], lineClass = null } = {}) {
  const texts = lineClass ? source.split("\n") : null;
  const rows = tokenLines(source, tokens).map((parts, i) => h("div", {
    class: "kv-line" + (lineClass ? ` ${lineClass(texts[i] || "")}` : ""), "data-line": String(i + 1),
    onclick: () => onLineClick(i + 1) }, h("span", { class: "kv-lineno" }, String(i + 1)), h("span", { class: "kv-code" }, ...parts)));
  const copy = h("button", { class: "kv-copy", title: "copy the text of this pane",
    onclick: () => navigator.clipboard && navigator.clipboard.writeText(source) }, "copy");
  return h("div", { class: "kv-source" + (tokens ? " kv-highlighted" : "") },
    h("div", { class: "kv-source-bar" }, title ? h("span", { class: "kv-source-title" }, title) : null, ...tools, copy), ...rows);
}

/** Scroll the pane itself (never the page) so that `line` (a shown one) sits a third of the way down. */
export function scrollPaneTo(pane, line) {
  if (!line) return;
  pane.scrollTop = Math.max(0, line.offsetTop - pane.clientHeight / 3);
}
