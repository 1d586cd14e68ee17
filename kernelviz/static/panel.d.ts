// Types of panel.js for the JupyterLab extension's TypeScript.
export interface PanelHost {
  kernelData?: (key: string) => { tokens: unknown[] | null; links: Record<string, number[]> } | undefined;
  requestKernel?: (key: string) => void;
  select?: (key: string) => void;
  bench?: () => void;
  note?: string;
}
export interface PanelView {
  update(data: unknown): void;
  redrawDetail(): void;
  select(key: string): void;
  setLive(live: boolean): void;
  setProgress(progress: { done: number; total: number; label: string } | null): void;
}
/** The panel's data from a saved output (decodes kernelviz's compact saved form; other data as it is). */
export function decodePayload(data: unknown): Promise<unknown>;
export function renderCapture(el: HTMLElement, data: unknown, host?: PanelHost): PanelView;
/** The sha256 of the panel's sources (what the widget's loader matches this copy by). */
export const sources: string;
declare const _default: { render(props: { model: unknown; el: HTMLElement }): () => void };
export default _default;
