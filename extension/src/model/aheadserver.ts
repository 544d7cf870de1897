/**
 * The worker side of laying steps out ahead: it keeps its own copy of the
 * trace and answers each `AheadRequest` with the step's graph and frames.
 * A function of the scope it serves, so that tests drive it without a thread.
 */

import { StructureLayout } from './layout';
import { layAhead, StepModel, type AheadRequest } from './stepmodel';
import { Trace } from './trace';

/** What the page posts to the worker: the trace once, then requests. */
export type AheadMessage = { kind: 'trace'; data: unknown } | ({ kind: 'lay' } & AheadRequest);

/** The part of a worker's global scope the server uses. */
export interface AheadScope {
  onmessage: ((event: { data: AheadMessage }) => void) | null;
  postMessage(message: unknown): void;
}

/** Answer the page's messages on `scope`. */
export function serveAhead(scope: AheadScope): void {
  let model: StepModel | null = null;
  let unreadable = 'no trace yet';
  const leaves = new StructureLayout();
  scope.onmessage = event => {
    const message = event.data;
    if (message.kind === 'trace') {
      try {
        model = new StepModel(Trace.from(message.data));
      } catch (error) {
        model = null;
        unreadable = error instanceof Error ? error.message : String(error);
      }
      return;
    }
    if (model === null) {
      scope.postMessage({ id: message.id, step: message.step, error: unreadable });
      return;
    }
    scope.postMessage(layAhead(model, leaves, message));
  };
}
