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

/** The module in `state` as lines. */
export function irLines(state: IRState): IRLine[] {
  const lines: IRLine[] = [];
  const printOp = (opId: string, depth: number): void => {
    const op = state.op(opId);
    const pad = INDENT.repeat(depth);
    if (op.regions.length === 0) {
      lines.push({ text: pad + op.text, op: opId });
      return;
    }
    const parts = op.text.split('{...}');
    op.regions.forEach((regionId, index) => {
      const head = index === 0 ? parts[0] : `}${parts[index] ?? ', '}`;
      lines.push({ text: pad + head + '{', op: opId });
      const region = state.regions.get(regionId);
      const blocks = region?.blocks ?? [];
      blocks.forEach((blockId, blockIndex) => {
        const block = state.block(blockId);
        if (blockIndex > 0 || block.args.length > 0 || blocks.length > 1) {
          const args = block.args.map(a => `%${a} : ${state.values.get(a)?.type ?? '?'}`);
          lines.push({
            text: `${pad}^${blockId}${args.length > 0 ? `(${args.join(', ')})` : ''}:`,
            op: null
          });
        }
        for (const child of block.ops) {
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
