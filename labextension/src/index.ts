// A MIME renderer for kernelviz captures: the same panel (kernelviz/static/panel.js) that the live
// widget uses, fed from the saved JSON, so a notebook shows the full view with no kernel and no GPU.
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { decodePayload, renderCapture } from './panel';

const MIME_TYPE = 'application/vnd.kernelviz.v1+json';
const CLASS_NAME = 'jp-RenderedKernelviz';
// Below the rank of the ipywidgets renderer (-10): a saved capture renders from its JSON instead of
// a widget whose live model is gone.
const RANK = -20;

export class KernelvizRenderer extends Widget implements IRenderMime.IRenderer {
  private _view: { update(data: unknown): void } | null = null;

  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this.addClass(CLASS_NAME);
    this._mimeType = options.mimeType;
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    let data: unknown;
    try {
      data = await decodePayload(model.data[this._mimeType]);
    } catch (error) {
      this.node.textContent = `kernelviz: this saved output cannot be read (${String(error)})`;
      this._view = null;
      return;
    }
    if (this._view) {
      this._view.update(data);
    } else {
      this._view = renderCapture(this.node, data, {
        note: 'Saved capture: to time kernels, run cap.bench() or %%kernelviz --bench in a kernel.'
      });
    }
  }

  private _mimeType: string;
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  createRenderer: options => new KernelvizRenderer(options)
};

const extension: IRenderMime.IExtension = {
  id: 'kernelviz-labextension:renderer',
  rendererFactory,
  rank: RANK,
  dataType: 'json'
};

export default extension;
