/**
 * The IR pane: the module after the step, with the lines the step added and
 * (struck through, in place) the lines it removed.  Clicking a line selects
 * its op.  Long modules show the changed hunks with some context, and can be
 * opened whole.
 */

import type { DiffLine } from '../model/irtext';
import { clear, el, scrollWithin } from './dom';

/** Modules longer than this show only the changed hunks until opened whole. */
export const FULL_LIMIT = 3000;
const CONTEXT = 4;

export class IRPane {
  readonly node: HTMLElement;
  private readonly body: HTMLElement;
  private readonly header: HTMLElement;
  private lines: DiffLine[] = [];
  private whole = false;
  private selected: string | null = null;

  constructor(private readonly onSelect: (op: string) => void) {
    this.header = el('div', { className: 'pv-pane-title' });
    this.body = el('div', { className: 'pv-ir', attrs: { role: 'list', 'aria-label': 'IR after this step' } });
    this.node = el('div', { className: 'pv-ir-pane' }, [this.header, this.body]);
    this.body.addEventListener('click', this.onClick);
  }

  dispose(): void {
    this.body.removeEventListener('click', this.onClick);
  }

  private onClick = (event: MouseEvent): void => {
    const target = event.target as HTMLElement;
    if (target.classList.contains('pv-ir-more')) {
      this.whole = true;
      this.draw();
      return;
    }
    const line = target.closest<HTMLElement>('[data-op]');
    const op = line?.dataset.op;
    if (op) {
      this.onSelect(op);
    }
  };

  /** Show `lines` (the diff against the step before). */
  render(lines: DiffLine[], title: string): void {
    this.lines = lines;
    this.header.textContent = title;
    this.draw();
  }

  /** Highlight the lines of `op`. */
  select(op: string | null): void {
    this.selected = op;
    for (const line of this.body.querySelectorAll<HTMLElement>('.pv-line-selected')) {
      line.classList.remove('pv-line-selected');
    }
    if (op === null) {
      return;
    }
    const mine = this.body.querySelectorAll<HTMLElement>(`[data-op="${CSS.escape(op)}"]`);
    mine.forEach(line => line.classList.add('pv-line-selected'));
    if (mine[0]) {
      scrollWithin(this.body, mine[0]);
    }
  }

  private shown(): Array<DiffLine | number> {
    if (this.whole || this.lines.length <= FULL_LIMIT) {
      return this.lines;
    }
    const keep = new Uint8Array(this.lines.length);
    this.lines.forEach((line, index) => {
      if (line.status !== 'unchanged') {
        for (let i = Math.max(0, index - CONTEXT); i <= Math.min(this.lines.length - 1, index + CONTEXT); i++) {
          keep[i] = 1;
        }
      }
    });
    const out: Array<DiffLine | number> = [];
    let skipped = 0;
    this.lines.forEach((line, index) => {
      if (keep[index]) {
        if (skipped > 0) {
          out.push(skipped);
          skipped = 0;
        }
        out.push(line);
      } else {
        skipped += 1;
      }
    });
    if (skipped > 0) {
      out.push(skipped);
    }
    return out;
  }

  private draw(): void {
    clear(this.body);
    const fragment = document.createDocumentFragment();
    let first: HTMLElement | null = null;
    for (const item of this.shown()) {
      if (typeof item === 'number') {
        fragment.appendChild(
          el('div', { className: 'pv-ir-more', text: `… ${item} unchanged lines (click to show the whole module) …` })
        );
        continue;
      }
      const line = el('div', {
        className: `pv-line pv-line-${item.status}`,
        text: (item.status === 'added' ? '+ ' : item.status === 'erased' ? '- ' : '  ') + item.text
      });
      if (item.op !== null) {
        line.dataset.op = item.op;
      }
      if (first === null && item.status !== 'unchanged') {
        first = line;
      }
      fragment.appendChild(line);
    }
    this.body.appendChild(fragment);
    this.select(this.selected);
    if (first && this.selected === null) {
      scrollWithin(this.body, first);
    }
  }
}
