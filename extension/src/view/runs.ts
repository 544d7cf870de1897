/**
 * The Runs section: the kernel runs recorded in the trace (`passviz run|bisect
 * --record`, the run panel), each step's latest verdict, and a mark on the
 * timeline rows of the steps that ran: ✓ same as the initial IR, ✗ differs,
 * ! the run failed; the step a bisect found as the first that differs is
 * marked ⚑ and named at the top.  Clicking a run goes to its step.
 */

import type { RunRecord } from '../schema';
import { clear, el } from './dom';

/** The mark of each verdict, on run rows, timeline rows and the run panel. */
export const VERDICT_MARK: Record<string, string> = { same: '✓', differs: '✗', error: '!' };

/** A value of a run record as text: numbers short, anything else as it is. */
function show(value: number | string | boolean | undefined): string {
  return typeof value === 'number' ? String(Number(value.toPrecision(6))) : String(value);
}

/** One line about a run: verdict, back end, error, elements, time. */
export function runSummary(run: RunRecord): string {
  return [run.verdict, runDetails(run)].join(', ');
}

/** `runSummary` without the verdict: back end, error, elements, time. */
export function runDetails(run: RunRecord): string {
  const parts: string[] = [run.backend];
  if (run.max_error !== undefined) {
    parts.push(`max error ${show(run.max_error)}`);
  }
  if (run.count !== undefined) {
    parts.push(`${run.count} element${run.count === 1 ? '' : 's'} differ`);
  }
  if (run.time_ms !== undefined) {
    parts.push(`${show(run.time_ms)} ms`);
  }
  if (run.gbps !== undefined) {
    parts.push(`${show(run.gbps)} GB/s`);
  }
  return parts.join(', ');
}

/** The differing elements of a run, one line each: `out[3]: expected 1, got -1`. */
export function differenceLines(run: RunRecord): string[] {
  return (run.differences ?? []).map(d => `${d.buffer}[${d.index}]: expected ${show(d.expected)}, got ${show(d.got)}`);
}

/**
 * The step the latest bisect of `runs` found as the first that differs, if
 * any.  A bisect's records start with the initial IR's run: reaching it
 * without a `first` means that bisect found none (an older bisect's find is stale).
 */
function bisectFound(runs: RunRecord[]): number | null {
  for (let i = runs.length - 1; i >= 0; i -= 1) {
    const run = runs[i];
    if (run.origin !== 'bisect') {
      continue;
    }
    if (run.first) {
      return run.step;
    }
    if (run.step === -1) {
      return null;
    }
  }
  return null;
}

/** Each step's latest run in `runs`, by step (-1: the initial IR). */
function latestByStep(runs: RunRecord[]): Map<number, RunRecord> {
  const byStep = new Map<number, RunRecord>();
  for (const run of runs) {
    byStep.set(run.step, run);
  }
  return byStep;
}

export class RunsPane {
  readonly node: HTMLElement;
  private runs: RunRecord[] = [];
  /** Each step's latest run: read again each time the timeline redraws its rows. */
  private latest = new Map<number, RunRecord>();
  /** The step the latest bisect found as the first that differs, if any. */
  private foundStep: number | null = null;
  private list: HTMLElement | null = null;
  private observer: MutationObserver | null = null;

  constructor(private readonly onPick: (step: number) => void) {
    this.node = el('div', { className: 'pv-runs', attrs: { 'aria-label': 'kernel runs' } });
    this.node.hidden = true;
    this.node.addEventListener('click', this.onClick);
  }

  /** The step the latest bisect found as the first that differs, if any. */
  get found(): number | null {
    return this.foundStep;
  }

  /** Show `runs`, and mark the rows of `list` (the timeline's) that ran, now and as it redraws. */
  show(runs: RunRecord[], list: HTMLElement | null = this.list): void {
    this.runs = runs;
    this.latest = latestByStep(runs);
    this.foundStep = bisectFound(runs);
    if (list !== this.list) {
      this.observer?.disconnect();
      this.list = list;
      if (list && typeof MutationObserver !== 'undefined') {
        this.observer = new MutationObserver(() => this.markRows());
        this.observer.observe(list, { childList: true, subtree: true });
      }
    }
    this.draw();
    this.markRows();
  }

  private draw(): void {
    clear(this.node);
    this.node.hidden = this.runs.length === 0;
    if (this.runs.length === 0) {
      return;
    }
    const found = this.found;
    const title = el('div', { className: 'pv-runs-title' }, [
      el('span', { text: `Runs (${this.runs.length})` }),
      found === null
        ? null
        : el('button', {
            className: 'pv-link pv-run-found',
            text: found < 0 ? '⚑ the initial IR' : `⚑ first differing: step ${found}`,
            title: 'the first step whose outputs differ from the initial IR’s, found by bisect',
            attrs: { 'data-step': String(found) }
          })
    ]);
    const items = [...this.latest.values()].sort((a, b) => a.step - b.step);
    const rows = items.map(run => {
      const where = run.step < 0 ? 'initial IR' : `step ${run.step}`;
      const tip = [runSummary(run), `inputs ${run.inputs}`, run.spec ?? '', run.message ?? '', ...differenceLines(run)]
        .filter(t => t !== '')
        .join('\n');
      // The step bisect found keeps its ⚑ when a later run of it (the run panel's) is the latest.
      const first = run.step === found;
      return el(
        'div',
        {
          className: `pv-run pv-run-${run.verdict}${first ? ' pv-run-first' : ''}`,
          title: tip,
          attrs: { 'data-step': String(run.step), role: 'button' }
        },
        [
          el('span', { className: 'pv-run-mark', text: first ? '⚑' : VERDICT_MARK[run.verdict] ?? '?' }),
          el('span', { className: 'pv-run-step', text: where }),
          el('span', { className: 'pv-run-summary', text: runSummary(run) })
        ]
      );
    });
    this.node.append(title, el('div', { className: 'pv-run-list' }, rows));
  }

  /** Put each step's verdict on its timeline row. */
  private markRows(): void {
    const list = this.list;
    if (!list) {
      return;
    }
    const latest = this.latest;
    const found = this.found;
    for (const row of Array.from(list.querySelectorAll<HTMLElement>('.pv-step'))) {
      const step = Number(row.dataset.step);
      const run = latest.get(step);
      const text = run === undefined ? '' : step === found ? '⚑' : VERDICT_MARK[run.verdict] ?? '';
      const cell = row.querySelector<HTMLElement>(':scope > .pv-step-index') ?? row;
      let mark = cell.querySelector<HTMLElement>(':scope > .pv-row-run');
      if (text === '') {
        mark?.remove();
        continue;
      }
      const className = `pv-row-run pv-run-${run!.verdict}${step === found ? ' pv-run-first' : ''}`;
      if (mark && mark.textContent === text && mark.className === className) {
        continue;
      }
      // Only the mark changes: the observer sees this and returns at once (nothing left to change).
      mark ??= cell.insertBefore(el('span', {}), cell.firstChild);
      mark.className = className;
      mark.textContent = text;
      mark.title = `run: ${runSummary(run!)}`;
    }
  }

  private onClick = (event: MouseEvent): void => {
    const target = (event.target as HTMLElement).closest<HTMLElement>('[data-step]');
    if (target?.dataset.step !== undefined) {
      this.onPick(Number(target.dataset.step));
    }
  };

  dispose(): void {
    this.observer?.disconnect();
    this.observer = null;
    this.node.removeEventListener('click', this.onClick);
  }
}
