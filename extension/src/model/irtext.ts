/**
 * The module as lines of text, printed from the structured state: each op's
 * own one-line text, nested regions expanded in place, values and blocks
 * named by their trace ids (so renumbering never shows as a change).
 */

import { diffArrays } from 'diff';

import type { IRState } from './state';

export interface IRLine {
  /** The line as shown, indentation included. */
  text: string;
  /** The op the line belongs to (null for a block label). */
  op: string | null;
}

export type LineStatus = 'added' | 'erased' | 'unchanged';

export interface DiffLine extends IRLine {
  status: LineStatus;
}

const INDENT = '  ';

/**
 * A region in an op's text (`passviz/ir/printer.py`'s `REGION_PLACEHOLDER`):
 * `-args` when the op's header shows the entry block's arguments, `-term` when
 * its syntax leaves the blocks' terminators out.
 */
const PLACEHOLDER = /\{\.\.\.(-args)?(-term)?\}/g;

interface RegionSlot {
  argsInHeader: boolean;
  hideTerminators: boolean;
}

/** An op's text cut around its region placeholders. */
function splitText(text: string): { parts: string[]; slots: RegionSlot[] } {
  const parts: string[] = [];
  const slots: RegionSlot[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    parts.push(text.slice(last, match.index));
    slots.push({ argsInHeader: match[1] !== undefined, hideTerminators: match[2] !== undefined });
    last = match.index! + match[0].length;
  }
  parts.push(text.slice(last));
  return { parts, slots };
}

/** The module in `state` as lines, each op in the syntax its text has, regions expanded in place. */
export function irLines(state: IRState): IRLine[] {
  const lines: IRLine[] = [];
  const printOp = (opId: string, depth: number): void => {
    const op = state.op(opId);
    const pad = INDENT.repeat(depth);
    if (op.regions.length === 0) {
      lines.push({ text: pad + op.text, op: opId });
      return;
    }
    const { parts, slots } = splitText(op.text);
    op.regions.forEach((regionId, index) => {
      const head = index === 0 ? parts[0] : `}${parts[index] ?? ', '}`;
      lines.push({ text: pad + head + '{', op: opId });
      const slot = slots[index] ?? { argsInHeader: false, hideTerminators: false };
      const region = state.regions.get(regionId);
      const blocks = region?.blocks ?? [];
      blocks.forEach((blockId, blockIndex) => {
        const block = state.block(blockId);
        const shownArgs = blockIndex > 0 || !slot.argsInHeader ? block.args : [];
        // As MLIR prints it: the entry block has a label only for arguments its op's header does not show.
        if (blockIndex > 0 || shownArgs.length > 0) {
          const args = shownArgs.map(a => `%${a} : ${state.values.get(a)?.type ?? '?'}`);
          lines.push({
            text: `${pad}^${blockId}${args.length > 0 ? `(${args.join(', ')})` : ''}:`,
            op: null
          });
        }
        const ops = slot.hideTerminators ? block.ops.slice(0, -1) : block.ops;
        for (const child of ops) {
          printOp(child, depth + 1);
        }
      });
    });
    const tail = parts.length > op.regions.length ? parts[op.regions.length] : '';
    lines.push({ text: `${pad}}${tail}`, op: opId });
  };
  if (state.ops.has(state.root)) {
    printOp(state.root, 0);
  }
  return lines;
}

/**
 * How values are shown: the name the source gave (`%pid_m`), numbered like
 * MLIR's printer when two values share one (`%pid_m_0`), else the stable id.
 * Lines keep the ids, so diffs never see renaming; names are for display.
 */
export function valueNames(state: IRState): Map<string, string> {
  const names = new Map<string, string>();
  const used = new Map<string, number>();
  for (const value of state.values.values()) {
    if (value.name === null || value.name === '') {
      continue;
    }
    const seen = used.get(value.name);
    used.set(value.name, (seen ?? -1) + 1);
    names.set(value.id, seen === undefined ? value.name : `${value.name}_${seen}`);
  }
  return names;
}

/** The lines of `after`, with `before`'s lost lines in place, each marked by how it changed. */
export function diffLines(before: IRLine[], after: IRLine[]): DiffLine[] {
  const changes = diffArrays(before, after, { comparator: (a: IRLine, b: IRLine) => a.text === b.text });
  const out: DiffLine[] = [];
  for (const change of changes) {
    const status: LineStatus = change.added ? 'added' : change.removed ? 'erased' : 'unchanged';
    for (const line of change.value) {
      out.push({ ...line, status });
    }
  }
  return out;
}

/**
 * The attributes a trace recorded before `meta.aliases` existed prints by alias: how each text
 * begins, and its alias.  Traces since record theirs (`passviz/view/alias_layout.py`).
 */
export const DEFAULT_ALIASES: Readonly<Record<string, string>> = { '#ttg.blocked<': 'blocked' };

/** The end of the attribute starting at `start` (just past its closing `>`), counting nested brackets. */
function attributeEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (c === '<' || c === '{' || c === '[' || c === '(') {
      depth += 1;
    } else if (c === '>' || c === '}' || c === ']' || c === ')') {
      depth -= 1;
      if (depth === 0) {
        return i + 1;
      }
    }
  }
  return text.length;
}

/**
 * The aliases a module's lines use, named as the CLI names them (`#blocked`,
 * `#blocked1`, ... in the order the lines show them), and a function that
 * writes a line with them.  `kinds` is the trace's `meta.aliases`: how each
 * aliased attribute's text begins, and its alias.  Applied to what is shown,
 * after diffing: numbering never makes a line look changed.  The twin of
 * `passviz/view/alias_layout.py`.
 */
export function layoutAliases(
  texts: readonly string[],
  kinds: Readonly<Record<string, string>> = DEFAULT_ALIASES
): { definitions: string[]; apply: (text: string) => string } {
  const names = new Map<string, string>();
  const counts = new Map<string, number>();
  const definitions: string[] = [];
  const prefixes = Object.keys(kinds);
  for (const text of texts) {
    let at = 0;
    for (let found = nextAliased(text, at, prefixes); found !== null; found = nextAliased(text, at, prefixes)) {
      const end = attributeEnd(text, found.start + found.prefix.length - 1);
      const attr = text.slice(found.start, end);
      if (!names.has(attr)) {
        const alias = kinds[found.prefix];
        const count = counts.get(alias) ?? 0;
        counts.set(alias, count + 1);
        const name = `#${alias}${count === 0 ? '' : count}`;
        names.set(attr, name);
        definitions.push(`${name} = ${attr}`);
      }
      at = end;
    }
  }
  const apply = (text: string): string => {
    if (names.size === 0) {
      return text;
    }
    let out = text;
    for (const [attr, name] of names) {
      out = out.split(attr).join(name);
    }
    return out;
  };
  return { definitions, apply };
}

/** Where the first aliased attribute at or after `at` begins, and its prefix. */
function nextAliased(text: string, at: number, prefixes: readonly string[]): { start: number; prefix: string } | null {
  let best: { start: number; prefix: string } | null = null;
  for (const prefix of prefixes) {
    const start = text.indexOf(prefix, at);
    if (start >= 0 && (best === null || start < best.start || (start === best.start && prefix < best.prefix))) {
      best = { start, prefix };
    }
  }
  return best;
}
