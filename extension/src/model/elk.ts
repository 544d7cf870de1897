/**
 * The first view's layout from ELK's layered algorithm, with blocks, regions
 * and region-holding ops as nested boxes (ELK lays out the whole hierarchy at
 * once).  Returns the centre of every leaf, in absolute coordinates.
 */

import ELK from 'elkjs/lib/elk.bundled.js';
import type { ElkExtendedEdge, ElkNode } from 'elkjs/lib/elk-api';

import type { GraphEdge, GraphNode } from './graph';
import { BOX_PADDING, GAP, nodeSize, type Point } from './layout';

const ROOT_OPTIONS: Record<string, string> = {
  'elk.algorithm': 'layered',
  'elk.direction': 'DOWN',
  'elk.hierarchyHandling': 'INCLUDE_CHILDREN',
  'elk.layered.spacing.nodeNodeBetweenLayers': '28',
  'elk.spacing.nodeNode': String(GAP),
  'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
  'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES'
};

const BOX_OPTIONS: Record<string, string> = {
  'elk.padding': `[top=${BOX_PADDING.top},left=${BOX_PADDING.side},bottom=${BOX_PADDING.side},right=${BOX_PADDING.side}]`
};

/** The chain of boxes around a node, innermost first, the node itself included. */
function ancestry(id: string, nodes: Map<string, GraphNode>): string[] {
  const chain: string[] = [];
  let current: string | null = id;
  while (current !== null) {
    chain.push(current);
    current = nodes.get(current)?.parent ?? null;
  }
  return chain;
}

/** Lay out `nodes` and `edges` with ELK; the promise gives leaf centres. */
export async function elkLayout(
  nodes: Map<string, GraphNode>,
  edges: Iterable<GraphEdge>
): Promise<Map<string, Point>> {
  const elkNodes = new Map<string, ElkNode>();
  const root: ElkNode = { id: '__root__', layoutOptions: ROOT_OPTIONS, children: [], edges: [] };
  for (const node of nodes.values()) {
    const size = nodeSize(node);
    elkNodes.set(node.id, { id: node.id, width: size.width, height: size.height, children: [], edges: [] });
  }
  for (const node of nodes.values()) {
    const elkNode = elkNodes.get(node.id)!;
    const parent = node.parent === null ? root : elkNodes.get(node.parent);
    (parent ?? root).children!.push(elkNode);
  }
  for (const elkNode of elkNodes.values()) {
    if (elkNode.children!.length > 0) {
      elkNode.layoutOptions = BOX_OPTIONS;
      delete elkNode.width;
      delete elkNode.height;
    }
  }
  for (const edge of edges) {
    const up = ancestry(edge.source, nodes);
    const down = ancestry(edge.target, nodes);
    // ELK cannot route an edge between a box and what it holds.
    if (up.includes(edge.target) || down.includes(edge.source)) {
      continue;
    }
    const common = up.find(id => down.includes(id));
    const holder = common === undefined ? root : elkNodes.get(common)!;
    const elkEdge: ElkExtendedEdge = { id: edge.id, sources: [edge.source], targets: [edge.target] };
    holder.edges!.push(elkEdge);
  }
  const laid = await new ELK().layout(root);
  const positions = new Map<string, Point>();
  const walk = (node: ElkNode, offsetX: number, offsetY: number): void => {
    for (const child of node.children ?? []) {
      const x = offsetX + (child.x ?? 0);
      const y = offsetY + (child.y ?? 0);
      positions.set(child.id, { x: x + (child.width ?? 0) / 2, y: y + (child.height ?? 0) / 2 });
      walk(child, x, y);
    }
  };
  walk(laid, 0, 0);
  return positions;
}
