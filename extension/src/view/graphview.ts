/**
 * The graph pane: Cytoscape.js drawing the step's graph at the frames the
 * structural layout gives (blocks, regions and region-holding ops as boxes
 * around what they hold), with a camera that follows each step's change.
 *
 * Boxes are plain nodes sized around their content, deeper boxes drawn above
 * outer ones, rather than Cytoscape compound nodes: restyling a compound node
 * restyles everything inside it, which made a step on a large function cost
 * seconds.  Rendering a step updates only what differs from what is drawn.
 *
 * Only what lies in and around the view is handed to Cytoscape, and when so
 * many nodes are in view that no label could be read, the pane draws the
 * graph as a sketch of rectangles instead (see `sketch.ts`): the cost of a
 * step or a pan follows what is on screen, not the size of the module.
 */

import cytoscape from 'cytoscape';

import type { DiffGraph, StatusEdge, StatusNode } from '../model/diff';
import { BOX_PADDING, collapsedLabel, GAP, MAX_LEAF_WIDTH, sameFrame, type Frame } from '../model/layout';
import { PLACEHOLDER } from '../model/irtext';
import { afterNextPaint, el } from './dom';
import { Minimap, MINIMAP_HEIGHT, MINIMAP_WIDTH } from './minimap';
import { drawSketch, framesBounds, meets, type Area } from './sketch';

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
const MAX_DEPTH = LEAF_Z - 2;

/** The zoom the camera prefers for a change: labels legible, not blown up. */
const CHANGE_ZOOM = 1.1;
/** Op labels are 11 px at zoom 1: the camera frames a change no further out than this (labels at least 10 px). */
export const OP_FONT_PX = 11;
export const LEGIBLE_ZOOM = 10.05 / OP_FONT_PX;
/** The margin the camera leaves around a change, in screen pixels. */
const CHANGE_MARGIN = 40;
const TIGHT_MARGIN = 6;
/** A step that changed nothing shows the whole graph if it reads at this zoom or closer (9 px labels). */
const WHOLE_ZOOM = 0.8;
/** Camera and node moves take this long; stepping while a key is held does not animate. */
const ANIMATION_MS = 180;
/** Graphs that move more nodes than this in one step jump instead of animating. */
const ANIMATE_LIMIT = 600;

const ARG_FONT_PX = 10;

/** The minimap's corners, in the order tried, and its size and inset (screen pixels). */
type Corner = 'bottom-right' | 'bottom-left' | 'top-right' | 'top-left';
const MINIMAP_CORNERS: Corner[] = ['bottom-right', 'bottom-left', 'top-right', 'top-left'];

/** Where the minimap sits in a pane of this size at `corner` (pane pixels), or null when the pane is too small to spare it. */
function minimapSpot(corner: Corner, width: number, height: number): Area | null {
  const w = MINIMAP_WIDTH + 2;
  const h = MINIMAP_HEIGHT + 2;
  if (width < w * 3 || height < h * 2.5) {
    return null;
  }
  const inset = 8;
  return {
    x: corner.endsWith('right') ? width - inset - w : inset,
    y: corner.startsWith('bottom') ? height - inset - h : inset,
    w,
    h
  };
}

/**
 * The frames one `screen` (graph units) can show together, where most of
 * them lie: each frame in turn is tried as the screen's top left and as its
 * top middle, and the screenful holding the most frames wins (the first
 * such, top-most, on a tie).
 */
export function densestScreenful(frames: Frame[], screen: { w: number; h: number }): Frame[] {
  const sorted = [...frames].sort((a, b) => a.y - a.height / 2 - (b.y - b.height / 2));
  // Many thousands of changes: try every k-th frame as an anchor.
  const stride = Math.max(1, Math.ceil(sorted.length / 300));
  let best: Frame[] = sorted.slice(0, 1);
  for (let i = 0; i < sorted.length; i += stride) {
    const anchor = sorted[i];
    const top = anchor.y - anchor.height / 2 - 1;
    for (const left of [anchor.x - anchor.width / 2 - 1, anchor.x - screen.w / 2]) {
      const inside: Frame[] = [];
      for (let j = i; j < sorted.length; j++) {
        const f = sorted[j];
        if (f.y - f.height / 2 > top + screen.h) {
          break;
        }
        if (f.y + f.height / 2 <= top + screen.h && f.x - f.width / 2 >= left && f.x + f.width / 2 <= left + screen.w) {
          inside.push(f);
        }
      }
      if (inside.length > best.length) {
        best = inside;
      }
    }
  }
  return best;
}

const STYLE: cytoscape.StylesheetJson = [
  {
    selector: 'node',
    style: {
      label: 'data(label)',
      'font-family': 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
      'font-size': OP_FONT_PX,
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
  { selector: 'node.k-arg', style: { shape: 'ellipse', 'background-color': '#eef2ff', 'font-size': ARG_FONT_PX } },
  {
    selector: 'node.box',
    style: {
      'text-valign': 'top',
      'text-halign': 'center',
      'text-margin-y': 17,
      'text-max-width': 'data(w)',
      'font-weight': 'bold',
      'background-opacity': 0.85,
      'z-index-compare': 'manual',
      // One mapped property rather than a selector per depth: every selector costs each element added.
      // (Cytoscape maps data to any numeric property; its typings only allow numbers here.)
      'z-index': 'data(z)' as unknown as number
    }
  },
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
  { selector: 'node.st-moved', style: { 'border-color': '#0a7e8c', 'border-width': 3, 'border-style': 'double', 'background-color': '#d5f4f7' } },
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

/**
 * More nodes than this in view, or more than `SKETCH_SMALL_ABOVE` at a zoom
 * below `LABEL_ZOOM` (where Cytoscape would hide the labels anyway), and the
 * pane draws the sketch instead of Cytoscape's elements.
 */
const SKETCH_ABOVE = 500;
const SKETCH_SMALL_ABOVE = 120;
const LABEL_ZOOM = 0.55;
/**
 * Elements are handed to Cytoscape this far around the view (a fraction of
 * its size), so that a pan finds them there, when fewer than `MARGIN_BELOW`
 * nodes are in view.
 */
const MARGIN = 0.1;
const MARGIN_BELOW = 250;
/** While a key is held, a view that needs more new elements than this shows the sketch until the key is let go. */
const HELD_ADDITIONS = 40;
/** Past this many elements in Cytoscape, a pan also takes away what is far from the view. */
const LIVE_CAP = 4000;
/**
 * At most this many nodes outside the view are drawn as the far ends of edges
 * leaving it (a constant used all over a module would otherwise bring in all of it).
 */
const FAR_ENDS = 40;

interface NodeData {
  id: string;
  owner: string | null;
  label: string;
  kind: string;
  status: string;
  w: number;
  h: number;
  /** Drawing order of a box: its nesting depth. */
  z: number;
  text: string;
}

interface EdgeData {
  id: string;
  source: string;
  target: string;
  label: string;
  kind: string;
  bow: number;
}

/** A node as the step wants it drawn. */
interface NodeSpec {
  data: NodeData;
  classes: string;
  frame: Frame;
  /** The graph's label (before a collapsed box's count is added), and whether a mark is on it. */
  base: string;
  marked: boolean;
  /** The graph node it was made for (graphs share unchanged node objects from step to step). */
  node: StatusNode;
}

/** An edge as the step wants it drawn. */
interface EdgeSpec {
  data: EdgeData;
  classes: string;
  status: string;
  /** The graph edge and the frames of its ends it was made for, and whether it is hidden. */
  edge: StatusEdge;
  ends: [Frame, Frame];
  hidden: boolean;
}

/** A camera position: Cytoscape's zoom and pan. */
interface Camera {
  zoom: number;
  pan: { x: number; y: number };
}

function sameNodeData(a: NodeData, b: NodeData): boolean {
  return a.label === b.label && a.status === b.status && a.w === b.w && a.h === b.h && a.z === b.z && a.owner === b.owner && a.text === b.text;
}

function sameArea(a: Area, b: Area): boolean {
  return a.x === b.x && a.y === b.y && a.w === b.w && a.h === b.h;
}

function sameMarks(a: GraphMarks, b: GraphMarks): boolean {
  return a.root === b.root && a.selected === b.selected && a.chain.length === b.chain.length && a.chain.every((id, i) => id === b.chain[i]);
}

/** `area` grown by `fraction` of its size on every side. */
function grown(area: Area, fraction: number): Area {
  return { x: area.x - area.w * fraction, y: area.y - area.h * fraction, w: area.w * (1 + 2 * fraction), h: area.h * (1 + 2 * fraction) };
}

/** How far an edge bows out: more for edges that span more. */
function bow(source: Frame, target: Frame): number {
  const span = Math.hypot(target.x - source.x, target.y - source.y);
  // One above the other (ops of a column are aligned left, so their centres differ;
  // a branch from a block's last op to a block two below): a straight edge would
  // run through what lies between them and look like an edge to it.
  const overlap =
    Math.min(source.x + source.width / 2, target.x + target.width / 2) - Math.max(source.x - source.width / 2, target.x - target.width / 2);
  if (overlap < Math.min(source.width, target.width) / 2) {
    return Math.min(60, span * 0.05);
  }
  // Neighbours (nothing fits between them) are joined straight: a bow there
  // would put the curve's control point inside one of them, and Cytoscape
  // would not draw the edge at all.
  const gap = Math.abs(target.y - source.y) - (source.height + target.height) / 2;
  if (gap < GAP * 2) {
    return 0;
  }
  // Negative: a downward edge bows right, where a column's ragged edge and a
  // block's free room are (boxes and ops are aligned left); an edge back up bows left.
  return -Math.min(160, 12 + span * 0.18);
}

export class GraphPane {
  readonly node: HTMLElement;
  private readonly canvas: HTMLElement;
  private readonly offscreen: HTMLButtonElement;
  private readonly minimap: Minimap;
  private cy: cytoscape.Core | null = null;
  /** Set when the person pans or zooms by hand: the camera then stops following changes. */
  private userMoved = false;
  private readonly sketch: HTMLCanvasElement;
  private frames = new Map<string, Frame>();
  private targets: string[] = [];
  /** How many of `targets` lie outside the view (as last counted). */
  private outside = 0;
  /** What the step wants drawn, every node and edge. */
  private nodes = new Map<string, NodeSpec>();
  private edges = new Map<string, EdgeSpec>();
  /** What Cytoscape holds now, as it was last handed over. */
  private readonly live = new Map<string, NodeSpec | EdgeSpec>();
  /** Set while the pane draws the sketch instead of Cytoscape's elements. */
  private sketching = false;
  /** The specs of the step to come, worked out while the person reads this one (null: none). */
  private ahead: {
    nodes: Map<string, NodeSpec>;
    edges: Map<string, EdgeSpec>;
    graph: DiffGraph;
    frames: Map<string, Frame>;
    marks: GraphMarks;
    big: boolean;
    use: boolean;
    branch: boolean;
    /** The specs they were worked out from (they reuse their objects). */
    before: Map<string, NodeSpec>;
  } | null = null;
  /** The shown edges' ends, as the sketch draws them (null: not listed yet for this step). */
  private sketchEdges: Array<readonly [string, string]> | null = null;
  /** The views the last hand-over was for, and whether a lean one waits to be completed after the paint. */
  private syncedAreas: Area[] = [];
  private completePending = false;
  /** What the latest draws want kept in Cytoscape, until the ones out of view are taken away (null: nothing waits). */
  private keep: Set<string> | null = null;
  private prunePending = false;
  /** Cytoscape's elements are to be taken away after the next paint (the sketch shows instead). */
  private clearPending = false;
  private refreshPending = false;
  /** The view last drawn for, when it was one view (null: none, or a glide's start and end). */
  private synced: Area | null = null;
  /** The step whose minimap waits to be drawn after the next paint (null: none waits). */
  private minimapGraph: DiffGraph | null = null;
  /** Set while the camera glides: the elements for its start and end are drawn already. */
  private gliding = false;
  /** Set until the pane is first shown with a size (a viewer is built before its host attaches it). */
  private unopened = true;
  private readonly sizes: ResizeObserver | null;

  constructor(
    private readonly onSelect: (id: string) => void,
    private readonly onToggle: (id: string) => void
  ) {
    this.canvas = el('div', { className: 'pv-graph-canvas' });
    this.offscreen = el('button', { className: 'pv-offscreen pv-button', attrs: { type: 'button' } });
    this.offscreen.hidden = true;
    this.offscreen.addEventListener('click', this.onOffscreen);
    this.minimap = new Minimap(point => this.panTo(point));
    this.sketch = el('canvas', { className: 'pv-sketch', attrs: { 'aria-hidden': 'true' } });
    this.sketch.hidden = true;
    this.sizes = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(this.onResize);
    this.sizes?.observe(this.canvas);
    this.node = el('div', { className: 'pv-graph', attrs: { 'aria-label': 'graph of the IR at this step' } }, [
      this.canvas,
      this.sketch,
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
    this.cy.on('tap', this.onTapSketch);
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

  /** A click on the sketch selects the node under it and brings it close. */
  private onTapSketch = (event: cytoscape.EventObject): void => {
    if (!this.sketching || event.target !== this.cy) {
      return;
    }
    const id = this.nodeAt(event.position);
    if (id !== null) {
      this.onSelect(id);
      void this.centerOn(id);
    }
  };

  /** The innermost node drawn at `point` (graph coordinates). */
  private nodeAt(point: { x: number; y: number }): string | null {
    let found: string | null = null;
    let depth = -1;
    for (const [id, f] of this.frames) {
      const inside = Math.abs(point.x - f.x) <= f.width / 2 && Math.abs(point.y - f.y) <= f.height / 2;
      const d = f.box ? f.depth : Number.MAX_SAFE_INTEGER;
      if (inside && d > depth) {
        found = id;
        depth = d;
      }
    }
    return found;
  }

  private onDoubleTap = (event: cytoscape.EventObject): void => {
    const target = event.target as cytoscape.NodeSingular;
    if (target.hasClass('box') || target.hasClass('collapsed')) {
      this.onToggle(target.id());
    }
  };

  /** The op's whole text on hover (a tooltip: the canvas's title, so it stays text). */
  private onHover = (event: cytoscape.EventObject): void => {
    this.canvas.title = String(event.target.data('text') ?? '').replace(PLACEHOLDER, '{…}');
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
    if (!this.refreshPending) {
      this.refreshPending = true;
      requestAnimationFrame(this.refresh);
    }
  };

  /** After a pan or zoom: hand Cytoscape what came into view, or draw the sketch. */
  private refresh = (): void => {
    this.refreshPending = false;
    if (!this.cy) {
      return;
    }
    const view = this.visibleArea();
    if (this.synced !== null && sameArea(this.synced, view)) {
      return; // drawn for this view already (a step that moved the camera without a glide)
    }
    if (!this.gliding) {
      this.sync([view], this.live.size > LIVE_CAP);
    } else if (this.sketching) {
      this.drawSketch();
    }
  };

  private onOffscreen = (): void => {
    void this.zoomToChange(true);
  };

  private onResize = (): void => {
    if (this.cy && this.unopened) {
      this.open();
      return;
    }
    this.resize();
  };

  dispose(): void {
    this.sizes?.disconnect();
    this.offscreen.removeEventListener('click', this.onOffscreen);
    this.minimap.dispose();
    if (this.cy) {
      this.cy.off('tap', 'node', this.onTap);
      this.cy.off('tap', this.onTapSketch);
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
   * `animate` is false while a key is held: nothing glides, and a view that
   * needs many new elements is sketched until the key is let go.
   */
  async render(
    graph: DiffGraph,
    frames: Map<string, Frame>,
    marks: GraphMarks,
    edgeFilter: EdgeFilter,
    targets: string[],
    animate: boolean
  ): Promise<void> {
    const big = graph.nodes.size + graph.edges.size > BIG;
    this.core(big);
    this.frames = frames;
    this.targets = targets.filter(id => frames.has(id));
    this.specify(graph, frames, marks, edgeFilter, big);
    if (animate) {
      // While a key is held the minimap waits for it to be let go, as the side panes do.
      this.drawMinimapLater(graph);
    }
    if (this.unopened) {
      this.open();
      return;
    }
    // Where the camera is going: what is in view there is drawn before it glides.
    const camera = this.userMoved ? null : this.targets.length > 0 ? this.cameraFor(this.targets) : this.wholeIfLegible();
    const areas = [this.visibleArea()];
    if (camera && animate) {
      areas.push(this.areaSeenFrom(camera));
    } else if (camera) {
      // No glide: the camera jumps, and only what is in view there is drawn.
      void this.moveCamera(camera, false);
      areas[0] = this.visibleArea();
    }
    // The frame that shows the step gets what is in view; the margin and the
    // far ends of edges follow once it is painted.
    const moves = this.sync(areas, true, !animate, animate);
    const moving = animate && moves.length > 0 && moves.length <= ANIMATE_LIMIT;
    if (!moving) {
      for (const [node, frame] of moves) {
        node.position({ x: frame.x, y: frame.y });
      }
    }
    const settled = moving
      ? Promise.all(moves.map(([node, frame]) =>
          node.animation({ position: { x: frame.x, y: frame.y }, duration: ANIMATION_MS } as cytoscape.SingularAnimationOptionsPos).play().promise()
        )).then(() => undefined)
      : Promise.resolve();
    const moved = camera && animate ? this.moveCamera(camera, true) : Promise.resolve();
    await Promise.all([settled, moved]);
    this.updateOffscreen();
    if (camera && animate) {
      // Settled once the view where the camera stopped is drawn too: its
      // elements are handed over at the next frame and painted at the one after.
      await new Promise<void>(done => requestAnimationFrame(() => requestAnimationFrame(() => done())));
    }
  }

  /**
   * Draw the minimap once the step is painted (it shows the whole graph, which
   * costs as much as the step itself), once for however many steps came since.
   */
  private drawMinimapLater(graph: DiffGraph): void {
    const first = this.minimapGraph === null;
    this.minimapGraph = graph;
    if (!first) {
      return;
    }
    afterNextPaint(() => {
      const latest = this.minimapGraph;
      this.minimapGraph = null;
      if (latest !== null && this.cy) {
        this.minimap.draw(this.frames, latest, this.visibleArea());
      }
    });
  }

  /** The first view, once the pane has a size: the step's change if it has one, else the whole graph. */
  private open(): void {
    const cy = this.cy!;
    cy.resize();
    if (!(cy.width() > 0 && cy.height() > 0)) {
      return;
    }
    this.unopened = false;
    const camera = this.targets.length > 0 ? this.cameraFor(this.targets) : this.fitCamera();
    this.sync([this.areaSeenFrom(camera)], true);
    void this.moveCamera(camera, false);
    this.updateOffscreen();
  }

  /** Make `graph`'s specs the ones drawn: those worked out ahead by `prepare` if made for the same step. */
  private specify(graph: DiffGraph, frames: Map<string, Frame>, marks: GraphMarks, edgeFilter: EdgeFilter, big: boolean): void {
    const ahead = this.ahead;
    this.ahead = null;
    const made =
      ahead !== null && ahead.graph === graph && ahead.frames === frames && ahead.before === this.nodes && ahead.big === big &&
      ahead.use === edgeFilter.use && ahead.branch === edgeFilter.branch && sameMarks(ahead.marks, marks)
        ? ahead
        : this.specs(graph, frames, marks, edgeFilter, big);
    this.nodes = made.nodes;
    this.edges = made.edges;
    this.sketchEdges = null;
  }

  /**
   * Work out ahead of time how the step to come will be drawn (its graph and
   * frames, with these marks and edges shown): drawing it then skips that,
   * as long as nothing else was drawn in between.
   */
  prepare(graph: DiffGraph, frames: Map<string, Frame>, marks: GraphMarks, edgeFilter: EdgeFilter): void {
    const big = graph.nodes.size + graph.edges.size > BIG;
    const made = this.specs(graph, frames, marks, edgeFilter, big);
    this.ahead = { ...made, graph, frames, marks, big, use: edgeFilter.use, branch: edgeFilter.branch, before: this.nodes };
  }

  /** What every node and edge of the step should look like. */
  private specs(
    graph: DiffGraph,
    frames: Map<string, Frame>,
    marks: GraphMarks,
    edgeFilter: EdgeFilter,
    big: boolean
  ): { nodes: Map<string, NodeSpec>; edges: Map<string, EdgeSpec> } {
    const chain = new Set(marks.chain);
    const chainEdges = new Set<string>();
    for (let i = 1; i < marks.chain.length; i++) {
      chainEdges.add(`${marks.chain[i - 1]}>${marks.chain[i]}`);
    }
    // A node or edge that looks as it did keeps its spec object, so that drawing
    // it again is one comparison and a step allocates only for what changed.
    const nodesBefore = this.nodes;
    const edgesBefore = this.edges;
    const nodes = new Map<string, NodeSpec>();
    const edges = new Map<string, EdgeSpec>();
    for (const node of graph.nodes.values()) {
      const frame = frames.get(node.id);
      if (!frame) {
        continue;
      }
      const owner = node.parent !== null && frames.has(node.parent) ? node.parent : null;
      const marked = chain.has(node.id) || marks.root === node.id || marks.selected === node.id;
      const before = nodesBefore.get(node.id);
      if (
        before !== undefined && !marked && !before.marked && before.data.owner === owner &&
        ((before.node === node && before.frame === frame) ||
          (sameFrame(before.frame, frame) && before.base === node.label && before.data.status === node.status &&
            before.data.kind === node.kind && before.data.text === node.text))
      ) {
        nodes.set(node.id, before);
        continue;
      }
      const classes = [`k-${node.kind}`, `st-${node.status}`, frame.box ? 'box' : 'leaf'];
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
      const label = frame.hidden !== undefined ? collapsedLabel(node.label, frame.hidden, frame.width) : node.label;
      nodes.set(node.id, {
        data: {
          id: node.id,
          owner,
          label,
          kind: node.kind,
          status: node.status,
          w: frame.width,
          h: frame.height,
          z: Math.min(frame.depth, MAX_DEPTH),
          text: node.text
        },
        classes: classes.join(' '),
        frame,
        base: node.label,
        marked,
        node
      });
    }
    for (const edge of graph.edges.values()) {
      const source = frames.get(edge.source);
      const target = frames.get(edge.target);
      if (!source || !target) {
        continue;
      }
      const onChain = chainEdges.size > 0 && chainEdges.has(`${edge.source}>${edge.target}`);
      const hidden = (edge.kind === 'use' && !edgeFilter.use) || (edge.kind === 'branch' && !edgeFilter.branch);
      const before = edgesBefore.get(edge.id);
      if (
        before !== undefined && before.edge === edge && before.ends[0] === source && before.ends[1] === target &&
        before.hidden === hidden && !onChain && !before.classes.includes('m-chain') && before.classes.includes('fast') === big
      ) {
        edges.set(edge.id, before);
        continue;
      }
      const curve = bow(source, target);
      const classes =
        before !== undefined && before.status === edge.status && !onChain && !before.classes.includes('m-chain') &&
        before.classes.includes('f-hidden') === hidden && before.classes.includes('fast') === big
          ? before.classes
          : [`k-${edge.kind}`, `st-${edge.status}`, big ? 'fast' : '', onChain ? 'm-chain' : '', hidden ? 'f-hidden' : ''].filter(c => c !== '').join(' ');
      if (
        before !== undefined && before.classes === classes && before.data.bow === curve && before.data.label === edge.label &&
        before.data.source === edge.source && before.data.target === edge.target
      ) {
        // Drawn the same: keep the object (what Cytoscape holds is compared by identity).
        before.edge = edge;
        before.ends = [source, target];
        before.hidden = hidden;
        edges.set(edge.id, before);
      } else {
        edges.set(edge.id, {
          data: { id: edge.id, source: edge.source, target: edge.target, label: edge.label, kind: edge.kind, bow: curve },
          classes,
          status: edge.status,
          edge,
          ends: [source, target],
          hidden
        });
      }
    }
    return { nodes, edges };
  }

  /**
   * Hand Cytoscape the elements in and around `areas` (graph coordinates),
   * or draw the sketch when too many nodes are in view to read.  `prune`:
   * also take away what lies elsewhere; `held`: a key is held down (sketch
   * rather than add many elements).  Returns the drawn nodes that must move.
   */
  private sync(areas: Area[], prune: boolean, held = false, lean = false): Array<[cytoscape.NodeSingular, Frame]> {
    const cy = this.cy!;
    this.synced = areas.length === 1 ? areas[0] : null;
    this.syncedAreas = areas;
    const inView: string[] = [];
    for (const [id, spec] of this.nodes) {
      if (areas.some(area => meets(spec.frame, area))) {
        inView.push(id);
      }
    }
    const zoom = Math.min(...areas.map(area => cy.width() / Math.max(1, area.w)));
    if (inView.length > SKETCH_ABOVE || (inView.length > SKETCH_SMALL_ABOVE && zoom < LABEL_ZOOM)) {
      this.startSketch();
      return [];
    }
    if (!held) {
      this.stopSketch();
    }
    const wanted = new Set<string>(inView);
    if (lean && !this.completePending) {
      // Scheduled before any pruning, so that what it adds is kept.
      this.completePending = true;
      afterNextPaint(this.complete);
    }
    if (inView.length < MARGIN_BELOW && !lean) {
      const near = areas.map(area => grown(area, MARGIN));
      for (const [id, spec] of this.nodes) {
        if (near.some(area => meets(spec.frame, area))) {
          wanted.add(id);
        }
      }
    }
    // The boxes around what is wanted, and some far ends of the edges leaving it.
    for (const id of [...wanted]) {
      let owner = this.nodes.get(id)?.data.owner ?? null;
      while (owner !== null && !wanted.has(owner)) {
        wanted.add(owner);
        owner = this.nodes.get(owner)?.data.owner ?? null;
      }
    }
    const seen = new Set(inView);
    let far = 0;
    for (const spec of lean ? [] : this.edges.values()) {
      if (far >= FAR_ENDS) {
        break;
      }
      const { source, target } = spec.data;
      const fromView = seen.has(source);
      if (fromView === seen.has(target)) {
        continue;
      }
      const end = fromView ? target : source;
      if (!wanted.has(end)) {
        wanted.add(end);
        far += 1;
      }
    }
    // While a key is held, a sketch stays a sketch (handing Cytoscape elements
    // costs more than a frame), and a view that needs many new elements becomes one.
    if (held && (this.sketching || [...wanted].filter(id => !this.live.has(id)).length > HELD_ADDITIONS)) {
      this.startSketch();
      return [];
    }
    const moves: Array<[cytoscape.NodeSingular, Frame]> = [];
    cy.batch(() => {
      // What the step took away goes now; what only lies out of view goes once
      // the step is painted (taking elements away costs the frame as adding does).
      const gone: string[] = [];
      let away = false;
      for (const [id, spec] of this.live) {
        const node = 'frame' in spec;
        if (!(node ? this.nodes.has(id) : this.edges.has(id))) {
          gone.push(id);
        } else if (prune && !(node ? wanted.has(id) : this.edgeWanted(id, wanted))) {
          away = true;
        }
      }
      if (prune) {
        this.keep = wanted;
      } else if (this.keep !== null) {
        for (const id of wanted) {
          this.keep.add(id);
        }
      }
      if (away && !this.prunePending) {
        this.prunePending = true;
        afterNextPaint(this.pruneAway);
      }
      for (const id of gone) {
        this.live.delete(id);
      }
      const removed = cy.collection();
      for (const id of gone) {
        removed.merge(cy.getElementById(id));
      }
      removed.remove();
      const additions: cytoscape.ElementDefinition[] = [];
      for (const id of wanted) {
        const spec = this.nodes.get(id)!;
        const drawn = this.live.get(id) as NodeSpec | undefined;
        this.live.set(id, spec);
        if (!drawn) {
          additions.push({ group: 'nodes', data: spec.data, classes: spec.classes, position: { x: spec.frame.x, y: spec.frame.y } });
          continue;
        }
        if (drawn === spec) {
          continue;
        }
        const node = cy.getElementById(id) as cytoscape.NodeSingular;
        if (!sameNodeData(drawn.data, spec.data)) {
          node.data(spec.data);
        }
        if (drawn.classes !== spec.classes) {
          node.classes(spec.classes);
        }
        const now = node.position();
        if (now.x !== spec.frame.x || now.y !== spec.frame.y) {
          moves.push([node, spec.frame]);
        }
      }
      // One pass over the edges rather than over each wanted node's: no index to build for a step.
      for (const [edgeId, spec] of this.edges) {
        const drawn = this.live.get(edgeId) as EdgeSpec | undefined;
        if (drawn === spec || !wanted.has(spec.data.source) || !wanted.has(spec.data.target)) {
          continue;
        }
        this.live.set(edgeId, spec);
        if (!drawn) {
          additions.push({ group: 'edges', data: spec.data, classes: spec.classes });
          continue;
        }
        const edge = cy.getElementById(edgeId);
        if (drawn.data.bow !== spec.data.bow) {
          edge.data('bow', spec.data.bow);
        }
        if (drawn.classes !== spec.classes) {
          edge.classes(spec.classes);
        }
      }
      cy.add(additions);
    });
    return moves;
  }

  private edgeWanted(id: string, wanted: Set<string>): boolean {
    const spec = this.edges.get(id);
    return spec !== undefined && wanted.has(spec.data.source) && wanted.has(spec.data.target);
  }

  /** Draw the sketch in place of Cytoscape's elements (taken away: they would cost without being legible). */
  private startSketch(): void {
    if (!this.sketching) {
      this.sketching = true;
      // Cytoscape's elements go out of sight now and out of Cytoscape once the
      // sketch is painted: taking hundreds away costs more than the frame.
      // (Transparent rather than hidden: the canvas still takes the clicks.)
      this.canvas.style.opacity = '0';
      this.sketch.hidden = false;
      if (!this.clearPending) {
        this.clearPending = true;
        afterNextPaint(this.clearElements);
      }
    }
    this.drawSketch();
  }

  /** Hand Cytoscape what a lean draw left out: the margin around the view and the far ends of its edges. */
  private complete = (): void => {
    this.completePending = false;
    if (this.cy && !this.sketching && this.syncedAreas.length > 0) {
      for (const [node, frame] of this.sync(this.syncedAreas, false)) {
        node.position({ x: frame.x, y: frame.y });
      }
    }
  };

  /** Take away the elements out of view that the last pruning draw left for later. */
  private pruneAway = (): void => {
    this.prunePending = false;
    const keep = this.keep;
    this.keep = null;
    if (keep === null || this.sketching || !this.cy) {
      return;
    }
    const away: string[] = [];
    for (const [id, spec] of this.live) {
      if (!('frame' in spec ? keep.has(id) : this.edgeWanted(id, keep))) {
        away.push(id);
      }
    }
    const cy = this.cy;
    cy.batch(() => {
      const removed = cy.collection();
      for (const id of away) {
        this.live.delete(id);
        removed.merge(cy.getElementById(id));
      }
      removed.remove();
    });
  };

  private clearElements = (): void => {
    this.clearPending = false;
    if (this.sketching && this.cy) {
      this.live.clear();
      this.cy.elements().remove();
    }
  };

  private stopSketch(): void {
    if (this.sketching) {
      this.sketching = false;
      this.sketch.hidden = true;
      this.canvas.style.opacity = '';
    }
  }

  private drawSketch(): void {
    const cy = this.cy!;
    const width = cy.width();
    const height = cy.height();
    const ratio = window.devicePixelRatio || 1;
    if (this.sketch.width !== Math.round(width * ratio) || this.sketch.height !== Math.round(height * ratio)) {
      this.sketch.width = Math.round(width * ratio);
      this.sketch.height = Math.round(height * ratio);
    }
    let ctx: CanvasRenderingContext2D | null = null;
    try {
      ctx = this.sketch.getContext('2d');
    } catch {
      return; // jsdom has no canvas
    }
    if (!ctx) {
      return;
    }
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    const zoom = cy.zoom();
    const pan = cy.pan();
    // The edges to sketch change with the step, not with the frames of a glide.
    const edges = (this.sketchEdges ??= [...this.edges.values()].filter(e => !e.hidden).map(e => [e.data.source, e.data.target] as const));
    drawSketch(ctx, this.frames, id => this.nodes.get(id)?.data.status ?? 'unchanged', { scale: zoom, x: pan.x, y: pan.y }, width, height, {
      edges,
      labels: id => this.nodes.get(id)?.data.label ?? ''
    });
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
    return this.moveCamera(this.cameraFor(this.targets), animate).then(() => this.updateOffscreen());
  }

  /** Centre `id` (already drawn), zooming in if labels are too small to read. */
  centerOn(id: string, animate = true): Promise<void> {
    if (!this.frames.has(id) || !this.cy) {
      return Promise.resolve();
    }
    return this.moveCamera(this.cameraFor([id]), animate);
  }

  /**
   * The camera that shows `ids` whole, at most at the zoom where labels read
   * best and never further out than `LEGIBLE_ZOOM`: a change too big for one
   * screen is framed where most of it lies (the densest screenful), and the
   * pane says how many changes lie outside.
   */
  private cameraFor(ids: string[]): Camera {
    const frames = ids.flatMap(id => this.frames.get(id) ?? []);
    const bounds = framesBounds(frames);
    const camera = this.cameraOn(bounds, CHANGE_MARGIN, CHANGE_ZOOM);
    if (!bounds || camera.zoom >= LEGIBLE_ZOOM) {
      return camera;
    }
    // Nearly fits: a thinner margin rather than leaving part of it out.
    const tight = this.cameraOn(bounds, TIGHT_MARGIN, CHANGE_ZOOM);
    if (tight.zoom >= LEGIBLE_ZOOM) {
      return tight;
    }
    return this.legibleCamera(framesBounds(densestScreenful(frames, this.screenAt(LEGIBLE_ZOOM))) ?? bounds);
  }

  /** The part of the graph one screen holds at `zoom`, margins taken off (graph units). */
  private screenAt(zoom: number): { w: number; h: number } {
    const cy = this.cy!;
    return { w: Math.max(1, cy.width() - CHANGE_MARGIN * 2) / zoom, h: Math.max(1, cy.height() - CHANGE_MARGIN * 2) / zoom };
  }

  /** `bounds` framed at a legible zoom: whole if it fits, else from its top (and left, if too wide). */
  private legibleCamera(bounds: Area): Camera {
    const cy = this.cy!;
    const fit = this.cameraOn(bounds, CHANGE_MARGIN, CHANGE_ZOOM);
    if (fit.zoom >= LEGIBLE_ZOOM) {
      return fit;
    }
    const zoom = LEGIBLE_ZOOM;
    const screen = this.screenAt(zoom);
    const x = bounds.w <= screen.w ? bounds.x + bounds.w / 2 : bounds.x + screen.w / 2;
    const y = bounds.h <= screen.h ? bounds.y + bounds.h / 2 : bounds.y + screen.h / 2;
    return { zoom, pan: { x: cy.width() / 2 - x * zoom, y: cy.height() / 2 - y * zoom } };
  }

  /**
   * For a step that changed nothing: the whole graph, when it reads at a
   * legible zoom and part of it is out of view (a module that shrank leaves
   * the camera on a corner of it otherwise); else stay.
   */
  private wholeIfLegible(): Camera | null {
    const bounds = framesBounds(this.frames.values());
    if (!bounds) {
      return null;
    }
    const camera = this.cameraOn(bounds, 20, CHANGE_ZOOM);
    const seen = this.visibleArea();
    const inView =
      bounds.x >= seen.x && bounds.y >= seen.y && bounds.x + bounds.w <= seen.x + seen.w && bounds.y + bounds.h <= seen.y + seen.h;
    return camera.zoom >= WHOLE_ZOOM && !inView ? camera : null;
  }

  /** The camera that shows the whole graph. */
  private fitCamera(): Camera {
    return this.cameraOn(framesBounds(this.frames.values()), 20, this.cy!.maxZoom());
  }

  private cameraOn(bounds: Area | null, margin: number, maxZoom: number): Camera {
    const cy = this.cy!;
    const width = cy.width();
    const height = cy.height();
    if (!bounds) {
      return { zoom: cy.zoom(), pan: cy.pan() };
    }
    const fitZoom = Math.min((width - margin * 2) / Math.max(1, bounds.w), (height - margin * 2) / Math.max(1, bounds.h));
    const zoom = Math.max(cy.minZoom(), Math.min(maxZoom, fitZoom));
    return { zoom, pan: { x: width / 2 - (bounds.x + bounds.w / 2) * zoom, y: height / 2 - (bounds.y + bounds.h / 2) * zoom } };
  }

  /** The part of the graph in view from `camera`. */
  private areaSeenFrom(camera: Camera): Area {
    const cy = this.cy!;
    return { x: -camera.pan.x / camera.zoom, y: -camera.pan.y / camera.zoom, w: cy.width() / camera.zoom, h: cy.height() / camera.zoom };
  }

  private moveCamera(camera: Camera, animate: boolean): Promise<void> {
    const cy = this.cy;
    if (!cy) {
      return Promise.resolve();
    }
    cy.stop(true, false);
    if (!animate) {
      this.gliding = false;
      cy.viewport(camera);
      return Promise.resolve();
    }
    this.gliding = true;
    const glide = cy.animation({ ...camera, duration: ANIMATION_MS, easing: 'ease-in-out-quad' });
    return glide
      .play()
      .promise()
      .then(() => {
        if (this.gliding && !glide.playing()) {
          this.gliding = false;
          this.onViewport();
        }
      });
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

  /**
   * Say how many of the step's changes lie outside the view: after the person
   * moved the camera (a click brings them back), or when the change is too big
   * for one legible screen.  Then keep the minimap off the changes in view.
   */
  private updateOffscreen(): void {
    const cy = this.cy;
    if (!cy) {
      this.offscreen.hidden = true;
      return;
    }
    const area = this.visibleArea();
    const outside = this.targets.filter(id => {
      const f = this.frames.get(id)!;
      const left = f.x - f.width / 2;
      const right = f.x + f.width / 2;
      const top = f.y - f.height / 2;
      const inside = left >= area.x - 1 && right <= area.x + area.w + 1 && top >= area.y - 1 && f.y + f.height / 2 <= area.y + area.h + 1;
      // A box bigger than the view (a module whose attributes a pass changed) is shown by its
      // label: its top edge in view, the box across the view.
      const labelled = f.box && top >= area.y - 1 && top + BOX_PADDING.top <= area.y + area.h + 1 && left < area.x + area.w && right > area.x;
      return !inside && !labelled;
    }).length;
    this.outside = outside;
    this.offscreen.hidden = outside === 0;
    this.offscreen.textContent = this.userMoved
      ? `${outside} change${outside === 1 ? '' : 's'} off-screen · show (z)`
      : `${outside} more change${outside === 1 ? '' : 's'} outside the view (too big for one screen)`;
    this.placeMinimap();
  }

  /**
   * Put the minimap in a corner of the pane where it covers none of the
   * step's changes in view (bottom right, bottom left, top right, top left);
   * where every corner would, or the pane is too small to spare one, fold it.
   */
  private placeMinimap(): void {
    const cy = this.cy;
    if (!cy) {
      return;
    }
    const width = cy.width();
    const height = cy.height();
    const zoom = cy.zoom();
    const pan = cy.pan();
    const boxes: Area[] = [];
    for (const id of this.targets) {
      const f = this.frames.get(id);
      if (f) {
        boxes.push({ x: pan.x + (f.x - f.width / 2) * zoom, y: pan.y + (f.y - f.height / 2) * zoom, w: f.width * zoom, h: f.height * zoom });
      }
    }
    // The offscreen note's place, at the top middle, is the minimap's to avoid too.
    const note = this.offscreen.hidden ? null : this.offscreen.getBoundingClientRect();
    const origin = this.node.getBoundingClientRect();
    if (note && note.width > 0) {
      boxes.push({ x: note.left - origin.left, y: note.top - origin.top, w: note.width, h: note.height });
    }
    const corner = MINIMAP_CORNERS.find(c => {
      const spot = minimapSpot(c, width, height);
      return spot !== null && !boxes.some(b => b.x < spot.x + spot.w && spot.x < b.x + b.w && b.y < spot.y + spot.h && spot.y < b.y + b.h);
    });
    this.minimap.place(corner ?? null);
  }

  /** How many of the step's changes lie outside the view, and where the minimap is (null: folded). */
  inspectChanges(): { targets: string[]; outside: number; minimap: PageBox | null } {
    const rect = this.minimap.node.getBoundingClientRect();
    const shown = !this.minimap.folded && rect.width > 0;
    return {
      targets: [...this.targets],
      outside: this.outside,
      minimap: shown ? { x: rect.left + window.scrollX, y: rect.top + window.scrollY, w: rect.width, h: rect.height } : null
    };
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
    void this.moveCamera(this.fitCamera(), false);
    this.updateOffscreen();
  }

  /** Tell Cytoscape its container changed size. */
  resize(): void {
    this.cy?.resize();
    this.onViewport();
  }

  /**
   * Every node of the step with its box on screen in page pixels (as Cytoscape
   * or the sketch draws it, whichever is showing; off-screen ones included).
   */
  inspectNodes(): Array<{ id: string; kind: string; status: string; parent: string | null; label: string; box: PageBox; labelPx: number }> {
    const cy = this.cy;
    if (!cy) {
      return [];
    }
    const origin = this.canvas.getBoundingClientRect();
    const zoom = cy.zoom();
    const pan = cy.pan();
    return [...this.nodes.values()].map(({ data, frame }) => ({
      id: data.id,
      kind: data.kind,
      status: data.status,
      parent: data.owner,
      label: data.label,
      // Labels are drawn at their font size times the zoom (the sketch writes box labels at 11 px, and no op labels).
      labelPx: this.sketching ? (frame.box ? OP_FONT_PX : 0) : (data.kind === 'arg' ? ARG_FONT_PX : OP_FONT_PX) * zoom,
      box: {
        x: origin.left + window.scrollX + pan.x + (frame.x - frame.width / 2) * zoom,
        y: origin.top + window.scrollY + pan.y + (frame.y - frame.height / 2) * zoom,
        w: frame.width * zoom,
        h: frame.height * zoom
      }
    }));
  }

  /** Whether the pane draws the sketch (too many nodes in view to read) rather than Cytoscape's elements. */
  get sketched(): boolean {
    return this.sketching;
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
