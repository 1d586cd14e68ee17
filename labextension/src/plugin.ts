// Gives each notebook a kernelviz renderer that knows the notebook's kernel (see index.ts): a document
// widget extension runs as the notebook is created, before its outputs render. Offers this extension's panel to
// the live widget's loader (kernelviz/static/loader.js), which then needs no code from the notebook.
import { IRendermimeLike, ISessionLike, LiveContext } from './live';
import { RANK, rendererFactory } from './index';
import * as panel from './panel';

// Where the loader looks for the installed panel: a global, since the loader is a module of its own (anywidget
// imports it from a blob: URL) that cannot import from JupyterLab.
const INSTALLED = Symbol.for('kernelviz.panel');

interface INotebookPanelLike {
  content: { rendermime: IRendermimeLike };
  sessionContext: ISessionLike;
}

interface IAppLike {
  docRegistry: {
    addWidgetExtension(
      widgetName: string,
      extension: { createNew(panel: INotebookPanelLike): void }
    ): unknown;
  };
}

const plugin = {
  id: 'kernelviz-labextension:live',
  description: 'Shows the live kernelviz widget while its kernel lives, the saved capture otherwise; offers the panel to the widget.',
  autoStart: true,
  activate: (app: IAppLike): void => {
    (globalThis as Record<symbol, unknown>)[INSTALLED] = { sources: panel.sources, module: panel };
    app.docRegistry.addWidgetExtension('Notebook', {
      createNew(panel: INotebookPanelLike): void {
        const live = new LiveContext(panel.content.rendermime, panel.sessionContext);
        panel.content.rendermime.addFactory(rendererFactory(live), RANK);
      }
    });
  }
};

export default plugin;
