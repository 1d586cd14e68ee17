// Numbers for people. A percentage is never shown above 100.

export function fmtBytes(n) {
  if (n === null || n === undefined) return "";
  const units = ["B", "KB", "MB", "GB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

export function fmt(x, digits) {
  return x === null || x === undefined ? "" : Number(x).toFixed(digits);
}

/** Milliseconds with 3 significant digits past the point where it matters (0.0123, 1.23, 123). */
// What a graph's busy time is on its device, and what its gap (busy time no launch covers) holds.
export const busyLabel = (graph) => graph.device === "cpu" ? "call() wall time" : "GPU busy time";
export const gapTitle = (graph) => `${busyLabel(graph)} not covered by launches: ` +
  (graph.device === "cpu" ? "the wrapper's own work between kernels" : "idle between kernels and launch overhead");

export function fmtMs(ms) {
  if (ms === null || ms === undefined) return "";
  return ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(4);
}

/** A percentage, capped at 100 (a value above is shown as "100" and flagged by the caller's title). */
export function fmtPct(p) {
  if (p === null || p === undefined) return "";
  return p >= 99.95 ? "100" : p >= 10 ? p.toFixed(0) : p.toFixed(1);
}

export function fmtRate(value, unit) {
  if (value === null || value === undefined) return "";
  return `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)} ${unit}`;
}

/** "1 launch", "2 launches", "3 graphs". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : /(s|sh|ch|x)$/.test(word) ? "es" : "s"}`;

/** A place in the user's code as they see it (SourceLocation.where): "cell [3], line 6" in a notebook cell, else
 * "file:line". */
export const where = (loc) => loc.cell != null ? `cell [${loc.cell}], line ${loc.line ?? "?"}` : `${loc.file}:${loc.line ?? "?"}`;
