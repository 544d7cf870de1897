/**
 * Positions that stay put across steps.
 *
 * The first view is laid out whole (ELK's layered layout, or the program-order
 * layout below for graphs too big for ELK to be quick).  After that a node keeps
 * its position for the rest of the trace; a node seen for the first time goes
 * next to its nearest placed sibling or neighbour, on a spot no node covers.
 * Boxes are not placed: they are drawn around what they hold.
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

const CHAR_WIDTH = 7;
export const GAP = 16;
/** Room a box keeps above its children for its label, and around them. */
export const BOX_PADDING = { top: 26, side: 10 };

/** The drawn size of a node that is not a box around others. */
export function nodeSize(node: Pick<GraphNode, 'kind' | 'label'>): Size {
  if (node.kind === 'arg') {
    return { width: Math.min(200, Math.max(40, node.label.length * 6 + 14)), height: 22 };
  }
  if (node.kind === 'op') {
    return { width: Math.min(240, Math.max(60, node.label.length * CHAR_WIDTH + 20)), height: 30 };
  }
  // an empty box
  return { width: Math.max(80, node.label.length * CHAR_WIDTH + 20), height: 40 };
}

/** Leaves of the graph: nodes that hold no other node, the ones that get positions. */
export function leafIds(nodes: Iterable<Pick<GraphNode, 'id' | 'parent'>>): string[] {
  const list = [...nodes];
  const parents = new Set(list.map(n => n.parent).filter((p): p is string => p !== null));
  return list.filter(n => !parents.has(n.id)).map(n => n.id);
}

/**
 * The program-order layout: a block's arguments in a row, then its ops one
 * under the other in IR order (wrapping into columns past `columnLength`);
 * a region's blocks one under the other; an op's regions side by side.
 * Linear in the size of the graph.
 */
export function programOrderLayout(nodes: Map<string, GraphNode>, columnLength = 60): Map<string, Point> {
  const children = new Map<string | null, GraphNode[]>();
  for (const node of nodes.values()) {
    const list = children.get(node.parent) ?? [];
    list.push(node);
    children.set(node.parent, list);
  }
  const positions = new Map<string, Point>();
  // Lay out `node` with its top-left corner at (x, y); returns its size.
  const lay = (node: GraphNode, x: number, y: number): Size => {
    const kids = children.get(node.id) ?? [];
    if (kids.length === 0) {
      const size = nodeSize(node);
      positions.set(node.id, { x: x + size.width / 2, y: y + size.height / 2 });
      return size;
    }
    const innerX = x + BOX_PADDING.side;
    const innerY = y + BOX_PADDING.top;
    let width = 0;
    let height = 0;
    if (node.kind === 'block') {
      const args = kids.filter(k => k.kind === 'arg');
      const ops = kids.filter(k => k.kind !== 'arg');
      let rowX = innerX;
      let rowHeight = 0;
      for (const arg of args) {
        const size = lay(arg, rowX, innerY);
        rowX += size.width + GAP / 2;
        rowHeight = Math.max(rowHeight, size.height);
      }
      width = rowX - innerX;
      const top = innerY + (rowHeight > 0 ? rowHeight + GAP : 0);
      let columnX = innerX;
      for (let start = 0; start < ops.length; start += columnLength) {
        let columnY = top;
        let columnWidth = 0;
        for (const op of ops.slice(start, start + columnLength)) {
          const size = lay(op, columnX, columnY);
          columnY += size.height + GAP;
          columnWidth = Math.max(columnWidth, size.width);
        }
        height = Math.max(height, columnY - innerY);
        columnX += columnWidth + GAP * 3;
      }
      width = Math.max(width, columnX - innerX - GAP * 3);
      height = Math.max(height, rowHeight);
    } else {
      // regions side by side in an op; blocks one under the other in a region
      const across = kids.some(k => k.kind === 'region');
      let offset = 0;
      for (const kid of kids) {
        const size = across ? lay(kid, innerX + offset, innerY) : lay(kid, innerX, innerY + offset);
        offset += (across ? size.width : size.height) + GAP * 2;
        width = across ? offset : Math.max(width, size.width);
        height = across ? Math.max(height, size.height) : offset;
      }
    }
    return { width: width + BOX_PADDING.side * 2, height: height + BOX_PADDING.top + BOX_PADDING.side };
  };
  let x = 0;
  for (const top of children.get(null) ?? []) {
    x += lay(top, x, 0).width + GAP * 4;
  }
  return positions;
}

/** A grid of the rectangles nodes cover, to find a free spot quickly. */
class Occupancy {
  private readonly cells = new Map<string, Array<[Point, Size]>>();

  constructor(private readonly cell = 64) {}

  private keys(center: Point, size: Size): string[] {
    const keys: string[] = [];
    const x0 = Math.floor((center.x - size.width / 2) / this.cell);
    const x1 = Math.floor((center.x + size.width / 2) / this.cell);
    const y0 = Math.floor((center.y - size.height / 2) / this.cell);
    const y1 = Math.floor((center.y + size.height / 2) / this.cell);
    for (let i = x0; i <= x1; i++) {
      for (let j = y0; j <= y1; j++) {
        keys.push(`${i},${j}`);
      }
    }
    return keys;
  }

  add(center: Point, size: Size): void {
    for (const key of this.keys(center, size)) {
      const list = this.cells.get(key) ?? [];
      list.push([center, size]);
      this.cells.set(key, list);
    }
  }

  free(center: Point, size: Size): boolean {
    for (const key of this.keys(center, size)) {
      for (const [other, otherSize] of this.cells.get(key) ?? []) {
        if (
          Math.abs(other.x - center.x) * 2 < size.width + otherSize.width + GAP &&
          Math.abs(other.y - center.y) * 2 < size.height + otherSize.height + GAP / 2
        ) {
          return false;
        }
      }
    }
    return true;
  }
}

/** The nodes a node's edges come from and go to. */
export interface Neighbours {
  sources: Map<string, string[]>;
  targets: Map<string, string[]>;
}

/**
 * Every node's position, kept once given.  A position belongs to a node in
 * its box: an op moved to another block is placed anew there (and finds its
 * old spot again if it moves back), so a box never seems to hold an op that
 * has left it.
 */
export class LayoutMemory {
  private readonly positions = new Map<string, Point>();
  private readonly parents = new Map<string, string | null>();

  get size(): number {
    return this.positions.size;
  }

  private static key(id: string, parent: string | null): string {
    return `${id}@${parent ?? ''}`;
  }

  /** The position of `id` in the box it was last placed or looked up in. */
  get(id: string): Point | undefined {
    const parent = this.parents.get(id);
    return parent === undefined ? undefined : this.positions.get(LayoutMemory.key(id, parent));
  }

  /** The position of `node` in its box, if it has one. */
  positionOf(node: Pick<GraphNode, 'id' | 'parent'>): Point | undefined {
    const point = this.positions.get(LayoutMemory.key(node.id, node.parent));
    if (point) {
      this.parents.set(node.id, node.parent);
    }
    return point;
  }

  private set(node: Pick<GraphNode, 'id' | 'parent'>, point: Point): void {
    this.positions.set(LayoutMemory.key(node.id, node.parent), point);
    this.parents.set(node.id, node.parent);
  }

  /** Positions from a whole-graph layout of `nodes`, for nodes that have none yet. */
  seed(nodes: Map<string, GraphNode>, positions: Map<string, Point>): void {
    for (const [id, point] of positions) {
      const node = nodes.get(id);
      if (node && !this.positionOf(node)) {
        this.set(node, point);
      }
    }
  }

  /**
   * Give every leaf of `nodes` that has no position in its box one next to
   * its placed sibling or neighbour, on a free spot.  Returns the ids placed.
   */
  place(nodes: Map<string, GraphNode>, neighbours: Neighbours = { sources: new Map(), targets: new Map() }): string[] {
    const leaves = leafIds(nodes.values());
    const missing = leaves.filter(id => !this.positionOf(nodes.get(id)!));
    if (missing.length === 0) {
      return [];
    }
    const occupancy = new Occupancy();
    for (const id of leaves) {
      const point = this.positionOf(nodes.get(id)!);
      if (point) {
        occupancy.add(point, nodeSize(nodes.get(id)!));
      }
    }
    const siblings = new Map<string | null, string[]>();
    const order = new Map<string, number>();
    for (const node of nodes.values()) {
      const list = siblings.get(node.parent) ?? [];
      order.set(node.id, list.length);
      list.push(node.id);
      siblings.set(node.parent, list);
    }
    for (const id of missing) {
      const node = nodes.get(id)!;
      const size = nodeSize(node);
      const anchor = this.anchor(node, siblings.get(node.parent) ?? [], order.get(id)!, neighbours, nodes);
      const spot = this.freeSpot(anchor, size, occupancy);
      this.set(node, spot);
      occupancy.add(spot, size);
    }
    return missing;
  }

  /**
   * Where a new node should go: under its previous placed sibling (over the
   * next one), else under the nodes its edges come from (over those they go
   * to), else in its nearest placed box, else right of everything.
   */
  private anchor(
    node: GraphNode,
    around: string[],
    index: number,
    neighbours: Neighbours,
    nodes: Map<string, GraphNode>
  ): Point {
    const placed = (id: string): Point | undefined => {
      const other = nodes.get(id);
      return other ? this.positionOf(other) : undefined;
    };
    for (let i = index - 1; i >= 0; i--) {
      const point = placed(around[i]);
      if (point) {
        return { x: point.x, y: point.y + 40 };
      }
    }
    for (let i = index + 1; i < around.length; i++) {
      const point = placed(around[i]);
      if (point) {
        return { x: point.x, y: point.y - 40 };
      }
    }
    const near = (ids: string[] | undefined): Point[] =>
      (ids ?? []).map(placed).filter((p): p is Point => p !== undefined);
    const mean = (points: Point[]): number => points.reduce((sum, p) => sum + p.x, 0) / points.length;
    const from = near(neighbours.sources.get(node.id));
    if (from.length > 0) {
      return { x: mean(from), y: Math.max(...from.map(p => p.y)) + 50 };
    }
    const to = near(neighbours.targets.get(node.id));
    if (to.length > 0) {
      return { x: mean(to), y: Math.min(...to.map(p => p.y)) - 50 };
    }
    let parent = node.parent;
    while (parent !== null) {
      const point = placed(parent);
      if (point) {
        return point;
      }
      parent = nodes.get(parent)?.parent ?? null;
    }
    let right = 0;
    let top = Infinity;
    for (const point of this.positions.values()) {
      right = Math.max(right, point.x);
      top = Math.min(top, point.y);
    }
    return { x: right + 200, y: Number.isFinite(top) ? top : 0 };
  }

  /** The free spot nearest `anchor`, searching rings of grid steps around it. */
  private freeSpot(anchor: Point, size: Size, occupancy: Occupancy): Point {
    const dx = 40;
    const dy = 20;
    for (let ring = 0; ring < 400; ring++) {
      const candidates: Point[] = [];
      for (let i = -ring; i <= ring; i++) {
        candidates.push({ x: anchor.x + i * dx, y: anchor.y + ring * dy });
        candidates.push({ x: anchor.x + i * dx, y: anchor.y - ring * dy });
        candidates.push({ x: anchor.x + ring * dx, y: anchor.y + i * dy });
        candidates.push({ x: anchor.x - ring * dx, y: anchor.y + i * dy });
      }
      const distance = (p: Point): number => Math.hypot(p.x - anchor.x, p.y - anchor.y);
      candidates.sort((a, b) => distance(a) - distance(b));
      const found = candidates.find(c => occupancy.free(c, size));
      if (found) {
        return found;
      }
    }
    return anchor;
  }
}

/** For each node, the nodes its edges come from and go to. */
export function neighbourMap(edges: Iterable<{ source: string; target: string }>): Neighbours {
  const sources = new Map<string, string[]>();
  const targets = new Map<string, string[]>();
  const link = (map: Map<string, string[]>, from: string, to: string): void => {
    const list = map.get(from);
    if (list) {
      list.push(to);
    } else {
      map.set(from, [to]);
    }
  };
  for (const { source, target } of edges) {
    link(sources, target, source);
    link(targets, source, target);
  }
  return { sources, targets };
}
