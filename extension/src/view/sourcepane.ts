/**
 * The source pane: the kernel source a trace carries (`header.sources`, read
 * at record time), with the selected op's line highlighted.  Clicking a line
 * selects an op located there (clicking again, the next one).  The pane names
 * every file the trace carries (a page passed on carries them too), each a
 * button that shows it.  Hidden when the trace carries no source.
 */

import type { IRState } from '../model/state';
import { clear, el, scrollWithin } from './dom';

/** A file location inside a location's text (also inside fused and call-site locations). */
const FILE_LOCATION = /"((?:[^"\\]|\\.)*)":(\d+):(\d+)/g;

/**
 * Where an op's location points: its file and line, or null.  A call-site
 * location names the callee (a library's `tl.sum`) before the caller: the
 * line in `prefer` (the kernel's own file) wins when there is one.
 */
export function sourceLine(loc: string | null, prefer: string | null = null): { file: string; line: number } | null {
  const found = [...(loc ?? '').matchAll(FILE_LOCATION)].map(m => ({ file: m[1], line: Number(m[2]) }));
  return found.find(at => at.file === prefer) ?? found[0] ?? null;
}

export class SourcePane {
  readonly node: HTMLElement;
  private readonly header: HTMLElement;
  private readonly body: HTMLElement;
  private readonly files: HTMLElement;
  private file: string | null = null;
  private state: IRState | null = null;
  private picked: { line: number; index: number } | null = null;

  constructor(
    private readonly sources: Readonly<Record<string, string>>,
    private readonly onSelect: (op: string) => void
  ) {
    this.header = el('div', { className: 'pv-pane-title', text: 'source' });
    this.body = el('div', { className: 'pv-source', attrs: { role: 'list', 'aria-label': 'kernel source' } });
    this.files = carriedFiles(Object.keys(sources));
    this.node = el('div', { className: 'pv-source-pane' }, [this.header, this.files, this.body]);
    this.node.hidden = Object.keys(sources).length === 0;
    this.body.addEventListener('click', this.onClick);
    this.files.addEventListener('click', this.onPickFile);
  }

  dispose(): void {
    this.body.removeEventListener('click', this.onClick);
    this.files.removeEventListener('click', this.onPickFile);
  }

  private onPickFile = (event: MouseEvent): void => {
    const button = (event.target as HTMLElement).closest<HTMLElement>('[data-file]');
    const file = button?.dataset.file;
    if (file !== undefined && file !== this.file && file in this.sources) {
      this.file = file;
      this.render();
    }
  };

  private onClick = (event: MouseEvent): void => {
    const line = (event.target as HTMLElement).closest<HTMLElement>('[data-line]');
    if (!line || this.state === null || this.file === null) {
      return;
    }
    const number = Number(line.dataset.line);
    const ops = this.state.walkOps().filter(id => {
      const at = sourceLine(this.state!.op(id).loc, this.file);
      return at !== null && at.file === this.file && at.line === number;
    });
    if (ops.length === 0) {
      return;
    }
    const index = this.picked?.line === number ? (this.picked.index + 1) % ops.length : 0;
    this.picked = { line: number, index };
    this.onSelect(ops[index]);
  };

  /** Show the source around the op `selected` (at `state`), or keep the file shown. */
  show(state: IRState, selected: string | null): void {
    this.state = state;
    if (this.node.hidden) {
      return;
    }
    // The kernel's file is the first the trace names (where its module is located).
    const kernel = Object.keys(this.sources)[0] ?? null;
    const at = selected !== null && state.ops.has(selected) ? sourceLine(state.op(selected).loc, kernel) : null;
    const file = at !== null && at.file in this.sources ? at.file : this.file ?? Object.keys(this.sources)[0];
    if (file !== this.file) {
      this.file = file;
      this.render();
    }
    for (const line of this.body.querySelectorAll<HTMLElement>('.pv-source-current')) {
      line.classList.remove('pv-source-current');
    }
    if (at !== null && at.file === file) {
      const line = this.body.querySelector<HTMLElement>(`[data-line="${at.line}"]`);
      if (line) {
        line.classList.add('pv-source-current');
        scrollWithin(this.body, line);
      }
    }
  }

  private render(): void {
    clear(this.body);
    this.header.textContent = `source: ${this.file ?? ''}`;
    this.header.title = this.file ?? '';
    for (const button of this.files.querySelectorAll<HTMLElement>('[data-file]')) {
      button.setAttribute('aria-pressed', String(button.dataset.file === this.file));
    }
    const fragment = document.createDocumentFragment();
    (this.sources[this.file ?? ''] ?? '').split('\n').forEach((text, index) => {
      fragment.appendChild(
        el('div', { className: 'pv-source-line', attrs: { 'data-line': String(index + 1) } }, [
          el('span', { className: 'pv-source-number', text: String(index + 1) }),
          el('span', { text })
        ])
      );
    });
    this.body.appendChild(fragment);
  }
}

/** The line naming the files a trace carries, each a button that shows it (its whole path on hover). */
function carriedFiles(names: string[]): HTMLElement {
  const count = `${names.length} source file${names.length === 1 ? '' : 's'}`;
  const buttons = names.map(name =>
    el('button', {
      className: 'pv-source-file',
      text: name.split('/').pop() || name,
      title: name,
      attrs: { type: 'button', 'data-file': name, 'aria-pressed': 'false' }
    })
  );
  return el('div', { className: 'pv-source-files', title: 'the files this trace carries; a page made of it carries them too' }, [
    el('span', { text: `this trace carries ${count}:` }),
    ...buttons
  ]);
}
