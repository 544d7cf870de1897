/**
 * How a trace asks to be shown: the `view` a notebook output or page carries
 * next to the trace's records (`passviz.widget.Stepper`'s options).  It comes
 * from untrusted data, so every field is checked and anything odd is dropped.
 */

import type { ViewerOptions } from './viewer';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The longest search text taken from a view. */
const MAX_SEARCH = 200;

/** The viewer options in `data.view` (the MIME data or a widget's `view`), as far as they are valid. */
export function readViewOptions(data: unknown): ViewerOptions {
  const view = isObject(data) ? data.view : undefined;
  if (!isObject(view)) {
    return {};
  }
  const options: ViewerOptions = {};
  if (typeof view.step === 'number' && Number.isInteger(view.step)) {
    options.step = view.step;
  }
  if (typeof view.selected === 'string' && /^o[0-9]+$/.test(view.selected)) {
    options.selected = view.selected;
  }
  if (isObject(view.edges)) {
    const edges: ViewerOptions['edges'] = {};
    for (const key of ['use', 'branch'] as const) {
      if (typeof view.edges[key] === 'boolean') {
        edges[key] = view.edges[key] as boolean;
      }
    }
    options.edges = edges;
  }
  if (isObject(view.filter)) {
    const filter: ViewerOptions['filter'] = {};
    for (const key of ['changedOnly', 'hideBookkeeping'] as const) {
      if (typeof view.filter[key] === 'boolean') {
        filter[key] = view.filter[key] as boolean;
      }
    }
    if (typeof view.filter.search === 'string') {
      filter.search = view.filter.search.slice(0, MAX_SEARCH);
    }
    options.filter = filter;
  }
  if (Array.isArray(view.steps) && view.steps.every(s => typeof s === 'number' && Number.isInteger(s))) {
    options.steps = view.steps as number[];
  }
  return options;
}
