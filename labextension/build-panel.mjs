// Bundle the panel's ES modules (kernelviz/static/src/) into the one ES module both front ends load:
// kernelviz/static/panel.js (what static/loader.js, the anywidget `_esm`, loads, and what src/panel.ts re-exports
// for JupyterLab).
// The banner names a hash of the sources, so a test can tell a stale bundle (tests/test_views.py).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, "..", "kernelviz", "static", "src");
const hash = createHash("sha256");
for (const name of readdirSync(src).filter((n) => n.endsWith(".js") || n.endsWith(".json")).sort()) {
  hash.update(name + "\0" + readFileSync(join(src, name), "utf8") + "\0");
}
const sources = hash.digest("hex");

await build({
  entryPoints: [join(src, "index.js")],
  outfile: join(here, "..", "kernelviz", "static", "panel.js"),
  bundle: true,
  nodePaths: [join(here, "node_modules")], // the sources live outside this package
  format: "esm",
  target: "es2020",
  minify: true,
  legalComments: "inline",
  define: { KERNELVIZ_SOURCES: JSON.stringify(sources) }, // index.js's `sources`
  banner: { js: `// kernelviz panel, built by labextension/build-panel.mjs from kernelviz/static/src (do not edit).\n// sources sha256 ${sources}` },
  logLevel: "warning",
});
