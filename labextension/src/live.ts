// Where a notebook's kernel can show the live widget: the notebook's own rendermime (which holds the
// ipywidgets renderer bound to the notebook's widget manager) and its session. Typed structurally, so the
// extension needs none of JupyterLab's application packages at build time.
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';

export const WIDGET_MIME = 'application/vnd.jupyter.widget-view+json';

interface ISignalLike<T, A> {
  connect(slot: (sender: T, args: A) => void, thisArg?: unknown): boolean;
  disconnect(slot: (sender: T, args: A) => void, thisArg?: unknown): boolean;
}

export interface ISessionLike {
  session: { kernel: unknown | null } | null;
  statusChanged: ISignalLike<ISessionLike, string>;
  kernelChanged: ISignalLike<ISessionLike, unknown>;
}

export interface IRendermimeLike {
  getFactory(mimeType: string): IRenderMime.IRendererFactory | undefined;
  addFactory(factory: IRenderMime.IRendererFactory, rank?: number): void;
}

/**
 * The live side of one notebook. ipywidgets installs its manager-bound renderer in the notebook's
 * rendermime once the session is ready; until then the rendermime holds the application's placeholder,
 * which never finds a model. `placeholder` is the factory seen when the notebook was created.
 */
export class LiveContext {
  constructor(
    readonly rendermime: IRendermimeLike,
    readonly session: ISessionLike
  ) {
    this._placeholder = rendermime.getFactory(WIDGET_MIME);
  }

  get kernelAlive(): boolean {
    return !!(this.session.session && this.session.session.kernel);
  }

  /** The notebook's widget renderer factory, once ipywidgets has bound it (null if it never does). */
  async widgetFactory(waitMs = 15000): Promise<IRenderMime.IRendererFactory | null> {
    for (let waited = 0; waited <= waitMs; waited += 250) {
      const factory = this.rendermime.getFactory(WIDGET_MIME);
      if (factory && factory !== this._placeholder) {
        return factory;
      }
      if (!this._placeholder) {
        return null; // no ipywidgets in this JupyterLab
      }
      await new Promise(resolve => setTimeout(resolve, 250));
    }
    return null;
  }

  /** Call `gone` when the kernel dies, restarts or changes; returns the function that stops listening. */
  onKernelGone(gone: () => void): () => void {
    const onStatus = (_: ISessionLike, status: string) => {
      if (status === 'dead' || status === 'restarting' || status === 'unknown') {
        gone();
      }
    };
    const onKernel = () => gone();
    this.session.statusChanged.connect(onStatus);
    this.session.kernelChanged.connect(onKernel);
    return () => {
      this.session.statusChanged.disconnect(onStatus);
      this.session.kernelChanged.disconnect(onKernel);
    };
  }

  private _placeholder: IRenderMime.IRendererFactory | undefined;
}
