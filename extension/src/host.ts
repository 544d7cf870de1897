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
    const data = model.data[this.mimeType];
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
