// Gives each notebook a kernelviz renderer that knows the notebook's kernel (see index.ts): a document
// widget extension runs as the notebook is created, before its outputs render.
import { IRendermimeLike, ISessionLike, LiveContext } from './live';
import { RANK, rendererFactory } from './index';

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
  description: 'Shows the live kernelviz widget while its kernel lives, the saved capture otherwise.',
  autoStart: true,
  activate: (app: IAppLike): void => {
    app.docRegistry.addWidgetExtension('Notebook', {
      createNew(panel: INotebookPanelLike): void {
        const live = new LiveContext(panel.content.rendermime, panel.sessionContext);
        panel.content.rendermime.addFactory(rendererFactory(live), RANK);
      }
    });
  }
};

export default plugin;
