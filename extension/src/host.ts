/**
 * A Lumino widget holding a trace viewer: what the MIME renderer and the
 * document viewer show in JupyterLab.
 */

import type { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import type { Message } from '@lumino/messaging';
import { Widget } from '@lumino/widgets';

import { clear } from './view/dom';
import { readViewOptions } from './view/options';
import { TraceViewer } from './view/viewer';

/** Base64 of a gzip stream's first bytes (1f 8b 08): a `*.passviz.json.gz` document. */
const GZIP_BASE64 = /^\s*H4sI/;

/** The text of a gzip file given as base64 (as JupyterLab reads a binary file; it may hold line breaks). */
export async function gunzipBase64(text: string): Promise<string> {
  const binary = atob(text.replace(/\s+/g, ''));
  const bytes = Uint8Array.from(binary, c => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return await new Response(stream).text();
}

export class TraceRenderer extends Widget implements IRenderMime.IRenderer {
  private viewer: TraceViewer | null = null;

  constructor(private readonly mimeType: string) {
    super();
    this.addClass('pv-host');
    this.addClass('pv-mime');
  }

  /** The viewer shown now, if the data could be read. */
  get traceViewer(): TraceViewer | null {
    return this.viewer;
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    let data: unknown = model.data[this.mimeType];
    if (typeof data === 'string' && GZIP_BASE64.test(data)) {
      try {
        data = await gunzipBase64(data);
      } catch (error) {
        data = `not a readable gzip file: ${String(error)}`;
      }
    }
    const step = this.viewer?.step;
    this.viewer?.dispose();
    clear(this.node);
    this.viewer = TraceViewer.mount(this.node, data, readViewOptions(data));
    // A document that is saved again keeps the step the person was on.
    if (this.viewer && step !== undefined && step < this.viewer.trace.steps.length) {
      void this.viewer.setStep(step);
    }
    await this.viewer?.rendered;
  }

  protected onResize(msg: Widget.ResizeMessage): void {
    super.onResize(msg);
    this.viewer?.resize();
  }

  protected onAfterShow(msg: Message): void {
    super.onAfterShow(msg);
    this.viewer?.resize();
  }

  dispose(): void {
    this.viewer?.dispose();
    this.viewer = null;
    super.dispose();
  }
}
