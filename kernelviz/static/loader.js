// kernelviz's widget front end (anywidget _esm), saved with every output, so it is only this loader: it draws
// with the JupyterLab extension's panel where that is of the same sources, else with the panel that the
// notebook holds once (the "panel" model, notebook/panel_code.py), and puts that panel's style sheet in the page.
const INSTALLED = Symbol.for("kernelviz.panel"); // {sources, module}: what the JupyterLab extension provides
const imported = new Map(); // sources hash -> the panel module, imported once a page

function panelModule(code) {
  const sources = code.get("sources"), installed = globalThis[INSTALLED];
  if (installed && installed.sources === sources) return [installed.module, ""];
  if (!imported.has(sources)) {
    const url = URL.createObjectURL(new Blob([code.get("esm")], { type: "text/javascript" }));
    imported.set(sources, import(/* webpackIgnore: true */ url).finally(() => URL.revokeObjectURL(url)));
  }
  return [imported.get(sources), code.get("css")];
}

// The sheet under the widget's id holds this panel's style: none where the extension styles it. An older
// kernelviz's saved widget state puts its own there when restored (maybe after this panel is drawn): this one
// is put back, a few times a page at most, so that panels of two versions in one page do not take turns for ever.
let restores = 0;
function ownStyle(id, css) {
  const sheet = document.getElementById(id) ||
    document.head.appendChild(Object.assign(document.createElement("style"), { id }));
  const put = () => { if (sheet.textContent !== css && restores++ < 5) sheet.textContent = css; };
  put();
  const watch = new MutationObserver(put);
  watch.observe(sheet, { childList: true, characterData: true, subtree: true });
  return () => watch.disconnect();
}

export default {
  async render({ model, el, host }) {
    try {
      const [module, css] = panelModule(await host.getModel(model.get("panel")));
      const unwatch = ownStyle(model.get("_anywidget_id"), css);
      const cleanup = await (await module).default.render({ model, el });
      return () => { unwatch(); cleanup(); };
    } catch (error) {
      el.textContent = `kernelviz: the panel cannot be drawn here (${error})`;
      return () => {};
    }
  },
};
