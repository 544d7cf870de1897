/**
 * Run records: the model reads them after the end record (a cut one is
 * dropped like any cut last line), and the Runs section lists each step's
 * latest verdict, marks the timeline rows and names the step bisect found.
 */

import { Trace, TraceError } from '../src/model/trace';
import type { RunRecord, TraceRecord } from '../src/schema';
import { differenceLines, runSummary, RunsPane } from '../src/view/runs';
import { records } from './fixture';

function run(step: number, verdict: RunRecord['verdict'], extra: Partial<RunRecord> = {}): RunRecord {
  return { record: 'run', step, backend: 'cpu', inputs: '0123456789abcdef', verdict, origin: 'bisect', ...extra };
}

const RUNS: RunRecord[] = [
  run(-1, 'same'),
  run(1, 'same', { max_error: 0 }),
  run(2, 'differs', {
    first: true,
    max_error: 2.5,
    count: 3,
    differences: [{ buffer: 'out', index: 0, expected: 1, got: 'nan' }]
  }),
  run(3, 'error', { message: 'tt.load: out of bounds' })
];

function withRuns(runs: RunRecord[] = RUNS): TraceRecord[] {
  return [...records(), ...runs];
}

describe('run records in the model', () => {
  test('follow the end record and leave the steps and status alone', () => {
    const plain = new Trace(records());
    const trace = new Trace(withRuns());
    expect(trace.steps.length).toBe(plain.steps.length);
    expect(trace.status).toBe(plain.status);
    expect(trace.runs.map(r => [r.step, r.verdict])).toEqual([[-1, 'same'], [1, 'same'], [2, 'differs'], [3, 'error']]);
  });

  test('follow the last step of a trace without an end record', () => {
    const cut = records().slice(0, -1);
    const trace = new Trace([...cut, run(0, 'same')]);
    expect(trace.status).toBe('incomplete');
    expect(trace.steps.length).toBe(cut.length - 1);
    expect(trace.runs.length).toBe(1);
  });

  test('a file cut inside a run record opens with every step and the runs before the cut', () => {
    const text = withRuns().map(r => JSON.stringify(r)).join('\n') + '\n';
    const trace = Trace.from(text.slice(0, text.length - 15));
    expect(trace.steps.length).toBe(5);
    expect(trace.status).toBe('failed');
    expect(trace.runs.length).toBe(3);
  });

  test('a run of a step the trace lacks, or without a verdict, is refused', () => {
    expect(() => new Trace(withRuns([run(9, 'same')]))).toThrow(TraceError);
    expect(() => new Trace(withRuns([{ ...run(1, 'same'), verdict: 'maybe' } as unknown as RunRecord]))).toThrow(
      /no verdict/
    );
    // The error names the record (the header is record 0), as a bad step record's does.
    expect(() => new Trace(withRuns([run(0, 'same'), run(9, 'same')]))).toThrow(
      `record ${records().length + 1}: a run record names step 9`
    );
  });
});

describe('the Runs section', () => {
  function timelineRows(): HTMLElement {
    const list = document.createElement('div');
    for (let step = -1; step < 5; step += 1) {
      const row = document.createElement('div');
      row.className = 'pv-step';
      row.dataset.step = String(step);
      const index = document.createElement('span');
      index.className = 'pv-step-index';
      index.textContent = String(step);
      row.appendChild(index);
      list.appendChild(row);
    }
    return list;
  }

  test('lists each step once, marks rows, and names the step bisect found', () => {
    const picked: number[] = [];
    const pane = new RunsPane(step => picked.push(step));
    const list = timelineRows();
    pane.show([...RUNS, run(3, 'same'), run(2, 'differs', { origin: 'run' })], list);
    expect(pane.node.hidden).toBe(false);
    expect(pane.found).toBe(2);
    const items = Array.from(pane.node.querySelectorAll<HTMLElement>('.pv-run'));
    expect(items.map(i => [i.dataset.step, i.className])).toEqual([
      ['-1', 'pv-run pv-run-same'],
      ['1', 'pv-run pv-run-same'],
      ['2', 'pv-run pv-run-differs pv-run-first'],
      ['3', 'pv-run pv-run-same']
    ]);
    const marks = Array.from(list.querySelectorAll<HTMLElement>('.pv-row-run')).map(m => [
      m.closest<HTMLElement>('.pv-step')!.dataset.step,
      m.textContent
    ]);
    expect(marks).toEqual([['-1', '✓'], ['1', '✓'], ['2', '⚑'], ['3', '✓']]);
    pane.node.querySelector<HTMLElement>('.pv-run-found')!.click();
    items[0].click();
    expect(picked).toEqual([2, -1]);
    pane.dispose();
  });

  test('a later bisect that finds nothing clears the find', () => {
    const pane = new RunsPane(() => undefined);
    const list = timelineRows();
    pane.show([...RUNS, run(-1, 'same'), run(4, 'same')], list);
    expect(pane.found).toBeNull();
    expect(list.querySelector('.pv-run-first')).toBeNull();
    expect(pane.node.querySelector('.pv-run-found')).toBeNull();
  });

  test('is hidden without runs, and says what differs', () => {
    const pane = new RunsPane(() => undefined);
    pane.show([], timelineRows());
    expect(pane.node.hidden).toBe(true);
    expect(runSummary(RUNS[2])).toBe('differs, cpu, max error 2.5, 3 elements differ');
    expect(differenceLines(RUNS[2])).toEqual(['out[0]: expected 1, got nan']);
    expect(runSummary(run(0, 'same', { backend: 'gpu', time_ms: 0.0123456789, gbps: 2400 }))).toBe(
      'same, gpu, 0.0123457 ms, 2400 GB/s'
    );
  });
});
