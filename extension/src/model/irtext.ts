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
 * A region in an op's text (`passviz/ir/placeholder.py`'s `REGION_PATTERN`):
 * `-args` when the op's header shows the entry block's arguments, `-term` when
 * its syntax leaves the blocks' terminators out, `-scope` when the op is
 * isolated from above (the printer numbers the values inside it afresh), `-rN`
 * when the syntax prints region N at this place (`scf.index_switch`'s default
 * region, region 0, comes last); without it, the regions in order; `-iN` when
 * it prints the region N levels deeper than the op (`linalg.map`'s body).
 */
export const PLACEHOLDER = /\{\.\.\.(-args)?(-term)?(-scope)?(?:-r([0-9]+))?(?:-i([0-9]+))?\}/g;

interface RegionSlot {
  argsInHeader: boolean;
  hideTerminators: boolean;
  scope: boolean;
  /** The region the placeholder stands for, where the syntax prints it out of order. */
  region: number | null;
  /** How many levels deeper than the op the syntax prints the region. */
  indent: number;
}

/** The region the placeholder at `position` (among the op's placeholders) stands for. */
function regionIndex(slot: RegionSlot, position: number): number {
  return slot.region ?? position;
}

/** An op's text cut around its region placeholders (`region_slots`). */
function splitText(text: string): { parts: string[]; slots: RegionSlot[] } {
  const parts: string[] = [];
  const slots: RegionSlot[] = [];
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    parts.push(text.slice(last, match.index));
    slots.push({
      argsInHeader: match[1] !== undefined,
      hideTerminators: match[2] !== undefined,
      scope: match[3] !== undefined,
      region: match[4] === undefined ? null : Number(match[4]),
      indent: match[5] === undefined ? 0 : Number(match[5])
    });
    last = match.index! + match[0].length;
  }
  parts.push(text.slice(last));
  return { parts, slots };
}

/** The module in `state` as lines, each op in the syntax its text has, regions expanded in place. */
export function irLines(state: IRState): IRLine[] {
  const lines: IRLine[] = [];
  const printOp = (opId: string, pad: string): void => {
    const op = state.op(opId);
    const { parts, slots } = splitText(op.text.split('\n').join('\n' + pad));
    // An op's syntax may leave a region out (`scf.if`'s empty `else`): as many as it shows.
    const shown = Math.min(op.regions.length, slots.length);
    if (shown === 0) {
      lines.push({ text: pad + parts[0], op: opId });
      return;
    }
    for (let index = 0; index < shown; index++) {
      // A region its syntax prints deeper than the op (`linalg.map`'s body) is indented so, and so is the brace closing it.
      const before = index === 0 ? pad : pad + INDENT.repeat(slots[index - 1].indent);
      const head = index === 0 ? parts[0] : `}${parts[index]}`;
      lines.push({ text: before + head + '{', op: opId });
      const slot = slots[index];
      const inner = pad + INDENT.repeat(slot.indent);
      const regionId = op.regions[regionIndex(slot, index)];
      const region = regionId === undefined ? undefined : state.regions.get(regionId);
      const blocks = region?.blocks ?? [];
      blocks.forEach((blockId, blockIndex) => {
        const block = state.block(blockId);
        const shownArgs = blockIndex > 0 || !slot.argsInHeader ? block.args : [];
        // As MLIR prints it: the entry block has a label only for arguments its op's header does not show.
        if (blockIndex > 0 || shownArgs.length > 0) {
          const args = shownArgs.map(a => {
            const type = state.values.get(a)?.type;
            return type === undefined ? `%${a}` : `%${a}: ${type}`;
          });
          lines.push({
            text: `${inner}^${blockId}${args.length > 0 ? `(${args.join(', ')})` : ''}:`,
            op: null
          });
        }
        const ops = slot.hideTerminators ? block.ops.slice(0, -1) : block.ops;
        for (const child of ops) {
          printOp(child, inner + INDENT);
        }
      });
    }
    lines.push({ text: `${pad}${INDENT.repeat(slots[shown - 1].indent)}}${parts[shown]}`, op: opId });
  };
  if (state.ops.has(state.root)) {
    printOp(state.root, '');
  }
  return lines;
}

/** A value in an id-named line. */
const VALUE_ID = /%(v[0-9]+)\b/g;

/** What each value and block id prints as (without its `%` or `^`). */
export interface PrintedNames {
  values: Map<string, string>;
  blocks: Map<string, string>;
}

interface NameScope {
  next: number;
  values: Map<string, number>;
  blocks: Map<string, number>;
}

/** `hint` as xDSL numbers it: bare the first time, then `hint_1`, `hint_2`, ... */
function hinted(hint: string, counts: Map<string, number>): string {
  const seen = counts.get(hint) ?? 0;
  counts.set(hint, seen + 1);
  return seen === 0 ? hint : `${hint}_${seen}`;
}

/**
 * The names passviz's printer (xDSL's) gives the values and blocks of `lines`
 * (`irLines(state)`), in the order the lines show them: a value by its name
 * hint (`%c0`, then `%c0_1`) or the next number (`%0`), a block by its hint or
 * its place in its region (`^bb1`); an op isolated from above (`-scope`) numbers
 * afresh inside it.  The twin of `passviz/view/printed.py`'s `printed_names`.
 */
export function printedNames(state: IRState, lines: readonly IRLine[]): PrintedNames {
  const names: PrintedNames = { values: new Map(), blocks: new Map() };
  const scopes: NameScope[] = [{ next: 0, values: new Map(), blocks: new Map() }];
  const seenLines = new Map<string, number>();
  const nameValues = (text: string): void => {
    for (const match of text.matchAll(VALUE_ID)) {
      const id = match[1];
      if (names.values.has(id)) {
        continue;
      }
      const hint = state.values.get(id)?.name;
      const scope = scopes[scopes.length - 1];
      if (hint) {
        names.values.set(id, hinted(hint, scope.values));
      } else {
        names.values.set(id, String(scope.next));
        scope.next += 1;
      }
    }
  };
  for (const line of lines) {
    const op = line.op === null ? null : state.op(line.op);
    // A block label (its arguments), or an op without regions: values, in order.
    if (op === null || op.regions.length === 0) {
      nameValues(line.text);
      continue;
    }
    const count = seenLines.get(op.id) ?? 0;
    seenLines.set(op.id, count + 1);
    const { slots } = splitText(op.text);
    const shown = Math.min(op.regions.length, slots.length);
    const scoped = slots.slice(0, shown).some(slot => slot.scope);
    if (count === 0 && scoped) {
      // Its results print before the op opens its scope.
      for (const result of op.results) {
        nameValues(`%${result}`);
      }
      const outer = scopes[scopes.length - 1];
      scopes.push({ next: outer.next, values: new Map(outer.values), blocks: new Map(outer.blocks) });
    }
    nameValues(line.text);
    if (count < shown) {
      // The region's blocks are named as it opens, by hint or by place.
      const regionId = op.regions[regionIndex(slots[count], count)];
      const region = regionId === undefined ? undefined : state.regions.get(regionId);
      (region?.blocks ?? []).forEach((blockId, index) => {
        const hint = state.block(blockId).name;
        names.blocks.set(blockId, hint ? hinted(hint, scopes[scopes.length - 1].blocks) : `bb${index}`);
      });
    } else if (scoped) {
      scopes.pop();
    }
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
