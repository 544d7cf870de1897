/**
 * The viewer on a standalone, offline HTML page (`passviz export --html`):
 * reads the trace embedded in `<script type="application/json"
 * id="passviz-trace">` and mounts the viewer in `#passviz-root`.  The step
 * shown is kept in the page's address (`#step=N`), so a reload or a shared
 * link opens the same step.
 */

import { afterNextPaint } from './view/dom';
import { readViewOptions } from './view/options';
import { TraceViewer } from './view/viewer';

function stepFromHash(): number | undefined {
  const match = /step=(-?[0-9]+)/.exec(window.location.hash);
  return match ? Number(match[1]) : undefined;
}

export function boot(): TraceViewer | null {
  const script = document.getElementById('passviz-trace');
  const root = document.getElementById('passviz-root');
  if (!script || !root) {
    return null;
  }
  let data: unknown;
  try {
    data = JSON.parse(script.textContent ?? '');
  } catch (error) {
    data = null;
  }
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

export { TraceViewer };

// The page's viewer, for tools and tests.
(window as unknown as { passvizViewer: TraceViewer | null }).passvizViewer =
  document.readyState === 'loading' ? null : boot();
if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => {
    (window as unknown as { passvizViewer: TraceViewer | null }).passvizViewer = boot();
  });
}
