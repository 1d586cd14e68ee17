// Words for people: a count with its noun, a place in the user's code. No figure is written here: the payload
// carries every time, size, rate and percentage as text (kernelviz/views/texts.py, by kernelviz/units.py).

/** "1 launch", "2 launches", "3 graphs". */
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : /(s|sh|ch|x)$/.test(word) ? "es" : "s"}`;

/** A place in the user's code as they see it (SourceLocation.where): "cell [3], line 6" in a notebook cell, else
 * "file:line". */
export const where = (loc) => loc.cell != null ? `cell [${loc.cell}], line ${loc.line ?? "?"}` : `${loc.file}:${loc.line ?? "?"}`;
