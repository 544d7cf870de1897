/**
 * The timeline: passes as groups holding their rewrites and checkpoints, each
 * step named after what it did; filters that hide steps which changed nothing
 * or only kept the books; a search by pattern, pass, op name, op id or value;
 * runs of bookkeeping steps, and of one pattern on one kind of op, folded into
 * one row with a count (a click opens it); and failures marked where
 * they happened and listed at the top.
 */

import type { StepRecord } from '../schema';
import { cut } from '../model/graph';
import { stepCounts } from '../model/steps';
import { stepChanged, type Trace } from '../model/trace';
import { clear, el, scrollWithin } from './dom';

/** The most characters of a step's name or message that a timeline row or its tooltip shows. */
const TIMELINE_TEXT = 300;

export interface TimelineFilter {
  changedOnly: boolean;
  hideBookkeeping: boolean;
  search: string;
}

/**
 * Steps that only keep the books: constants uniqued or hoisted, dead ops
 * erased, folds that changed nothing.  The greedy driver takes hundreds of
 * them on a real module, and they bury the pattern rewrites a person is
 * looking for, so runs of them fold into one row and can be hidden.
 */
const BOOKKEEPING = new Set(['unique-constant', 'hoist-constant', 'erase-dead-op']);

export function isBookkeeping(step: StepRecord): boolean {
  if (step.flag !== undefined || step.kind !== 'rewrite' || step.name === undefined) {
    return false;
  }
  return BOOKKEEPING.has(step.name) || (step.name === 'fold' && !stepChanged(step));
}

/** Runs of at least this many bookkeeping steps fold into one row. */
const FOLD_RUN = 3;

const ID_QUERY = /^%?([obrv][0-9]+)$/;

/**
 * What a search can find in a step: its pattern, pass and label, and the
 * names and ids of the ops (and their values) it created, erased, modified or
 * matched.  Ids are kept apart so that `o29` does not find `o299`.
 */
export class StepIndex {
  private readonly texts = new Map<number, string>();
  private readonly ids = new Map<number, Set<string>>();

  constructor(private readonly trace: Trace) {}

  private build(index: number): void {
    const step = this.trace.steps[index];
    const delta = step.delta ?? {};
    const ids = new Set<string>();
    const words = [step.name ?? '', this.trace.passNames[index] ?? '', this.trace.label(index)];
    const op = (id: string): void => {
      ids.add(id);
      words.push(this.trace.opNames.get(id) ?? '');
    };
    if (step.root !== undefined) {
      op(step.root);
    }
    for (const info of delta.ops_created ?? []) {
      op(info.id);
      info.results.forEach(r => ids.add(r.id));
      info.operands.forEach(v => ids.add(v));
    }
    (delta.ops_erased ?? []).forEach(op);
    for (const change of delta.ops_modified ?? []) {
      op(change.id);
      change.operands?.forEach(v => ids.add(v));
      change.results?.forEach(r => ids.add(r.id));
    }
    for (const replacement of delta.replaced ?? []) {
      for (const pair of replacement.values) {
        pair.forEach(v => v !== null && ids.add(v));
      }
    }
    this.texts.set(index, words.join('\n').toLowerCase());
    this.ids.set(index, ids);
  }

  /** Does step `index` match `query` (lower-cased, trimmed, not empty)? */
  matches(index: number, query: string): boolean {
    if (!this.texts.has(index)) {
      this.build(index);
    }
    const id = ID_QUERY.exec(query);
    if (id) {
      return this.ids.get(index)!.has(id[1]);
    }
    return this.texts.get(index)!.includes(query);
  }
}

/** Does `step` pass `filter`?  Flagged steps always pass the change filters: a failure that changed nothing is still news. */
export function stepMatches(step: StepRecord, filter: TimelineFilter, index: StepIndex): boolean {
  if (filter.changedOnly && !stepChanged(step) && step.flag === undefined) {
    return false;
  }
  if (filter.hideBookkeeping && isBookkeeping(step)) {
    return false;
  }
  const query = filter.search.trim().toLowerCase();
  return query === '' || index.matches(step.index, query);
}

const KIND_MARK: Record<string, string> = {
  'pass-begin': '▸',
  'pass-end': '◂',
  rewrite: '↻',
  checkpoint: '◆',
  failure: '⚠'
};

interface Group {
  node: HTMLDetailsElement;
  steps: number[];
}

/** A folded run of rows, the row standing for it, and what its steps did. */
interface Run {
  steps: number[];
  row: HTMLElement;
  open: boolean;
  /** `bookkeeping steps`, or the pattern and the kind of op: `× SwapAddiOperands on arith.addi`. */
  what: string;
}

/** Timeline rows per chunk laid out together. */
const CHUNK = 64;

export class Timeline {
  readonly node: HTMLElement;
  readonly search: HTMLInputElement;
  private readonly changedOnly: HTMLInputElement;
  private readonly hideBookkeeping: HTMLInputElement;
  private readonly rows = new Map<number, HTMLElement>();
  private readonly groups: Group[] = [];
  private readonly runs: Run[] = [];
  private readonly runOf = new Map<number, Run>();
  private readonly list: HTMLElement;
  private readonly count: HTMLElement;
  private readonly index: StepIndex;
  private visible: number[] = [-1];
  /** The only steps offered, when a filter chosen in Python restricts them. */
  private allowed: Set<number> | null = null;
  private current: HTMLElement | null = null;
  private currentStep = -1;

  constructor(
    private readonly trace: Trace,
    private readonly onPick: (step: number) => void
  ) {
    this.index = new StepIndex(trace);
    this.search = el('input', {
      className: 'pv-search',
      attrs: {
        type: 'search',
        placeholder: 'search pattern, pass, op, id  ( / )',
        'aria-label': 'search steps by pattern, pass, op name, op id or value'
      }
    });
    this.changedOnly = el('input', { attrs: { type: 'checkbox', 'aria-label': 'hide steps that changed nothing' } });
    this.hideBookkeeping = el('input', {
      attrs: { type: 'checkbox', 'aria-label': 'hide bookkeeping steps (unique-constant, hoist-constant, erase-dead-op, empty folds)' }
    });
    this.count = el('span', { className: 'pv-count' });
    this.list = el('div', { className: 'pv-steps', attrs: { role: 'list' } });
    const controls = el('div', { className: 'pv-timeline-controls' }, [
      this.search,
      el('label', { className: 'pv-check', title: 'hide steps that changed nothing' }, [this.changedOnly, el('span', { text: ' hide unchanged' })]),
      el('label', { className: 'pv-check', title: 'hide unique-constant, hoist-constant, erase-dead-op and folds that changed nothing' }, [
        this.hideBookkeeping,
        el('span', { text: ' hide bookkeeping' })
      ]),
      this.count
    ]);
    this.node = el('div', { className: 'pv-timeline' }, [controls, this.failureBar(), this.list]);
    this.build();
    this.search.addEventListener('input', this.applyFilter);
    this.search.addEventListener('keydown', this.onSearchKey);
    this.changedOnly.addEventListener('change', this.applyFilter);
    this.hideBookkeeping.addEventListener('change', this.applyFilter);
    this.list.addEventListener('click', this.onClick);
  }

  dispose(): void {
    this.search.removeEventListener('input', this.applyFilter);
    this.search.removeEventListener('keydown', this.onSearchKey);
    this.changedOnly.removeEventListener('change', this.applyFilter);
    this.hideBookkeeping.removeEventListener('change', this.applyFilter);
    this.list.removeEventListener('click', this.onClick);
  }

  private onSearchKey = (event: KeyboardEvent): void => {
    if (event.key === 'Escape') {
      this.search.value = '';
      this.applyFilter();
    }
  };

  private onClick = (event: MouseEvent): void => {
    const target = event.target as HTMLElement;
    const fold = target.closest<HTMLElement>('.pv-fold');
    if (fold) {
      const run = this.runs[Number(fold.dataset.run)];
      run.open = !run.open;
      this.showRuns();
      return;
    }
    const row = target.closest<HTMLElement>('.pv-step');
    if (row?.dataset.step !== undefined) {
      this.onPick(Number(row.dataset.step));
    }
  };

  /** Show `step` as the current one. */
  setCurrent(step: number): void {
    this.current?.classList.remove('pv-current');
    this.currentStep = step;
    const run = this.runOf.get(step);
    if (run && !run.open) {
      this.showRuns();
    }
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

  /** The steps the filters show, in order (the initial IR, -1, always). */
  visibleSteps(): number[] {
    return this.visible;
  }

  /** Offer only `steps` (null: every step), on top of the filters. */
  restrict(steps: number[] | null): void {
    this.allowed = steps === null ? null : new Set(steps);
    this.applyFilter();
  }

  setFilter(filter: Partial<TimelineFilter>): void {
    if (filter.search !== undefined) {
      this.search.value = filter.search;
    }
    if (filter.changedOnly !== undefined) {
      this.changedOnly.checked = filter.changedOnly;
    }
    if (filter.hideBookkeeping !== undefined) {
      this.hideBookkeeping.checked = filter.hideBookkeeping;
    }
    this.applyFilter();
  }

  filter(): TimelineFilter {
    return { changedOnly: this.changedOnly.checked, hideBookkeeping: this.hideBookkeeping.checked, search: this.search.value };
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
    const flagged = step !== null && step.flag !== undefined;
    // Names and messages come from the trace and may be any length: rows show a line's worth.
    const label = step ? cut(this.trace.label(index), TIMELINE_TEXT) : 'initial IR';
    const counts = step && stepChanged(step) ? stepCounts(step) : '';
    const pass = step ? this.trace.passNames[index] : '';
    const title = [
      `${index < 0 ? 'initial IR' : `step ${index}`}: ${label}`,
      pass ? `pass ${pass}` : '',
      counts,
      flagged ? cut(`${step!.flag!.kind}: ${step!.flag!.message}`, TIMELINE_TEXT) : ''
    ].filter(t => t !== '').join('\n');
    const row = el(
      'div',
      {
        className: `pv-step pv-kind-${step?.kind ?? 'initial'}${flagged ? ' pv-flagged' : ''}${step && isBookkeeping(step) ? ' pv-bookkeeping' : ''}`,
        attrs: { role: 'listitem', 'data-step': String(index) },
        title
      },
      [
        el('span', { className: 'pv-step-index', text: index < 0 ? '·' : String(index) }),
        el('span', { className: 'pv-step-mark', text: step ? (flagged ? '⚠' : KIND_MARK[step.kind] ?? '') : '○' }),
        el('span', { className: 'pv-step-name', text: label }),
        el('span', { className: 'pv-step-counts', text: counts })
      ]
    );
    this.rows.set(index, row);
    return row;
  }

  private build(): void {
    clear(this.list);
    this.list.appendChild(this.row(null));
    for (const group of this.trace.groups) {
      const flagged = group.flagged ? ' ⚠' : '';
      const summary = el('summary', { className: 'pv-group-title', title: group.name }, [
        el('span', { text: `${group.name}${flagged}` }),
        el('span', { className: 'pv-group-size', text: ` ${group.steps.length} steps` })
      ]);
      const details = el('details', { className: `pv-group${group.flagged ? ' pv-flagged' : ''}` }, [summary]);
      details.open = this.trace.groups.length <= 12 || group.flagged;
      // Rows go in chunks that the browser lays out only while in view (CSS
      // `content-visibility`): a chunk rather than a row, so that a long
      // timeline has a few hundred of them, not tens of thousands.
      let chunk: HTMLElement | null = null;
      group.steps.forEach((index, position) => {
        if (position % CHUNK === 0) {
          chunk = el('div', { className: 'pv-chunk' });
          details.appendChild(chunk);
        }
        chunk!.appendChild(this.row(this.trace.steps[index]));
      });
      this.list.appendChild(details);
      this.groups.push({ node: details, steps: group.steps });
    }
    this.applyFilter();
  }

  private applyFilter = (): void => {
    const filter = this.filter();
    const visible = [-1];
    for (const group of this.groups) {
      let any = false;
      for (const index of group.steps) {
        const match =
          (this.allowed === null || this.allowed.has(index)) && stepMatches(this.trace.steps[index], filter, this.index);
        this.rows.get(index)!.hidden = !match;
        if (match) {
          visible.push(index);
          any = true;
        }
      }
      group.node.hidden = !any;
      if (any && filter.search.trim() !== '') {
        group.node.open = true;
      }
    }
    this.visible = visible;
    this.foldRuns();
    const chosen = this.allowed === null ? '' : ` (${this.allowed.size} chosen in Python)`;
    this.count.textContent = `${visible.length - 1} of ${this.trace.steps.length} steps${chosen}`;
  };

  /**
   * What a step folds with: bookkeeping with bookkeeping, a pattern with the
   * same pattern on the same kind of op (117 `ReconcileUnrealizedCasts` in a
   * row read as one row); null for a step that stands alone.
   */
  private runKey(step: StepRecord): string | null {
    if (isBookkeeping(step)) {
      return 'bookkeeping steps';
    }
    if (step.kind !== 'rewrite' || step.flag !== undefined || step.name === undefined) {
      return null;
    }
    const on = step.root === undefined ? '' : this.trace.opNames.get(step.root) ?? '';
    return `× ${cut(step.name, TIMELINE_TEXT)}${on ? ` on ${on}` : ''}`;
  }

  /** Fold runs of visible steps of one kind (`runKey`) within a pass into one row each. */
  private foldRuns(): void {
    for (const run of this.runs) {
      run.row.remove();
    }
    this.runs.length = 0;
    this.runOf.clear();
    let pending: number[] = [];
    let pendingKey: string | null = null;
    const flush = (): void => {
      if (pending.length >= FOLD_RUN && pendingKey !== null) {
        const names = [...new Set(pending.map(i => this.trace.steps[i].name ?? ''))].join(', ');
        const row = el('div', {
          className: 'pv-fold',
          attrs: { role: 'listitem', 'data-run': String(this.runs.length) },
          title: `steps ${pending[0]}–${pending[pending.length - 1]}: ${names}`
        });
        const run: Run = { steps: pending, row, open: false, what: pendingKey };
        this.rows.get(pending[0])!.before(row);
        this.runs.push(run);
        for (const step of pending) {
          this.runOf.set(step, run);
        }
      }
      pending = [];
      pendingKey = null;
    };
    let previous: StepRecord | null = null;
    for (const index of this.visible) {
      const step = index >= 0 ? this.trace.steps[index] : null;
      const key = step ? this.runKey(step) : null;
      const samePass = previous !== null && step !== null && this.trace.passNames[previous.index] === this.trace.passNames[index];
      if (key === null || key !== pendingKey || !samePass) {
        flush();
      }
      if (key !== null) {
        pending.push(index);
        pendingKey = key;
      }
      previous = step;
    }
    flush();
    this.showRuns();
  }

  /** Hide the rows of closed runs (a run holding the current step opens). */
  private showRuns(): void {
    for (const run of this.runs) {
      if (run.steps.includes(this.currentStep)) {
        run.open = true;
      }
      const n = run.steps.length;
      run.row.textContent = `${run.open ? '▾' : '▸'} ${n} ${run.what}`;
      for (const step of run.steps) {
        this.rows.get(step)!.hidden = !run.open;
      }
    }
  }
}
