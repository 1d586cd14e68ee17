// Launch names for people: what a launch computes in the room a column has. The twin of
// kernelviz/views/names.py (same labels; tests/test_panel_widths.py checks): Inductor's name is a prefix,
// the ATen ops its nodes came from (split with the launch's original_aten and a few multi-word names) and a
// counter; the ops are joined by " · " and, while they do not fit, abbreviated, rid of view-like ops, joined
// by "·" alone, then cut with "…"; the counter always stays. An extern call shows its op.

import TABLES from "./names.json";

export const SEP = " · ";
const PREFIX = /^(?:triton|cpp)_(?:[a-z]{3}_)?fused_/;
const COUNTER = /_\d+$/;
// What both twins read: multi-word ops a name may hold, view-like ops, abbreviations (regex, replacement).
const KNOWN = TABLES.known;
const LAYOUT = new Set(TABLES.layout);
const ABBREV = TABLES.abbrev.map(([pattern, repl]) => [new RegExp(pattern, "g"), repl]);

/** aten._log_softmax.default -> _log_softmax; extern_kernels.mm -> mm. */
export function atenOp(qualified) {
  let parts = qualified.split(".");
  const last = parts[parts.length - 1];
  if (parts.length >= 3 && (last === "default" || last === "out" || /^[A-Z]/.test(last))) parts = parts.slice(0, -1);
  return parts[parts.length - 1];
}

/** [ops, tail]: the ops a launch's name lists and its counter suffix ("_3", or ""). */
export function splitName(name, aten = [], generated = !name.includes(".")) {
  if (!generated) return [[atenOp(name)], ""];
  const m = COUNTER.exec(name);
  const tail = m ? m[0] : "";
  const body = name.slice(0, name.length - tail.length);
  const p = PREFIX.exec(body);
  if (!p || body.length === p[0].length) return [[body], tail];
  const stem = body.slice(p[0].length);
  const vocab = [...new Set([...aten.map(atenOp), ...KNOWN])].sort((a, b) => b.length - a.length);
  const ops = [];
  let i = 0;
  while (i < stem.length) {
    let op = vocab.find((v) => stem.startsWith(v, i) && (i + v.length === stem.length || stem[i + v.length] === "_"));
    if (op === undefined) {
      const end = stem.indexOf("_", stem[i] === "_" ? i + 1 : i);
      op = end < 0 ? stem.slice(i) : stem.slice(i, end);
    }
    ops.push(op);
    i += op.length + 1;
  }
  return [ops, tail];
}

const abbrev = (op) => ABBREV.reduce((s, [re, repl]) => s.replace(re, repl), op) || op;
const dedupe = (ops) => [...new Set(ops)];

/** The four forms of a name, fullest first (ops; abbreviated; without view-like ops; joined by "·"), its tail,
 * the room for its head, and the ops the last form keeps. */
function forms(name, aten, budget, generated) {
  const [ops, tail] = splitName(name, aten, generated);
  const room = Math.max(1, budget - (tail ? tail.length + 1 : 0)); // the tail and the space before it
  const short = dedupe(ops.map(abbrev));
  let computing = dedupe(ops.filter((op) => !LAYOUT.has(op)).map(abbrev));
  if (!computing.length) computing = short;
  return [[ops.join(SEP), short.join(SEP), computing.join(SEP), computing.join("·")], tail, room, computing];
}

/** The first of a name's forms that fits `budget` (0 to 3; 4: none, it is cut). */
export function nameLevel(name, aten = [], budget = 40, generated = !name.includes(".")) {
  const [all, , room] = forms(name, aten, budget, generated);
  const i = all.findIndex((f) => f.length <= room);
  return i < 0 ? 4 : i;
}

/** [head, tail]: the label of a launch in `budget` characters (the tail, the counter, is kept whole), in the
 * fullest of its forms from `level` on that fits (a column gives all its names one level). */
export function shortName(name, aten = [], budget = 40, generated = !name.includes("."), level = 0) {
  const [all, tail, room, computing] = forms(name, aten, budget, generated);
  for (const form of all.slice(Math.min(level, 3))) if (form.length <= room) return [form, tail];
  const kept = [];
  for (const op of computing) {
    if ([...kept, op].join("·").length + 1 > room) break;
    kept.push(op);
  }
  if (kept.length) return [kept.join("·") + "…", tail];
  return [computing[0].slice(0, Math.max(0, room - 1)) + "…", tail];
}

/** shortName as one string: "batch_norm · add · relu _3". */
export function nameLabel(name, aten = [], budget = 40, generated = !name.includes("."), level = 0) {
  const [head, tail] = shortName(name, aten, budget, generated, level);
  return tail ? `${head} ${tail}` : head;
}

/** The level of a column of [name, aten, generated]: the fullest form every name fits (names.py column_labels). */
export const columnLevel = (names, budget) =>
  Math.min(3, names.reduce((m, [n, a, g]) => Math.max(m, nameLevel(n, a, budget, g)), 0));

/** A path shortened from the left to `budget` characters, its end (file name, line) kept: "…/pkg/mod.py:3". */
export function shortPath(path, budget = 40) {
  if (path.length <= budget) return path;
  const cut = path.slice(path.length - budget + 1);
  const slash = cut.indexOf("/");
  return "…" + (slash >= 0 && slash < cut.length - 8 ? cut.slice(slash) : cut);
}
