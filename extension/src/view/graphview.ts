/**
 * The graph pane: Cytoscape.js drawing the step's graph at the frames the
 * structural layout gives (blocks, regions and region-holding ops as boxes
 * around what they hold), with a camera that follows each step's change.
 *
 * Boxes are plain nodes sized around their content, deeper boxes drawn above
 * outer ones, rather than Cytoscape compound nodes: restyling a compound node
 * restyles everything inside it, which made a step on a large function cost
 * seconds.  Rendering a step updates only what differs from what is drawn.
 */

import cytoscape from 'cytoscape';

import type { DiffGraph } from '../model/diff';
import { MAX_LEAF_WIDTH, type Frame } from '../model/layout';
import { el } from './dom';
import { Minimap } from './minimap';

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

/** A rectangle in page pixels. */
export interface PageBox {
  x: number;
  y: number;
  w: number;
  h: number;
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

/** Leaves draw above every box and edge; edges above boxes, so they never cover a label. */
const LEAF_Z = 10000;
const EDGE_Z = LEAF_Z - 1;

/** Boxes draw by nesting depth, deeper above outer (depths past this share one level). */
const MAX_DEPTH = 40;

/** The zoom the camera prefers for a change: labels legible, not blown up. */
const CHANGE_ZOOM = 1.1;
/** Camera and node moves take this long; stepping while a key is held does not animate. */
const ANIMATION_MS = 180;
/** Graphs that move more nodes than this in one step jump instead of animating. */
const ANIMATE_LIMIT = 600;

const STYLE: cytoscape.StylesheetJson = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      'font-family': 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      'font-size': 11,
      'text-valign': 'center',
      'text-halign': 'center',
      'text-wrap': 'ellipsis',
      'text-max-width': `${MAX_LEAF_WIDTH - 12}px`,
      'min-zoomed-font-size': 6,
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
      'text-max-width': 'data(w)',
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
  {
    selector: 'node.collapsed',
    style: { 'border-style': 'double', 'border-width': 4, 'text-valign': 'center', 'text-margin-y': 0 }
  },
  { selector: 'node.st-added', style: { 'border-color': '#1a7f37', 'border-width': 3, 'background-color': '#dafbe1' } },
  { selector: 'node.st-modified', style: { 'border-color': '#bf8700', 'border-width': 3, 'background-color': '#fff8c5' } },
  {
    selector: 'node.st-erased',
    style: { 'border-color': '#cf222e', 'border-style': 'dashed', 'border-width': 2, 'background-color': '#ffebe9', opacity: 0.55 }
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
      // Edges bow out to the side, so one between distant ops of a column does not run over the ops between.
      'curve-style': 'unbundled-bezier',
      'control-point-distances': 'data(bow)',
      'control-point-weights': 0.5,
      'z-index': EDGE_Z,
      'z-index-compare': 'manual'
    }
  },
  {
    selector: 'edge.k-branch',
    style: { width: 2, 'line-color': '#0969da', 'target-arrow-color': '#0969da', 'line-style': 'dashed' }
  },
  { selector: 'edge.st-added', style: { 'line-color': '#1a7f37', 'target-arrow-color': '#1a7f37', width: 2.5 } },
  { selector: 'edge.st-erased', style: { 'line-color': '#cf222e', 'target-arrow-color': '#cf222e', 'line-style': 'dotted', opacity: 0.5 } },
  { selector: 'edge.m-chain', style: { 'line-color': '#8250df', 'target-arrow-color': '#8250df', width: 3 } },
  // Big graphs draw edges straight: curved ones cost too much to route on every step.
  { selector: 'edge.fast', style: { 'curve-style': 'straight' } },
  { selector: '.f-hidden', style: { display: 'none' } }
];

/** Graphs above this many elements are drawn with Cytoscape's cheaper settings. */
const BIG = 3000;

/** How far an edge bows out: more for edges that span more. */
function bow(source: Frame, target: Frame): number {
  const span = Math.hypot(target.x - source.x, target.y - source.y);
  const sameColumn = Math.abs(target.x - source.x) < 4;
  return sameColumn ? Math.min(160, 12 + span * 0.18) : Math.min(60, span * 0.05);
}

export class GraphPane {
  readonly node: HTMLElement;
  private readonly canvas: HTMLElement;
  private readonly offscreen: HTMLButtonElement;
  private readonly minimap: Minimap;
  private cy: cytoscape.Core | null = null;
  /** Set when the person pans or zooms by hand: the camera then stops following changes. */
  private userMoved = false;
  private frames = new Map<string, Frame>();
  private targets: string[] = [];

  constructor(
    private readonly onSelect: (id: string) => void,
    private readonly onToggle: (id: string) => void
  ) {
    this.canvas = el('div', { className: 'pv-graph-canvas' });
    this.offscreen = el('button', { className: 'pv-offscreen pv-button', attrs: { type: 'button' } });
    this.offscreen.hidden = true;
    this.offscreen.addEventListener('click', this.onOffscreen);
    this.minimap = new Minimap(point => this.panTo(point));
    this.node = el('div', { className: 'pv-graph', attrs: { 'aria-label': 'graph of the IR at this step' } }, [
      this.canvas,
      this.offscreen,
      this.minimap.node
    ]);
  }

  private core(big: boolean): cytoscape.Core {
    if (this.cy) {
      return this.cy;
    }
    this.cy = cytoscape({
      container: this.canvas,
      style: STYLE,
      layout: { name: 'preset' },
      minZoom: 0.005,
      maxZoom: 4,
      boxSelectionEnabled: false,
      autoungrabify: true,
      textureOnViewport: big,
      hideEdgesOnViewport: big,
      pixelRatio: big ? 1 : 'auto'
    });
    this.cy.on('tap', 'node', this.onTap);
    this.cy.on('dbltap', 'node', this.onDoubleTap);
    this.cy.on('mouseover', 'node', this.onHover);
    this.cy.on('mouseout', 'node', this.onLeave);
    this.cy.on('dragpan scrollzoom pinchzoom', this.onUserMove);
    this.cy.on('viewport', this.onViewport);
    return this.cy;
  }

  private onTap = (event: cytoscape.EventObject): void => {
    this.onSelect(event.target.id());
  };

  private onDoubleTap = (event: cytoscape.EventObject): void => {
    const target = event.target as cytoscape.NodeSingular;
    if (target.hasClass('box') || target.hasClass('collapsed')) {
      this.onToggle(target.id());
    }
  };

  /** The op's whole text on hover (a tooltip: the canvas's title, so it stays text). */
  private onHover = (event: cytoscape.EventObject): void => {
    this.canvas.title = String(event.target.data('text') ?? '').replace(/\{\.\.\.(-args)?(-term)?\}/g, '{…}');
  };

  private onLeave = (): void => {
    this.canvas.title = '';
  };

  private onUserMove = (): void => {
    this.userMoved = true;
    this.updateOffscreen();
  };

  private onViewport = (): void => {
    this.minimap.viewport(this.visibleArea());
  };

  private onOffscreen = (): void => {
    void this.zoomToChange(true);
  };

  dispose(): void {
    this.offscreen.removeEventListener('click', this.onOffscreen);
    this.minimap.dispose();
    if (this.cy) {
      this.cy.off('tap', 'node', this.onTap);
      this.cy.off('dbltap', 'node', this.onDoubleTap);
      this.cy.off('mouseover', 'node', this.onHover);
      this.cy.off('mouseout', 'node', this.onLeave);
      this.cy.off('dragpan scrollzoom pinchzoom', this.onUserMove);
      this.cy.off('viewport', this.onViewport);
      this.cy.destroy();
    }
    this.cy = null;
  }

  /**
   * Draw `graph` at `frames`, changing only what differs from what is drawn.
   * `targets` are the nodes the step is about (changed, erased, matched): the
   * camera brings them into view unless the person moved it by hand.
   */
  async render(
    graph: DiffGraph,
    frames: Map<string, Frame>,
    marks: GraphMarks,
    edgeFilter: EdgeFilter,
    targets: string[],
    animate: boolean
  ): Promise<void> {
    const first = this.cy === null;
    const big = graph.nodes.size + graph.edges.size > BIG;
    const cy = this.core(big);
    this.frames = frames;
    this.targets = targets.filter(id => frames.has(id));
    const chain = new Set(marks.chain);
    const chainEdges = new Set<string>();
    for (let i = 1; i < marks.chain.length; i++) {
      chainEdges.add(`${marks.chain[i - 1]}>${marks.chain[i]}`);
    }
    const moves: Array<[cytoscape.NodeSingular, Frame]> = [];
    cy.batch(() => {
      const stale = cy.elements().filter(ele => !(ele.isNode() ? frames.has(ele.id()) : graph.edges.has(ele.id())));
      cy.remove(stale);
      const additions: cytoscape.ElementDefinition[] = [];
      for (const node of graph.nodes.values()) {
        const frame = frames.get(node.id);
        if (!frame) {
          continue;
        }
        const classes = [`k-${node.kind}`, `st-${node.status}`, frame.box ? `box d${Math.min(frame.depth, MAX_DEPTH)}` : 'leaf'];
        if (frame.hidden !== undefined) {
          classes.push('collapsed');
        }
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
        const label = frame.hidden !== undefined ? `${node.label}  (+${frame.hidden})` : node.label;
        const parent = node.parent !== null && frames.has(node.parent) ? node.parent : null;
        const data = { id: node.id, owner: parent, label, kind: node.kind, status: node.status, w: frame.width, h: frame.height, text: node.text };
        const existing = cy.getElementById(node.id);
        if (existing.empty()) {
          additions.push({ group: 'nodes', data, classes: className, position: { x: frame.x, y: frame.y } });
          continue;
        }
        const old = existing.data() as typeof data;
        if (old.label !== data.label || old.status !== data.status || old.w !== data.w || old.h !== data.h ||
            old.owner !== data.owner || old.text !== data.text) {
          existing.data(data);
        }
        if (existing.classes().join(' ') !== className) {
          existing.classes(className);
        }
        const now = existing.position();
        if (now.x !== frame.x || now.y !== frame.y) {
          moves.push([existing as cytoscape.NodeSingular, frame]);
        }
      }
      const animated = animate && moves.length <= ANIMATE_LIMIT;
      if (!animated) {
        for (const [node, frame] of moves) {
          node.position({ x: frame.x, y: frame.y });
        }
      }
      for (const edge of graph.edges.values()) {
        const source = frames.get(edge.source);
        const target = frames.get(edge.target);
        if (!source || !target) {
          continue;
        }
        const classes = [`k-${edge.kind}`, `st-${edge.status}`];
        if (big) {
          classes.push('fast');
        }
        if (chainEdges.has(`${edge.source}>${edge.target}`)) {
          classes.push('m-chain');
        }
        if ((edge.kind === 'use' && !edgeFilter.use) || (edge.kind === 'branch' && !edgeFilter.branch)) {
          classes.push('f-hidden');
        }
        const className = classes.join(' ');
        const data = { id: edge.id, source: edge.source, target: edge.target, label: edge.label, kind: edge.kind, bow: bow(source, target) };
        const existing = cy.getElementById(edge.id);
        if (existing.empty()) {
          additions.push({ group: 'edges', data, classes: className });
          continue;
        }
        if (existing.data('bow') !== data.bow) {
          existing.data('bow', data.bow);
        }
        if (existing.classes().join(' ') !== className) {
          existing.classes(className);
        }
      }
      cy.add(additions);
    });
    const moving = animate && moves.length > 0 && moves.length <= ANIMATE_LIMIT;
    const settled = moving
      ? Promise.all(moves.map(([node, frame]) =>
          node.animation({ position: { x: frame.x, y: frame.y }, duration: ANIMATION_MS } as cytoscape.SingularAnimationOptionsPos).play().promise()
        )).then(() => undefined)
      : Promise.resolve();
    this.minimap.draw(frames, graph, this.visibleArea());
    const camera = first ? this.openCamera() : this.follow(animate);
    await Promise.all([settled, camera]);
    this.updateOffscreen();
  }

  /** The first view: the step's change if it has one, else the whole graph, never a fraction at zoom 1. */
  private openCamera(): Promise<void> {
    this.cy!.resize();
    if (this.targets.length > 0) {
      return this.zoomToChange(false);
    }
    this.fit();
    return Promise.resolve();
  }

  /** Bring the step's change into view, unless the person took the camera. */
  private follow(animate: boolean): Promise<void> {
    if (this.userMoved || this.targets.length === 0) {
      return Promise.resolve();
    }
    return this.zoomToChange(animate, false);
  }

  /**
   * Show the step's change at a legible zoom (`reset`: and follow changes
   * again from now on).  With no change, the whole graph.
   */
  zoomToChange(animate: boolean, reset = true): Promise<void> {
    if (reset) {
      this.userMoved = false;
    }
    if (this.targets.length === 0) {
      this.fit();
      return Promise.resolve();
    }
    return this.show(this.targets, animate);
  }

  /** Centre `id` (already drawn), zooming in if labels are too small to read. */
  centerOn(id: string, animate = true): Promise<void> {
    if (!this.frames.has(id)) {
      return Promise.resolve();
    }
    return this.show([id], animate);
  }

  private show(ids: string[], animate: boolean): Promise<void> {
    const cy = this.cy;
    if (!cy) {
      return Promise.resolve();
    }
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (const id of ids) {
      const frame = this.frames.get(id);
      if (!frame) {
        continue;
      }
      x0 = Math.min(x0, frame.x - frame.width / 2);
      y0 = Math.min(y0, frame.y - frame.height / 2);
      x1 = Math.max(x1, frame.x + frame.width / 2);
      y1 = Math.max(y1, frame.y + frame.height / 2);
    }
    if (!Number.isFinite(x0)) {
      return Promise.resolve();
    }
    const width = cy.width();
    const height = cy.height();
    const margin = 40;
    const fitZoom = Math.min((width - margin * 2) / Math.max(1, x1 - x0), (height - margin * 2) / Math.max(1, y1 - y0));
    const zoom = Math.max(cy.minZoom(), Math.min(CHANGE_ZOOM, fitZoom));
    const pan = { x: width / 2 - ((x0 + x1) / 2) * zoom, y: height / 2 - ((y0 + y1) / 2) * zoom };
    cy.stop(true, false);
    if (!animate) {
      cy.viewport({ zoom, pan });
      return Promise.resolve();
    }
    return cy.animation({ zoom, pan, duration: ANIMATION_MS, easing: 'ease-in-out-quad' }).play().promise().then(() => undefined);
  }

  private panTo(point: { x: number; y: number }): void {
    const cy = this.cy;
    if (!cy) {
      return;
    }
    this.userMoved = true;
    const zoom = cy.zoom();
    cy.pan({ x: cy.width() / 2 - point.x * zoom, y: cy.height() / 2 - point.y * zoom });
    this.updateOffscreen();
  }

  /** Say how many of the step's changes lie outside the view, when the camera is not following. */
  private updateOffscreen(): void {
    const cy = this.cy;
    if (!cy || !this.userMoved) {
      this.offscreen.hidden = true;
      return;
    }
    const area = this.visibleArea();
    const outside = this.targets.filter(id => {
      const f = this.frames.get(id)!;
      return f.x + f.width / 2 < area.x || f.x - f.width / 2 > area.x + area.w || f.y + f.height / 2 < area.y || f.y - f.height / 2 > area.y + area.h;
    }).length;
    this.offscreen.hidden = outside === 0;
    this.offscreen.textContent = `${outside} change${outside === 1 ? '' : 's'} off-screen · show (z)`;
  }

  /** The part of the graph in view, in graph coordinates. */
  private visibleArea(): PageBox {
    const cy = this.cy;
    if (!cy) {
      return { x: 0, y: 0, w: 0, h: 0 };
    }
    const extent = cy.extent();
    return { x: extent.x1, y: extent.y1, w: extent.w, h: extent.h };
  }

  /** Zoom to show the whole graph. */
  fit(): void {
    if (!this.cy) {
      return;
    }
    this.cy.resize();
    this.cy.fit(undefined, 20);
  }

  /** Tell Cytoscape its container changed size. */
  resize(): void {
    this.cy?.resize();
    this.minimap.viewport(this.visibleArea());
  }

  /** The drawn nodes with their on-screen boxes in page pixels. */
  inspectNodes(): Array<{ id: string; kind: string; status: string; parent: string | null; label: string; box: PageBox }> {
    if (!this.cy) {
      return [];
    }
    const origin = this.canvas.getBoundingClientRect();
    return this.cy.nodes().map(node => {
      const b = node.renderedBoundingBox({ includeLabels: false, includeOverlays: false, includeUnderlays: false } as cytoscape.BoundingBoxOptions);
      return {
        id: node.id(),
        kind: String(node.data('kind')),
        status: String(node.data('status')),
        parent: (node.data('owner') as string | null | undefined) ?? null,
        label: String(node.data('label')),
        box: { x: origin.left + window.scrollX + b.x1, y: origin.top + window.scrollY + b.y1, w: b.w, h: b.h }
      };
    });
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
