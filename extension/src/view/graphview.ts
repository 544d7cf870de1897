/**
 * The graph pane: Cytoscape.js drawing the step's graph with blocks, regions
 * and region-holding ops as compound boxes.  Rendering a step updates only
 * what differs from the elements already drawn, and never moves the viewport
 * on its own after the first fit, so stepping does not make the picture jump.
 */

import cytoscape from 'cytoscape';

import type { DiffGraph, StatusNode } from '../model/diff';
import { BOX_PADDING, nodeSize, type Point } from '../model/layout';
import { el } from './dom';

/** What is marked on top of the statuses. */
export interface GraphMarks {
  /** The op the step's pattern matched. */
  root: string | null;
  /** The pointer chain the step folded, in order. */
  chain: string[];
  selected: string | null;
}

export interface EdgeFilter {
  use: boolean;
  branch: boolean;
}

/** One drawn node as tests and tools read it back. */
export interface DrawnNode {
  id: string;
  kind: string;
  parent: string | null;
  status: string;
  label: string;
  x: number;
  y: number;
  marks: string[];
  /** The border colour drawn, as the browser computed it. */
  border: string;
}

/** Leaves and edges draw above every box. */
const LEAF_Z = 10000;

/** Boxes draw by nesting depth, deeper above outer (depths past this share one level). */
const MAX_DEPTH = 40;

const STYLE: cytoscape.StylesheetJson = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      'font-family': 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      'font-size': 11,
      'text-valign': 'center',
      'text-halign': 'center',
      'min-zoomed-font-size': 7,
      width: 'data(w)',
      height: 'data(h)',
      shape: 'round-rectangle',
      'background-color': '#f6f8fa',
      'border-width': 1,
      'border-color': '#8c959f',
      color: '#1f2328'
    }
  },
  { selector: 'node.k-arg', style: { shape: 'ellipse', 'background-color': '#eef2ff', 'font-size': 10 } },
  {
    selector: 'node.box',
    style: {
      'text-valign': 'top',
      'text-halign': 'center',
      'text-margin-y': 17,
      'font-weight': 'bold',
      'background-opacity': 0.85,
      'z-index-compare': 'manual'
    }
  },
  ...Array.from({ length: MAX_DEPTH }, (_, depth) => ({ selector: `node.d${depth + 1}`, style: { 'z-index': depth + 1 } })),
  { selector: 'node.leaf', style: { 'z-index': LEAF_Z, 'z-index-compare': 'manual' } },
  { selector: 'node.k-box', style: { 'background-color': '#eef3fb', 'border-width': 2, 'border-color': '#54698d' } },
  {
    selector: 'node.k-region',
    style: { 'background-opacity': 0, 'border-style': 'dashed', 'border-color': '#8c959f', 'font-weight': 'normal', color: '#57606a' }
  },
  { selector: 'node.k-block', style: { 'background-color': '#ffffff', 'border-color': '#6e7781' } },
  { selector: 'node.st-added', style: { 'border-color': '#1a7f37', 'border-width': 3, 'background-color': '#dafbe1' } },
  { selector: 'node.st-modified', style: { 'border-color': '#bf8700', 'border-width': 3, 'background-color': '#fff8c5' } },
  {
    selector: 'node.st-erased',
    style: { 'border-color': '#cf222e', 'border-style': 'dashed', 'border-width': 2, 'background-color': '#ffebe9', opacity: 0.5 }
  },
  { selector: 'node.m-chain', style: { 'underlay-color': '#8250df', 'underlay-opacity': 0.35, 'underlay-padding': 6 } },
  { selector: 'node.m-root', style: { 'underlay-color': '#bf8700', 'underlay-opacity': 0.25, 'underlay-padding': 5 } },
  { selector: 'node.m-selected', style: { 'border-color': '#0969da', 'border-width': 4 } },
  {
    selector: 'edge',
    style: {
      width: 1.2,
      'line-color': '#8c959f',
      'target-arrow-color': '#8c959f',
      'target-arrow-shape': 'triangle',
      'arrow-scale': 0.8,
      'curve-style': 'straight',
      'z-index': LEAF_Z + 1,
      'z-index-compare': 'manual'
    }
  },
  {
    selector: 'edge.k-branch',
    style: { width: 2, 'line-color': '#0969da', 'target-arrow-color': '#0969da', 'curve-style': 'bezier', 'line-style': 'dashed' }
  },
  { selector: 'edge.st-added', style: { 'line-color': '#1a7f37', 'target-arrow-color': '#1a7f37', width: 2.5 } },
  { selector: 'edge.st-erased', style: { 'line-color': '#cf222e', 'target-arrow-color': '#cf222e', 'line-style': 'dotted', opacity: 0.5 } },
  { selector: 'edge.m-chain', style: { 'line-color': '#8250df', 'target-arrow-color': '#8250df', width: 3 } },
  { selector: '.f-hidden', style: { display: 'none' } }
];

/** Graphs above this many elements are drawn with Cytoscape's cheaper settings. */
const BIG = 3000;


/** Where a node is drawn: its centre and size; a box also its nesting depth. */
interface Frame {
  x: number;
  y: number;
  width: number;
  height: number;
  box: boolean;
  depth: number;
}

/**
 * The frame of every node.  Boxes (blocks, regions, region-holding ops) are
 * drawn as plain nodes sized around what they hold, deeper boxes above
 * outer ones, rather than as Cytoscape compound nodes: restyling a compound
 * node restyles everything inside it, which made a step on a large function
 * cost seconds.
 */
export function boxFrames(
  nodes: Map<string, StatusNode>,
  positionOf: (node: StatusNode) => Point | undefined
): Map<string, Frame> {
  const bounds = new Map<string, { x0: number; y0: number; x1: number; y1: number }>();
  const frames = new Map<string, Frame>();
  const holders = new Set<string>();
  for (const node of nodes.values()) {
    if (node.parent !== null) {
      holders.add(node.parent);
    }
  }
  const grow = (id: string | null, x0: number, y0: number, x1: number, y1: number): void => {
    if (id === null) {
      return;
    }
    const b = bounds.get(id);
    if (!b) {
      bounds.set(id, { x0, y0, x1, y1 });
      return;
    }
    b.x0 = Math.min(b.x0, x0);
    b.y0 = Math.min(b.y0, y0);
    b.x1 = Math.max(b.x1, x1);
    b.y1 = Math.max(b.y1, y1);
  };
  // Children come after their box in `nodes`, so walking backwards sizes them first.
  const order = [...nodes.values()].reverse();
  for (const node of order) {
    const inner = bounds.get(node.id);
    let frame: Frame | undefined;
    if (inner && holders.has(node.id)) {
      const x0 = inner.x0 - BOX_PADDING.side;
      const y0 = inner.y0 - BOX_PADDING.top;
      const x1 = inner.x1 + BOX_PADDING.side;
      const y1 = inner.y1 + BOX_PADDING.side;
      frame = { x: (x0 + x1) / 2, y: (y0 + y1) / 2, width: x1 - x0, height: y1 - y0, box: true, depth: 0 };
    } else {
      const point = positionOf(node);
      if (point) {
        const size = nodeSize(node);
        frame = { ...point, ...size, box: node.kind !== 'op' && node.kind !== 'arg', depth: 0 };
      }
    }
    if (!frame) {
      continue;
    }
    frames.set(node.id, frame);
    grow(node.parent, frame.x - frame.width / 2, frame.y - frame.height / 2, frame.x + frame.width / 2, frame.y + frame.height / 2);
  }
  for (const node of nodes.values()) {
    const frame = frames.get(node.id);
    const parent = node.parent === null ? undefined : frames.get(node.parent);
    if (frame) {
      frame.depth = parent ? parent.depth + 1 : 1;
    }
  }
  return frames;
}

export class GraphPane {
  readonly node: HTMLElement;
  private cy: cytoscape.Core | null = null;
  private fitted = false;

  constructor(private readonly onSelect: (id: string) => void) {
    this.node = el('div', { className: 'pv-graph', attrs: { 'aria-label': 'graph of the IR at this step' } });
  }

  private core(big: boolean): cytoscape.Core {
    if (this.cy) {
      return this.cy;
    }
    this.cy = cytoscape({
      container: this.node,
      style: STYLE,
      layout: { name: 'preset' },
      minZoom: 0.02,
      maxZoom: 4,
      boxSelectionEnabled: false,
      autoungrabify: false,
      textureOnViewport: big,
      hideEdgesOnViewport: big,
      pixelRatio: big ? 1 : 'auto'
    });
    this.cy.on('tap', 'node', this.onTap);
    return this.cy;
  }

  private onTap = (event: cytoscape.EventObject): void => {
    this.onSelect(event.target.id());
  };

  dispose(): void {
    this.cy?.off('tap', 'node', this.onTap);
    this.cy?.destroy();
    this.cy = null;
  }

  /** Draw `graph`, leaves where `positionOf` says, changing only what differs from what is drawn. */
  render(
    graph: DiffGraph,
    positionOf: (node: StatusNode) => Point | undefined,
    marks: GraphMarks,
    edgeFilter: EdgeFilter
  ): void {
    const cy = this.core(graph.nodes.size + graph.edges.size > BIG);
    const chain = new Set(marks.chain);
    const chainEdges = new Set<string>();
    for (let i = 1; i < marks.chain.length; i++) {
      chainEdges.add(`${marks.chain[i - 1]}>${marks.chain[i]}`);
    }
    const frames = boxFrames(graph.nodes, positionOf);
    cy.batch(() => {
      const stale = cy.elements().filter(ele => !(ele.isNode() ? graph.nodes.has(ele.id()) : graph.edges.has(ele.id())));
      cy.remove(stale);
      const additions: cytoscape.ElementDefinition[] = [];
      for (const node of graph.nodes.values()) {
        const frame = frames.get(node.id);
        if (!frame) {
          continue;
        }
        const classes = [`k-${node.kind}`, `st-${node.status}`, frame.box ? `box d${Math.min(frame.depth, MAX_DEPTH)}` : 'leaf'];
        if (chain.has(node.id)) {
          classes.push('m-chain');
        }
        if (marks.root === node.id) {
          classes.push('m-root');
        }
        if (marks.selected === node.id) {
          classes.push('m-selected');
        }
        const className = classes.join(' ');
        const data = {
          id: node.id,
          owner: node.parent,
          label: node.label,
          kind: node.kind,
          status: node.status,
          w: frame.width,
          h: frame.height,
          z: frame.box ? frame.depth : LEAF_Z
        };
        const existing = cy.getElementById(node.id);
        if (existing.empty()) {
          additions.push({ group: 'nodes', data, classes: className, position: { x: frame.x, y: frame.y } });
          continue;
        }
        const old = existing.data() as typeof data;
        if (old.label !== data.label || old.status !== data.status || old.w !== data.w || old.h !== data.h ||
            old.owner !== data.owner || old.z !== data.z) {
          existing.data(data);
        }
        if (existing.classes().join(' ') !== className) {
          existing.classes(className);
        }
        const now = existing.position();
        if (now.x !== frame.x || now.y !== frame.y) {
          existing.position({ x: frame.x, y: frame.y });
        }
      }
      for (const edge of graph.edges.values()) {
        const classes = [`k-${edge.kind}`, `st-${edge.status}`];
        if (chainEdges.has(`${edge.source}>${edge.target}`)) {
          classes.push('m-chain');
        }
        if ((edge.kind === 'use' && !edgeFilter.use) || (edge.kind === 'branch' && !edgeFilter.branch)) {
          classes.push('f-hidden');
        }
        const className = classes.join(' ');
        const existing = cy.getElementById(edge.id);
        if (existing.empty()) {
          if (frames.has(edge.source) && frames.has(edge.target)) {
            additions.push({
              group: 'edges',
              data: { id: edge.id, source: edge.source, target: edge.target, label: edge.label, kind: edge.kind },
              classes: className
            });
          }
        } else if (existing.classes().join(' ') !== className) {
          existing.classes(className);
        }
      }
      cy.add(additions);
    });
    if (!this.fitted && graph.nodes.size > 0) {
      this.fit();
    }
  }

  /** Zoom to show the whole graph. */
  fit(): void {
    if (!this.cy) {
      return;
    }
    this.cy.resize();
    this.cy.fit(undefined, 20);
    this.fitted = true;
  }

  /** Zoom to the nodes `ids`, when any is drawn. */
  focusOn(ids: string[]): void {
    if (!this.cy || ids.length === 0) {
      return;
    }
    const cy = this.cy;
    let found = cy.collection();
    for (const id of ids) {
      found = found.union(cy.getElementById(id));
    }
    if (found.nonempty()) {
      cy.animate({ center: { eles: found } }, { duration: 150 });
    }
  }

  /** Tell Cytoscape its container changed size. */
  resize(): void {
    this.cy?.resize();
  }

  /** The drawn nodes, for tests and tools. */
  drawn(): DrawnNode[] {
    if (!this.cy) {
      return [];
    }
    return this.cy.nodes().map(node => ({
      id: node.id(),
      kind: String(node.data('kind')),
      parent: (node.data('owner') as string | null | undefined) ?? null,
      status: String(node.data('status')),
      label: String(node.data('label')),
      x: node.position('x'),
      y: node.position('y'),
      marks: node.classes().filter(c => c.startsWith('m-')).map(c => c.slice(2)),
      border: String(node.style('border-color'))
    }));
  }

  /** Number of drawn edges by kind and status, for tests and tools. */
  drawnEdges(): Array<{ id: string; kind: string; status: string; hidden: boolean }> {
    if (!this.cy) {
      return [];
    }
    return this.cy.edges().map(edge => ({
      id: edge.id(),
      kind: String(edge.data('kind')),
      status: edge.classes().find(c => c.startsWith('st-'))?.slice(3) ?? '',
      hidden: edge.hasClass('f-hidden')
    }));
  }
}
