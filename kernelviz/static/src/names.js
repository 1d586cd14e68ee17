// Launch names in the room a column has. Python works out the forms of each name (kernelviz/names.py,
// NameForms: four forms, fullest first; the tail, the counter; the ops the last form keeps) and the payload's
// view annex carries them by name; here is only the choice of the form that fits `budget` characters, as
// names.py `fitted` makes it (tests/test_panel_widths.py checks that both choose alike).

/** The forms of `name` in `entries` (an annex's names by name); a name it lacks (a payload saved before
 * the annex held names) is shown whole. */
export const formsOf = (entries, name) => (entries && entries[name]) || [[name, name, name, name], "", [name]];

/** The characters left for the head in `budget`: the tail and the space before it kept. */
const room = (tail, budget) => Math.max(1, budget - (tail ? tail.length + 1 : 0));

/** The first of the forms that fits `budget` (0 to 3; 4: none, it is cut). */
export function fitLevel([forms, tail], budget) {
  const i = forms.findIndex((f) => f.length <= room(tail, budget));
  return i < 0 ? 4 : i;
}

/** [head, tail] in `budget` characters: the fullest form from `level` on that fits, else the ops of the last
 * form that fit, cut with "…" (the tail is kept whole). */
export function fitted([forms, tail, ops], budget, level = 0) {
  const r = room(tail, budget);
  const form = forms.slice(Math.min(level, 3)).find((f) => f.length <= r);
  if (form !== undefined) return [form, tail];
  const kept = [];
  for (const op of ops) {
    if ([...kept, op].join("·").length + 1 > r) break;
    kept.push(op);
  }
  return [kept.length ? kept.join("·") + "…" : ops[0].slice(0, Math.max(0, r - 1)) + "…", tail];
}

/** fitted as one string: "batch_norm · add · relu _3". */
export function nameLabel(forms, budget = 40, level = 0) {
  const [head, tail] = fitted(forms, budget, level);
  return tail ? `${head} ${tail}` : head;
}

/** The level of a column of forms: the fullest form every name fits (names.py column_level). */
export const columnLevel = (all, budget) => Math.min(3, all.reduce((m, f) => Math.max(m, fitLevel(f, budget)), 0));

/** A path shortened from the left to `budget` characters, its end (file name, line) kept: "…/pkg/mod.py:3". */
export function shortPath(path, budget = 40) {
  if (path.length <= budget) return path;
  const cut = path.slice(path.length - budget + 1);
  const slash = cut.indexOf("/");
  return "…" + (slash >= 0 && slash < cut.length - 8 ? cut.slice(slash) : cut);
}
