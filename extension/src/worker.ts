/**
 * The entry of the worker that lays steps out ahead of the page
 * (`scripts/build-worker.mjs` bundles it into `src/generated/workercode.ts`).
 */

import { serveAhead, type AheadScope } from './model/aheadserver';

serveAhead(self as unknown as AheadScope);
