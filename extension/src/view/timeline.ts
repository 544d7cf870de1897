/**
 * The timeline: passes as groups holding their rewrites and checkpoints, a
 * filter that hides steps which changed nothing, a search by pattern or pass
 * name, and failures marked where they happened and listed at the top.
 */

import type { StepRecord } from '../schema';
import { stepChanged, stepCounts, type Trace } from '../model/trace';
import { clear, el, scrollWithin } from './dom';

export interface TimelineFilter {
  changedOnly: boolean;
  search: string;
}

/** Does `step` pass `filter`?  Flagged steps always do: a failure that changed nothing is still news. */
export function stepMatches(step: StepRecord, pass: string, filter: TimelineFilter): boolean {
  if (filter.changedOnly && !stepChanged(step) && step.flag === undefined) {
    return false;
  }
  const needle = filter.search.trim().toLowerCase();
  if (needle === '') {
    return true;
  }
  return (step.name ?? '').toLowerCase().includes(needle) || pass.toLowerCase().includes(needle);
}

const KIND_MARK: Record<string, string> = {
  'pass-begin': '▸',
  'pass-end': '◂',
  rewrite: '↻',
  checkpoint: '◆',
  failure: '⚠'
};

export class Timeline {
  readonly node: HTMLElement;
  readonly search: HTMLInputElement;
  private readonly changedOnly: HTMLInputElement;
  private readonly rows = new Map<number, HTMLElement>();
  private readonly groups: Array<{ node: HTMLDetailsElement; steps: number[]; pass: string }> = [];
  private readonly list: HTMLElement;
  private readonly count: HTMLElement;
  private current: HTMLElement | null = null;

  constructor(
    private readonly trace: Trace,
    private readonly onPick: (step: number) => void
  ) {
    this.search = el('input', {
      className: 'pv-search',
      attrs: { type: 'search', placeholder: 'search pattern or pass  ( / )', 'aria-label': 'search steps' }
    });
    this.changedOnly = el('input', { attrs: { type: 'checkbox', 'aria-label': 'hide steps that changed nothing' } });
    this.count = el('span', { className: 'pv-count' });
    this.list = el('div', { className: 'pv-steps', attrs: { role: 'list' } });
    const controls = el('div', { className: 'pv-timeline-controls' }, [
      this.search,
      el('label', { className: 'pv-check' }, [this.changedOnly, el('span', { text: ' hide unchanged' })]),
      this.count
    ]);
    this.node = el('div', { className: 'pv-timeline' }, [controls, this.failureBar(), this.list]);
    this.build();
    this.search.addEventListener('input', this.applyFilter);
    this.changedOnly.addEventListener('change', this.applyFilter);
  }

  dispose(): void {
    this.search.removeEventListener('input', this.applyFilter);
    this.changedOnly.removeEventListener('change', this.applyFilter);
  }

  /** Show `step` as the current one. */
  setCurrent(step: number): void {
    this.current?.classList.remove('pv-current');
    this.current = this.rows.get(step) ?? null;
    if (this.current) {
      this.current.classList.add('pv-current');
      const group = this.current.closest('details');
      if (group && !group.open) {
        group.open = true;
      }
      scrollWithin(this.list, this.current);
    }
  }

  /** The steps the filter shows, in order (the initial IR, -1, always). */
  visibleSteps(): number[] {
    const filter = this.filter();
    const visible = [-1];
    for (const group of this.groups) {
      for (const index of group.steps) {
        if (stepMatches(this.trace.steps[index], group.pass, filter)) {
          visible.push(index);
        }
      }
    }
    return visible;
  }

  setFilter(filter: Partial<TimelineFilter>): void {
    if (filter.search !== undefined) {
      this.search.value = filter.search;
    }
    if (filter.changedOnly !== undefined) {
      this.changedOnly.checked = filter.changedOnly;
    }
    this.applyFilter();
  }

  filter(): TimelineFilter {
    return { changedOnly: this.changedOnly.checked, search: this.search.value };
  }

  private failureBar(): HTMLElement | null {
    const failures = this.trace.failures;
    if (failures.length === 0) {
      return null;
    }
    const bar = el('div', { className: 'pv-failures', attrs: { role: 'alert' } }, [
      el('span', { text: `⚠ ${failures.length} flagged step${failures.length > 1 ? 's' : ''}: ` })
    ]);
    for (const step of failures) {
      const link = el('button', {
        className: 'pv-failure-link',
        text: `step ${step.index} (${step.flag!.kind})`,
        title: step.flag!.message
      });
      link.addEventListener('click', () => this.onPick(step.index));
      bar.appendChild(link);
    }
    return bar;
  }

  private row(step: StepRecord | null): HTMLElement {
    const index = step?.index ?? -1;
    const flagged = step?.flag !== undefined && step !== null;
    const row = el(
      'div',
      {
        className: `pv-step pv-kind-${step?.kind ?? 'initial'}${flagged ? ' pv-flagged' : ''}`,
        attrs: { role: 'listitem', 'data-step': String(index) },
        title: flagged ? `${step!.flag!.kind}: ${step!.flag!.message}` : ''
      },
      [
        el('span', { className: 'pv-step-index', text: index < 0 ? '·' : String(index) }),
        el('span', { className: 'pv-step-mark', text: step ? (flagged ? '⚠' : KIND_MARK[step.kind] ?? '') : '○' }),
        el('span', { className: 'pv-step-name', text: step ? step.name ?? step.kind : 'initial IR' }),
        el('span', { className: 'pv-step-counts', text: step && stepChanged(step) ? stepCounts(step) : '' })
      ]
    );
    row.addEventListener('click', () => this.onPick(index));
    this.rows.set(index, row);
    return row;
  }

  private build(): void {
    clear(this.list);
    this.list.appendChild(this.row(null));
    for (const group of this.trace.groups) {
      const flagged = group.flagged ? ' ⚠' : '';
      const summary = el('summary', { className: 'pv-group-title' }, [
        el('span', { text: `${group.name}${flagged}` }),
        el('span', { className: 'pv-group-size', text: ` ${group.steps.length} steps` })
      ]);
      const details = el('details', { className: `pv-group${group.flagged ? ' pv-flagged' : ''}` }, [summary]);
      details.open = this.trace.groups.length <= 12 || group.flagged;
      for (const index of group.steps) {
        details.appendChild(this.row(this.trace.steps[index]));
      }
      this.list.appendChild(details);
      this.groups.push({ node: details, steps: group.steps, pass: group.name });
    }
    this.applyFilter();
  }

  private applyFilter = (): void => {
    const filter = this.filter();
    let shown = 0;
    for (const group of this.groups) {
      let any = false;
      for (const index of group.steps) {
        const match = stepMatches(this.trace.steps[index], group.pass, filter);
        this.rows.get(index)!.hidden = !match;
        any ||= match;
        shown += match ? 1 : 0;
      }
      group.node.hidden = !any;
      if (any && filter.search.trim() !== '') {
        group.node.open = true;
      }
    }
    this.count.textContent = `${shown} of ${this.trace.steps.length} steps`;
  };
}
