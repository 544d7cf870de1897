/**
 * The widget's run panel without a kernel: what it asks for, how it shows
 * progress, and what it makes of the kernel's replies.
 */

import type { RunRecord } from '../src/schema';
import { RunPanel, type PanelRequest } from '../src/view/runpanel';

const FOUND: RunRecord = {
  record: 'run',
  step: 3,
  backend: 'cpu',
  inputs: '0123456789abcdef',
  verdict: 'differs',
  origin: 'bisect',
  first: true,
  max_error: 14.3586,
  count: 1000,
  differences: [{ buffer: 'out', index: 0, expected: -0.5, got: 0.5 }]
};

test('asks for inputs once, runs at the viewer step, shows progress, verdict and the found step', () => {
  const sent: PanelRequest[] = [];
  const visited: number[] = [];
  const panel = new RunPanel(r => sent.push(r), () => 5, step => visited.push(step));
  panel.open();
  panel.open();
  expect(sent).toEqual([{ action: 'inputs' }]);
  panel.handle({ event: 'inputs', action: 'inputs', inputs: '--arg x=64:f32\n--grid 1\n--seed 0' });
  const text = panel.node.querySelector<HTMLTextAreaElement>('.pv-run-inputs')!;
  expect(text.value).toBe('--arg x=64:f32\n--grid 1\n--seed 0');
  text.value = '--arg x=8:f32';
  panel.node.querySelector<HTMLButtonElement>('.pv-run-cpu')!.click();
  expect(sent[1]).toEqual({ action: 'run', step: 5, inputs: '--arg x=8:f32' });
  expect(panel.running).toBe(true);
  expect(panel.node.querySelector<HTMLButtonElement>('.pv-run-bisect')!.disabled).toBe(true);
  panel.handle({ event: 'progress', action: 'run', message: 'running step 5' });
  expect(panel.node.querySelector('.pv-run-status')!.textContent).toBe('running step 5');
  panel.handle({ event: 'error', action: 'run', message: 'inputs: unknown element type' });
  expect(panel.running).toBe(false);
  expect(panel.node.querySelector('.pv-run-error')!.textContent).toBe('inputs: unknown element type');
  panel.node.querySelector<HTMLButtonElement>('.pv-run-bisect')!.click();
  expect(sent[2]).toEqual({ action: 'bisect', inputs: '--arg x=8:f32' });
  panel.handle({ event: 'result', action: 'bisect', records: [FOUND], lines: ['first differing step: 3'], found: 3 });
  expect(panel.running).toBe(false);
  expect(panel.node.querySelector('.pv-run-verdict')!.textContent).toBe(
    '✗ differs · step 3 · cpu, max error 14.3586, 1000 elements differ'
  );
  expect(panel.node.querySelector('.pv-run-differences')!.textContent).toBe('out[0]: expected -0.5, got 0.5');
  panel.node.querySelector<HTMLButtonElement>('.pv-run-goto')!.click();
  expect(visited).toEqual([3]);
  panel.dispose();
});
