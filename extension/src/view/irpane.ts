/**
 * The IR pane: the module after the step, diffed against a base the person
 * chooses (the step before, the start of this pass, or the initial IR).
 * Added lines are green, removed ones struck through in place (or, side by
 * side, in their own column), lines that only moved are marked as moved, and
 * inside a changed line the words that changed are highlighted.  Values show
 * the names the source gave them, their stable ids on hover.  Clicking a line
 * selects its op.  Long modules show the changed hunks with some context, and
 * can be opened whole.
 */

import { diffWordsWithSpace } from 'diff';

import { DEFAULT_ALIASES, layoutAliases, type DiffLine, type PrintedNames } from '../model/irtext';
import { appendClipped, clear, el, scrollToMiddle, scrollWithin, SHOWN_CHARACTERS } from './dom';

/** Modules longer than this show only the changed hunks until opened whole. */
export const FULL_LIMIT = 800;
const CONTEXT = 4;
/** Changed lines this many unchanged lines apart or closer are one hunk, scrolled into view together. */
const HUNK_GAP = 3;

/** What the step's IR is compared with. */
export type CompareBase = 'step' | 'pass' | 'initial';

const BASES: Array<[CompareBase, string]> = [
  ['step', 'previous step'],
  ['pass', 'start of this pass'],
  ['initial', 'initial IR']
];

/** A value (`%v12`) or a block (`^b3`) in an id-named line. */
const TOKEN = /%(v[0-9]+)\b|\^(b[0-9]+)\b/g;

/** A line with, for a changed line, the old or new line it replaced (for word highlighting). */
interface ShownLine extends Omit<DiffLine, 'status'> {
  status: DiffLine['status'] | 'moved';
  partner?: string;
}

/**
 * The diff as shown: a line that was removed in one place and added in
 * another is one moved line (at its new place), and each removed line is
 * paired with the added line in the same position of its hunk, so the words
 * that changed between them can be marked.
 */
export function shownLines(lines: DiffLine[]): ShownLine[] {
  const added = new Map<string, number>();
  const erased = new Map<string, number>();
  for (const line of lines) {
    const map = line.status === 'added' ? added : line.status === 'erased' ? erased : null;
    map?.set(line.text.trim(), (map.get(line.text.trim()) ?? 0) + 1);
  }
  const moved = (text: string): boolean => (added.get(text) ?? 0) > 0 && (erased.get(text) ?? 0) > 0;
  const out: ShownLine[] = [];
  let run: ShownLine[] = [];
  for (const line of lines) {
    const key = line.text.trim();
    if (line.status !== 'unchanged' && moved(key)) {
      if (line.status === 'added') {
        out.push({ ...line, status: 'moved' });
      }
      continue;
    }
    if (line.status === 'erased') {
      run.push({ ...line });
      out.push(run[run.length - 1]);
      continue;
    }
    if (line.status === 'added' && run.length > 0) {
      const old = run.shift()!;
      old.partner = line.text;
      out.push({ ...line, partner: old.text });
      continue;
    }
    run = [];
    out.push({ ...line });
  }
  return out;
}

export class IRPane {
  readonly node: HTMLElement;
  private readonly body: HTMLElement;
  private readonly header: HTMLElement;
  private readonly baseChoice: HTMLSelectElement;
  private readonly sideBySide: HTMLInputElement;
  private lines: ShownLine[] = [];
  private names: PrintedNames = { values: new Map(), blocks: new Map() };
  private whole = false;
  private selected: string | null = null;

  constructor(
    private readonly onSelect: (op: string) => void,
    private readonly onBase: (base: CompareBase) => void = () => undefined,
    /** The trace's aliased attributes (`meta.aliases`): what the CLI prints by alias. */
    private readonly aliasKinds: Readonly<Record<string, string>> = DEFAULT_ALIASES
  ) {
    this.header = el('span', { className: 'pv-pane-name' });
    this.baseChoice = el('select', { className: 'pv-compare', attrs: { 'aria-label': 'compare with' } });
    for (const [value, label] of BASES) {
      this.baseChoice.appendChild(el('option', { text: label, attrs: { value } }));
    }
    this.sideBySide = el('input', { attrs: { type: 'checkbox', 'aria-label': 'side by side' } });
    const controls = el('span', { className: 'pv-ir-controls' }, [
      el('label', { className: 'pv-check', text: 'compare with ' }, [this.baseChoice]),
      el('label', { className: 'pv-check' }, [this.sideBySide, el('span', { text: ' side by side' })])
    ]);
    this.body = el('div', { className: 'pv-ir', attrs: { role: 'list', 'aria-label': 'IR after this step' } });
    this.node = el('div', { className: 'pv-ir-pane' }, [el('div', { className: 'pv-pane-title' }, [this.header, controls]), this.body]);
    this.body.addEventListener('click', this.onClick);
    this.baseChoice.addEventListener('change', this.onBaseChange);
    this.sideBySide.addEventListener('change', this.onLayout);
  }

  dispose(): void {
    this.body.removeEventListener('click', this.onClick);
    this.baseChoice.removeEventListener('change', this.onBaseChange);
    this.sideBySide.removeEventListener('change', this.onLayout);
  }

  /** What the step is compared with. */
  get base(): CompareBase {
    return this.baseChoice.value as CompareBase;
  }

  private onBaseChange = (): void => {
    this.onBase(this.base);
  };

  private onLayout = (): void => {
    this.draw();
  };

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

  /** Show `lines` (the diff against the base), values and blocks shown by `names`, as the CLI prints them. */
  render(lines: DiffLine[], title: string, names: PrintedNames = { values: new Map(), blocks: new Map() }): void {
    // Layouts print by alias, as the CLI prints them; defined above the module.
    const aliases = layoutAliases(
      lines.map(line => line.text),
      this.aliasKinds
    );
    const definitions: DiffLine[] = aliases.definitions.map(text => ({ text, op: null, status: 'unchanged' }));
    const shown = lines.map(line => ({ ...line, text: aliases.apply(line.text) }));
    this.lines = shownLines([...definitions, ...shown]);
    this.names = names;
    this.header.textContent = title;
    this.draw();
  }

  /** Show `text` (not IR: a compile's PTX, say) whole, line by line, under `title`. */
  renderText(text: string, title: string): void {
    this.lines = text.replace(/\n$/, '').split('\n').map(line => ({ text: line, op: null, status: 'unchanged' }));
    this.names = { values: new Map(), blocks: new Map() };
    this.whole = true;
    this.header.textContent = title;
    this.draw();
    this.body.scrollTop = 0;
  }

  /** The text shown, one line per IR line (markers included), as tests and tools read it. */
  plainText(): string {
    return [...this.body.querySelectorAll('.pv-line, .pv-ir-more')].map(line => line.textContent ?? '').join('\n');
  }

  /**
   * The changed lines (added, erased, moved) and how many of them lie inside
   * the pane's visible part, as tests and tools read it.
   */
  changesInView(): { changed: number; added: number; visible: number; addedVisible: number } {
    const view = this.body.getBoundingClientRect();
    let changed = 0;
    let added = 0;
    let visible = 0;
    let addedVisible = 0;
    for (const line of this.body.querySelectorAll<HTMLElement>('.pv-line-added, .pv-line-erased, .pv-line-moved')) {
      changed += 1;
      const plus = !line.classList.contains('pv-line-erased');
      added += plus ? 1 : 0;
      const box = line.getBoundingClientRect();
      if (box.height > 0 && box.top >= view.top - 1 && box.bottom <= view.bottom + 1) {
        visible += 1;
        addedVisible += plus ? 1 : 0;
      }
    }
    return { changed, added, visible, addedVisible };
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

  private shown(): Array<ShownLine | number> {
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
    const out: Array<ShownLine | number> = [];
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

  /** How a `TOKEN` match (`whole`, and its value or block id) is shown: `whole` where it has no name. */
  private shownToken(whole: string, value: string | undefined, block: string | undefined): string {
    const name = value !== undefined ? this.names.values.get(value) : block !== undefined ? this.names.blocks.get(block) : undefined;
    return name === undefined ? whole : `${whole[0]}${name}`;
  }

  /** `text` with value and block ids shown by name (the id on hover), appended to `into`. */
  private appendText(into: HTMLElement, text: string): void {
    let last = 0;
    for (const match of text.matchAll(TOKEN)) {
      const name = this.shownToken(match[0], match[1], match[2]);
      if (name === match[0]) {
        continue;
      }
      into.append(text.slice(last, match.index));
      into.appendChild(el('span', { className: 'pv-value', text: name, title: match[0] }));
      last = match.index! + match[0].length;
    }
    into.append(text.slice(last));
  }

  /** A line's text, the words that differ from its partner marked. */
  private content(line: ShownLine, into: HTMLElement): void {
    const long = line.text.length > SHOWN_CHARACTERS || (line.partner?.length ?? 0) > SHOWN_CHARACTERS;
    if (long || line.partner === undefined || (line.status !== 'added' && line.status !== 'erased')) {
      // A word diff of megabyte lines would freeze the page: long lines are shown plain, clipped.
      appendClipped(into, line.text, SHOWN_CHARACTERS, (node, text) => this.appendText(node, text));
      return;
    }
    // Words are diffed as shown (values by name): a word diff splits `%v12` at its `%`.
    const shown = (text: string): string =>
      text.replace(TOKEN, (whole: string, value: string | undefined, block: string | undefined) => this.shownToken(whole, value, block));
    const [from, to] = line.status === 'added' ? [line.partner, line.text] : [line.text, line.partner];
    for (const part of diffWordsWithSpace(shown(from), shown(to))) {
      if (line.status === 'added' ? part.removed : part.added) {
        continue;
      }
      const changed = line.status === 'added' ? part.added : part.removed;
      into.appendChild(el('span', { className: changed ? 'pv-word-changed' : '', text: part.value }));
    }
  }

  private lineNode(line: ShownLine): HTMLElement {
    const marker = { added: '+ ', erased: '- ', moved: '↕ ', unchanged: '  ' }[line.status];
    const node = el('div', { className: `pv-line pv-line-${line.status}`, title: line.status === 'moved' ? 'moved here' : '' }, [
      el('span', { className: 'pv-marker', text: marker })
    ]);
    this.content(line, node);
    if (line.op !== null) {
      node.dataset.op = line.op;
    }
    return node;
  }

  private draw(): void {
    clear(this.body);
    const fragment = document.createDocumentFragment();
    const sideBySide = this.sideBySide.checked;
    this.body.classList.toggle('pv-side-by-side', sideBySide);
    // The first hunk: its first and last changed line, and its first added one.
    let first: HTMLElement | null = null;
    let last: HTMLElement | null = null;
    let firstAdded: HTMLElement | null = null;
    /** The first added (or moved) line of the whole step, in whichever hunk. */
    let firstNew: HTMLElement | null = null;
    let gap = 0;
    let hunkOpen = true;
    let left: HTMLElement[] = [];
    let right: HTMLElement[] = [];
    const flush = (): void => {
      for (let i = 0; i < Math.max(left.length, right.length); i++) {
        fragment.appendChild(
          el('div', { className: 'pv-row' }, [left[i] ?? el('div', { className: 'pv-line pv-line-empty' }), right[i] ?? el('div', { className: 'pv-line pv-line-empty' })])
        );
      }
      left = [];
      right = [];
    };
    for (const item of this.shown()) {
      if (typeof item === 'number') {
        hunkOpen = first === null;
        flush();
        fragment.appendChild(
          el('div', { className: 'pv-ir-more', text: `… ${item} unchanged lines (click to show the whole module) …` })
        );
        continue;
      }
      const line = this.lineNode(item);
      if (firstNew === null && (item.status === 'added' || item.status === 'moved')) {
        firstNew = line;
      }
      if (item.status === 'unchanged') {
        gap += 1;
        hunkOpen &&= first === null || gap <= HUNK_GAP;
      } else if (hunkOpen) {
        first ??= line;
        last = line;
        if (firstAdded === null && item.status !== 'erased') {
          firstAdded = line;
        }
        gap = 0;
      }
      if (!sideBySide) {
        fragment.appendChild(line);
      } else if (item.status === 'erased') {
        left.push(line);
      } else if (item.status === 'added' || item.status === 'moved') {
        right.push(line);
      } else {
        flush();
        fragment.appendChild(el('div', { className: 'pv-row' }, [line, this.lineNode(item)]));
      }
    }
    flush();
    this.body.appendChild(fragment);
    this.select(this.selected);
    if (first && last && this.selected === null) {
      if (firstAdded === null && firstNew !== null) {
        // The first hunk only erased: the pane goes to what the step made, further down.
        scrollToMiddle(this.body, firstNew, firstNew, firstNew);
      } else {
        // The hunk in the middle of the pane; one taller than the pane shows its first added line.
        scrollToMiddle(this.body, first, last, firstAdded ?? first);
      }
    }
  }
}
