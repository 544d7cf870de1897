/**
 * The dispatch graph pane: the dispatches of the current step as nodes and
 * the tensors between them as edges (`model/dispatch.ts`), drawn as an SVG
 * over the lower part of the graph.  It follows the step the viewer shows, so
 * ops joining a dispatch region take their nodes out of the graph and the
 * region's edges change; a node the step added is green, a node whose ops it
 * changed (a region an op joined) yellow.  A call (`flow.dispatch`) and the
 * executable it calls are joined by a dashed edge, and selecting either marks
 * both.  Which ops play which part is the trace's `meta.dispatch`; the viewer
 * offers no pane for a trace without it.
 *
 * Styles are inline so that the pane needs nothing from the viewer's sheets.
 * Trace text reaches the page only as text nodes.
 */

import { dispatchGraph, graphCallPartners, type DispatchGraph, type DispatchNode, type DispatchVocabulary } from '../model/dispatch';
import type { IRState } from '../model/state';
import { el } from './dom';
import type { PageBox } from './graphview';

const SVG = 'http://www.w3.org/2000/svg';

/** Pixels per character of the monospace labels, and the layout's spacing. */
const CHAR = 6.6;
const LINE = 14;
const PAD = 8;
const ROW_GAP = 42;
const COLUMN_GAP = 16;
const FRAME = 14;

const FILL: Record<DispatchNode['kind'], string> = {
  func: '#ffffff',
  arg: '#f6f8fa',
  op: '#f6f8fa',
  dispatch: '#ddf4ff',
  return: '#f6f8fa',
  executable: '#fbefff'
};

const STROKE: Record<DispatchNode['kind'], string> = {
  func: '#8c959f',
  arg: '#8c959f',
  op: '#8c959f',
  dispatch: '#0969da',
  return: '#8c959f',
  executable: '#8250df'
};

/** A node placed by the layout, in the SVG's coordinates. */
interface Placed {
  node: DispatchNode;
  lines: string[];
  x: number;
  y: number;
  w: number;
  h: number;
}

/** What the pane shows, as tests and tools see it (boxes in page pixels). */
export interface DispatchInspection {
  /** Whether the trace has a dispatch graph (its header records `meta.dispatch`): the pane and its button exist. */
  available: boolean;
  visible: boolean;
  /** The op selected in the viewer. */
  selected: string | null;
  nodes: Array<{
    id: string;
    kind: string;
    parent: string | null;
    label: string;
    members: string[];
    /** What the step did to the node: `added`, `modified` (its ops changed) or `unchanged`. */
    status: string;
    linked: boolean;
    box: PageBox;
  }>;
  edges: Array<{ id: string; kind: string; source: string; target: string; label: string }>;
}

/** The graph of one step, with the lines each node shows (taken at once: the viewer's state moves on). */
interface StepGraph {
  step: number;
  graph: DispatchGraph;
  /** A node's label, and for a dispatch or executable the names of the ops it computes. */
  lines: Map<string, string[]>;
  /** Nodes the step added, and nodes whose label or ops it changed (a region an op joined). */
  status: Map<string, 'added' | 'modified'>;
}

/** The graph of `state`, the IR after `step`, against `previous`, the graph before the step (null: none). */
function stepGraph(step: number, state: IRState, previous: DispatchGraph | null, hints: DispatchVocabulary): StepGraph {
  const graph = dispatchGraph(state, hints);
  const lines = new Map<string, string[]>();
  const status = new Map<string, 'added' | 'modified'>();
  for (const node of graph.nodes.values()) {
    lines.set(node.id, [node.label, ...node.members.map(id => `  ${state.ops.get(id)?.name ?? id}`)]);
    const before = previous?.nodes.get(node.id);
    if (previous === null || node.kind === 'func') {
      continue;
    }
    if (before === undefined) {
      status.set(node.id, 'added');
    } else if (before.label !== node.label || before.members.join() !== node.members.join()) {
      status.set(node.id, 'modified');
    }
  }
  return { step, graph, lines, status };
}

const STATUS_FILL = { added: '#dafbe1', modified: '#fff8c5' };

/** Rows of each function's nodes by longest path from its arguments, then the executables below. */
function place({ graph, lines: linesOf }: StepGraph): { placed: Map<string, Placed>; frames: Placed[]; width: number; height: number } {
  const placed = new Map<string, Placed>();
  const frames: Placed[] = [];
  const incoming = new Map<string, string[]>();
  for (const edge of graph.edges.values()) {
    if (edge.kind === 'tensor') {
      incoming.set(edge.target, [...(incoming.get(edge.target) ?? []), edge.source]);
    }
  }
  const size = (node: DispatchNode): Placed => {
    const lines = linesOf.get(node.id) ?? [node.label];
    const w = Math.max(...lines.map(l => l.length)) * CHAR + 2 * PAD;
    return { node, lines, x: 0, y: 0, w, h: lines.length * LINE + PAD };
  };
  let top = FRAME;
  let width = 0;
  const rowsOf = (members: DispatchNode[]): Placed[][] => {
    const rank = new Map<string, number>();
    for (const node of members) {
      // Nodes come in IR order, so every source of a node is ranked before it.
      const sources = (incoming.get(node.id) ?? []).map(s => rank.get(s) ?? -1);
      rank.set(node.id, Math.max(-1, ...sources) + 1);
    }
    const rows: Placed[][] = [];
    for (const node of members) {
      (rows[rank.get(node.id)!] ??= []).push(size(node));
    }
    return rows.filter(row => row !== undefined);
  };
  const layRows = (rows: Placed[][], left: number): number => {
    const rowWidth = (row: Placed[]): number => row.reduce((sum, p) => sum + p.w, 0) + COLUMN_GAP * (row.length - 1);
    const inner = Math.max(0, ...rows.map(rowWidth));
    let y = top;
    for (const row of rows) {
      let x = left + (inner - rowWidth(row)) / 2;
      const height = Math.max(...row.map(p => p.h));
      for (const p of row) {
        p.x = x;
        p.y = y;
        x += p.w + COLUMN_GAP;
        placed.set(p.node.id, p);
      }
      y += height + ROW_GAP;
    }
    return inner;
  };
  for (const func of graph.nodes.values()) {
    if (func.kind !== 'func') {
      continue;
    }
    const members = [...graph.nodes.values()].filter(n => n.parent === func.id);
    const frame = size(func);
    frame.x = FRAME;
    frame.y = top;
    top += LINE + PAD;
    const inner = layRows(rowsOf(members), 2 * FRAME);
    const bottom = Math.max(top, ...members.map(m => (placed.get(m.id)?.y ?? 0) + (placed.get(m.id)?.h ?? 0)));
    frame.w = Math.max(frame.w, inner + 2 * FRAME);
    frame.h = bottom + FRAME - frame.y;
    frames.push(frame);
    width = Math.max(width, frame.x + frame.w);
    top = frame.y + frame.h + ROW_GAP;
  }
  const executables = [...graph.nodes.values()].filter(n => n.kind === 'executable').map(size);
  if (executables.length > 0) {
    width = Math.max(width, layRows([executables], FRAME) + FRAME);
    top += Math.max(...executables.map(p => p.h)) + ROW_GAP;
  }
  // Room on the right for the type on an edge that leaves the rightmost node.
  return { placed, frames, width: width + FRAME + 60, height: top };
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    node.setAttribute(name, String(value));
  }
  return node;
}

export class DispatchPane {
  readonly node: HTMLElement;
  private readonly canvas: HTMLElement;
  private readonly title: HTMLElement;
  /** The step the viewer shows, and the graph last computed (of that step or an earlier one). */
  private step = -2;
  private shownGraph: StepGraph | null = null;
  private selected: string | null = null;
  private shown = false;
  /** The SVG group drawn for each node, by id. */
  private readonly drawn = new Map<string, SVGGElement>();

  constructor(
    private readonly onSelect: (id: string) => void,
    /** The IR after a step, for a graph asked for after the viewer moved its state on. */
    private readonly stateAt: (step: number) => IRState,
    /** The trace's `meta.dispatch`: which ops are dispatches, functions, executables. */
    private readonly hints: DispatchVocabulary
  ) {
    this.title = el('span', { text: 'dispatch graph' });
    const close = el('button', { className: 'pv-button', text: '×', title: 'hide the dispatch graph (D)', attrs: { type: 'button' } });
    close.addEventListener('click', () => this.toggle());
    this.canvas = el('div', { attrs: { style: 'overflow:hidden;flex:1 1 auto;min-height:0;display:flex;justify-content:center' } });
    this.node = el(
      'div',
      {
        className: 'pv-dispatch-pane',
        attrs: {
          role: 'region',
          'aria-label': 'dispatch graph',
          style:
            'position:absolute;left:8px;right:8px;bottom:36px;height:55%;z-index:6;display:none;' +
            'flex-direction:column;background:#fff;border:1px solid #8c959f;border-radius:6px;' +
            'box-shadow:0 4px 12px rgba(0,0,0,.15);font:11px monospace'
        }
      },
      [
        el('div', { attrs: { style: 'display:flex;align-items:center;justify-content:space-between;padding:2px 6px;border-bottom:1px solid #d0d7de;font-weight:bold' } }, [
          this.title,
          close
        ]),
        this.canvas
      ]
    );
  }

  get visible(): boolean {
    return this.shown;
  }

  /** Show or hide the pane. */
  toggle(): void {
    this.shown = !this.shown;
    this.node.style.display = this.shown ? 'flex' : 'none';
    this.render();
  }

  /** Follow the step: `state` is the IR after `step` as the viewer shows it, `selected` its selected op. */
  update(step: number, state: IRState, selected: string | null, before: IRState): void {
    this.step = step;
    this.selected = selected;
    // The viewer's state object moves on with later steps: take the graph now, or when shown.
    if (this.shown && this.shownGraph?.step !== step) {
      this.shownGraph = stepGraph(step, state, step >= 0 ? dispatchGraph(before, this.hints) : null, this.hints);
    }
    this.render();
  }

  /** The graph at the current step. */
  current(): DispatchGraph | null {
    if (this.step < -1) {
      return null;
    }
    if (this.shownGraph?.step !== this.step) {
      // The graph before the step first: the state `stateAt` returns moves on with the next call.
      const previous = this.step >= 0 ? dispatchGraph(this.stateAt(this.step - 1), this.hints) : null;
      this.shownGraph = stepGraph(this.step, this.stateAt(this.step), previous, this.hints);
    }
    return this.shownGraph.graph;
  }

  inspect(): DispatchInspection {
    const graph = this.current();
    const linked = this.linked();
    return {
      available: true,
      visible: this.shown,
      selected: this.selected,
      nodes: [...(graph?.nodes.values() ?? [])].map(n => {
        const rect = this.drawn.get(n.id)?.getBoundingClientRect();
        const box = rect ? { x: rect.left + window.scrollX, y: rect.top + window.scrollY, w: rect.width, h: rect.height } : { x: 0, y: 0, w: 0, h: 0 };
        const status = this.shownGraph?.status.get(n.id) ?? 'unchanged';
        return { id: n.id, kind: n.kind, parent: n.parent, label: n.label, members: [...n.members], status, linked: linked.has(n.id), box };
      }),
      edges: [...(graph?.edges.values() ?? [])].map(e => ({ id: e.id, kind: e.kind, source: e.source, target: e.target, label: e.label }))
    };
  }

  /**
   * What a click on `id` selects: the node, or once it is selected, the node
   * its call edge joins it to (a flow.dispatch's executable, an executable's
   * first caller), so that a second click goes from a dispatch to the code it runs.
   */
  private target(id: string): string {
    const graph = this.current();
    if (graph === null || id !== this.selected) {
      return id;
    }
    return graphCallPartners(graph, id)[0] ?? id;
  }

  /** The selected node and the node its call edge joins it to (a flow.dispatch and its executable). */
  private linked(): Set<string> {
    const graph = this.current();
    if (graph === null || this.selected === null || !graph.nodes.has(this.selected)) {
      return new Set();
    }
    return new Set([this.selected, ...graphCallPartners(graph, this.selected)]);
  }

  private render(): void {
    if (!this.shown) {
      return;
    }
    const graph = this.current();
    this.canvas.replaceChildren();
    this.drawn.clear();
    if (graph === null || this.shownGraph === null) {
      return;
    }
    const dispatches = [...graph.nodes.values()].filter(n => n.kind === 'dispatch').length;
    this.title.textContent = `dispatch graph: ${dispatches} dispatch${dispatches === 1 ? '' : 'es'}`;
    if (graph.nodes.size === 0) {
      const functions = this.hints.function_ops.join(' or ') || 'function';
      this.canvas.appendChild(el('div', { text: `no ${functions} at the top of the module`, attrs: { style: 'padding:8px' } }));
      return;
    }
    const { placed, frames, width, height } = place(this.shownGraph);
    // Drawn at its natural size, shrunk (never grown) to fit the pane.
    const root = svg('svg', { width, height, viewBox: `0 0 ${width} ${height}`, 'font-family': 'monospace', 'font-size': 11, style: 'max-width:100%;max-height:100%' });
    const defs = svg('defs', {});
    const marker = svg('marker', { id: 'pv-dispatch-arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
    marker.appendChild(svg('path', { d: 'M0,0 L10,5 L0,10 z', fill: '#57606a' }));
    defs.appendChild(marker);
    root.appendChild(defs);
    for (const frame of frames) {
      const group = svg('g', { 'data-id': frame.node.id, 'data-kind': 'func' });
      group.appendChild(svg('rect', { x: frame.x, y: frame.y, width: frame.w, height: frame.h, rx: 6, fill: 'none', stroke: STROKE.func, 'stroke-dasharray': '4 3' }));
      const text = svg('text', { x: frame.x + PAD, y: frame.y + LINE, 'font-weight': 'bold', fill: '#57606a' });
      text.textContent = frame.node.label;
      group.appendChild(text);
      root.appendChild(group);
      this.drawn.set(frame.node.id, group);
    }
    for (const edge of graph.edges.values()) {
      const from = placed.get(edge.source);
      const to = placed.get(edge.target);
      if (!from || !to) {
        continue;
      }
      const calls = edge.kind === 'calls';
      const x1 = from.x + from.w / 2;
      const y1 = from.y + from.h;
      const x2 = to.x + to.w / 2;
      const y2 = to.y;
      const line = svg('path', {
        d: `M${x1},${y1} C${x1},${(y1 + y2) / 2} ${x2},${(y1 + y2) / 2} ${x2},${y2}`,
        fill: 'none',
        stroke: calls ? STROKE.executable : '#57606a',
        'stroke-width': calls ? 1.5 : 1.2,
        'marker-end': 'url(#pv-dispatch-arrow)',
        'data-id': edge.id
      });
      if (calls) {
        line.setAttribute('stroke-dasharray', '5 4');
      }
      root.appendChild(line);
      if (edge.label !== '') {
        // Near the source, where edges that meet at one target are still apart: the curve at t = 1/4.
        const label = svg('text', { x: (54 * x1 + 10 * x2) / 64 + 4, y: (45 * y1 + 19 * y2) / 64 + 3, fill: '#57606a', 'font-size': 9 });
        label.textContent = edge.label;
        root.appendChild(label);
      }
    }
    const linked = this.linked();
    for (const p of placed.values()) {
      const marked = linked.has(p.node.id);
      const status = this.shownGraph.status.get(p.node.id);
      const group = svg('g', { 'data-id': p.node.id, 'data-kind': p.node.kind, cursor: 'pointer' });
      group.appendChild(svg('rect', {
        x: p.x,
        y: p.y,
        width: p.w,
        height: p.h,
        rx: p.node.kind === 'dispatch' || p.node.kind === 'executable' ? 4 : 10,
        fill: status !== undefined ? STATUS_FILL[status] : FILL[p.node.kind],
        stroke: marked ? '#1f2328' : STROKE[p.node.kind],
        'stroke-width': marked ? 3 : p.node.kind === 'dispatch' ? 2 : 1
      }));
      p.lines.forEach((line, index) => {
        const text = svg('text', { x: p.x + PAD, y: p.y + PAD / 2 + LINE * (index + 1) - 3, fill: index === 0 ? '#1f2328' : '#57606a' });
        if (index === 0 && (p.node.kind === 'dispatch' || p.node.kind === 'executable')) {
          text.setAttribute('font-weight', 'bold');
        }
        text.textContent = line;
        group.appendChild(text);
      });
      const title = svg('title', {});
      title.textContent = [...p.lines, p.node.kind === 'dispatch' || p.node.kind === 'executable' ? '(click: select; again: go to the executable it calls or its caller)' : ''].join('\n').trim();
      group.appendChild(title);
      group.addEventListener('click', () => this.onSelect(this.target(p.node.id)));
      root.appendChild(group);
      this.drawn.set(p.node.id, group);
    }
    this.canvas.appendChild(root);
  }
}
