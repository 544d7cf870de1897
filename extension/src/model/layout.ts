/**
 * Where every node of a step's graph is drawn: a layout that follows the IR's
 * structure.
 *
 * Each box is laid out from what it holds, bottom up: a block puts its
 * arguments in a row on top and its ops below, one under the other in program
 * order (long blocks wrap into columns); a region stacks its blocks; an op with
 * several regions puts them side by side.  A box is sized around its content,
 * so sibling boxes never overlap and every node lies inside its own box, after
 * any split, merge, move or inlining.  The layout is computed anew for every
 * step, in time linear in the graph; stability comes from the structure itself
 * (an op keeps its place while the ops above it stay) and from the column
 * length a block keeps once chosen.
 */

import type { GraphNode } from './graph';

export interface Point {
  x: number;
  y: number;
}

export interface Size {
  width: number;
  height: number;
}

/** Where a node is drawn: its centre and size, whether it is a box, and its nesting depth (1 at the top). */
export interface Frame extends Point, Size {
  box: boolean;
  depth: number;
  /** For a collapsed box: how many nodes it hides. */
  hidden?: number;
}

const CHAR_WIDTH = 7;
export const GAP = 16;
/** Room a box keeps above its children for its label, and around them. */
export const BOX_PADDING = { top: 26, side: 10 };
/** The widest a leaf is drawn; longer labels are cut with an ellipsis. */
export const MAX_LEAF_WIDTH = 300;
/** Blocks are wrapped into columns so that they are about this much wider than tall. */
const ASPECT = 1.6;
const MIN_COLUMN = 24;

/** Whether two frames draw a node at the same place and size, the same way. */
export function sameFrame(a: Frame, b: Frame): boolean {
  return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height && a.depth === b.depth && a.box === b.box && a.hidden === b.hidden;
}

/** Put `shown`'s frame objects in `fresh` wherever they draw the same (see `shareUnchanged`). */
export function shareFrames(fresh: Map<string, Frame>, shown: ReadonlyMap<string, Frame>): void {
  for (const [id, frame] of fresh) {
    const old = shown.get(id);
    if (old !== undefined && old !== frame && sameFrame(old, frame)) {
      fresh.set(id, old);
    }
  }
}

/** The drawn size of a node that is not a box around others. */
export function nodeSize(node: Pick<GraphNode, 'kind' | 'label'>): Size {
  if (node.kind === 'arg') {
    return { width: Math.min(220, Math.max(40, node.label.length * 6 + 14)), height: 22 };
  }
  if (node.kind === 'op') {
    return { width: Math.min(MAX_LEAF_WIDTH, Math.max(60, node.label.length * CHAR_WIDTH + 20)), height: 30 };
  }
  // an empty (or collapsed) box
  return { width: Math.min(MAX_LEAF_WIDTH, Math.max(80, node.label.length * CHAR_WIDTH + 20)), height: 40 };
}

type LayoutNode = Pick<GraphNode, 'id' | 'kind' | 'parent' | 'label'>;

/**
 * The label of a collapsed box drawn `width` px wide: its own label, then how many nodes it
 * hides; a label too long for the box is cut before the count, so the count always shows.
 */
export function collapsedLabel(label: string, hidden: number, width: number): string {
  const count = `  (+${hidden})`;
  const fits = Math.floor((width - 20) / CHAR_WIDTH);
  if (label.length + count.length <= fits) {
    return label + count;
  }
  return `${label.slice(0, Math.max(fits - count.length - 1, 1))}…${count}`;
}

/** A layout's memory as plain data (maps and sets a worker can post): see `StructureLayout.memory`. */
export interface LayoutMemory {
  columns: Map<string, number>;
  slots: Map<string, Map<string, number>>;
  collapsed: Set<string>;
  previous: Map<string, Frame>;
  /** The layout count of the layout it was taken from, when it was taken. */
  generation: number;
}

/** A node laid out with its top-left corner at the origin, and what it holds, placed relative to that corner. */
interface Laid {
  id: string;
  size: Size;
  placed: Array<[Laid, number, number]>;
}

/** Laid-out children and the size of the area they cover. */
interface Area {
  size: Size;
  placed: Array<[Laid, number, number]>;
}

/**
 * The structural layout, with the memory that keeps it steady from step to
 * step: the column length each block was given, and the boxes shown collapsed.
 */
export class StructureLayout {
  private readonly columns = new Map<string, number>();
  /** The grid slot of each op of a long block, kept from step to step. */
  private readonly slots = new Map<string, Map<string, number>>();
  /** Boxes drawn as one node, their content hidden. */
  readonly collapsed = new Set<string>();
  /**
   * The frames of the last layout: a node drawn where it was keeps its frame
   * object, so the view tells what did not move by identity.
   */
  private previous = new Map<string, Frame>();
  /** How many layouts this memory has seen (a fork made at one count applies only while it stays). */
  private made = 0;
  /** For a fork: the generation of the layout it was forked from, when it was (-1: not a fork). */
  private forkedAt = -1;

  constructor(
    /** The laid-out leaves, by node object (a fork shares them: they follow from the node alone). */
    private readonly leaves = new WeakMap<LayoutNode, Laid>()
  ) {}

  /** The frames of the last layout made with this memory. */
  get lastFrames(): ReadonlyMap<string, Frame> {
    return this.previous;
  }

  /** The number of layouts made with this memory so far. */
  get generation(): number {
    return this.made;
  }

  /** A copy of this memory: laying out with it (a step ahead of time) leaves this one as it was. */
  fork(): StructureLayout {
    const copy = new StructureLayout(this.leaves);
    copy.take(this);
    copy.forkedAt = this.made;
    for (const id of this.collapsed) {
      copy.collapsed.add(id);
    }
    return copy;
  }

  /**
   * What this layout remembers, as plain data another thread can receive: laying out
   * with `withMemory(memory)` there gives the frames this one would give.
   */
  memory(): LayoutMemory {
    return {
      columns: new Map(this.columns),
      slots: new Map(this.slots),
      collapsed: new Set(this.collapsed),
      previous: this.previous,
      generation: this.forkedAt >= 0 ? this.forkedAt : this.made
    };
  }

  /**
   * A fork of the layout `memory` was taken from (in this thread or another), sharing this
   * layout's laid-out leaves: `adopt` takes it only while that layout made none since.
   */
  withMemory(memory: LayoutMemory): StructureLayout {
    const copy = new StructureLayout(this.leaves);
    for (const [id, length] of memory.columns) {
      copy.columns.set(id, length);
    }
    for (const [id, slots] of memory.slots) {
      copy.slots.set(id, slots);
    }
    for (const id of memory.collapsed) {
      copy.collapsed.add(id);
    }
    copy.previous = memory.previous;
    copy.forkedAt = memory.generation;
    return copy;
  }

  /**
   * Continue from `fork`'s memory, as if its layouts had been made with this
   * one: only if this one made none since the fork and has the same boxes
   * collapsed (false: nothing taken).
   */
  adopt(fork: StructureLayout): boolean {
    if (fork.forkedAt !== this.made || fork.collapsed.size !== this.collapsed.size || ![...fork.collapsed].every(id => this.collapsed.has(id))) {
      return false;
    }
    this.take(fork);
    this.made += 1;
    return true;
  }

  private take(other: StructureLayout): void {
    this.columns.clear();
    for (const [id, length] of other.columns) {
      this.columns.set(id, length);
    }
    // A block's slots are replaced, never changed in place: the maps can be shared.
    this.slots.clear();
    for (const [id, slots] of other.slots) {
      this.slots.set(id, slots);
    }
    this.previous = other.previous;
  }

  /** The frame of every drawn node of `nodes` (given in IR pre-order, boxes before what they hold). */
  frames(nodes: Map<string, LayoutNode>): Map<string, Frame> {
    this.made += 1;
    const children = new Map<string | null, LayoutNode[]>();
    for (const node of nodes.values()) {
      const parent = node.parent !== null && nodes.has(node.parent) ? node.parent : null;
      const list = children.get(parent);
      if (list) {
        list.push(node);
      } else {
        children.set(parent, [node]);
      }
    }
    const frames = new Map<string, Frame>();
    const hiddenCount = (id: string): number => {
      let count = 0;
      const stack = [...(children.get(id) ?? [])];
      while (stack.length > 0) {
        const node = stack.pop()!;
        count += 1;
        stack.push(...(children.get(node.id) ?? []));
      }
      return count;
    };
    const lay = (node: LayoutNode): Laid => {
      const kids = this.collapsed.has(node.id) ? [] : children.get(node.id) ?? [];
      if (kids.length === 0 && this.collapsed.has(node.id) && (children.get(node.id)?.length ?? 0) > 0) {
        // A collapsed box names what it hides and how much: room for both (`collapsedLabel`).
        return { id: node.id, size: nodeSize({ kind: 'box', label: collapsedLabel(node.label, hiddenCount(node.id), MAX_LEAF_WIDTH) }), placed: [] };
      }
      if (kids.length === 0) {
        // A leaf's size follows from its node alone, and graphs share unchanged node objects.
        let laid = this.leaves.get(node);
        if (laid === undefined) {
          const size = nodeSize(node.kind === 'op' || node.kind === 'arg' ? node : { kind: 'box', label: node.label });
          laid = { id: node.id, size, placed: [] };
          this.leaves.set(node, laid);
        }
        return laid;
      }
      const inner = node.kind === 'block' ? this.layBlock(node.id, kids, lay) : layStack(kids, lay, kids.some(k => k.kind === 'region'));
      const size = {
        width: Math.max(inner.size.width, nodeSize({ kind: 'box', label: node.label }).width - BOX_PADDING.side * 2) + BOX_PADDING.side * 2,
        height: inner.size.height + BOX_PADDING.top + BOX_PADDING.side
      };
      const placed: Laid['placed'] = inner.placed.map(([laid, x, y]) => [laid, x + BOX_PADDING.side, y + BOX_PADDING.top]);
      return { id: node.id, size, placed };
    };
    const previous = this.previous;
    const place = (laid: Laid, x: number, y: number, depth: number): void => {
      const node = nodes.get(laid.id)!;
      const holds = (children.get(laid.id)?.length ?? 0) > 0;
      const collapsed = this.collapsed.has(laid.id) && holds;
      const frame: Frame = {
        x: x + laid.size.width / 2,
        y: y + laid.size.height / 2,
        width: laid.size.width,
        height: laid.size.height,
        box: (holds && !collapsed) || (node.kind !== 'op' && node.kind !== 'arg'),
        depth
      };
      if (collapsed) {
        frame.hidden = hiddenCount(laid.id);
      }
      const old = previous.get(laid.id);
      frames.set(laid.id, old !== undefined && sameFrame(old, frame) ? old : frame);
      for (const [child, dx, dy] of laid.placed) {
        place(child, x + dx, y + dy, depth + 1);
      }
    };
    let left = 0;
    for (const top of children.get(null) ?? []) {
      const laid = lay(top);
      place(laid, left, 0, 1);
      left += laid.size.width + GAP * 4;
    }
    this.previous = frames;
    return frames;
  }

  /** A block: its arguments in a row, then its ops in program order, wrapped into columns. */
  private layBlock(blockId: string, kids: LayoutNode[], lay: (node: LayoutNode) => Laid): Area {
    const args = kids.filter(k => k.kind === 'arg');
    const ops = kids.filter(k => k.kind !== 'arg');
    const placed: Laid['placed'] = [];
    let rowX = 0;
    let rowHeight = 0;
    for (const arg of args) {
      const laid = lay(arg);
      placed.push([laid, rowX, 0]);
      rowX += laid.size.width + GAP / 2;
      rowHeight = Math.max(rowHeight, laid.size.height);
    }
    let width = Math.max(0, rowX - GAP / 2);
    const top = rowHeight > 0 ? rowHeight + GAP : 0;
    const laidOps = ops.map(lay);
    const length = this.columnLength(blockId, laidOps);
    if (length < laidOps.length && laidOps.every(o => o.placed.length === 0)) {
      // A long block of plain ops: each keeps its slot in the grid (see `slotsOf`).
      const slots = this.slotsOf(blockId, laidOps.map(o => o.id));
      const columnWidth = MAX_LEAF_WIDTH + GAP * 3;
      const rowHeight = 30 + GAP;
      let last = 0;
      laidOps.forEach((laid, index) => {
        const slot = slots[index];
        placed.push([laid, Math.floor(slot / length) * columnWidth, top + (slot % length) * rowHeight]);
        last = Math.max(last, slot);
      });
      const columns = Math.floor(last / length) + 1;
      width = Math.max(width, columns * columnWidth - GAP * 3);
      const rows = Math.min(length, last + 1);
      return { size: { width, height: Math.max(rowHeight, top + rows * rowHeight - GAP) }, placed };
    }
    let columnX = 0;
    let height = rowHeight;
    for (let start = 0; start < laidOps.length; start += length) {
      let y = top;
      let columnWidth = 0;
      for (const laid of laidOps.slice(start, start + length)) {
        placed.push([laid, columnX, y]);
        y += laid.size.height + GAP;
        columnWidth = Math.max(columnWidth, laid.size.width);
      }
      height = Math.max(height, y - GAP);
      columnX += columnWidth + GAP * 3;
    }
    width = Math.max(width, columnX - GAP * 3);
    return { size: { width, height }, placed };
  }

  /**
   * The grid slots of a long block's ops, in program order.  An op keeps its
   * slot while the ops before it keep theirs: an erased op leaves a hole
   * instead of moving everything after it, and an inserted op pushes its
   * successors along only up to the next hole.  So a step moves the few ops
   * it touched, not the thousands below them.  More holes than ops, and the
   * block is packed again.
   */
  private slotsOf(blockId: string, ids: string[]): number[] {
    const kept = this.slots.get(blockId) ?? new Map<string, number>();
    let slots: number[] = [];
    let last = -1;
    for (const id of ids) {
      const old = kept.get(id);
      last = old !== undefined && old > last ? old : last + 1;
      slots.push(last);
    }
    if (last + 1 > ids.length * 2) {
      slots = ids.map((_, index) => index);
    }
    const next = new Map<string, number>();
    ids.forEach((id, index) => next.set(id, slots[index]));
    this.slots.set(blockId, next);
    return slots;
  }

  /**
   * How many ops a column of this block holds.  Chosen so the block is about
   * `ASPECT` times wider than tall, and kept while the block's size stays
   * within a factor of two of what it was chosen for, so ops do not reflow on
   * every step.
   */
  private columnLength(blockId: string, ops: Laid[]): number {
    const count = ops.length;
    const kept = this.columns.get(blockId);
    const boxes = ops.filter(o => o.placed.length > 0).length;
    // Only a wrapped block keeps its column length: a short block kept at the
    // length it had (one op, say) would put the ops it gains side by side.
    if (kept !== undefined && kept >= MIN_COLUMN && count <= kept * kept * 2 && count * 4 >= kept * kept) {
      return kept;
    }
    if (count <= MIN_COLUMN * 2 || boxes > 0) {
      // Short blocks, and blocks holding boxes (loops, nested regions), stay one column.
      this.columns.set(blockId, Math.max(count, 1));
      return Math.max(count, 1);
    }
    const width = ops.reduce((sum, o) => sum + o.size.width, 0) / count + GAP * 3;
    const height = 30 + GAP;
    const length = Math.max(MIN_COLUMN, Math.round(Math.sqrt((count * width) / (height * ASPECT))));
    this.columns.set(blockId, length);
    return length;
  }
}

/** Children stacked down (blocks of a region) or across (regions of an op). */
function layStack(kids: LayoutNode[], lay: (node: LayoutNode) => Laid, across: boolean): Area {
  const placed: Laid['placed'] = [];
  let offset = 0;
  let width = 0;
  let height = 0;
  for (const kid of kids) {
    const laid = lay(kid);
    if (across) {
      placed.push([laid, offset, 0]);
      offset += laid.size.width + GAP * 2;
      width = offset - GAP * 2;
      height = Math.max(height, laid.size.height);
    } else {
      placed.push([laid, 0, offset]);
      offset += laid.size.height + GAP * 2;
      height = offset - GAP * 2;
      width = Math.max(width, laid.size.width);
    }
  }
  return { size: { width, height }, placed };
}

