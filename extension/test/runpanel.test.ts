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

test('the GPU button says why it is disabled, runs at the viewer step when enabled, and shows time and GB/s', () => {
  const sent: PanelRequest[] = [];
  const panel = new RunPanel(r => sent.push(r), () => 2, () => undefined);
  const gpu = panel.node.querySelector<HTMLButtonElement>('.pv-run-gpu')!;
  expect(gpu.textContent).toBe('Run on GPU at this step');
  panel.setGpu('running on the GPU needs pycuda: pip install passviz[cuda]');
  expect(gpu.disabled).toBe(true);
  expect(gpu.title).toBe('unavailable: running on the GPU needs pycuda: pip install passviz[cuda]');
  panel.setGpu(null);
  expect(gpu.disabled).toBe(false);
  gpu.click();
  expect(sent).toEqual([{ action: 'run-gpu', step: 2, inputs: '' }]);
  expect(gpu.disabled).toBe(true);
  const run: RunRecord = {
    record: 'run',
    step: 2,
    backend: 'gpu',
    inputs: '0123456789abcdef',
    verdict: 'same',
    origin: 'run',
    max_error: 0,
    device: 'NVIDIA H100',
    time_ms: 0.0125,
    gbps: 1007.5
  };
  panel.handle({ event: 'result', action: 'run-gpu', records: [run], lines: ['step 2 on the GPU, grid 4: same'], found: null });
  expect(gpu.disabled).toBe(false);
  expect(panel.node.querySelector('.pv-run-verdict')!.textContent).toBe(
    '✓ same · step 2 on NVIDIA H100 · gpu, max error 0, 0.0125 ms, 1007.5 GB/s'
  );
  expect(panel.node.querySelector('.pv-run-log summary')!.textContent).toBe('GPU run');
  panel.dispose();
});
