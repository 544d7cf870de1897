/**
 * The layout's promises, as checks that list what breaks them: no two sibling
 * boxes overlap, every node lies inside its parent's box, and the ops of a
 * block run top to bottom (then left to right, column by column) in program order.
 */

import type { Frame } from '../src/model/layout';

interface Placed {
  id: string;
  parent: string | null;
  kind: string;
}

function inside(inner: Frame, outer: Frame): boolean {
  return (
    inner.x - inner.width / 2 >= outer.x - outer.width / 2 - 0.5 &&
    inner.x + inner.width / 2 <= outer.x + outer.width / 2 + 0.5 &&
    inner.y - inner.height / 2 >= outer.y - outer.height / 2 - 0.5 &&
    inner.y + inner.height / 2 <= outer.y + outer.height / 2 + 0.5
  );
}

function overlap(a: Frame, b: Frame): boolean {
  return Math.abs(a.x - b.x) * 2 < a.width + b.width - 0.5 && Math.abs(a.y - b.y) * 2 < a.height + b.height - 0.5;
}

export function layoutProblems(nodes: Map<string, Placed>, frames: Map<string, Frame>): string[] {
  const problems: string[] = [];
  const siblings = new Map<string | null, string[]>();
  for (const node of nodes.values()) {
    const frame = frames.get(node.id);
    if (!frame) {
      continue;
    }
    const parent = node.parent !== null && frames.has(node.parent) ? node.parent : null;
    if (parent !== null && !inside(frame, frames.get(parent)!)) {
      problems.push(`${node.id} is not inside ${parent}`);
    }
    siblings.set(parent, [...(siblings.get(parent) ?? []), node.id]);
  }
  for (const [parent, ids] of siblings) {
    for (let i = 0; i < ids.length; i++) {
      for (let j = i + 1; j < ids.length; j++) {
        if (overlap(frames.get(ids[i])!, frames.get(ids[j])!)) {
          problems.push(`${ids[i]} overlaps ${ids[j]} in ${parent ?? 'the top'}`);
        }
      }
    }
    const ops = ids.filter(id => nodes.get(id)!.kind !== 'arg');
    for (let i = 1; i < ops.length; i++) {
      const a = frames.get(ops[i - 1])!;
      const b = frames.get(ops[i])!;
      if (nodes.get(ops[i])!.kind !== 'block' && !(b.y > a.y || b.x > a.x)) {
        problems.push(`${ops[i]} comes before ${ops[i - 1]} in ${parent ?? 'the top'}`);
      }
    }
  }
  return problems;
}
