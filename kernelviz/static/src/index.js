// kernelviz panel: one view of a capture, used by the live widget (anywidget) and by the JupyterLab
// MIME renderer of saved notebooks. Bundled by esbuild into kernelviz/static/panel.js (see README.md
// here for the layout of the modules).
import { render } from "./widget.js";

export { renderCapture } from "./panel.js";
export { decodePayload } from "./payload.js";
export { nameLabel } from "./names.js";
export { launchRows } from "./rows.js";
export default { render };
// the sha256 of these sources (labextension/build-panel.mjs puts it in): static/loader.js uses the JupyterLab
// extension's copy of the panel where it has the same
export const sources = KERNELVIZ_SOURCES; // eslint-disable-line no-undef
