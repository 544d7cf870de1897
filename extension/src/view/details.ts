/**
 * The details pane: the step (kind, pass, pattern, matched op, its flag with
 * message, cycle and traceback, the pointer chain it folded) and the selected
 * op (attributes, location, enclosing ops, results and operands with types,
 * and its lineage across the trace, each event a link to its step).
 */

import type { StepRecord } from '../schema';
import { callPartners, type DispatchVocabulary } from '../model/dispatch';
import type { LineageEvent } from '../model/lineage';
import type { IRState } from '../model/state';
import { clear, clippedEl, el, SHOWN_CHARACTERS } from './dom';

function row(name: string, value: string): HTMLElement {
  return el('tr', {}, [el('th', { text: name }), el('td', {}, [clippedEl('code', value)])]);
}

function section(title: string, ...children: Array<Node | null>): HTMLElement {
  return el('section', { className: 'pv-section' }, [el('h4', { text: title }), ...children]);
}

/**
 * An attribute's value as the op's own syntax prints it.  The trace keeps
 * attributes in generic form, where an enum is its number (`0 : i32`); when
 * the op's text spells it `name = word` (`inputPrecision = tf32`), the word is
 * what a compiler person reads, with the stored form after it.
 */
export function shownValue(text: string, name: string, value: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(?:^|[\\s,{(<])${escaped} = ([A-Za-z_][\\w.]*)(?=$|[\\s,}>)])`).exec(text);
  if (!match || match[1] === value) {
    return value;
  }
  return `${match[1]}  (${value})`;
}

/** A label for an id in `state`: `o12 arith.addi`, `^b3`, `%v7`. */
export function describe(state: IRState, id: string): string {
  const op = state.ops.get(id);
  if (op) {
    return `${id} ${op.name}`;
  }
  if (state.blocks.has(id)) {
    return `^${id}`;
  }
  if (state.regions.has(id)) {
    return `${id} (region)`;
  }
  return id;
}

export class DetailsPane {
  readonly node: HTMLElement;

  constructor(
    private readonly onStep: (step: number) => void,
    private readonly onSelect: (id: string) => void,
    /** The trace's dispatch vocabulary (`meta.dispatch`): a call links to its executable. */
    private readonly dispatch: DispatchVocabulary | null = null
  ) {
    this.node = el('div', { className: 'pv-details', attrs: { 'aria-label': 'details' } });
  }

  /** Links are re-made on every render and die with their elements: nothing to remove. */
  dispose(): void {
    this.node.remove();
  }

  private link(text: string, action: () => void, title = ''): HTMLElement {
    const button = el('button', { className: 'pv-link', text, title });
    button.addEventListener('click', action);
    return button;
  }

  /** Show the step and, if any, the selected node as it is at this step (or was, if erased). */
  render(
    step: StepRecord | null,
    pass: string,
    state: IRState,
    before: IRState,
    selected: string | null,
    history: LineageEvent[]
  ): void {
    clear(this.node);
    this.node.appendChild(this.stepSection(step, pass, state, before));
    if (selected !== null) {
      this.node.appendChild(this.selectedSection(selected, state.ops.has(selected) ? state : before, history));
    }
  }

  private stepSection(step: StepRecord | null, pass: string, state: IRState, before: IRState): HTMLElement {
    if (step === null) {
      return section('initial IR', el('p', { text: 'The module before the first pass.' }));
    }
    const table = el('table', { className: 'pv-table' }, [
      row('kind', step.kind),
      pass ? row('pass', pass) : null,
      step.name ? row(step.kind === 'rewrite' ? 'pattern' : 'name', step.name) : null,
      step.root ? row('matched op', describe(state.ops.has(step.root) ? state : before, step.root)) : null
    ]);
    const out = section(`step ${step.index}`, table);
    if (step.flag) {
      const flag = el('div', { className: 'pv-flag', attrs: { role: 'alert' } }, [
        el('strong', { text: `⚠ ${step.flag.kind}: ` }),
        clippedEl('span', step.flag.message),
        step.flag.cycle ? el('div', { text: `cycle: ${step.flag.cycle.join(' → ')}` }) : null,
        step.flag.detail ? clippedEl('pre', step.flag.detail, 'pv-traceback', 20 * SHOWN_CHARACTERS) : null
      ]);
      out.appendChild(flag);
    }
    if (step.chain && step.chain.length > 0) {
      const list = el('ol', { className: 'pv-chain' });
      for (const id of step.chain) {
        const where = state.ops.has(id) ? state : before;
        list.appendChild(el('li', {}, [this.link(describe(where, id), () => this.onSelect(id))]));
      }
      out.appendChild(section('pointer chain (base → access)', list));
    }
    return out;
  }

  private selectedSection(id: string, state: IRState, history: LineageEvent[]): HTMLElement {
    const op = state.ops.get(id);
    if (!op) {
      const text = state.blocks.has(id) || state.regions.has(id) || state.values.has(id) ? describe(state, id) : id;
      return section(`selected: ${text}`, el('p', { text: 'Not an op: select an op to see its details.' }));
    }
    const attrs = el('table', { className: 'pv-table' });
    for (const [name, value] of [...Object.entries(op.props), ...Object.entries(op.attrs)]) {
      attrs.appendChild(row(name, shownValue(op.text, name, value)));
    }
    const values = el('table', { className: 'pv-table' });
    op.results.forEach((v, i) => values.appendChild(row(`result ${i}`, `%${v} : ${state.values.get(v)?.type ?? '?'}`)));
    op.operands.forEach((v, i) => values.appendChild(row(`operand ${i}`, `%${v} : ${state.values.get(v)?.type ?? '?'}`)));
    const parents = el('div', { className: 'pv-parents' });
    for (const parent of state.parents(id)) {
      parents.appendChild(this.link(describe(state, parent), () => this.onSelect(parent)));
      parents.appendChild(el('span', { text: ' › ' }));
    }
    parents.appendChild(el('span', { text: describe(state, id) }));
    // A dispatch's call (`flow.dispatch`) links to the executable it calls, an executable to its callers.
    const calls = callPartners(state, id, this.dispatch).map(other => el('p', {}, [
      el('span', { text: op.name === this.dispatch?.call_op ? 'calls ' : 'called by ' }),
      this.link(describe(state, other), () => this.onSelect(other))
    ]));
    const events = el('ol', { className: 'pv-lineage' });
    for (const event of history) {
      const by = event.by.length > 0 ? ` by ${event.by.join(', ')}` : '';
      events.appendChild(
        el('li', {}, [
          this.link(`step ${event.step}`, () => this.onStep(event.step)),
          el('span', { text: ` ${event.op} ${event.action}${by}${event.pattern ? ` (${event.pattern})` : ''}` })
        ])
      );
    }
    return section(
      `selected: ${id} ${op.name}`,
      clippedEl('pre', op.text, 'pv-op-text'),
      parents,
      ...calls,
      op.loc ? el('p', {}, [el('span', { text: 'location: ' }), clippedEl('code', op.loc)]) : null,
      attrs.childElementCount > 0 ? section('attributes', attrs) : null,
      values.childElementCount > 0 ? section('values', values) : null,
      section('lineage', history.length > 0 ? events : el('p', { text: 'present from the start, never changed' }))
    );
  }
}
