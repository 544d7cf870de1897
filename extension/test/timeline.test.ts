/**
 * The timeline (`src/view/timeline.ts`) in jsdom: one row per step under its
 * pass, a click picking the step, the filters and the search, and the bar of
 * flagged steps.
 */

import type { StepRecord, TraceRecord } from '../src/schema';
import { Trace } from '../src/model/trace';
import { Timeline } from '../src/view/timeline';
import { header, records } from './fixture';
import { FORM, regionTrace } from './regionfixture';


function timeline(trace: Trace, picked: number[] = []): Timeline {
  const made = new Timeline(trace, step => picked.push(step));
  document.body.replaceChildren(made.node);
  return made;
}

const rows = (t: Timeline): HTMLElement[] => [...t.node.querySelectorAll<HTMLElement>('.pv-step')];
const shown = (t: Timeline): string[] => rows(t).filter(r => !r.hidden).map(r => r.dataset.step!);

test('one row per step, and one for the initial IR, under the pass that made it', () => {
  const trace = Trace.from(regionTrace());
  const t = timeline(trace);
  expect(rows(t).map(r => r.dataset.step)).toEqual(['-1', '0', '1', '2', '3', '4', '5']);
  expect(rows(t).map(r => r.querySelector('.pv-step-name')!.textContent)).toEqual([
    'initial IR',
    ...[0, 1, 2, 3, 4, 5].map(i => trace.label(i))
  ]);
  expect(rows(t)[2].querySelector('.pv-step-name')!.textContent).toBe('WrapInDispatchRegion: dispatch 0');
  const groups = [...t.node.querySelectorAll('.pv-group')].map(g => [
    g.querySelector('.pv-group-title')!.textContent,
    [...g.querySelectorAll<HTMLElement>('.pv-step')].map(r => r.dataset.step)
  ]);
  expect(groups).toEqual([
    [`${FORM} 4 steps`, ['0', '1', '2', '3']],
    ['cse 2 steps', ['4', '5']]
  ]);
  expect(t.visibleSteps()).toEqual([-1, 0, 1, 2, 3, 4, 5]);
  expect(t.node.querySelector('.pv-count')!.textContent).toBe('6 of 6 steps');
  expect(t.node.querySelector('.pv-failures')).toBeNull();
});

test('a click on a row picks its step; the current step is marked', () => {
  const picked: number[] = [];
  const t = timeline(Trace.from(regionTrace()), picked);
  rows(t)[3].querySelector<HTMLElement>('.pv-step-name')!.click();
  expect(picked).toEqual([2]);
  t.setCurrent(2);
  t.setCurrent(1);
  expect([...t.node.querySelectorAll<HTMLElement>('.pv-current')].map(r => r.dataset.step)).toEqual(['1']);
});

test('the filters and the search choose the rows shown, and the steps the viewer steps through', () => {
  const t = timeline(Trace.from(regionTrace()));
  t.setFilter({ changedOnly: true });
  expect(t.visibleSteps()).toEqual([-1, 1, 2]);
  expect(shown(t)).toEqual(['-1', '1', '2']);
  expect(t.node.querySelector('.pv-count')!.textContent).toBe('2 of 6 steps');
  t.setFilter({ changedOnly: false, search: 'MoveInto' });
  expect(t.visibleSteps()).toEqual([-1, 2]);
  expect(t.filter()).toEqual({ changedOnly: false, hideBookkeeping: false, search: 'MoveInto' });
  // Escape in the search box clears it.
  t.search.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
  expect(t.visibleSteps()).toEqual([-1, 0, 1, 2, 3, 4, 5]);
  // A pass whose steps are all filtered out hides its group.
  t.restrict([1, 2]);
  expect(t.visibleSteps()).toEqual([-1, 1, 2]);
  expect([...t.node.querySelectorAll<HTMLElement>('.pv-group')].map(g => g.hidden)).toEqual([false, true]);
  expect(t.node.querySelector('.pv-count')!.textContent).toBe('2 of 6 steps (2 chosen in Python)');
});

test('flagged steps are listed above the steps, each a link to its step', () => {
  const picked: number[] = [];
  const t = timeline(new Trace(records()), picked);
  const bar = t.node.querySelector('.pv-failures')!;
  expect(bar.getAttribute('role')).toBe('alert');
  expect(bar.textContent).toBe('⚠ 1 flagged step: step 3 (exception)');
  expect(bar.querySelector('img')).toBeNull(); // the flag's message is text
  bar.querySelector<HTMLElement>('.pv-failure-link')!.click();
  expect(picked).toEqual([3]);
  expect(rows(t).find(r => r.dataset.step === '3')!.classList.contains('pv-flagged')).toBe(true);
});

test('runs of one pattern on one kind of op fold into one row with a count, which a click opens', () => {
  const same = (index: number, root: string): StepRecord => ({ index, kind: 'rewrite', name: 'SwapOperands', root });
  const list: TraceRecord[] = [
    header(),
    { index: 0, kind: 'pass-begin', pass: 'test-pass', pass_index: 0 },
    same(1, 'o2'),
    same(2, 'o2'),
    same(3, 'o2'),
    same(4, 'o2'),
    { index: 5, kind: 'rewrite', name: 'SwapOperands', root: 'o3' },
    same(6, 'o2'),
    same(7, 'o2'),
    { index: 8, kind: 'pass-end', pass: 'test-pass', pass_index: 0 },
    { record: 'end', status: 'ok', steps: 9 }
  ];
  const t = timeline(new Trace(list));
  const folds = [...t.node.querySelectorAll<HTMLElement>('.pv-fold')];
  // Four on arith.addi (o2) fold; the one on func.return (o3) stands alone, and so do the two after it.
  expect(folds.map(f => f.textContent)).toEqual(['▸ 4 × SwapOperands on arith.addi']);
  expect(shown(t)).toEqual(['-1', '0', '5', '6', '7', '8']);
  folds[0].click();
  expect(t.node.querySelector<HTMLElement>('.pv-fold')!.textContent).toBe('▾ 4 × SwapOperands on arith.addi');
  expect(shown(t)).toEqual(['-1', '0', '1', '2', '3', '4', '5', '6', '7', '8']);
});
