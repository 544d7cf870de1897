/**
 * A worker thread that builds and lays out steps ahead of the page, so that
 * painting never waits for the model: the page asks for the step → will show
 * (or a step jumped to) and draws it from the answer.  Where a worker cannot
 * start (no `Worker`, a page that forbids blob workers, code not bundled) or
 * stops answering, `lay` resolves null and the page does the work itself.
 */

import workerCode from '../generated/workercode';
import type { AheadMessage } from '../model/aheadserver';
import type { LayoutMemory } from '../model/layout';
import type { AheadFailure, AheadResult } from '../model/stepmodel';

/** How long a request may wait for its answer before the page draws the step itself. */
const ANSWER_WAIT_MS = 2000;

export class AheadWorker {
  private worker: Worker | null;
  private readonly url: string | null;
  private requests = 0;
  private readonly waiting = new Map<number, (result: AheadResult | null) => void>();

  private constructor(worker: Worker, url: string) {
    this.worker = worker;
    this.url = url;
    worker.onmessage = (event: MessageEvent<AheadResult | AheadFailure>) => this.answer(event.data);
    worker.onerror = () => this.dispose();
  }

  /** A worker holding `data` (a trace), or null where none can start. */
  static start(data: unknown): AheadWorker | null {
    if (workerCode === '' || typeof Worker === 'undefined' || typeof Blob === 'undefined' || typeof URL.createObjectURL !== 'function') {
      return null;
    }
    let url: string | null = null;
    try {
      url = URL.createObjectURL(new Blob([workerCode], { type: 'text/javascript' }));
      const ahead = new AheadWorker(new Worker(url), url);
      ahead.post({ kind: 'trace', data });
      return ahead;
    } catch {
      if (url !== null) {
        URL.revokeObjectURL(url);
      }
      return null;
    }
  }

  /** Whether the worker still answers. */
  get alive(): boolean {
    return this.worker !== null;
  }

  /** `step`'s graph and frames laid out with `memory`, or null (the page lays it out itself). */
  lay(step: number, memory: LayoutMemory): Promise<AheadResult | null> {
    if (this.worker === null) {
      return Promise.resolve(null);
    }
    const id = ++this.requests;
    return new Promise(resolve => {
      const timer = setTimeout(() => this.settle(id, null), ANSWER_WAIT_MS);
      this.waiting.set(id, result => {
        clearTimeout(timer);
        resolve(result);
      });
      if (!this.post({ kind: 'lay', id, step, memory })) {
        this.settle(id, null);
      }
    });
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    if (this.url !== null) {
      URL.revokeObjectURL(this.url);
    }
    for (const id of [...this.waiting.keys()]) {
      this.settle(id, null);
    }
  }

  private post(message: AheadMessage): boolean {
    try {
      this.worker?.postMessage(message);
      return this.worker !== null;
    } catch {
      return false; // data a worker cannot receive: the page keeps the work
    }
  }

  private answer(result: AheadResult | AheadFailure): void {
    this.settle(result.id, 'error' in result ? null : result);
  }

  private settle(id: number, result: AheadResult | null): void {
    const done = this.waiting.get(id);
    this.waiting.delete(id);
    done?.(result);
  }
}
