// A MIME renderer for kernelviz captures: the same panel (kernelviz/static/panel.js) that the live widget
// uses, fed from the saved JSON, so a notebook shows the full view with no kernel and no GPU. In a
// notebook whose kernel holds the capture's live widget (plugin.ts gives the renderer the notebook's
// LiveContext), the renderer shows that widget instead, once it answers, and the saved view again when the
// kernel goes: one output, never "Error displaying widget: model not found".
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Panel, Widget } from '@lumino/widgets';

import { LiveContext, WIDGET_MIME } from './live';
import { decodePayload, renderCapture } from './panel';

export const MIME_TYPE = 'application/vnd.kernelviz.v1+json';
const CLASS_NAME = 'jp-RenderedKernelviz';
const NOTE =
  'Saved capture: to time it, run the cell again with %%kernelviz --bench, or cap.bench(), in a kernel.';
// Below the rank of the ipywidgets renderer (-10): the bundle's widget is shown by this renderer, when live.
export const RANK = -20;

export class KernelvizRenderer extends Panel implements IRenderMime.IRenderer {
  constructor(
    private _options: IRenderMime.IRendererOptions,
    private _live: LiveContext | null = null
  ) {
    super();
    this.addClass(CLASS_NAME);
    this._saved.addClass('jp-KernelvizSaved');
    this.addWidget(this._saved);
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    let data: unknown;
    try {
      data = await decodePayload(model.data[this._options.mimeType]);
    } catch (error) {
      this._saved.node.textContent = `kernelviz: this saved output cannot be read (${String(error)})`;
      this._view = null;
      return;
    }
    if (this._view) {
      this._view.update(data);
    } else {
      this._view = renderCapture(this._saved.node, data, { note: NOTE });
    }
    await this._showLive(model);
  }

  dispose(): void {
    this._dropLive();
    super.dispose();
  }

  /** Render the bundle's widget, hidden, and show it in place of the saved view once it is live. */
  private async _showLive(model: IRenderMime.IMimeModel): Promise<void> {
    const ref = model.data[WIDGET_MIME] as { model_id?: string } | undefined;
    const live = this._live;
    if (!live || !model.trusted || !ref || !ref.model_id || !live.kernelAlive) {
      return;
    }
    if (this._liveId === ref.model_id) {
      return;
    }
    const factory = await live.widgetFactory();
    if (!factory || this.isDisposed || !live.kernelAlive) {
      return;
    }
    this._dropLive();
    this._liveId = ref.model_id;
    const inner = factory.createRenderer({ ...this._options, mimeType: WIDGET_MIME });
    inner.hide();
    this.addWidget(inner);
    this._inner = inner;
    const observer = new MutationObserver(() => {
      if (inner.node.querySelector('.kv-panel.kv-live')) {
        observer.disconnect();
        this._saved.hide();
        inner.show();
      }
    });
    observer.observe(inner.node, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
    const stop = live.onKernelGone(() => this._dropLive());
    this._stopLive = () => {
      observer.disconnect();
      stop();
    };
    await inner.renderModel(model);
  }

  private _dropLive(): void {
    this._stopLive();
    this._stopLive = () => undefined;
    this._liveId = null;
    if (this._inner) {
      this._inner.dispose();
      this._inner = null;
    }
    this._saved.show();
  }

  private _saved = new Widget();
  private _view: { update(data: unknown): void } | null = null;
  private _inner: (Widget & IRenderMime.IRenderer) | null = null;
  private _liveId: string | null = null;
  private _stopLive: () => void = () => undefined;
}

/** The renderer factory; with a LiveContext, for one notebook. */
export function rendererFactory(live: LiveContext | null = null): IRenderMime.IRendererFactory {
  return {
    safe: true,
    mimeTypes: [MIME_TYPE],
    createRenderer: options => new KernelvizRenderer(options, live)
  };
}

const extension: IRenderMime.IExtension = {
  id: 'kernelviz-labextension:renderer',
  rendererFactory: rendererFactory(),
  rank: RANK,
  dataType: 'json'
};

export default extension;
