/**
 * What a step changed, as statuses on the graph's nodes and edges.
 *
 * As in passviz's Python graphs: `added` (new id), `erased` (kept as a ghost
 * with its old data), `modified` (its own text or its direct parent changed,
 * or the step modified it without changing its text) and `unchanged`; the
 * viewer also tells `moved` apart: an op the step only moved (same text,
 * in its block or to another), which Python's graphs count as modified.
 */

import type { Delta } from '../schema';
import type { GraphData, GraphEdge, GraphNode } from './graph';

export type Status = 'added' | 'modified' | 'moved' | 'erased' | 'unchanged';

export interface StatusNode extends GraphNode {
  status: Status;
}

export interface StatusEdge extends GraphEdge {
  status: Status;
}

export interface DiffGraph {
  nodes: Map<string, StatusNode>;
  edges: Map<string, StatusEdge>;
}

/** Ids a step changed without necessarily changing their text: moved ops, changed blocks. */
export function touchedBy(delta: Delta): Set<string> {
  const found = new Set<string>(delta.ops_moved ?? []);
  for (const change of delta.ops_modified ?? []) {
    found.add(change.id);
  }
  for (const id of delta.blocks_moved ?? []) {
    found.add(id);
  }
  for (const id of Object.keys(delta.block_args ?? {})) {
    found.add(id);
  }
  for (const id of Object.keys(delta.region_blocks ?? {})) {
    found.add(id);
  }
  return found;
}

/** Ops the step moved and did not otherwise modify (drawn as moved if their text stays the same). */
export function movedBy(delta: Delta): Set<string> {
  const moved = new Set<string>(delta.ops_moved ?? []);
  for (const change of delta.ops_modified ?? []) {
    moved.delete(change.id);
  }
  return moved;
}

/**
 * The statuses of unchanged nodes and edges, kept from one diff to the next:
 * graphs built by one `GraphBuilder` share the objects of what did not change,
 * so an unchanged node of a big graph costs one lookup, not a copy.
 */
export class UnchangedCache {
  readonly nodes = new WeakMap<GraphNode, StatusNode>();
  readonly edges = new WeakMap<GraphEdge, StatusEdge>();
}

/**
 * `after` with a status on every node and edge, plus `before`'s lost parts as
 * ghosts.  Nodes stay in IR pre-order, each ghost right after the node that
 * preceded it in `before`, so it is drawn where it was.  The status objects
 * are new, or shared through `cache` for what is unchanged; never modify them.
 */
export function diffGraphs(
  before: GraphData,
  after: GraphData,
  touched: Set<string> = new Set(),
  cache: UnchangedCache = new UnchangedCache(),
  moved: ReadonlySet<string> = new Set()
): DiffGraph {
  // Ghosts keyed by the node they follow (null: before everything).
  const ghostsAfter = new Map<string | null, GraphNode[]>();
  let previous: string | null = null;
  for (const node of before.nodes.values()) {
    if (!after.nodes.has(node.id)) {
      const list = ghostsAfter.get(previous);
      if (list) {
        list.push(node);
      } else {
        ghostsAfter.set(previous, [node]);
      }
    }
    previous = node.id;
  }
  const nodes = new Map<string, StatusNode>();
  const addGhosts = (anchor: string | null): void => {
    for (const ghost of ghostsAfter.get(anchor) ?? []) {
      nodes.set(ghost.id, { ...ghost, status: 'erased' });
      addGhosts(ghost.id);
    }
  };
  const hasGhosts = ghostsAfter.size > 0;
  if (hasGhosts) {
    addGhosts(null);
  }
  for (const node of after.nodes.values()) {
    const old = before.nodes.get(node.id);
    let status: Status = 'unchanged';
    if (!old) {
      status = 'added';
    } else if (touched.has(node.id) || (old !== node && (old.text !== node.text || old.parent !== node.parent))) {
      // Not the label: what it adds to the text is the value's shown name, and
      // erasing one `%a_ptrs_6` renumbers every later `%a_ptrs_N` without changing them.
      status = moved.has(node.id) && old.text === node.text ? 'moved' : 'modified';
    }
    if (status === 'unchanged') {
      let same = cache.nodes.get(node);
      if (same === undefined) {
        same = { ...node, status };
        cache.nodes.set(node, same);
      }
      nodes.set(node.id, same);
    } else {
      nodes.set(node.id, { ...node, status });
    }
    if (hasGhosts) {
      addGhosts(node.id);
    }
  }
  // A ghost keeps its old box only while that box is drawn.
  for (const node of nodes.values()) {
    if (node.parent !== null && !nodes.has(node.parent)) {
      nodes.set(node.id, { ...node, parent: null });
    }
  }
  const edges = new Map<string, StatusEdge>();
  for (const edge of after.edges.values()) {
    const old = before.edges.get(edge.id);
    const same = old !== undefined && (old === edge || (old.source === edge.source && old.target === edge.target));
    if (same) {
      let kept = cache.edges.get(edge);
      if (kept === undefined) {
        kept = { ...edge, status: 'unchanged' };
        cache.edges.set(edge, kept);
      }
      edges.set(edge.id, kept);
    } else {
      edges.set(edge.id, { ...edge, status: 'added' });
    }
  }
  for (const edge of before.edges.values()) {
    if (!after.edges.has(edge.id)) {
      edges.set(edge.id, { ...edge, status: 'erased' });
    }
  }
  return { nodes, edges };
}

/** The number of nodes of each status. */
export function countStatuses(graph: DiffGraph): Record<Status, number> {
  const counts: Record<Status, number> = { added: 0, modified: 0, moved: 0, erased: 0, unchanged: 0 };
  for (const node of graph.nodes.values()) {
    counts[node.status] += 1;
  }
  return counts;
}

/**
 * Put `shown`'s objects in `fresh` wherever they are equal, field by field: a step built in
 * another thread (the viewer's worker) arrives as copies, and the view tells what it need not
 * redraw by identity.  `fresh` is changed in place.
 */
export function shareUnchanged(fresh: DiffGraph, shown: DiffGraph): void {
  for (const [id, node] of fresh.nodes) {
    const old = shown.nodes.get(id);
    if (old !== undefined && old !== node && sameFields(old, node)) {
      fresh.nodes.set(id, old);
    }
  }
  for (const [id, edge] of fresh.edges) {
    const old = shown.edges.get(id);
    if (old !== undefined && old !== edge && sameFields(old, edge)) {
      fresh.edges.set(id, old);
    }
  }
}

/** Whether two flat records hold the same fields with the same values. */
function sameFields<T extends object>(a: T, b: T): boolean {
  const keys = Object.keys(a) as Array<keyof T>;
  return keys.length === Object.keys(b).length && keys.every(key => a[key] === b[key]);
}
