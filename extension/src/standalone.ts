/**
 * The viewer on a standalone, offline HTML page (`passviz export --html`):
 * reads the trace embedded in `<script type="application/json"
 * id="passviz-trace">` and mounts the viewer in `#passviz-root`.  The step
 * shown is kept in the page's address (`#step=N`), so a reload or a shared
 * link opens the same step.  A page holding two traces and their alignment
 * instead (`id="passviz-pair"`, `passviz diverge A B --html`) shows both side
 * by side, stepping together (`view/sidebyside.ts`).
 */

import { afterNextPaint } from './view/dom';
import { readViewOptions } from './view/options';
import { SideBySide } from './view/sidebyside';
import { TraceViewer } from './view/viewer';

function stepFromHash(): number | undefined {
  const match = /step=(-?[0-9]+)/.exec(window.location.hash);
  return match ? Number(match[1]) : undefined;
}

/** The JSON in the element `id` (null if it is not readable). */
function embedded(id: string): unknown {
  try {
    return JSON.parse(document.getElementById(id)?.textContent ?? '');
  } catch (error) {
    return null;
  }
}

/** Two traces side by side, from `#passviz-pair`; A's viewer is the page's viewer. */
function bootPair(root: HTMLElement): TraceViewer | null {
  const pair = SideBySide.mount(root, embedded('passviz-pair'));
  (window as unknown as { passvizPair: SideBySide | null }).passvizPair = pair;
  pair?.viewers[0].node.focus();
  return pair?.viewers[0] ?? null;
}

export function boot(): TraceViewer | null {
  const script = document.getElementById('passviz-trace');
  const root = document.getElementById('passviz-root');
  if (root && document.getElementById('passviz-pair')) {
    return bootPair(root);
  }
  if (!script || !root) {
    return null;
  }
  const data = embedded('passviz-trace');
  const wanted = stepFromHash();
  // The address follows the step once the step is painted, once for however
  // many steps a held key went through meanwhile: changing it costs a frame's worth.
  let shown: number | null = null;
  const showStep = (): void => {
    if (shown !== null) {
      history.replaceState(null, '', `#step=${shown}`);
      shown = null;
    }
  };
  const viewer = TraceViewer.mount(root, data, {
    ...readViewOptions(data),
    onStep: step => {
      // In a notebook's sandboxed frame (`about:srcdoc`, no origin) the address cannot change.
      if (window.location.protocol === 'about:') {
        return;
      }
      if (shown === null) {
        afterNextPaint(showStep);
      }
      shown = step;
    }
  });
  if (viewer && wanted !== undefined && wanted >= -1 && wanted < viewer.trace.steps.length) {
    void viewer.setStep(wanted);
  }
  viewer?.node.focus();
  window.addEventListener('resize', () => viewer?.resize());
  return viewer;
}

export { SideBySide, TraceViewer };

// The page's viewer, for tools and tests.
(window as unknown as { passvizViewer: TraceViewer | null }).passvizViewer =
  document.readyState === 'loading' ? null : boot();
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => {
    (window as unknown as { passvizViewer: TraceViewer | null }).passvizViewer = boot();
  });
}
